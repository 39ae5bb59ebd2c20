"""Space's sample pictures (``python -m render sample --game space``) and its rules picture."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from render import RENDERERS, SEAT_STYLES, space
from render.__main__ import SAMPLES
from render.__main__ import main as render_main

ROOT = Path(__file__).resolve().parent.parent.parent


def test_space_is_registered_for_pictures() -> None:
    assert RENDERERS["space"] is space.render and SEAT_STYLES["space"] is space.SEATS
    assert {"start", "fight", "fight-result", "mid-game", "won-all-planets", "won-no-units"} <= set(
        SAMPLES["space"].names
    )


def test_sample_command_writes_every_space_situation(tmp_path: Path) -> None:
    assert render_main(["sample", "--game", "space", "--out", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(f"space-{name}.png" for name in SAMPLES["space"].names)
    for name in written:
        with Image.open(io.BytesIO((tmp_path / name).read_bytes())) as picture:
            assert picture.format == "PNG" and picture.width == 800


@pytest.mark.slow
def test_the_shipped_rules_picture_is_the_one_the_command_draws(tmp_path: Path) -> None:
    """cogs/rules/space-start.png is current: `python -m render rules --game space --out cogs/rules`."""
    assert render_main(["rules", "--game", "space", "--out", str(tmp_path)]) == 0
    drawn = (tmp_path / "space-start.png").read_bytes()
    assert drawn == (ROOT / "cogs" / "rules" / "space-start.png").read_bytes()

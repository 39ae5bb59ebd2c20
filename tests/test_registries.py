"""One kit per game: every registry keyed by game has the same keys, and shared code names no game.

Adding a game means one engine module, one renderer module, one panel module, a rules page and one
line in each registry below; this test names whatever was forgotten.
"""

from __future__ import annotations

import random
import re
from importlib import resources
from pathlib import Path

import pytest

from cogs.panels import PANELS
from engine import VARIANTS, CorruptStateError, EndReason, Forfeit, Outcome
from engine.ai import players
from engine.ai.players import PLAYERS, NoComputerPlayerError, computer_action
from render import RENDERERS, SEAT_STYLES, NoRendererError, seat_style
from render.__main__ import SAMPLES

ROOT = Path(__file__).resolve().parent.parent


def rules_pages() -> set[str]:
    folder = resources.files("cogs") / "rules"
    return {entry.name.removesuffix(".md") for entry in folder.iterdir() if entry.name.endswith(".md")}


REGISTRIES: dict[str, set[str]] = {
    "engine.VARIANTS": set(VARIANTS),
    "render.RENDERERS": set(RENDERERS),
    "render.SEAT_STYLES": set(SEAT_STYLES),
    "cogs.panels.PANELS": set(PANELS),
    "engine.ai.players.PLAYERS": set(PLAYERS),
    "render.__main__.SAMPLES (python -m render sample)": set(SAMPLES),
    "cogs/rules/<game>.md": rules_pages(),
}


@pytest.mark.parametrize("name", sorted(REGISTRIES))
def test_every_registry_has_exactly_the_registered_games(name: str) -> None:
    games = set(VARIANTS)
    keys = REGISTRIES[name]
    assert keys == games, f"{name}: missing {sorted(games - keys)}, extra {sorted(keys - games)}"


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_each_game_declares_its_two_seats_with_names_and_distinct_looks(key: str) -> None:
    variant = VARIANTS[key]
    assert variant.key == key
    names = variant.seat_names
    assert len(names) == 2 and names[0] != names[1] and all(names)
    styles = SEAT_STYLES[key]
    assert len(styles) == 2 and seat_style(key, 1) is styles[1]
    # Colour and shape both tell the seats apart (colour-blind players read the shape).
    assert styles[0].fill != styles[1].fill and styles[0].shape != styles[1].shape
    assert styles[0].hex == int(bytes(styles[0].fill).hex(), 16)


def test_a_game_without_seat_styles_is_named() -> None:
    with pytest.raises(NoRendererError, match="chess"):
        seat_style("chess", 0)


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_each_game_declares_its_end_reasons_and_reads_them_back(key: str) -> None:
    variant = VARIANTS[key]
    assert issubclass(variant.win_reasons, EndReason) and variant.win_reasons is not Forfeit
    assert len(variant.win_reasons) > 0
    values = [r.value for r in variant.end_reasons]
    assert len(values) == len(set(values)), "a game's own reasons must not reuse a forfeit's key"
    assert set(Forfeit) <= set(variant.end_reasons)
    for reason in variant.end_reasons:
        assert variant.read_reason(reason.value) is reason
        outcome = Outcome(winner=0, reason=reason, description="...")
        again = Outcome.from_json(outcome.to_json(), variant)
        assert again == outcome and again.reason is reason
    with pytest.raises(CorruptStateError, match="'checkmate' is not a way"):
        variant.read_reason("checkmate")
    with pytest.raises(ValueError):
        Outcome.from_json({**outcome.to_json(), "reason": "checkmate"}, variant)


def test_a_game_without_a_computer_player_is_an_error_not_a_random_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = next(iter(VARIANTS.values())).new_game()
    monkeypatch.setattr(players, "PLAYERS", {})
    with pytest.raises(NoComputerPlayerError, match=state.variant_key):
        computer_action(state, random.Random(1))


# Shared code: what serves every game must not name one. Each game's own modules are the exception.
SHARED = [
    *sorted((ROOT / "bot").rglob("*.py")),
    *sorted((ROOT / "cogs").glob("*.py")),
    ROOT / "cogs" / "panels" / "base.py",
    ROOT / "render" / "theme.py",
    ROOT / "render" / "leaderboard.py",
    ROOT / "engine" / "protocol.py",
]


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_code_names_no_game(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for key, variant in VARIANTS.items():
        literal = re.compile(rf"""["']{re.escape(key)}["']""")
        assert not literal.search(text), f"{path.name} names the game {key!r}: take it from the registry"
        if path.parent.name == "render" or path.parent.name == "engine":
            continue  # their docstrings quote a game's sentences as examples
        for seat in variant.seat_names:
            # A seat's name in shared Discord or process code is one game leaking out.
            assert not re.search(rf"\b{re.escape(seat)}\b", text), f"{path.name} names {key}'s seat {seat}"

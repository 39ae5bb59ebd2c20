"""A failing test must not hang the test run: one that fails before closing its bot leaves the store's
SQLite thread running, which the suite's ``pytest_sessionfinish`` stops (else CI would wait out its
cut-off after the failure was already reported)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fakediscord.patience import patient

REPO = Path(__file__).resolve().parents[1]
LEAKY = """
import pytest
from tests.support import start_bot

@pytest.mark.asyncio
async def test_fails_before_closing_its_bot(fake, tmp_path):
    await start_bot(fake, tmp_path / "left-open.sqlite3")
    assert False, "failed on purpose"
"""


def test_a_test_that_fails_before_closing_its_bot_does_not_hang_the_run(tmp_path: Path) -> None:
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
         "-o", "asyncio_default_fixture_loop_scope=function", str(tmp_path / "test_leaky.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=patient(120),
    )  # fmt: skip
    assert done.returncode == 1 and "failed on purpose" in done.stdout, done.stdout + done.stderr

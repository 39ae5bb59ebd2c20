"""Outside references some tests check our work against, and what such a test does without one.

GNU Backgammon (the Debian ``gnubg`` program, which reads our match files back; the ``gnubg`` and
``gnubg-nn`` Python modules, test dependencies) and Discord's OpenAPI description (vendored in
``fakediscord/discord-api-spec/``). An everyday run skips a test whose reference is missing, saying
what to install; CI sets ``REQUIRE_ENV``, under which the same test fails instead, so CI cannot pass
without running them.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

REQUIRE_ENV = "RINGSIDE_REQUIRE_ORACLES"


def missing(reason: str) -> NoReturn:
    """Skip the calling test (or module) because ``reason``; fail it when ``REQUIRE_ENV`` is set."""
    if os.environ.get(REQUIRE_ENV):
        pytest.fail(f"{reason} ({REQUIRE_ENV} is set: this test must run, not skip)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def import_oracle(name: str) -> ModuleType:
    """The module ``name`` (a test dependency), or :func:`missing`."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"{name} is not installed ({exc}); pip install -e '.[test]' installs it")


def gnubg_program() -> str:
    """The path of the GNU Backgammon program, or :func:`missing` (Debian installs it in /usr/games,
    often not on a root's PATH)."""
    found = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")
    if found is None:
        missing("the gnubg program (GNU Backgammon) is not installed: apt-get install gnubg")
    return found


def run_gnubg(command: list[str], stdin: str, home: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run GNU Backgammon (the program, or Python with its module) on ``stdin`` with ``home`` as its
    home; its output as text, whatever its exit status.

    Both read and write their settings in ``~/.gnubg``: a home of the test's own keeps the user's
    settings out of the tests and the tests out of the user's settings, and keeps one run from
    upsetting the next (the module aborts, saving its settings, in a ``~/.gnubg`` the Debian program
    made).
    """
    return subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=home,
        timeout=timeout,
        check=False,
        env={**os.environ, "HOME": str(home)},
    )

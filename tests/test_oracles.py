"""The references some tests check against are there in CI, and their absence cannot pass CI unseen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakediscord import openapi
from tests import oracles

ROOT = Path(__file__).resolve().parents[1]


def test_a_missing_reference_skips_the_everyday_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(oracles.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="gnubg is not installed"):
        oracles.missing("gnubg is not installed")


def test_a_missing_reference_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(oracles.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="gnubg is not installed"):
        oracles.missing("gnubg is not installed")
    with pytest.raises(pytest.fail.Exception, match="no_such_oracle"):
        oracles.import_oracle("no_such_oracle")


def test_ci_installs_gnu_backgammon_and_requires_every_reference() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt-get install" in ci and "gnubg" in ci
    assert f"{oracles.REQUIRE_ENV}=1" in ci


def test_discords_spec_comes_with_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean clone validates against the spec: it is found inside the checkout, with its license and
    where it came from, without anything beside the repository."""
    monkeypatch.delenv(openapi.SPEC_ENV, raising=False)
    path, reason = openapi.find_spec()
    assert path is not None, reason
    assert path.is_relative_to(ROOT / "fakediscord")
    assert json.loads(path.read_text(encoding="utf-8"))["openapi"].startswith("3.1")
    assert "MIT License" in (path.parent / "LICENSE").read_text(encoding="utf-8")
    assert "discord/discord-api-spec" in (path.parent / "README.md").read_text(encoding="utf-8")

"""The fake's waits end when what they wait for happens; their bounds are for faults only, so they are
generous and stretched on a machine that runs slower than an idle one (``fakediscord.patience``)."""

from __future__ import annotations

import pytest

from fakediscord import FakeDiscord, patience


def test_the_default_wait_is_one_a_correct_bot_does_not_reach() -> None:
    """A 3-ply hint on a busy machine took longer than the old fixed 5 s: the default is a minute."""
    assert FakeDiscord().timeout >= 60


def test_every_bound_is_stretched_by_how_slow_the_machine_runs_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RINGSIDE_TEST_SLOWNESS", raising=False)
    monkeypatch.setattr(patience, "_measured", None)
    monkeypatch.setattr(patience, "_work", lambda: 4 * patience.REFERENCE)
    fake = FakeDiscord(timeout=5)
    assert fake.bound() == pytest.approx(20) and fake.bound(2) == pytest.approx(8)
    # Never shorter than asked on a fast machine, never absurd on a hopeless one.
    monkeypatch.setattr(patience, "_measured", None)
    monkeypatch.setattr(patience, "_work", lambda: patience.REFERENCE / 3)
    assert fake.bound() == pytest.approx(5)
    monkeypatch.setattr(patience, "_measured", None)
    monkeypatch.setattr(patience, "_work", lambda: 1000 * patience.REFERENCE)
    assert fake.bound() == pytest.approx(5 * patience.MOST)


def test_the_factor_can_be_set_for_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RINGSIDE_TEST_SLOWNESS", "3")
    assert patience.patient(10) == pytest.approx(30)
    monkeypatch.setenv("RINGSIDE_TEST_SLOWNESS", "0.5")
    assert patience.patient(10) == pytest.approx(10)

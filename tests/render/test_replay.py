"""The replay GIF (``render.replay``): a frame per action (per whole turn where a turn takes several),
from one side, the first and last always shown, and small enough for Discord."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image

from engine import find_variant, replay_states
from engine.ai.random_player import random_action
from engine.backgammon.actions import Double, Pass, Phase, Take
from render.backgammon import bottom_seat
from render.replay import (
    ATTEMPTS,
    GIF_LIMIT,
    Frame,
    ReplayTooLarge,
    SavedMatch,
    chosen_frames,
    match_frames,
    read_progress,
    replay_gif,
)
from render.theme import Caption


def random_log(game: str, seed: int, options: dict[str, object] | None = None) -> list[str]:
    """The action log of a game (or match) of random legal actions played to its end."""
    state = find_variant(game).new_game(options or {})
    rng = random.Random(seed)
    log: list[str] = []
    while not state.is_terminal():
        action = random_action(state, rng)
        log.append(action.notation)
        state = state.apply(action)
    return log


def random_frames(game: str, seed: int) -> list[Frame]:
    log = random_log(game, seed)
    return [
        Frame(s.view(None), Caption(("alice", "bob"))) for s in replay_states(find_variant(game), {}, log)
    ]


def test_chosen_frames_spread_evenly_and_keep_the_first_and_the_last() -> None:
    assert chosen_frames(5, 10) == [0, 1, 2, 3, 4]
    picked = chosen_frames(1001, 11)
    assert picked == list(range(0, 1001, 100))
    assert chosen_frames(7, 2) == [0, 6]
    assert chosen_frames(7, 1) == [6]


def test_a_short_match_gets_a_frame_per_action_under_the_limit() -> None:
    frames = random_frames("ring", 3)
    made = replay_gif(frames)
    assert made.shown == made.total == len(frames)
    gif = Image.open(io.BytesIO(made.data))
    assert gif.format == "GIF" and gif.n_frames == len(frames)
    assert len(made.data) <= GIF_LIMIT
    assert gif.info.get("loop") == 0
    # The first frame is the start, the last the final position: they differ.
    gif.seek(0)
    first = gif.convert("RGB").tobytes()
    gif.seek(gif.n_frames - 1)
    assert gif.convert("RGB").tobytes() != first


@pytest.mark.slow
def test_a_replay_over_the_limit_gets_fewer_and_smaller_frames() -> None:
    frames = random_frames("backgammon", 3)
    full = replay_gif(frames)
    smaller = replay_gif(frames, limit=len(full.data) // 4)
    assert len(smaller.data) <= len(full.data) // 4
    assert smaller.shown < full.shown
    assert Image.open(io.BytesIO(smaller.data)).width < Image.open(io.BytesIO(full.data)).width
    with pytest.raises(ReplayTooLarge):
        replay_gif(frames, limit=1000)


def test_no_frames_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one frame"):
        replay_gif([])


def _backgammon_match(seed: int, length: int = 3) -> tuple[dict[str, object], list[str]]:
    """A random backgammon match (cube actions included) played to its end."""
    options: dict[str, object] = {"length": length}
    return options, random_log("backgammon", seed, options)


def test_replay_of_backgammon_one_fixed_side_and_one_frame_per_whole_play_and_cube_action() -> None:
    options, log = _backgammon_match(4)
    variant = find_variant("backgammon")
    frames = match_frames(SavedMatch("backgammon", options, tuple(log), ("Alice", "Bob")))
    # What a frame is owed: every finished play (or roll that could not be played) and cube action.
    owed = ["Start"]
    states = list(replay_states(variant, options, log))
    for before, after, text in zip(states, states[1:], log, strict=False):
        action = variant.parse_action(before, text)
        finished_play = after.phase is not Phase.PLAY and (before.phase is Phase.PLAY or "roll" in text)
        cube = isinstance(action, Double | Take | Pass)
        if (finished_play and after.last_text) or cube or after is states[-1]:
            owed.append(after.last_text or "")
    assert [f.label.split(" · ", 1)[-1] for f in frames] == owed
    assert any(isinstance(variant.parse_action(s, t), Double) for s, t in zip(states, log, strict=False))
    # The first player (seat 0) is always at the bottom: the board never turns round.
    assert {bottom_seat(f.view) for f in frames} == {0}  # type: ignore[arg-type]
    # The strip says where each frame is as players count it, never "Action N of M".
    assert all(f.label.startswith(("Start", "Game 1, move ")) for f in frames)
    assert frames[1].label.startswith("Game 1, move 1 · ") and "Action" not in " ".join(
        f.label for f in frames
    )


def test_replay_of_a_long_match_drops_whole_turns_evenly_and_notes_its_progress(tmp_path: Path) -> None:
    options, log = _backgammon_match(5, length=5)
    saved = SavedMatch("backgammon", options, tuple(log), ("Alice", "Bob"))
    frames = match_frames(saved)
    progress = str(tmp_path / "progress")
    assert read_progress(progress) is None
    made = replay_gif(frames, progress=progress)
    assert made.total == len(frames)
    drawn = read_progress(progress)
    assert drawn is not None and drawn[0] == drawn[1] == min(len(frames), ATTEMPTS[0][0])

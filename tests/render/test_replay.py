"""The replay GIF (``render.replay``): a frame per action, the first and last always shown, and small
enough for Discord."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from engine import find_variant, replay_states
from engine.ai.random_player import random_action
from render.replay import GIF_LIMIT, Frame, ReplayTooLarge, chosen_frames, replay_gif
from render.theme import Caption


def random_frames(game: str, seed: int) -> list[Frame]:
    variant = find_variant(game)
    state = variant.new_game()
    rng = random.Random(seed)
    log: list[str] = []
    while not state.is_terminal():
        action = random_action(state, rng)
        log.append(action.notation)
        state = state.apply(action)
    return [Frame(s.view(None), Caption(("alice", "bob"))) for s in replay_states(variant, {}, log)]


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

"""Space computer players (issue 12): every choice is one of the view's legal actions, they read only
their seat's view, and they are stronger in the expected order."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.ai import space_greedy, space_levels
from engine.ai.random_player import random_choice, sample_outcome
from engine.protocol import Action, GameView
from engine.space.game import SpaceState, SpaceView
from engine.space.variant import VARIANT

Player = Callable[[GameView, random.Random], Action]
PLAYERS: dict[str, Player] = {
    "greedy": space_greedy.choose,
    "easy": space_levels.easy,
    "hard": space_levels.hard,
}


def play(first: Player, second: Player, seed: int, max_actions: int = 20_000) -> int | None:
    """One game between two players from their own views; the winner's seat."""
    rng = random.Random(seed)
    state: SpaceState = VARIANT.new_game()
    players = (first, second)
    for _ in range(max_actions):
        outcome = state.outcome()
        if outcome is not None:
            return outcome.winner
        spec = state.chance()
        if spec is not None:
            state = state.apply(state.chance_action(sample_outcome(spec, rng)))
            continue
        seat = state.to_move()
        view = state.view(seat)
        action = players[seat](view, rng)
        assert action in view.legal_actions(), f"{action} is not legal: {state.phase_text}"
        state = state.apply(action)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_every_choice_is_legal_through_whole_games(name: str) -> None:
    for seed in range(2):
        play(PLAYERS[name], random_choice, seed)
        play(random_choice, PLAYERS[name], seed + 10)


def test_the_players_read_a_view_that_holds_no_opponent_card() -> None:
    seen: list[SpaceView] = []

    def spy(view: GameView, rng: random.Random) -> Action:
        assert isinstance(view, SpaceView)
        seen.append(view)
        return space_levels.hard(view, rng)

    play(spy, random_choice, 3)
    assert seen and all(v.viewer == 0 for v in seen)
    assert all(not hasattr(v, "hands") and not hasattr(v, "deck") for v in seen)


@pytest.mark.slow
def test_greedy_beats_random_and_hard_beats_greedy_in_seeded_games() -> None:
    greedy_wins = sum(
        (play(space_greedy.choose, random_choice, s) == 0)
        + (play(random_choice, space_greedy.choose, s) == 1)
        for s in range(3)
    )
    assert greedy_wins == 6
    hard_wins = sum(
        (play(space_levels.hard, space_greedy.choose, s) == 0)
        + (play(space_greedy.choose, space_levels.hard, s) == 1)
        for s in range(3)
    )
    assert hard_wins >= 4, "hard wins most of six seeded games against greedy"


def test_hard_counts_its_attack_cards_as_force_it_can_add() -> None:
    from engine.space import cards as C
    from engine.space.game import Phase
    from tests.engine.space_helpers import make_state

    bare = make_state({"E5": 10, "T1": 8}, home=("E1",), phase=Phase.MOVE, dice=(2, 6))
    armed = make_state(
        {"E5": 10, "T1": 8},
        home=("E1",),
        hands=((C.NOVA_BOMB, C.DISRUPTOR_CANNON), ()),
        phase=Phase.MOVE,
        dice=(2, 6),
    )
    assert space_levels._fight_bonus(bare.view(0), 0)[0] == 0
    assert space_levels._fight_bonus(armed.view(0), 0)[0] == 8

"""The look-ahead's bare-position turns (engine/ai/ring_turns.py) agree with the engine's rules."""

from __future__ import annotations

import random
from itertools import product

from engine.ai import ring_levels, ring_turns
from engine.ai.random_player import random_action, random_choice
from engine.ring import VARIANT, Phase, RingState, Roll


def _engine_ends(state: RingState, roll: Roll) -> ring_turns.Ends:
    """Where the engine lets the turn end after ``roll``, each end with its winner."""
    seat = state.turn_seat
    rolled = state.apply(roll)

    def entry(end: RingState) -> tuple[tuple[tuple[int, ...], tuple[int, int]], int | None]:
        outcome = end.outcome()
        return (end.board, end.piles), (outcome.winner if outcome is not None else None)

    if rolled.outcome() is not None or rolled.to_move() != seat:
        return dict([entry(rolled)])
    return dict(entry(end) for _, end in ring_levels.turn_plans(rolled))


def _positions_to_roll(games: int, seed: int) -> list[RingState]:
    rng = random.Random(seed)
    found: list[RingState] = []
    for _ in range(games):
        state = VARIANT.new_game()
        while state.outcome() is None:
            if state.phase is Phase.ROLL:
                found.append(state)
            state = state.apply(random_action(state, rng))
    return found


def test_every_roll_ends_where_the_engine_ends_the_turn() -> None:
    # Triples (placed, capturing, blocked by three), odds and evens (with and without stacks to
    # swap or knock), doubles (placed or blocked), moves under the must-move rule and wins on the way
    # (rulings 3 to 12): from positions of random games, every roll for some and one roll of each
    # class (ring_levels.ROLL_CLASSES, shown elsewhere to play alike) for the others.
    positions = _positions_to_roll(20, 5)
    assert len(positions) > 100
    every_roll = list(product(range(1, 7), repeat=3))
    classes = [roll.values for roll, _ in ring_levels.ROLL_CLASSES]
    for index, state in enumerate(positions):
        assert state.turn_seat is not None
        for w1, w2, black in every_roll if index % 20 == 0 else classes:
            fast = ring_turns.roll_ends(state.board, state.piles, state.turn_seat, w1, w2, black)
            assert fast == _engine_ends(state, Roll(w1, w2, black)), (
                state.board,
                state.piles,
                (w1, w2, black),
            )


def test_a_win_on_the_first_die_ends_the_turn_with_the_other_die_unplayed() -> None:
    # Ruling 12: Red on 2, 4, 5 and 6 with 1 and 3: moving 2 to 3 wins although it strands the 3.
    board = [0] * 12
    for space in (2, 4, 5, 6):
        board[space - 1] = 1
    board[10 - 1] = -1
    ends = ring_turns.roll_ends(tuple(board), (8, 11), 0, 1, 3, 4)
    won = [position for position, winner in ends.items() if winner == 0]
    assert won
    state = RingState(board=tuple(board), piles=(8, 11), phase=Phase.ROLL, turn_seat=0, turn_number=5)
    assert ends == _engine_ends(state, Roll(1, 3, 4))


def test_winner_checks_the_mover_first() -> None:
    # Ruling 10: a swap can complete both sides' shapes; the player on turn wins.
    board = (1, 1, 1, 1, -1, -1, -1, -1, 1, -1, 0, 0)
    # Red holds 1-4 and 9, Blue 5-8 and 10: swapping Red's 9 with Blue's 5 gives Red 1-5 (five in a
    # row) and Blue 6-9 (the quarter 6, 7, 8, 9).
    swapped = (1, 1, 1, 1, 1, -1, -1, -1, -1, -1, 0, 0)
    assert ring_turns.winner(swapped, 0) == 0
    assert ring_turns.winner(swapped, 1) == 1
    assert ring_turns.winner(board, 0) is None


def test_a_random_turn_on_a_bare_position_is_the_random_players_turn_in_the_engine() -> None:
    # The rollouts of bench/ring_headroom.py play the random player on bare positions: with the same
    # seed, every decision (swap, knock-out, each step of a move) must draw the same action the
    # engine's random player draws, so the turn ends in the same place with the same winner.
    rng = random.Random(8)
    positions = _positions_to_roll(40, 9)
    assert len(positions) > 200
    for index, state in enumerate(positions):
        assert state.turn_seat is not None
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
        engine_rng, bare_rng = random.Random(index), random.Random(index)
        played = state.apply(roll)
        while (
            played.outcome() is None
            and played.to_move() == state.turn_seat
            and played.phase is not Phase.ROLL
        ):
            played = played.apply(random_choice(played.view(state.turn_seat), engine_rng))
        board, piles, won = ring_turns.random_turn(
            state.board, state.piles, state.turn_seat, *roll.values, bare_rng
        )
        outcome = played.outcome()
        assert (board, piles, won) == (played.board, played.piles, outcome.winner if outcome else None), (
            state.board,
            state.piles,
            roll,
        )
        assert bare_rng.random() == engine_rng.random()  # as many draws as the engine's player made

"""Every rule of the ring rules text and of RULINGS.md (ring), each test named after its rule."""

from __future__ import annotations

import json
import random

import pytest

from engine import CHANCE, IllegalActionError, find_variant
from engine.ai.random_player import random_action
from engine.errors import CorruptStateError, GameOverError, NotationError
from engine.ring import (
    WIN_CONDITIONS,
    Knock,
    Move,
    Opening,
    Phase,
    RingState,
    RingWin,
    Roll,
    Swap,
    winning_condition,
)

RING = find_variant("ring")
RED, BLUE = 0, 1


def position(stacks: dict[int, int], turn: int = RED, phase: Phase = Phase.ROLL, **kw: object) -> RingState:
    """A ring position from {space: signed count} (positive Red, negative Blue); piles hold the rest."""
    board = tuple(stacks.get(s, 0) for s in range(1, 13))
    red = sum(v for v in board if v > 0)
    blue = -sum(v for v in board if v < 0)
    piles = kw.pop("piles", (12 - red, 12 - blue))
    return RingState(board=board, piles=piles, phase=phase, turn_seat=turn, turn_number=5, **kw)  # type: ignore[arg-type]


def moving(stacks: dict[int, int], dice: tuple[int, int], turn: int = RED) -> RingState:
    """A position in the move phase with two white dice to play."""
    return position(stacks, turn=turn, phase=Phase.MOVE, dice=(dice[0], dice[1], 1), dice_left=dice)


# -- setup and who starts (rule text: set-up; ruling 2) -------------------------------------------


def test_setup_red_on_7_9_11_blue_on_8_10_12_nine_in_each_pile() -> None:
    state = RING.new_game()
    assert state.board == (0, 0, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1)
    assert state.piles == (9, 9)
    assert state.phase is Phase.OPENING and state.turn is None


def test_who_starts_higher_opening_die_starts() -> None:
    state = RING.new_game()
    assert state.to_move() == CHANCE
    assert state.apply(Opening(2, 5)).turn == BLUE
    assert state.apply(Opening(6, 1)).turn == RED


def test_who_starts_ties_roll_again() -> None:
    state = RING.new_game().apply(Opening(4, 4))
    assert state.phase is Phase.OPENING and state.turn is None
    assert "roll again" in (state.last_text or "")
    assert state.apply(Opening(3, 1)).turn == RED


def test_who_starts_the_starter_then_takes_a_normal_turn() -> None:
    state = RING.new_game().apply(Opening(5, 2))
    assert state.phase is Phase.ROLL and state.turn == RED
    spec = state.chance()
    assert spec is not None and spec.count == 3 and spec.prompt_seat == RED


# -- triples (rule text: roll phase; ruling 4) ---------------------------------------------------


def test_triples_place_two_tokens_on_the_space_and_end_the_turn() -> None:
    state = position({7: 1, 8: -1}).apply(Roll(5, 5, 5))
    assert state.stack(5) == (RED, 2)
    assert state.piles == (9, 11)
    assert state.turn == BLUE and state.phase is Phase.ROLL
    assert state.last_text == "Red rolled 5-5-5 (triples): two tokens placed on 5."


def test_triples_capture_one_or_two_enemy_tokens() -> None:
    for enemy in (1, 2):
        state = position({5: -enemy, 7: 1}).apply(Roll(5, 5, 5))
        assert state.stack(5) == (RED, 2)
        assert state.piles == (12 - 3, 12)
        assert f"capturing {enemy}" in (state.last_text or "")


def test_triples_merge_with_own_stack() -> None:
    state = position({5: 2, 8: -1}).apply(Roll(5, 5, 5))
    assert state.stack(5) == (RED, 4)


def test_triples_blocked_by_three_enemy_tokens_go_to_place_then_move_phase() -> None:
    state = position({5: -3, 7: 1, 9: -1}).apply(Roll(5, 5, 5))
    # Blocked placement: the place phase sees doubles 5-5 on a space with 2+ enemy: blocked too.
    assert state.stack(5) == (BLUE, 3)
    assert state.phase is Phase.MOVE and state.dice_left == (5, 5)
    assert "blocked" in (state.last_text or "")


def test_triples_short_pile_places_what_there_is() -> None:
    state = position({1: 3, 2: 3, 3: 3, 4: 2, 9: -1}).apply(Roll(6, 6, 6))
    assert state.piles[RED] == 0
    assert state.stack(6) == (RED, 1)
    assert "one token placed on 6" in (state.last_text or "")


def test_triples_empty_pile_places_nothing_and_goes_to_move_phase() -> None:
    state = position({1: 4, 2: 4, 3: 4, 10: -1}).apply(Roll(6, 6, 6))
    assert state.stack(6) == (None, 0)
    assert state.phase is Phase.MOVE and state.dice_left == (6, 6)
    assert "no token left in the pile" in (state.last_text or "")


# -- odds (ruling 5) -------------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [(1, 3, 5), (5, 3, 1), (3, 5, 1)])
def test_odds_any_order_and_colour_lets_the_player_swap(dice: tuple[int, int, int]) -> None:
    state = position({7: 2, 8: -3, 10: -1}).apply(Roll(*dice))
    assert state.phase is Phase.SWAP and state.to_move() == RED
    assert set(state.legal_actions()) == {Swap(7, 8), Swap(7, 10)}


def test_odds_swap_exchanges_the_two_stacks_and_ends_the_turn() -> None:
    state = position({7: 2, 8: -3, 10: -1}).apply(Roll(1, 3, 5)).apply(Swap(7, 8))
    assert state.stack(7) == (BLUE, 3) and state.stack(8) == (RED, 2)
    assert state.turn == BLUE and state.phase is Phase.ROLL


def test_odds_without_an_enemy_stack_ends_the_turn() -> None:
    state = position({7: 2}, piles=(10, 12)).apply(Roll(1, 3, 5))
    # Blue has no token on the board; Red had already won before the roll in a real game, so this
    # only checks the roll itself: with no enemy stack there is nothing to swap.
    assert state.phase in (Phase.ROLL, Phase.OVER)
    assert "need a stack" in (state.last_text or "")


def test_odds_without_an_own_stack_ends_the_turn() -> None:
    state = position({8: -2}, turn=RED).apply(Roll(5, 1, 3))
    assert "need a stack" in (state.last_text or "")
    assert state.phase is not Phase.SWAP


def test_odds_swap_of_a_stack_not_your_own_is_refused() -> None:
    state = position({7: 2, 8: -3}).apply(Roll(1, 3, 5))
    with pytest.raises(IllegalActionError, match="no stack on 8 to swap"):
        state.apply(Swap(8, 7))
    with pytest.raises(IllegalActionError, match="Blue has no stack on 3"):
        state.apply(Swap(7, 3))


# -- evens (ruling 6) ------------------------------------------------------------------------------


def test_evens_knock_an_enemy_stack_back_to_its_pile() -> None:
    state = position({7: 2, 8: -3, 10: -1}).apply(Roll(6, 2, 4))
    assert state.phase is Phase.KNOCK
    assert set(state.legal_actions()) == {Knock(8), Knock(10)}
    after = state.apply(Knock(8))
    assert after.stack(8) == (None, 0)
    assert after.piles == (10, 11)
    assert after.turn == BLUE


def test_evens_without_an_enemy_stack_ends_the_turn() -> None:
    state = position({7: 2}, turn=RED).apply(Roll(2, 4, 6))
    assert "no stack to knock out" in (state.last_text or "")


def test_evens_knocking_out_the_last_enemy_stack_wins() -> None:
    state = position({7: 2, 8: -3}).apply(Roll(2, 4, 6)).apply(Knock(8))
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == RED and outcome.reason == "all-captured"


# -- place phase with doubles (ruling 7) ---------------------------------------------------------


def test_doubles_place_one_token_and_end_the_turn() -> None:
    state = position({7: 1, 8: -1}).apply(Roll(3, 3, 5))
    assert state.stack(3) == (RED, 1)
    assert state.piles[RED] == 10
    assert state.turn == BLUE


def test_doubles_capture_one_enemy_token() -> None:
    state = position({3: -1, 7: 1, 8: -1}).apply(Roll(3, 3, 6))
    assert state.stack(3) == (RED, 1)
    assert state.piles == (10, 11)
    assert "capturing 1" in (state.last_text or "")


def test_doubles_blocked_by_two_enemy_tokens_move_with_both_white_dice() -> None:
    state = position({3: -2, 7: 1, 9: -1}).apply(Roll(3, 3, 6))
    assert state.stack(3) == (BLUE, 2)
    assert state.phase is Phase.MOVE and state.dice_left == (3, 3)


def test_doubles_with_an_empty_pile_move_instead() -> None:
    state = position({1: 6, 2: 6, 9: -1}).apply(Roll(4, 4, 2))
    assert state.phase is Phase.MOVE and state.dice_left == (4, 4)


def test_black_die_is_ignored_after_the_roll_phase() -> None:
    state = position({7: 1, 9: -1}).apply(Roll(2, 3, 6))
    assert state.phase is Phase.MOVE and sorted(state.dice_left) == [2, 3]


# -- move phase (ruling 8) -----------------------------------------------------------------------


def test_move_part_of_a_stack() -> None:
    state = moving({7: 3, 1: -1}, (2, 5)).apply(Move(7, 2, 2))
    assert state.stack(7) == (RED, 1) and state.stack(9) == (RED, 2)
    assert state.dice_left == (5,)


def test_move_clockwise_past_12_to_1() -> None:
    state = moving({11: 1, 5: -1}, (3, 1)).apply(Move(11, 1, 3))
    assert state.stack(2) == (RED, 1)


def test_move_the_same_tokens_with_both_dice() -> None:
    state = moving({7: 2, 1: -1}, (2, 3)).apply(Move(7, 2, 2)).apply(Move(9, 2, 3))
    assert state.stack(12) == (RED, 2)
    assert state.turn == BLUE


def test_move_merges_with_own_stack() -> None:
    state = moving({7: 2, 9: 1, 1: -1}, (2, 1)).apply(Move(7, 2, 2))
    assert state.stack(9) == (RED, 3)


def test_move_passes_over_any_stack() -> None:
    state = moving({7: 1, 8: -5, 1: -1}, (2, 1)).apply(Move(7, 1, 2))
    assert state.stack(9) == (RED, 1) and state.stack(8) == (BLUE, 5)


def test_capture_by_a_group_at_least_as_large() -> None:
    equal = moving({7: 2, 10: -2, 1: -1}, (3, 1)).apply(Move(7, 2, 3))
    assert equal.stack(10) == (RED, 2) and equal.piles[BLUE] == 12 - 1
    larger = moving({7: 3, 10: -2, 1: -1}, (3, 1)).apply(Move(7, 3, 3))
    assert larger.stack(10) == (RED, 3)
    assert "capturing 2" in (larger.last_text or "")


def test_illegal_landing_on_a_larger_enemy_stack() -> None:
    state = moving({7: 3, 10: -2, 1: -1}, (3, 1))
    assert Move(7, 1, 3) not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="cannot land on 10: Blue's stack there is larger"):
        state.apply(Move(7, 1, 3))


def test_move_refuses_a_die_not_rolled_and_a_stack_not_owned() -> None:
    state = moving({7: 3, 10: -2}, (3, 1))
    with pytest.raises(IllegalActionError, match="no 5 to play"):
        state.apply(Move(7, 1, 5))
    with pytest.raises(IllegalActionError, match="no stack on 10"):
        state.apply(Move(10, 1, 3))
    with pytest.raises(IllegalActionError, match="has 3 tokens, so you cannot move 4"):
        state.apply(Move(7, 4, 3))


# -- must move (ruling 9) and passing (ruling 11) -----------------------------------------------


def test_must_move_both_dice_when_any_sequence_uses_both() -> None:
    # Red: single tokens on 1 and 8. Blue: 2 on 2, 2 on 3, 2 on 10. Dice 4 and 2.
    # The 2 cannot be played now (1->3 and 8->10 are blocked). 8->12 by 4 leaves it unplayable
    # (12->2 and 1->3 blocked); 1->5 by 4 lets the 2 follow (5->7). So only 1->5 is allowed.
    state = moving({1: 1, 8: 1, 2: -2, 3: -2, 10: -2}, (4, 2))
    assert state.legal_actions() == (Move(1, 1, 4),)
    with pytest.raises(IllegalActionError, match="must play both dice"):
        state.apply(Move(8, 1, 4))
    after = state.apply(Move(1, 1, 4))
    assert after.legal_actions() == (Move(5, 1, 2),)


def test_must_move_any_order_that_uses_both_dice_is_allowed() -> None:
    state = moving({3: 1, 8: -2, 9: -1, 12: -1}, (4, 2))
    # 4 then 2: 3->7->9 (captures 1). 2 then 4: 3->5->9. Both orders use both dice.
    assert set(state.legal_actions()) == {Move(3, 1, 4), Move(3, 1, 2)}


def test_must_move_second_die_is_played_when_possible() -> None:
    state = moving({7: 1, 1: -1}, (2, 3)).apply(Move(7, 1, 2))
    assert state.phase is Phase.MOVE and state.dice_left == (3,)
    assert state.legal_actions() == (Move(9, 1, 3),)


def test_must_move_when_only_one_die_can_be_used_either_may_be_chosen() -> None:
    # Red's token on 1: by 3 lands on 4 (then 5 to 9: Blue 3 blocks); by 5 lands on 6 (then 3 to 9 blocked).
    state = moving({1: 1, 9: -3, 4: -1, 6: -1}, (3, 5))
    assert set(state.legal_actions()) == {Move(1, 1, 3), Move(1, 1, 5)}
    after = state.apply(Move(1, 1, 5))
    assert after.turn == BLUE
    assert "No legal move for the 3" in (after.last_text or "")


def test_a_winning_step_is_always_legal_even_when_another_sequence_uses_both_dice() -> None:
    # Ruling 12. Red: single tokens on 8, 9, 10 and 11. Blue: 2 each on 2, 3, 4 and 5. Dice 4 and 5.
    # 8->12 by 4 wins at once (spaces 9, 10, 11 and 12) but leaves the 5 unplayable (every Red stack
    # would land on a Blue 2); 8->1 by 5 then 9->1 by 4 uses both dice. The win is allowed anyway.
    state = moving({8: 1, 9: 1, 10: 1, 11: 1, 2: -2, 3: -2, 4: -2, 5: -2}, (4, 5))
    assert Move(8, 1, 4) in state.legal_actions()
    assert Move(8, 1, 5) in state.legal_actions()
    won = state.apply(Move(8, 1, 4))
    outcome = won.outcome()
    assert outcome is not None and outcome.winner == RED and outcome.reason == "spaces-9-10-11-12"
    assert won.phase is Phase.OVER and won.legal_actions() == ()


def test_no_legal_move_passes_the_move_phase() -> None:
    state = position({1: 1, 3: -2, 4: -2, 9: -1}).apply(Roll(2, 3, 5))
    assert state.turn == BLUE and state.phase is Phase.ROLL
    assert "no legal move" in (state.last_text or "")


def test_wrong_phase_actions_are_refused_with_a_reason() -> None:
    state = position({7: 2, 8: -1})
    with pytest.raises(IllegalActionError, match="must roll the dice first"):
        state.apply(Move(7, 1, 2))
    rolled = state.apply(Roll(2, 3, 4))
    with pytest.raises(IllegalActionError, match="already been rolled"):
        rolled.apply(Roll(1, 1, 1))


# -- winning (ruling 10) ---------------------------------------------------------------------------


def test_win_capture_all_opponent_tokens() -> None:
    state = moving({7: 2, 10: -2}, (3, 1)).apply(Move(7, 2, 3))
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == RED and outcome.reason == "all-captured"
    assert state.phase is Phase.OVER


def test_win_occupy_any_nine_spaces() -> None:
    # Red on 8 spaces with no quarter and no five in a row; 10 holds 2 tokens.
    spaces = {1: 1, 3: 1, 4: 1, 6: 1, 7: 1, 9: 1, 10: 2, 12: 1}
    state = moving({**spaces, 2: -1, 5: -1, 8: -1, 11: -1}, (1, 3))
    found = winning_condition(state.board, RED)
    assert found is None
    after = state.apply(Move(10, 1, 1))  # one of two tokens 10 -> 11 captures: Red on 9 spaces
    outcome = after.outcome()
    assert outcome is not None and outcome.reason == "nine-spaces", outcome


@pytest.mark.parametrize(
    ("spaces", "key"),
    [
        ((12, 1, 2, 3), "spaces-12-1-2-3"),
        ((3, 4, 5, 6), "spaces-3-4-5-6"),
        ((6, 7, 8, 9), "spaces-6-7-8-9"),
        ((9, 10, 11, 12), "spaces-9-10-11-12"),
    ],
)
def test_win_occupy_a_quarter(spaces: tuple[int, ...], key: str) -> None:
    board = [0] * 12
    for s in spaces:
        board[s - 1] = 1
    blue = next(s for s in range(1, 13) if s not in spaces and (s % 12) + 1 not in spaces)
    board[blue - 1] = -1
    found = winning_condition(board, RED)
    assert found is not None and found[0].key == key


def test_win_five_in_a_row() -> None:
    board = [0] * 12
    for s in (2, 3, 4, 5):
        board[s - 1] = 1
    board[9] = -1
    assert winning_condition(board, RED) is None
    board[0] = 1  # 1..5: contains 3,4,5 but not 6; not a quarter; five in a row
    found = winning_condition(board, RED)
    assert found is not None and found[0].key == "five-in-a-row"
    assert "1 to 5" in found[1]


def test_win_five_in_a_row_across_12_and_1() -> None:
    board = [0] * 12
    for s in (11, 12, 1, 2):
        board[s - 1] = -1
    board[5] = 1
    assert winning_condition(board, BLUE) is None
    board[9] = -1  # 10, 11, 12, 1, 2
    found = winning_condition(board, BLUE)
    assert found is not None and found[0].key == "five-in-a-row" and "10 to 2" in found[1]


def test_win_checked_after_every_board_change_mid_turn() -> None:
    # Red wins with the first die (a quarter 3-4-5-6 completed) before playing the second.
    state = moving({3: 1, 4: 1, 5: 1, 2: 1, 11: -1}, (4, 1)).apply(Move(2, 1, 4))
    outcome = state.outcome()
    assert outcome is not None and outcome.reason == "spaces-3-4-5-6"
    with pytest.raises(GameOverError):
        state.apply(Move(6, 1, 1))


def test_win_order_player_on_turn_is_checked_first() -> None:
    # A swap that gives both players a winning position: the player on turn (Red) wins.
    # Blue holds 10,11,12,1 and its 2 sits on Red's... after swapping Red's stack on 2 with Blue's on 5,
    # Blue has 10,11,12,1,2 (five in a row) and Red has 3,4,5,6 (a quarter).
    stacks = {3: 1, 4: 1, 6: 1, 2: 1, 5: -1, 10: -1, 11: -1, 12: -1, 1: -1}
    state = position(stacks, phase=Phase.SWAP, dice=(1, 3, 5))
    after = state.apply(Swap(2, 5))
    assert winning_condition(after.board, BLUE) is not None
    outcome = after.outcome()
    assert outcome is not None and outcome.winner == RED and outcome.reason == "spaces-3-4-5-6"


def test_win_order_opponent_is_checked_too() -> None:
    # A swap that completes only the opponent's row: the opponent wins at once.
    stacks = {9: 1, 5: 1, 7: 1, 2: -1, 10: -1, 11: -1, 12: -1}
    state = position(stacks, phase=Phase.SWAP, dice=(1, 3, 5))
    after = state.apply(Swap(9, 2))
    outcome = after.outcome()
    assert outcome is not None and outcome.winner == BLUE and outcome.reason == "spaces-9-10-11-12"


def test_win_condition_order_follows_the_rules_text() -> None:
    # Nine spaces that also contain a quarter and five in a row: reported as nine spaces (listed first).
    board = [1, 1, 1, 1, 1, 1, 1, 1, 1, -1, 0, 0]
    found = winning_condition(board, RED)
    assert found is not None and found[0].key == "nine-spaces"


# -- notation and descriptions ------------------------------------------------------------------


def test_notation_round_trips_for_every_action_kind() -> None:
    state = RING.new_game()
    for action in (Opening(3, 5), Roll(5, 5, 2), Swap(7, 8), Knock(8), Move(7, 2, 3)):
        assert RING.parse_action(state, action.notation) == action


@pytest.mark.parametrize("text", ["", "roll 7-1-1", "move 0 from 7 by 3x", "swap 13 1", "knock", "fly 3"])
def test_malformed_notation_is_refused_with_a_clear_message(text: str) -> None:
    with pytest.raises(NotationError):
        RING.parse_action(RING.new_game(), text)


def test_describe_says_what_an_action_does_in_words() -> None:
    state = moving({7: 3, 1: -1}, (4, 2))
    assert state.describe(Move(7, 2, 4)) == "move 2 of your 3 tokens from 7 to 11 (die 4)"
    assert state.describe(Move(7, 3, 4)) == "move all 3 of your tokens from 7 to 11 (die 4)"
    assert state.describe(Roll(5, 5, 2)) == "roll 5-5-2"
    swap = position({7: 2, 8: -3}, phase=Phase.SWAP, dice=(1, 3, 5))
    assert swap.describe(Swap(7, 8)) == "swap your stack of 2 on 7 with Blue's stack of 3 on 8"


def test_each_way_to_win_is_one_member_of_the_ring_reasons() -> None:
    assert [c.key for c in WIN_CONDITIONS] == list(RingWin)  # in the order of the rules text
    assert find_variant("ring").win_reasons is RingWin


# -- the turn's events (what the board picture shows of the previous turn) --------------------------


def two_step_turn() -> tuple[RingState, RingState]:
    """Red rolls 4-6-1 and moves 7 -> 11 (onto its own token) and then that stack 11 -> 5."""
    rolled = RING.new_game().apply(Opening(5, 2)).apply(Roll(4, 6, 1))
    assert isinstance(rolled, RingState)
    done = rolled.apply(Move(7, 1, 4)).apply(Move(11, 2, 6))
    assert isinstance(done, RingState)
    return rolled, done


def test_turn_events_hold_the_roll_and_both_steps_in_order_with_their_origins() -> None:
    rolled, done = two_step_turn()
    assert done.turn == BLUE and done.phase is Phase.ROLL  # the turn has been handed over
    assert [e.notation for e in done.turn_events] == [
        "roll 4-6-1",
        "move 1 from 7 by 4",
        "move 2 from 11 by 6",
    ]
    assert all(e.seat == RED for e in done.turn_events)
    first, second = done.turn_events[1:]
    assert [(m.kind.value, m.space, m.count) for m in first.marks] == [("from", 7, 1), ("to", 11, 1)]
    assert [(m.kind.value, m.space, m.count) for m in second.marks] == [("from", 11, 2), ("to", 5, 2)]
    # ``last`` and ``last_text`` stay the latest action alone.
    assert done.last == done.turn_events[-1]
    assert done.last_text == "Red moved 2 tokens from 11 to 5."
    assert rolled.turn_events == (rolled.last,)


def test_turn_events_start_afresh_with_the_next_roll() -> None:
    _, done = two_step_turn()
    blue = done.apply(Roll(2, 3, 6))
    assert isinstance(blue, RingState)
    assert [e.notation for e in blue.turn_events] == ["roll 2-3-6"]
    assert blue.turn_events[0].seat == BLUE
    opening = RING.new_game().apply(Opening(4, 4))
    assert isinstance(opening, RingState)
    assert [e.notation for e in opening.turn_events] == ["start 4-4"]
    started = opening.apply(Opening(6, 1))
    assert isinstance(started, RingState)
    assert [e.notation for e in started.turn_events] == ["start 6-1"]


def test_turn_events_end_with_the_last_action_at_every_step_of_random_games() -> None:
    for seed in range(1, 13):
        rng = random.Random(seed)
        state = RING.new_game()
        while state.outcome() is None:
            action = random_action(state, rng)
            after = state.apply(action)
            assert isinstance(state, RingState) and isinstance(after, RingState)
            assert after.last is not None and after.turn_events[-1] == after.last
            if isinstance(action, Opening | Roll):
                assert after.turn_events == (after.last,)
            else:
                assert after.turn_events[:-1] == state.turn_events
            state = after


def test_turn_events_round_trip_through_json_exactly() -> None:
    _, done = two_step_turn()
    data = done.to_json()
    assert len(data["turn_events"]) == 3
    again = RING.from_json(json.loads(json.dumps(data)))
    assert again == done and again.to_json() == data


# A mid-turn state as saved before the turn's events were kept: "last" only, no "turn_events".
OLD_SAVED_STATE = (
    '{"schema": 1, "game": "ring", "board": [0, 0, 0, 0, 0, 0, 0, -1, 1, -1, 2, -1], "piles": [9, 9], '
    '"phase": "move", "turn": 0, "dice": [4, 6, 1], "dice_left": [6], "turn_number": 1, '
    '"opening": [5, 2], "last": {"seat": 0, "notation": "move 1 from 7 by 4", '
    '"text": "Red moved 1 token from 7 to 11.", "marks": [["from", 7, 1], ["to", 11, 1]]}, '
    '"outcome": null}'
)


def test_a_state_saved_before_turn_events_loads_with_its_last_action_as_the_turn() -> None:
    old = json.loads(OLD_SAVED_STATE)
    state = RING.from_json(old)
    assert isinstance(state, RingState)
    assert state.last is not None and state.last.notation == "move 1 from 7 by 4"
    assert state.turn_events == (state.last,)
    assert state.to_json() == {**old, "turn_events": [old["last"]]}
    # It plays on: the next step is added to the turn, and the new form round-trips.
    after = state.apply(Move(11, 2, 6))
    assert isinstance(after, RingState)
    assert [e.notation for e in after.turn_events] == ["move 1 from 7 by 4", "move 2 from 11 by 6"]
    assert RING.from_json(after.to_json()) == after
    fresh = RING.from_json({**json.loads(OLD_SAVED_STATE), "last": None, "phase": "roll", "dice_left": []})
    assert isinstance(fresh, RingState) and fresh.turn_events == ()


def test_saved_turn_events_that_do_not_end_with_the_last_action_are_refused() -> None:
    _, done = two_step_turn()
    data = done.to_json()
    with pytest.raises(CorruptStateError, match="last action"):
        RING.from_json({**data, "turn_events": data["turn_events"][:-1]})

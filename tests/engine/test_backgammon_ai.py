"""The bgsage levels: the board adapter, the same legal plays as ours, legal choices, cube and resignation
decisions, Old English, and the money play the arena benchmarks."""

from __future__ import annotations

import random
from dataclasses import replace

import bgsage
import pytest

from engine.ai import backgammon_bgsage as sage
from engine.ai.backgammon_bgsage import (
    APPROXIMATE_RULES,
    EASY,
    HARD,
    MEDIUM,
    board_from_sage,
    context,
    sage_board,
)
from engine.ai.levels import LEVEL_PLAYERS
from engine.ai.players import PLAYERS
from engine.ai.random_player import random_action
from engine.backgammon.board import Board, RuleSet, borne_off, side_from, starting_board, swap
from engine.backgammon.game import (
    AcceptResignation,
    BackgammonState,
    Checkers,
    DeclineResignation,
    Double,
    OfferResignation,
    Pass,
    Phase,
    RollOn,
    Take,
)
from engine.backgammon.notation import play_text
from engine.backgammon.plays import legal_plays
from engine.backgammon.turn import roll_dice
from engine.registry import find_variant


def game_positions(count: int, seed: int, rules: RuleSet) -> list[Board]:
    """Positions from random games played to the end (contact, hits, the bar and bear-offs)."""
    rng = random.Random(seed)
    out: list[Board] = []
    b = starting_board(rules)
    while len(out) < count:
        out.append(b)
        play = rng.choice(legal_plays(b, rng.randint(1, 6), rng.randint(1, 6), rules))
        b = swap(play.result)
        if borne_off(b[0]) == 15:
            b = starting_board(rules)
    return out


# -- the board adapter ---------------------------------------------------------------------------


def test_the_starting_position_is_bgsages() -> None:
    assert sage_board(starting_board()) == list(bgsage.STARTING_BOARD)


def test_bar_and_borne_off_checkers() -> None:
    me = side_from({25: 2, 6: 5, 1: 3})  # two on the bar, five borne off
    opp = side_from({25: 1, 23: 2, 13: 5, 3: 4})  # one on the bar, three borne off
    cells = sage_board((opp, me))
    assert cells[25] == 2 and cells[0] == 1  # my bar, the opponent's bar (a count)
    assert cells[6] == 5 and cells[1] == 3  # my points, positive
    assert cells[2] == -2 and cells[12] == -5 and cells[22] == -4  # its 23, 13, 3 are my 2, 12, 22
    assert sum(c for c in cells[1:25] if c > 0) + cells[25] == 10  # five of mine are off
    assert -sum(c for c in cells[1:25] if c < 0) + cells[0] == 12  # three of theirs are off
    assert board_from_sage(cells) == (opp, me)


@pytest.mark.parametrize("rules", [RuleSet.STANDARD, RuleSet.NACKGAMMON])
def test_both_colours_on_roll_agree_with_bgsages_flip(rules: RuleSet) -> None:
    for b in game_positions(300, 5, rules):
        assert board_from_sage(sage_board(b)) == b
        assert sage_board(swap(b)) == list(bgsage.flip_board(sage_board(b)))


def test_a_state_with_either_seat_on_roll_gives_the_rollers_view() -> None:
    me = side_from({25: 1, 6: 5, 5: 4, 4: 3})
    opp = side_from({24: 2, 13: 5, 8: 3, 6: 5})
    for seat in (0, 1):
        sides = (me, opp) if seat == 0 else (opp, me)
        state = BackgammonState(
            sides=sides, phase=Phase.PLAY, turn_seat=seat, dice=(3, 1), start=sides, dice_left=(3, 1)
        )
        assert sage_board(state.board)[25] == 1 and sage_board(state.board)[0] == 0


def _ends_the_game(b: Board) -> bool:
    return borne_off(b[1]) == 15


@pytest.mark.parametrize("rules", [RuleSet.STANDARD, RuleSet.NACKGAMMON])
def test_bgsage_reaches_exactly_our_positions(rules: RuleSet) -> None:
    """The same positions, except where a play bears off the last checker (see the next test)."""
    rng = random.Random(17)
    compared = 0
    for b in game_positions(3000, 11, rules):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        ours = {p.result for p in legal_plays(b, d1, d2, rules)}
        theirs = {board_from_sage(m) for m in bgsage.possible_moves(sage_board(b), d1, d2)} or {b}
        if any(_ends_the_game(r) for r in ours | theirs):
            continue
        assert theirs == ours, (b, d1, d2)
        compared += 1
    assert compared > 2500


def test_the_last_checker_difference_is_known_and_we_take_the_best_finish() -> None:
    opp = side_from({24: 1, 21: 1, 20: 1, 19: 2, 6: 8, 4: 1, 2: 1})
    board = (opp, side_from({2: 1}))
    ours = {p.result for p in legal_plays(board, 2, 1)}
    theirs = {board_from_sage(m) for m in bgsage.possible_moves(sage_board(board), 2, 1)}
    assert ours != theirs and all(_ends_the_game(r) for r in ours | theirs)
    action = MEDIUM(_play_state(board, (2, 1)), random.Random(0))
    assert isinstance(action, Checkers) and action.result in ours
    assert action.notation == "2/1*/off"  # the hit leaves a checker on the bar: a backgammon


# -- choices -------------------------------------------------------------------------------------


def _play_state(board: Board, dice: tuple[int, int], rules: RuleSet = RuleSet.STANDARD) -> BackgammonState:
    opp, me = board
    return BackgammonState(
        sides=(me, opp),
        rules=rules,
        phase=Phase.PLAY,
        turn_seat=0,
        dice=dice,
        start=(me, opp),
        dice_left=roll_dice(*dice),
    )


@pytest.mark.parametrize("rules", [RuleSet.STANDARD, RuleSet.NACKGAMMON, RuleSet.OLDENGLISH])
@pytest.mark.parametrize("player", [EASY, MEDIUM], ids=["easy", "medium"])
def test_every_choice_is_one_of_our_legal_plays(rules: RuleSet, player: sage.SagePlayer) -> None:
    rng = random.Random(3)
    for b in game_positions(150, 23, rules):
        state = _play_state(b, (rng.randint(1, 6), rng.randint(1, 6)), rules)
        action = player(state, rng)
        assert isinstance(action, Checkers)
        assert action.result in {p.result for p in state.plays()}
        state.apply(action)  # the engine accepts it


def test_hard_chooses_legal_plays_too() -> None:
    rng = random.Random(4)
    for b in game_positions(12, 29, RuleSet.STANDARD):
        state = _play_state(b, (rng.randint(1, 6), rng.randint(1, 6)))
        action = HARD(state, rng)
        assert isinstance(action, Checkers) and action.result in {p.result for p in state.plays()}


def test_the_best_opening_three_one_makes_the_five_point() -> None:
    action = MEDIUM(_play_state(starting_board(), (3, 1)), random.Random(0))
    assert isinstance(action, Checkers) and action.notation == "8/5 6/5"


def test_a_play_in_progress_is_finished_legally() -> None:
    state = _play_state(starting_board(), (6, 4))
    state = state.apply(state.parse("move 24/18"))
    action = MEDIUM(state, random.Random(0))
    assert isinstance(action, Checkers)
    assert action.result in {p.result for p in state.plays()}


def test_a_choice_outside_our_plays_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sage.board_from_sage

    def shifted(cells: list[int]) -> Board:
        opp, me = real(cells)
        return (opp, (me[0] + 1, *me[1:]))  # a position our rules never reach

    monkeypatch.setattr(sage, "board_from_sage", shifted)
    with pytest.raises(sage.EngineMismatchError):
        MEDIUM(_play_state(starting_board(), (3, 1)), random.Random(0))


def test_easy_is_not_deterministic_but_medium_is() -> None:
    state = _play_state(game_positions(40, 2, RuleSet.STANDARD)[-1], (5, 2))
    mediums = {MEDIUM(state, random.Random(seed)) for seed in range(12)}
    assert len(mediums) == 1
    easies = {EASY(state, random.Random(seed)) for seed in range(40)}
    assert len(easies) > 1


# -- Old English ---------------------------------------------------------------------------------


def test_old_english_never_builds_a_sixth_checker_on_a_point() -> None:
    # 6-6 for a side with five on its 6 and 5 points and checkers on 12: standard bgsage would
    # stack; the Old English player picks among plays that keep five at most.
    me = side_from({12: 4, 6: 5, 5: 5, 4: 1})
    opp = side_from({24: 2, 22: 2, 13: 5, 6: 6})
    state = _play_state((opp, me), (6, 6), RuleSet.OLDENGLISH)
    action = MEDIUM(state, random.Random(0))
    assert isinstance(action, Checkers)
    assert max(action.result[1][:24]) <= 5
    assert action.result in {p.result for p in legal_plays((opp, me), 6, 6, RuleSet.OLDENGLISH)}
    assert RuleSet.OLDENGLISH in APPROXIMATE_RULES and RuleSet.STANDARD not in APPROXIMATE_RULES


def test_old_english_opening_six_five_cannot_run_to_a_sixth_checker() -> None:
    # 24/13, the standard choice, would put a sixth checker on the 13-point.
    oe = {play_text(p) for p in legal_plays(starting_board(), 6, 5, RuleSet.OLDENGLISH)}
    assert "24/13" not in oe
    state = _play_state(starting_board(), (6, 5), RuleSet.OLDENGLISH)
    action = HARD(state, random.Random(0))
    assert isinstance(action, Checkers) and action.notation in oe


# -- the cube, resignations, money play ----------------------------------------------------------


def _deciding(board: Board, **fields: object) -> BackgammonState:
    opp, me = board
    state = BackgammonState(sides=(me, opp), length=7, phase=Phase.DECIDE, turn_seat=0)
    return replace(state, **fields)  # type: ignore[arg-type]


RACE_AHEAD = (side_from({6: 5, 5: 4, 4: 3, 3: 3}), side_from({6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}))
"""The roller (``board[1]``, 54 pips) 17 ahead of 71 in a race: a double and a pass."""
CLOSE_RACE = (side_from({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}), side_from({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}))


def test_doubles_a_strong_position_and_rolls_a_close_one() -> None:
    assert MEDIUM(_deciding(RACE_AHEAD), random.Random(0)) == Double()
    assert HARD(_deciding(RACE_AHEAD), random.Random(0)) == Double()
    close = (CLOSE_RACE[0], side_from({6: 3, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}))
    assert MEDIUM(_deciding(close, score=(0, 0)), random.Random(0)) == RollOn()


def test_passes_a_hopeless_double_and_takes_a_fair_one() -> None:
    doubled = _deciding(RACE_AHEAD)
    doubled = doubled.apply(Double())
    assert doubled.phase is Phase.TAKE
    assert MEDIUM(doubled, random.Random(0)) == Pass()
    close = _deciding((CLOSE_RACE[0], side_from({6: 3, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}))).apply(Double())
    assert MEDIUM(close, random.Random(0)) == Take()


def test_the_match_score_changes_the_take() -> None:
    # A close race, the roller a little ahead: a take at 0-0 in a 7-point match; but the leader at
    # 6-5 after the Crawford game, doubled by the trailer, keeps a 50% match by passing (the next
    # game is double match point) and takes only as the favourite: here a pass.
    close = (CLOSE_RACE[0], side_from({6: 3, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}))
    assert MEDIUM(_deciding(close).apply(Double()), random.Random(0)) == Take()
    late = _deciding(close, score=(5, 6), crawford_done=True).apply(Double())
    assert context(late, 0, money=False).away2 == 1
    assert MEDIUM(late, random.Random(0)) == Pass()


def test_context_reads_the_score_the_cube_and_crawford() -> None:
    state = _deciding(CLOSE_RACE, score=(2, 6), cube=2, cube_owner=1)
    ctx = context(state, 0, money=False)
    assert (ctx.away1, ctx.away2, ctx.cube_value, ctx.cube_owner, ctx.crawford) == (
        5,
        1,
        2,
        "opponent",
        False,
    )
    assert context(state, 1, money=False).cube_owner == "player"
    crawford = replace(state, phase=Phase.ROLL, score=(2, 6), cube=1, cube_owner=None, crawford=True)
    assert context(crawford, 0, money=False).crawford
    single = BackgammonState.new(length=1)
    assert (context(single, 0, money=False).away1, context(single, 0, money=False).cubeful) == (1, True)
    money = context(single, 0, money=True)
    assert (money.away1, money.away2, money.cubeful) == (0, 0, False)


def test_resignations_worth_more_than_the_game_are_accepted() -> None:
    # The offerer (on turn) is far behind in a race: a single game is what it would lose anyway.
    behind = (RACE_AHEAD[1], RACE_AHEAD[0])
    state = _deciding(behind, last_play=None)
    resign = replace(state, phase=Phase.RESIGN, offer=1, resume=Phase.DECIDE)
    assert MEDIUM(resign, random.Random(0)) == AcceptResignation()
    ahead = replace(_deciding(RACE_AHEAD), phase=Phase.RESIGN, offer=1, resume=Phase.DECIDE)
    assert MEDIUM(ahead, random.Random(0)) == AcceptResignation()  # offering a win of what it would lose
    far = (side_from({24: 2, 13: 5, 8: 3, 6: 5}), side_from({6: 5, 5: 5, 4: 5}))
    gammonish = replace(_deciding((far[1], far[0])), phase=Phase.RESIGN, offer=1, resume=Phase.DECIDE)
    assert MEDIUM(gammonish, random.Random(0)) == DeclineResignation()
    assert OfferResignation(1).level == 1


def test_money_play_plays_for_gammons() -> None:
    assert EASY.for_money().money and not EASY.money
    assert sage.for_money(EASY) == EASY.for_money()
    assert sage.for_money(LEVEL_PLAYERS["backgammon"]["pubeval"]) is LEVEL_PLAYERS["backgammon"]["pubeval"]


def test_the_levels_are_listed_and_medium_is_the_bots_player() -> None:
    table = LEVEL_PLAYERS["backgammon"]
    assert table["easy"] is EASY and table["medium"] is MEDIUM and table["hard"] is HARD
    assert "pubeval" in table
    assert PLAYERS["backgammon"] is MEDIUM


@pytest.mark.slow
@pytest.mark.parametrize("length", [1, 5])
def test_whole_matches_against_random_end_with_legal_actions(length: int) -> None:
    rng = random.Random(length)
    variant = find_variant("backgammon")
    state = variant.new_game({"length": length})
    while state.outcome() is None:
        if state.chance() is None and state.to_move() == 0:
            action = MEDIUM(state.view(0), rng)
            assert action in state.legal_actions() or isinstance(action, Checkers)
        else:
            action = random_action(state, rng)
        state = state.apply(action)


def test_match_play_is_cubeful_with_the_score_and_money_play_cubeless(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bgsage's cubeless analyzer ignores the score: matches (a 1-point match too) go to the cubeful
    one with the away scores; hard plays 2-ply (hints and analyses 3-ply)."""
    calls: list[tuple[str, bool, dict[str, object]]] = []
    real = sage.analyzer

    class Recording:
        def __init__(self, level: str, cubeful: bool) -> None:
            self.level, self.cubeful, self.inner = level, cubeful, real(level, cubeful)

        def checker_play(self, board: list[int], d1: int, d2: int, **kwargs: object) -> object:
            calls.append((self.level, self.cubeful, kwargs))
            return self.inner.checker_play(board, d1, d2, **kwargs)

    monkeypatch.setattr(sage, "analyzer", Recording)
    single = replace(_play_state(starting_board(), (6, 4)), length=1)
    HARD(single, random.Random(0))
    HARD.for_money()(single, random.Random(0))
    five = replace(_play_state(starting_board(), (6, 4)), length=5, score=(1, 3), cube=2, cube_owner=1)
    MEDIUM(five, random.Random(0))
    (level, cubeful, kwargs), (money_level, money_cubeful, money_kwargs), (_, _, five_kwargs) = calls
    assert (level, cubeful, kwargs["away1"], kwargs["away2"]) == ("2ply", True, 1, 1)
    assert (money_level, money_cubeful, money_kwargs["away1"]) == ("2ply", False, 0)
    assert (five_kwargs["away1"], five_kwargs["away2"], five_kwargs["cube_value"]) == (4, 2, 2)
    assert five_kwargs["cube_owner"] == "opponent"

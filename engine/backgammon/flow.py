"""How a backgammon match moves on: what each action does to a state (the opening, the roll, the
moves of a turn, the cube, resignation offers) and the end of a game or of the match."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.backgammon import cube
from engine.backgammon.actions import (
    COLOURS,
    LEVEL_WORDS,
    LEVELS,
    POINTS,
    AcceptResignation,
    BackgammonWin,
    Beaver,
    Checkers,
    DeclineResignation,
    Double,
    LastPlay,
    MoveChecker,
    OfferResignation,
    Opening,
    Pass,
    Phase,
    Roll,
    RollOn,
    StopAfterGame,
    Take,
    score,
)
from engine.backgammon.board import (
    CHECKERS,
    borne_off,
    starting_board,
)
from engine.backgammon.notation import move_text, play_text
from engine.backgammon.plays import Play
from engine.backgammon.turn import Stepped, TurnInProgress, roll_dice, without
from engine.backgammon.words import match_won_with
from engine.errors import (
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
)
from engine.protocol import (
    Action,
    EndReason,
    Outcome,
)

if TYPE_CHECKING:
    from engine.backgammon.game import BackgammonState


def apply_action(state: BackgammonState, action: Action) -> BackgammonState:
    """The state after ``action``: the flow's one entry (``BackgammonState.apply``); an action that
    may not be played here raises a ``GameError`` saying why."""
    if state.result is not None:
        raise GameOverError("the match is over")
    if isinstance(action, Opening):
        return _opening(state, action)
    if isinstance(action, Roll):
        return _roll(state, action)
    if isinstance(action, MoveChecker):
        return _move(state, action)
    if isinstance(action, Checkers):
        return _checkers(state, action)
    if isinstance(action, RollOn | Double):
        return _decide(state, action)
    if isinstance(action, Take | Pass | Beaver):
        return _answer_double(state, action)
    if isinstance(action, StopAfterGame):
        return _stop(state, action)
    if isinstance(action, OfferResignation):
        return _offer(state, action)
    if isinstance(action, AcceptResignation | DeclineResignation):
        return _answer_offer(state, action)
    raise IllegalActionError(f"{action} is not a backgammon action")


def _opening(state: BackgammonState, action: Opening) -> BackgammonState:
    if state.phase is not Phase.OPENING:
        raise IllegalActionError("the opening roll is over")
    if action.die0 == action.die1:
        money = state.money
        if money is not None and state.automatic_doubles < money.automatic and state.cube < cube.MAX_CUBE:
            return state.but(
                cube=state.cube * 2,
                automatic_doubles=state.automatic_doubles + 1,
                last=f"Both rolled {action.die0} to start: an automatic double turns the cube to "
                f"{state.cube * 2} (it stays in the middle). Roll again",
            )
        return state.but(last=f"Both rolled {action.die0} to start: roll again")
    seat = 0 if action.die0 > action.die1 else 1
    dice = (max(action.die0, action.die1), min(action.die0, action.die1))
    game = f"Game {state.game_number}: " if state.length != 1 else ""
    opened = state.but(turn_seat=seat, turn_number=state.turn_number + 1)
    return _rolled(
        opened,
        dice,
        f"{game}{COLOURS[0]} rolled {action.die0}, {COLOURS[1]} {action.die1}: "
        f"{COLOURS[seat]} starts with {dice[0]}-{dice[1]}",
    )


def _roll(state: BackgammonState, action: Roll) -> BackgammonState:
    if state.phase is not Phase.ROLL:
        raise NotYourTurnError("the dice are not to be rolled now")
    rolled = state.but(turn_number=state.turn_number + 1)
    high, low = max(action.d1, action.d2), min(action.d1, action.d2)
    return _rolled(rolled, (action.d1, action.d2), f"{COLOURS[state.turn_seat or 0]} rolled {high}-{low}")


def _rolled(state: BackgammonState, dice: tuple[int, int], text: str) -> BackgammonState:
    """The play phase of ``dice``; a roll that cannot be played passes the turn at once."""
    following = state.but(
        phase=Phase.PLAY,
        dice=dice,
        start=state.sides,
        dice_left=roll_dice(*dice),
        played=(),
        last=text,
    )
    if following.turn_in_progress().need == 0:
        seat = state.turn_seat or 0
        return _next_turn(following, LastPlay(seat, dice, ()), f"{text} and cannot move")
    return following


def _check_play_phase(state: BackgammonState) -> None:
    if state.phase is not Phase.PLAY:
        if state.phase is Phase.DECIDE:
            raise NotYourTurnError("roll first (or double): the dice are not rolled yet")
        raise NotYourTurnError("no checker is to be moved now")


def _move(state: BackgammonState, action: MoveChecker) -> BackgammonState:
    _check_play_phase(
        state,
    )
    turn = state.turn_in_progress()
    wanted = Stepped(action.move, action.die)
    for stepped, after in turn.steps(state.board, state.dice_left, len(state.played)):
        if stepped == wanted:
            following = state.but(
                sides=state.sides_of(after),
                dice_left=without(state.dice_left, action.die),
                played=(*state.played, stepped),
            )
            return _after_moves(following, turn)
    raise IllegalActionError(
        f"{move_text(action.move)} is not a move that leads to a legal play of {state.dice_text}"
    )


def _checkers(state: BackgammonState, action: Checkers) -> BackgammonState:
    _check_play_phase(
        state,
    )
    turn = state.turn_in_progress()
    finishes = {p.result: p for p in turn.completions(state.board, state.dice_left, len(state.played))}
    if action.result not in finishes:
        raise IllegalActionError(f"{action.notation} is not a legal play of {state.dice_text} here")
    moves = finishes[action.result].moves if not action.moves else action.moves
    steps = tuple(Stepped(m, 0) for m in moves)
    following = state.but(sides=state.sides_of(action.result), dice_left=(), played=(*state.played, *steps))
    return _after_moves(following, turn, forced=len(finishes) == 1 and not state.played)


def _after_moves(state: BackgammonState, turn: TurnInProgress, forced: bool = False) -> BackgammonState:
    seat = state.turn_seat or 0
    assert state.dice is not None
    moves = tuple(s.move for s in state.played)
    text = f"{COLOURS[seat]} rolled {state.dice_text}: {play_text(Play(moves, state.board))}"
    if forced:
        text += " (forced)"
    if borne_off(state.sides[seat]) == CHECKERS:
        kind = score(state.sides[seat], state.sides[1 - seat])
        done = state.but(last_play=LastPlay(seat, state.dice, moves), last=text)
        points = _worth(state, POINTS[kind])
        words = f"{COLOURS[seat]} wins {LEVEL_WORDS[kind]}"
        if points < POINTS[kind] * state.cube:
            words += " (counted as a single game: Jacoby rule, the cube was not turned)"
        return _game_won(done, seat, kind, points, words)
    if len(state.played) < turn.need:
        return state.but(last=text)
    return _next_turn(state, LastPlay(seat, state.dice, moves), text)


def _next_turn(state: BackgammonState, last_play: LastPlay, text: str) -> BackgammonState:
    nxt = 1 - (state.turn_seat or 0)
    following = state.but(
        turn_seat=nxt,
        dice=None,
        start=None,
        dice_left=(),
        played=(),
        last_play=last_play,
        last=text,
    )
    return following.but(phase=Phase.DECIDE if following.may_double(nxt) else Phase.ROLL)


def _decide(state: BackgammonState, action: RollOn | Double) -> BackgammonState:
    if state.phase is not Phase.DECIDE:
        if isinstance(action, Double) and state.phase in (Phase.PLAY, Phase.ROLL):
            raise IllegalActionError(
                _no_double_reason(
                    state,
                )
            )
        raise NotYourTurnError("there is no roll or double to decide now")
    seat = state.turn_seat or 0
    if isinstance(action, RollOn):
        # The dice follow at once and say it all ("White rolled 6-4"): no words of its own.
        return state.but(phase=Phase.ROLL, last=None)
    return state.but(phase=Phase.TAKE, last=f"{COLOURS[seat]} doubles to {state.cube * 2}")


def _no_double_reason(state: BackgammonState) -> str:
    """Why the player on turn may not double now: the rules or the cube first (Old English has no cube
    at all, whatever the moment), then the moment (the dice are rolled already)."""
    seat = state.turn_seat or 0
    reason = cube.why_not_double(
        seat,
        rules=state.rules,
        length=state.length,
        score=state.score,
        value=state.cube,
        owner=state.cube_owner,
        crawford=state.crawford,
    )
    if reason:
        return reason
    if state.phase is Phase.PLAY:
        return "a double comes before the roll: these dice are rolled already"
    return "a double comes before the roll: the roll is chosen already"


def _worth(state: BackgammonState, level: int) -> int:
    """What a game won at ``level`` scores now (the Jacoby rule of a money session)."""
    money = state.money
    jacoby = money is not None and money.jacoby
    return cube.game_points(level, state.cube, owner=state.cube_owner, jacoby=jacoby)


def _answer_double(state: BackgammonState, action: Take | Pass | Beaver) -> BackgammonState:
    if state.phase is not Phase.TAKE:
        raise NotYourTurnError("no double waits for an answer")
    seat = state.turn_seat or 0
    taker = 1 - seat
    if isinstance(action, Beaver):
        if not state.may_beaver():
            raise IllegalActionError(_no_beaver_reason(state))
        return state.but(
            phase=Phase.ROLL,
            cube=state.cube * 4,
            cube_owner=taker,
            last=f"{COLOURS[taker]} beavers: the cube is at {state.cube * 4}, {COLOURS[taker]}'s",
        )
    if isinstance(action, Take):
        return state.but(
            phase=Phase.ROLL,
            cube=state.cube * 2,
            cube_owner=taker,
            last=f"{COLOURS[taker]} takes: the cube is at {state.cube * 2}, {COLOURS[taker]}'s",
        )
    passed = state.but(last=f"{COLOURS[taker]} passes")
    return _game_won(
        passed, seat, BackgammonWin.PASSED, state.cube, f"{COLOURS[seat]} wins: the double was passed"
    )


def _no_beaver_reason(state: BackgammonState) -> str:
    if state.money is None:
        return "beavers are a rule of money play, not of matches"
    if not state.money.beavers:
        return "this money session is played without beavers"
    return f"a beaver would take the cube past {cube.MAX_CUBE}"


def _stop(state: BackgammonState, action: StopAfterGame) -> BackgammonState:
    """A player asks to end the money session with the game in progress; between games (before
    an opening roll) it ends at once."""
    if state.money is None:
        raise IllegalActionError("only a money session can be stopped after a game: this is a match")
    if action.seat not in (0, 1):
        raise IllegalActionError("only a player of the session can stop it")
    if state.stopping is not None:
        raise IllegalActionError(f"{COLOURS[state.stopping]} has already asked to stop after this game")
    said = f"{COLOURS[action.seat]} stops the session after this game"
    asked = state.but(stopping=action.seat, last=said)
    if state.phase is Phase.OPENING:
        return _session_ended(asked, state.score, f"{said}. {_session_score(state.score)}")
    return asked


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _session_score(scored: tuple[int, int]) -> str:
    return f"Session: {COLOURS[0]} {scored[0]}, {COLOURS[1]} {scored[1]}"


def session_outcome(scored: tuple[int, int], reason: EndReason, told: str = "") -> Outcome:
    """The result of a money session ended at ``scored``: won by the player ahead, by the points
    ahead (level: nobody wins); ``told`` comes before the words of the result."""
    lead = scored[0] - scored[1]
    winner = None if lead == 0 else 0 if lead > 0 else 1
    if winner is None:
        words = f"the money session ends level at {scored[0]}-{scored[1]}"
    else:
        words = (
            f"{COLOURS[winner]} wins the money session by {_points(abs(lead))} "
            f"({scored[winner]}-{scored[1 - winner]})"
        )
    description = f"{told}{words}" if told else words[0].upper() + words[1:]
    return Outcome(winner=winner, reason=reason, description=description, points=abs(lead), length=0)


def _session_ended(state: BackgammonState, scored: tuple[int, int], text: str) -> BackgammonState:
    """The end of a money session at ``scored``."""
    return _over(state, scored, text, session_outcome(scored, BackgammonWin.SESSION))


def _over(state: BackgammonState, scored: tuple[int, int], text: str, outcome: Outcome) -> BackgammonState:
    """The match (or money session) over at ``scored`` with ``outcome``."""
    return state.but(
        score=scored,
        phase=Phase.OVER,
        dice=None,
        start=None,
        dice_left=(),
        played=(),
        last=text,
        result=outcome,
    )


def _offer(state: BackgammonState, action: OfferResignation) -> BackgammonState:
    if action not in state.resign_offers():
        if state.phase is Phase.PLAY:
            raise IllegalActionError("a resignation is offered before moving: take your moves back first")
        raise NotYourTurnError("you can offer to resign on your turn, before rolling or moving")
    seat = state.turn_seat or 0
    kind = LEVELS[action.level - 1]
    worth = _worth(state, action.level)
    return state.but(
        phase=Phase.RESIGN,
        offer=action.level,
        resume=state.phase,
        last=f"{COLOURS[seat]} offers to resign {LEVEL_WORDS[kind]} ({_points(worth)})",
    )


def _answer_offer(state: BackgammonState, action: AcceptResignation | DeclineResignation) -> BackgammonState:
    if state.phase is not Phase.RESIGN or state.resume is None:
        raise NotYourTurnError("no resignation waits for an answer")
    seat = state.turn_seat or 0
    winner = 1 - seat
    if isinstance(action, DeclineResignation):
        return state.but(
            phase=state.resume, offer=0, resume=None, last=f"{COLOURS[winner]} declines: play on"
        )
    kind = LEVELS[state.offer - 1]
    accepted = state.but(offer=0, resume=None, last=f"{COLOURS[winner]} accepts")
    return _game_won(
        accepted,
        winner,
        kind,
        _worth(state, state.offer),
        f"{COLOURS[winner]} wins {LEVEL_WORDS[kind]}: {COLOURS[seat]} resigned",
    )


def _game_won(
    state: BackgammonState, winner: int, reason: BackgammonWin, points: int, words: str
) -> BackgammonState:
    """Score a finished game; start the next one, or end the match."""
    new_score = list(state.score)
    new_score[winner] += points
    scored = (new_score[0], new_score[1])
    said = f"{words}: {_points(points)}" if state.length > 1 else match_won_with(words)
    if state.length > 1:
        said += f". Score: {COLOURS[0]} {scored[0]}, {COLOURS[1]} {scored[1]} (to {state.length})"
    elif state.money is not None:
        said += f". {_session_score(scored)}"
    text = f"{state.last}. {said}" if state.last else said
    money = state.money
    if money is not None and cube.session_over(scored, limit=money.limit, stopping=state.stopping):
        return _session_ended(state, scored, text)
    if money is None and scored[winner] >= state.length:
        if state.length > 1:
            description = (
                f"{COLOURS[winner]} wins the {state.length}-point match {scored[winner]}-{scored[1 - winner]}"
            )
        else:
            description = said  # one game is the match: what it is won by, not its points
        outcome = Outcome(
            winner=winner, reason=reason, description=description, points=points, length=state.length
        )
        return _over(state, scored, text, outcome)
    crawford, done = cube.after_game(
        scored, winner, length=state.length, crawford=state.crawford, crawford_done=state.crawford_done
    )
    if crawford:
        text += ". The next game is the Crawford game: no doubling"
    return state.but(
        sides=starting_board(state.rules),
        score=scored,
        cube=1,
        cube_owner=None,
        crawford=crawford,
        crawford_done=done,
        automatic_doubles=0,
        game_number=state.game_number + 1,
        game_start_turn=state.turn_number,
        phase=Phase.OPENING,
        turn_seat=None,
        dice=None,
        start=None,
        dice_left=(),
        played=(),
        last_play=None,
        last=text,
    )

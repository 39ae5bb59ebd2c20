"""The checks of a request before anything is played: the match readable, active, the user's, at the
version their control was drawn for, their turn, their action legal and theirs to choose, their live
clock still running; each refusal a ``UserError`` in the words the player is shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.session_errors import MatchDamaged, MatchOver, NotInMatch, NotYourTurn, StaleControl, UserError
from bot.steps import Step, step_of
from bot.store import MatchRecord
from bot.turn_policy import deciding_seat
from engine import CHANCE, Action, GameError, GameState, Variant

if TYPE_CHECKING:
    from bot.session import Session

UNCHANGED = "Nothing was changed."


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return "That cannot be done now."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def check_readable(session: Session) -> GameState:
    """The match's position; ``MatchDamaged`` if it could not be read."""
    if session.state is None:
        raise MatchDamaged(
            "This match's saved position is damaged and cannot be played on "
            f"({session.damage}). Either player can end it with /resign; it will not be rated."
        )
    return session.state


def check_turn(session: Session, user_id: int, version: int | None, *, committed: bool = False) -> int:
    """The user's seat if they may act on this match at ``version`` now; else a ``UserError``.

    ``committed``: ``version`` is that of a public board's control, drawn for the committed
    position (``board_version``), which says nothing of a turn in progress: it is checked against
    that, and whether a turn is in progress is for the caller to see (``turn_in_progress``)."""
    seat, state = check_member(session, user_id, version, committed=committed)
    if deciding_seat(state) != seat:
        raise NotYourTurn(whose_turn(state, session.variant.seat_names, session.user_of))
    return seat


def check_own_action(variant: Variant, position: GameState, seat: int, action: Action) -> None:
    """Refuse a legal action that is not ``seat``'s to choose: one the other player speaks for, or a
    chance outcome (written as notation, "roll 6-6-6" would let a player choose the dice: outcomes
    come only from the bot's random source)."""
    named = variant.speaks_for(action)
    if named is not None and named != seat:
        raise UserError("That is for the other player to decide, not you.")
    spec = position.chance()
    if spec is not None:
        raise UserError(f"That is for chance to decide, not a player: use {spec.label}.")


def check_member(
    session: Session, user_id: int, version: int | None, *, committed: bool = False
) -> tuple[int, GameState]:
    """The user's seat and the position, if the match is active, theirs, and at ``version``."""
    check_readable(session)
    if session.record.status != "active":
        raise MatchOver("This match is over.")
    seat = session.seat_of(user_id)
    if seat is None:
        raise NotInMatch("You are not playing in this match.")
    current = session.record.board_version if committed else session.version
    if version is not None and version != current:
        raise StaleControl("That control is from an earlier position; use the latest board message.")
    assert session.state is not None
    return seat, session.state


def check_in_time(record: MatchRecord, seat: int | None, now: float) -> None:
    """Refuse a decision of ``seat`` made at ``now``, after its live clock ran out: it does not
    count, and the scheduler's next round ends the match as lost on time."""
    if seat is None or record.clock_seat != seat or record.timeout_at is None:
        return
    if now >= record.timeout_at:
        raise UserError("Your clock ran out before that: you lose this match on time.")


def whose_turn(state: GameState, seat_names: tuple[str, str], user_of: Callable[[int], int]) -> str:
    """Why a player may not act now, in words: whose turn it is (or that it is over)."""
    if state.is_terminal():
        return "This match is over."
    seat = state.turn if state.to_move() == CHANCE else state.to_move()
    if seat is None:
        return "It is nobody's turn yet."
    return f"It is {seat_names[seat]}'s turn (<@{user_of(seat)}>), not yours."


def parsed(
    variant: Variant, position: GameState, notation: str, refused: str = ""
) -> tuple[Action, GameState]:
    """The action ``notation`` names in ``position`` and the position after it; ``UserError`` (the
    game's reason, then ``refused``) when it cannot be read or is not legal."""
    try:
        action = variant.parse_action(position, notation)
        return action, position.apply(action)
    except GameError as exc:
        raise UserError(f"{sentence(str(exc))}{refused}") from exc


def played_next(
    session: Session, seat: int, position: GameState, notation: str, steps: list[Step]
) -> GameState:
    """``position`` after ``seat`` plays ``notation`` next in the same click (several actions chosen
    at once), its step added to ``steps``; ``UserError`` when it is no longer theirs, or not legal."""
    if deciding_seat(position) != seat:
        raise UserError(
            f"Not all of that could be played: the match moved on before {notation!r}. {UNCHANGED}"
        )
    action, after = parsed(session.variant, position, notation, f" {UNCHANGED}")
    steps.append(step_of(seat, action, position, after, automatic=False))
    return after

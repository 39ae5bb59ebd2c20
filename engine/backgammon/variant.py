"""Backgammon as a registered game: options (match length, rule set), notation, forfeits, and the
interchange codes of a position (GNUBG ID, XGID)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.backgammon import cube
from engine.backgammon.board import RuleSet
from engine.backgammon.formats import GameState as GnubgGameState
from engine.backgammon.formats import MatchInfo, Resignation, gnubg_id, xgid
from engine.backgammon.game import (
    COLOURS,
    SCHEMA,
    BackgammonState,
    BackgammonWin,
    MoveChecker,
    Phase,
)
from engine.backgammon.matexport import mat_file
from engine.errors import CorruptStateError
from engine.protocol import (
    Action,
    EndReason,
    Forfeit,
    GameState,
    MatchFile,
    OptionSpec,
    Outcome,
    TurnConfirmation,
    Variant,
)

RULE_LABELS = {
    RuleSet.STANDARD: "Standard",
    RuleSet.NACKGAMMON: "Nackgammon (two more back checkers)",
    RuleSet.OLDENGLISH: "Old English (at most five checkers on a point, no cube)",
}


class BackgammonVariant(Variant):
    key: ClassVar[str] = "backgammon"
    title: ClassVar[str] = "Backgammon"
    seat_names: ClassVar[tuple[str, str]] = COLOURS
    win_reasons: ClassVar[type[EndReason]] = BackgammonWin
    schema_version: ClassVar[int] = SCHEMA
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "length",
            "Match length in points (1 to 25); 1 is a single game without the cube",
            1,
            minimum=1,
            maximum=cube.MAX_LENGTH,
            summary="{value}-point match",
        ),
        OptionSpec(
            "rules",
            "Rule set",
            RuleSet.STANDARD.value,
            choices=tuple(r.value for r in RULE_LABELS),
            choice_labels=tuple(RULE_LABELS.values()),
            summary="{label} rules",
        ),
        # The live clock is kept and run by the bot's services (engine.live_clock): empty is none,
        # each turn then has the server's deadline.
        OptionSpec(
            "clock",
            "Live clock: each player's reserve for the match + delay per move, e.g. 2m+12s",
            "",
            summary="clock {value}",
        ),
    )
    # Checkers are moved one at a time and the play waits for Confirm; cube decisions, resignation
    # offers and their answers (and a whole play typed at once) are final when made.
    turn_confirmation: ClassVar[TurnConfirmation] = TurnConfirmation.CONFIRM
    notation_help: ClassVar[str] = (
        "A play is each checker's move from/to in your own numbering: `24/18 13/9`, `bar/22*` "
        "(`*` marks a hit), `6/off`, `8/5(2)` for two checkers."
    )

    def confirmation_of(self, state: GameState, action: Action) -> TurnConfirmation:
        if isinstance(action, MoveChecker):
            return TurnConfirmation.CONFIRM
        return TurnConfirmation.EACH_STEP

    def new_game(self, options: Mapping[str, Any] | None = None) -> BackgammonState:
        resolved = self.resolve_options(options)
        return BackgammonState.new(RuleSet(resolved["rules"]), int(resolved["length"]))

    def from_json(self, data: Mapping[str, Any]) -> BackgammonState:
        state = BackgammonState.from_json(data)
        if state.to_json() != dict(data):
            raise CorruptStateError("the saved backgammon match has fields that do not belong to it")
        return state

    def parse_action(self, state: GameState, text: str) -> Action:
        if not isinstance(state, BackgammonState):
            raise TypeError("a backgammon action needs a backgammon position")
        return state.parse(text)

    def forfeit(self, state: GameState, loser: int, reason: Forfeit, description: str) -> Outcome:
        """A resigned or timed-out match: the opponent wins it, rated at the match's full length."""
        assert isinstance(state, BackgammonState)
        winner = 1 - loser
        return Outcome(
            winner=winner,
            reason=reason,
            description=description,
            points=max(1, state.length - state.score[winner]),
            length=state.length,
        )

    def position_codes(self, state: GameState) -> tuple[tuple[str, str], ...]:
        """The GNUBG ID and the XGID of the position, to paste into GNU Backgammon or eXtreme Gammon."""
        assert isinstance(state, BackgammonState)
        info = match_info(state)
        return (("GNUBG ID", gnubg_id(state.board, info)), ("XGID", xgid(state.board, info)))

    def position_codes_note(self, state: GameState) -> str | None:
        """Old English's five-checker limit is not in the codes, nor known to GNU Backgammon or eXtreme
        Gammon: their analysis of the position may suggest plays this match does not allow."""
        assert isinstance(state, BackgammonState)
        if state.rules is RuleSet.OLDENGLISH:
            return (
                "These codes cannot say that this match is played by Old English rules (at most five "
                "checkers on a point), and GNU Backgammon and eXtreme Gammon do not know that rule: "
                "their plays may put a sixth checker on a point."
            )
        return None

    def export_match(
        self, options: Mapping[str, Any], log: Sequence[str], names: tuple[str, str]
    ) -> MatchFile | None:
        """The match as a Jellyfish ``.mat`` file (none for Old English, which the format cannot hold)."""
        text = mat_file(self, options, log, names)
        if text is None:
            return None
        stem = "-vs-".join(re.sub(r"[^A-Za-z0-9]+", "", name)[:20] or "player" for name in names)
        return MatchFile(
            filename=f"{stem}.mat",
            data=text.encode("utf-8"),
            description="The match for GNU Backgammon or eXtreme Gammon (File, Import, .mat)",
        )


def match_info(state: BackgammonState) -> MatchInfo:
    """What a GNUBG match ID says of ``state``: GNUBG's player 0 and 1 are seats 0 and 1."""
    seat = state.turn_seat or 0
    if state.phase is Phase.OVER:
        game_state = GnubgGameState.OVER
    elif state.phase is Phase.OPENING:
        game_state = GnubgGameState.NONE
    else:
        game_state = GnubgGameState.PLAYING
    to_move = state.to_move()
    return MatchInfo(
        cube_log2=state.cube.bit_length() - 1,
        cube_owner=state.cube_owner,
        on_roll=seat,
        crawford=state.crawford,
        game_state=game_state,
        turn=to_move if to_move in (0, 1) else seat,
        doubled=state.phase is Phase.TAKE,
        resigned=Resignation(state.offer) if state.phase is Phase.RESIGN else Resignation.NONE,
        dice=state.dice if state.phase is Phase.PLAY and state.dice else (0, 0),
        match_length=state.length,
        score=state.score,
    )


VARIANT = BackgammonVariant()

"""Backgammon as a registered game: options (match length, rule set, the rules of money play),
notation, forfeits, and the interchange codes of a position (GNUBG ID, XGID)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.ai.coaching import Analysis
from engine.backgammon import cube
from engine.backgammon.board import RuleSet
from engine.backgammon.flow import session_outcome
from engine.backgammon.formats import GameState as GnubgGameState
from engine.backgammon.formats import MatchInfo, Resignation, gnubg_id, xgid
from engine.backgammon.game import (
    ADDED_FIELDS,
    COLOURS,
    SCHEMA,
    BackgammonState,
    BackgammonWin,
    MoneyRules,
    MoveChecker,
    Phase,
    StopAfterGame,
)
from engine.backgammon.matexport import mat_file
from engine.backgammon.matimport import read_mat
from engine.backgammon.position_start import PositionCodeError, check_match, read_code, start_from
from engine.backgammon.sgfexport import sgf_text
from engine.errors import BadOptionsError, CorruptStateError
from engine.protocol import (
    Action,
    EndReason,
    Forfeit,
    GameState,
    ImportedMatch,
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
MONEY_OPTIONS = ("jacoby", "beavers", "automatic", "limit")
"""The options of money play (``length`` 0); a match refuses them."""


class BackgammonVariant(Variant):
    key: ClassVar[str] = "backgammon"
    title: ClassVar[str] = "Backgammon"
    seat_names: ClassVar[tuple[str, str]] = COLOURS
    win_reasons: ClassVar[type[EndReason]] = BackgammonWin
    schema_version: ClassVar[int] = SCHEMA
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "length",
            "Match length in points (1 to 25); 1 is a single game without the cube, 0 a money game",
            1,
            minimum=0,
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
        OptionSpec("jacoby", "Money game: gammons count only once the cube is turned", True),
        OptionSpec("beavers", "Money game: a doubled player may beaver (take and redouble)", False),
        OptionSpec(
            "automatic",
            "Money game: equal opening dice double the cube, at most this many times a game",
            0,
            minimum=0,
            maximum=cube.MAX_AUTOMATIC,
        ),
        OptionSpec(
            "limit",
            "Money game: the session ends once a player is this many points ahead (0: no limit)",
            0,
            minimum=0,
            maximum=cube.MAX_LIMIT,
        ),
        OptionSpec(
            "position",
            "Start from this position: a GNU Backgammon ID (with its match ID) or an XGID",
            "",
            summary="from a set position, unrated",
        ),
        # The live clock is kept and run by the bot's services (engine.live_clock): empty is none,
        # each turn then has the server's deadline.
        OptionSpec(
            "clock",
            "Live clock: each player's reserve for the match + delay per move, e.g. 2m+12s",
            "",
            summary="clock {value}",
        ),
        # The tutor is the bot's (bot.tutor): it warns a player of an error before it is final, for
        # both players when the challenger sets it; such a match is unrated (``counts_for_rating``).
        OptionSpec(
            "tutor",
            "Tutor: each player is warned, privately, of an error before it is final (unrated)",
            False,
            summary="tutor on: unrated",
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
        length = int(resolved["length"])
        rules = RuleSet(resolved["rules"])
        money = _money_rules(resolved)
        if resolved.get("position"):
            return start_from(read_code(resolved["position"]), rules, length, money)
        return BackgammonState.new(rules, length, money)

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The options checked, a ``position`` included: the match length comes from its code when
        the code has one (a ``length`` given too must agree), and the position must be one this
        match can start from; ``BadOptionsError`` with the reason otherwise."""
        given = dict(options or {})
        code = given.get("position")
        if not code:
            return self._checked(given)
        if not isinstance(code, str):
            raise BadOptionsError(f"position must be a GNU Backgammon ID or an XGID, not {code!r}")
        try:
            pasted = read_code(code)
            if pasted.info is not None:
                check_match(pasted.info)
                if "length" in given and given["length"] != pasted.length:
                    raise BadOptionsError(
                        f"the position is of a {pasted.length}-point match, not {given['length']} "
                        "points: leave the length out, or give the same one"
                    )
                given["length"] = pasted.length
                if pasted.length == cube.MONEY:
                    # The money rules as the code says (a beaver made says beavers), unless given.
                    given.setdefault("jacoby", pasted.info.jacoby)
                    given.setdefault("beavers", pasted.beavers or pasted.beavered)
            given["position"] = code.strip()
            resolved = self._checked(given)
            start_from(pasted, RuleSet(resolved["rules"]), int(resolved["length"]), _money_rules(resolved))
        except PositionCodeError as exc:
            raise BadOptionsError(_lowered(str(exc))) from exc
        return resolved

    def starts_from_set_position(self, options: Mapping[str, Any]) -> bool:
        return bool(options.get("position"))

    def _checked(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """``_with_money_rules``, without a ``position``, ``clock`` or ``tutor`` left empty: the saved
        options of a match without them stay as they were before those options came."""
        resolved = self._with_money_rules(given)
        if not isinstance(resolved.get("tutor", False), bool):
            raise BadOptionsError(f"tutor must be true or false, not {resolved['tutor']!r}")
        if resolved.get("tutor") and RuleSet(resolved["rules"]) is RuleSet.OLDENGLISH:
            raise BadOptionsError(
                "the tutor does not judge Old English (the engine does not know its five-checker "
                "limit): leave tutor out, or play standard rules"
            )
        for name in ("position", "clock", "tutor"):
            if not resolved.get(name):
                resolved.pop(name, None)
        return resolved

    def _with_money_rules(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The options checked, with the rules of money play only in a money game (``length`` 0):
        there they get their defaults, while a match refuses them (and keeps its saved options as
        they were before money play)."""
        resolved = super().resolve_options(given)
        if resolved["length"] != cube.MONEY:
            named = [name for name in MONEY_OPTIONS if name in given]
            if named:
                raise BadOptionsError(
                    f"{' and '.join(named)} {'is a rule' if len(named) == 1 else 'are rules'} of money "
                    "play: add length:0 for a money game, or leave "
                    f"{'it' if len(named) == 1 else 'them'} out of a match"
                )
            return {name: value for name, value in resolved.items() if name not in MONEY_OPTIONS}
        if not RuleSet(resolved["rules"]).uses_cube:
            raise BadOptionsError(
                "a money game (length:0) is played with the doubling cube, which Old English does not have"
            )
        for name in ("jacoby", "beavers"):
            if not isinstance(resolved[name], bool):
                raise BadOptionsError(f"{name} must be true or false, not {resolved[name]!r}")
        return resolved

    def describe_options(self, resolved: Mapping[str, Any]) -> str:
        """As for any game, except that a money game says so with its rules: the Jacoby rule, on or
        off, whenever the options name it (resolved options always do: it matters to every cube
        decision, on by default or not), then those that differ from their defaults ("money game,
        Jacoby rule, beavers, at most 1 automatic double"), then the options of any game (a set
        position, a clock)."""
        if resolved.get("length") != cube.MONEY:
            return super().describe_options(resolved)
        rules = resolved.get("rules", RuleSet.STANDARD.value)
        phrases = ["money game"]
        if rules != RuleSet.STANDARD.value:
            phrases.append(super().describe_options({"rules": rules}))
        if "jacoby" in resolved:
            phrases.append("Jacoby rule" if resolved["jacoby"] else "no Jacoby rule")
        if resolved.get("beavers", False):
            phrases.append("beavers")
        automatic = int(resolved.get("automatic", 0))
        if automatic:
            phrases.append(f"at most {automatic} automatic double{'s' if automatic > 1 else ''}")
        limit = int(resolved.get("limit", 0))
        if limit:
            phrases.append(f"until a player is {limit} point{'s' if limit > 1 else ''} ahead")
        others = {name: resolved[name] for name in ("position", "clock", "tutor") if name in resolved}
        phrases.append(super().describe_options(others))
        return ", ".join(phrase for phrase in phrases if phrase)

    def stop_after_game(self, state: GameState, seat: int) -> Action:
        """``StopAfterGame``: in a money session only (``apply`` says why not elsewhere)."""
        return StopAfterGame(seat)

    def speaks_for(self, action: Action) -> int | None:
        return action.seat if isinstance(action, StopAfterGame) else None

    def counts_for_rating(self, options: Mapping[str, Any]) -> bool:
        """A money session is not rated: it has no set length, and its result is a running score in
        points, not a match won or lost (docs/ratings.md); nor is a match started from a set position
        (practice, or settling an argument), nor one with the tutor on (the engine warned of errors)."""
        return (
            options.get("length") != cube.MONEY and not options.get("position") and not options.get("tutor")
        )

    def from_json(self, data: Mapping[str, Any]) -> BackgammonState:
        state = BackgammonState.from_json(data)
        # A field added since the match was saved is read as its default, and not asked for back.
        written = {k: v for k, v in state.to_json().items() if k in data or k not in ADDED_FIELDS}
        if written != dict(data):
            raise CorruptStateError("the saved backgammon match has fields that do not belong to it")
        return state

    def parse_action(self, state: GameState, text: str) -> Action:
        if not isinstance(state, BackgammonState):
            raise TypeError("a backgammon action needs a backgammon position")
        return state.parse(text)

    def forfeit(self, state: GameState, loser: int, reason: Forfeit, description: str) -> Outcome:
        """A resigned or timed-out match: the opponent wins it, rated at the match's full length. A
        money session ends there: the game in progress counts as lost by ``loser`` as a single game
        at the cube's value, and the session is won by whoever is ahead then."""
        assert isinstance(state, BackgammonState)
        if state.is_money:
            return _money_forfeit(state, loser, reason)
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
        beaver = state.money is not None and state.money.beavers
        return (("GNUBG ID", gnubg_id(state.board, info)), ("XGID", xgid(state.board, info, beaver=beaver)))

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

    match_file_suffix: ClassVar[str] = ".mat"

    def import_match(self, data: bytes) -> ImportedMatch:
        """A ``.mat`` file of GNU Backgammon, eXtreme Gammon or Jellyfish, replayed under our rules."""
        read = read_mat(data)
        return ImportedMatch(names=read.names, options=self.resolve_options(read.options), log=read.log)

    def export_match(
        self,
        options: Mapping[str, Any],
        log: Sequence[str],
        names: tuple[str, str],
        ending: Outcome | None = None,
    ) -> MatchFile | None:
        """The match as a Jellyfish ``.mat`` file (none for Old English, which the format cannot hold,
        nor for a match started from a set position: a ``.mat`` game starts from the opening, nor for a
        match ended before its first roll)."""
        if options.get("position"):
            return None
        text = mat_file(self, options, log, names, ending)
        if text is None:
            return None
        return MatchFile(
            filename=f"{_file_stem(names)}.mat",
            data=text.encode("utf-8"),
            description="The match for GNU Backgammon or eXtreme Gammon (File, Import, .mat)",
        )

    def export_analysis(
        self,
        options: Mapping[str, Any],
        log: Sequence[str],
        names: tuple[str, str],
        analysis: Analysis,
        ending: Outcome | None = None,
    ) -> MatchFile | None:
        """The match with its analysis as a GNU Backgammon ``.sgf`` file (``sgfexport``): each
        decision's candidates with our equities, for GNU Backgammon's File, Open. None where the
        ``.mat`` file has none (Old English, a set position, no roll)."""
        text = sgf_text(self, options, log, names, analysis, ending)
        if text is None:
            return None
        return MatchFile(
            filename=f"{_file_stem(names)}.sgf",
            data=text.encode("utf-8"),
            description="The match with this analysis, for GNU Backgammon (File, Open)",
        )


def _file_stem(names: tuple[str, str]) -> str:
    """The players' names as a file name: ``Alice-vs-Bob``."""
    return "-vs-".join(re.sub(r"[^A-Za-z0-9]+", "", name)[:20] or "player" for name in names)


def _money_rules(resolved: Mapping[str, Any]) -> MoneyRules | None:
    """The rules of a money session from its resolved options; None for a match."""
    if int(resolved["length"]) != cube.MONEY:
        return None
    return MoneyRules(
        jacoby=resolved["jacoby"],
        beavers=resolved["beavers"],
        automatic=resolved["automatic"],
        limit=resolved["limit"],
    )


def _money_forfeit(state: BackgammonState, loser: int, reason: Forfeit) -> Outcome:
    score = [*state.score]
    if state.phase not in (Phase.OPENING, Phase.OVER):
        score[1 - loser] += state.cube
    left = "resigned" if reason is Forfeit.RESIGNATION else "ran out of time"
    told = f"{COLOURS[loser]} {left}, losing the game in progress: "
    return session_outcome((score[0], score[1]), reason, told)


def _lowered(sentence: str) -> str:
    """A sentence as the end of "Backgammon: ..." (``BadOptionsError`` messages start in lower case
    and end without a full stop; the challenge puts both back)."""
    return (sentence[:1].lower() + sentence[1:]).rstrip(".")


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
    score = state.score
    if state.result is not None and state.result.winner is not None and max(score) >= state.length:
        # A finished match is coded as its last game over, at the score before that game (GNU
        # Backgammon aborts on a score at or above the length).
        won = state.result.winner
        before = min(state.length - 1, max(0, score[won] - state.result.points))
        score = (before, score[1]) if won == 0 else (score[0], before)
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
        score=score,
        jacoby=state.money is not None and state.money.jacoby,
    )


VARIANT = BackgammonVariant()

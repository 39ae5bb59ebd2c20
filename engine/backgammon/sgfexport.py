"""A played match as a GNU Backgammon ``.sgf`` file, with our analysis in it: the file GNU Backgammon
opens (File, Open) to show the match with each decision's evaluated candidates.

The format (GNU Backgammon's ``sgf.c``, Smart Game Format with game type ``GM[6]``): one game tree a
game, its root saying the match (``MI[length:N][game:G][ws:..][bs:..]``, ``length:0`` a money game), the
players (``PW`` is our seat 0, ``PB`` seat 1), the rules (``RU[Crawford:CrawfordGame:Jacoby:Nackgammon]``),
a cube an automatic double started above 1 (``CV``) and the result (``RE[W+2]``, ``RE[B+1R]`` when
resigned); then a node a move: ``W[31qtst]`` (the dice, then each checker's from and to point as letters
from the mover's side: ``a`` its 1-point to ``x`` its 24-point for White, the other way round for Black,
``y`` the bar, ``z`` off; a roll that could not be played has the dice alone), ``B[double]``,
``W[take]``, ``W[drop]`` (a beaver is the doubled player's ``double`` and the doubler's ``take``, as GNU
Backgammon writes it); dice rolled and not played before a resignation are ``PL[W]DI[32]``.

Our analysis (``engine.ai.coaching.Analysis``, matched to the moves by ``Decision.action``):

- a checker play's candidates as ``A[i][move E ver 3 w wg wbg lg lbg equity 2C 0 1 0.000000 1]...``
  (``i`` the played one's place; the five probabilities are zero: our analysis keeps equities only);
  an analysis saved before candidates were kept gives the played and the best play;
- a cube decision as ``DA[E ver 3 2C 1 0.000000 1 ...]``: seven outputs for no double and seven for
  double/take, the last of each the cubeful equity (GNU Backgammon counts double/pass as +1), on the
  double, take, pass or beaver node, or on the move after a roll on the player's next move;
- our marks: ``BM[2]`` a blunder, ``BM[1]`` an error, ``DO[]`` doubtful (``BC``/``DC`` for the cube
  decision before a move); the depth is ours less one (GNU Backgammon counts plies from 0).

No file (None) where ``.mat`` has none either (``matexport``): Old English, a match started from a set
position, a match with no roll. A money session with automatic doubles, which ``.mat`` cannot hold,
has one: each game's root gives its cube (``CV[2]``). The luck of the rolls (``LU[]``) is not written:
the analysis keeps each player's sum, not each roll's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.ai.coaching import Analysis, Candidate, Decision
from engine.backgammon.board import BAR_POINT, OFF_POINT, RuleSet
from engine.backgammon.game import (
    AcceptResignation,
    BackgammonState,
    Beaver,
    Checkers,
    Double,
    MoveChecker,
    Opening,
    Pass,
    Phase,
    Roll,
    RollOn,
    Take,
)
from engine.backgammon.matexport import resigned_ending
from engine.backgammon.notation import play_text
from engine.backgammon.plays import Move, Play
from engine.protocol import Outcome, Variant

COLOURS = "WB"
"""The SGF colour of each seat: seat 0 is White (``PW``), seat 1 Black (``PB``)."""


@dataclass(slots=True)
class SgfNode:
    """One node of a game: its property text (``W[31qtst]``) and the decisions it carries."""

    text: str
    play: Decision | None = None
    """The checker play of this move (its candidates become ``A[]``)."""
    cube: Decision | None = None
    """The cube decision made at this node (``DA[]``): the double, the answer, or the roll on."""
    cube_before: bool = False
    """Whether ``cube`` was the decision before the move (its marks are then ``BC``/``DC``)."""
    seat: int = 0
    state: BackgammonState | None = None
    """The position before the move (a checker play's candidates are read from its legal plays)."""


@dataclass(slots=True)
class SgfGame:
    """One game: the score before it, whether it is the Crawford game, its cube at the start, its
    nodes and its result (``winner`` None while unfinished)."""

    score: tuple[int, int]
    crawford: bool
    cube: int = 1
    nodes: list[SgfNode] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    resigned: bool = False


class _Replay:
    """The log replayed into games of nodes, each with the decisions of the analysis it carries."""

    def __init__(self, first: BackgammonState, decisions: Mapping[int, Decision]) -> None:
        self.decisions = decisions
        self.games: list[SgfGame] = []
        self.game = SgfGame(first.score, first.crawford)
        self.moves: list[Move] = []
        self.turn_start: int | None = None
        self.turn_state: BackgammonState | None = None
        self.rolled_on: int | None = None

    def _decision(self, index: int | None, kind: str) -> Decision | None:
        found = self.decisions.get(index) if index is not None else None
        return found if found is not None and found.kind == kind else None

    def _node(self, seat: int, value: str, **extra: Any) -> None:
        self.game.nodes.append(SgfNode(f"{COLOURS[seat]}[{value}]", seat=seat, **extra))

    def step(self, i: int, before: BackgammonState, action: Any, after: BackgammonState) -> None:
        seat = before.turn_seat if before.turn_seat is not None else after.turn_seat or 0
        if isinstance(action, Opening | Roll):
            self.moves = []
            if isinstance(action, Opening):
                self.rolled_on = None  # a roll on before a resignation is no decision of this game
                self.game.cube = after.cube
            if before.phase is not Phase.OPENING or after.turn_seat is not None:
                self._rolled(seat, before, after)
        elif isinstance(action, RollOn):
            self.rolled_on = i
        elif isinstance(action, MoveChecker | Checkers):
            self._stepped(i, seat, before, action, after)
        else:
            self._cube_or_resign(i, seat, before, action)
        if after.game_number != before.game_number or (after.is_terminal() and after.score != before.score):
            winner = max((0, 1), key=lambda s: after.score[s] - before.score[s])
            self.end(winner, after.score[winner] - before.score[winner])
            self.game = SgfGame(after.score, after.crawford)

    def _rolled(self, seat: int, before: BackgammonState, after: BackgammonState) -> None:
        if after.phase is not Phase.PLAY and after.last_play is not None:
            # A roll that could not be played: the turn passed at once.
            self._node(seat, dice_text(after.last_play.dice), **self._cube_before())

    def _cube_before(self) -> dict[str, Any]:
        cube = self._decision(self.rolled_on, "cube")
        self.rolled_on = None
        return {"cube": cube, "cube_before": cube is not None}

    def _stepped(
        self,
        i: int,
        seat: int,
        before: BackgammonState,
        action: MoveChecker | Checkers,
        after: BackgammonState,
    ) -> None:
        if not before.played:
            self.turn_start, self.turn_state = i, before
        self.moves.extend([action.move] if isinstance(action, MoveChecker) else action.moves)
        if after.phase is Phase.PLAY and after.game_number == before.game_number:
            return
        assert before.dice is not None
        start = self.turn_start if self.turn_start is not None else i
        text = dice_text(before.dice) + moves_text(self.moves, seat)
        played = self._decision(start, "play")
        self._node(seat, text, play=played, state=self.turn_state or before, **self._cube_before())
        self.moves, self.turn_start, self.turn_state = [], None, None

    def _cube_or_resign(self, i: int, seat: int, before: BackgammonState, action: Any) -> None:
        if isinstance(action, Double):
            self._node(seat, "double", cube=self._decision(i, "cube"))
        elif isinstance(action, Take | Pass):
            self._node(
                1 - seat, "take" if isinstance(action, Take) else "drop", cube=self._decision(i, "take")
            )
        elif isinstance(action, Beaver):
            self._node(1 - seat, "double", cube=self._decision(i, "take"))
            self._node(seat, "take")
        elif isinstance(action, AcceptResignation):
            self.game.resigned = True
            if before.resume is Phase.PLAY and before.dice:
                self._dice_alone(before.turn_seat or 0, before.dice)

    def _dice_alone(self, seat: int, dice: tuple[int, int]) -> None:
        self.game.nodes.append(SgfNode(f"PL[{COLOURS[seat]}]DI[{dice_text(dice)}]", seat=seat))

    def end(self, winner: int, points: int) -> None:
        self.game.winner, self.game.points = winner, points
        self.games.append(self.game)

    def ended_off_the_board(self, state: BackgammonState, winner: int) -> None:
        """The game under way resigned as ``matexport`` writes it (a waiting double answered first)."""
        for mat in resigned_ending(state, winner):
            if mat.kind in ("pass", "take"):
                self._node(mat.seat, "drop" if mat.kind == "pass" else "take")
            elif mat.kind == "rolled" and mat.dice is not None:
                self._dice_alone(mat.seat, mat.dice)
            elif mat.kind == "resign":
                self.game.resigned = True
            elif mat.kind == "win":
                self.end(mat.seat, mat.points)


def dice_text(dice: tuple[int, int]) -> str:
    """A roll as the file writes it, the higher die first (``64``), as the ``.mat`` file does."""
    return f"{max(dice)}{min(dice)}"


def _point_letter(point: int, seat: int) -> str:
    """A point of the mover's numbering (25 the bar, 0 off) as the SGF letter from the mover's side."""
    if point == BAR_POINT:
        return "y"
    if point == OFF_POINT:
        return "z"
    return chr(ord("a") + point - 1) if seat == 0 else chr(ord("x") - (point - 1))


def moves_text(moves: Sequence[Move], seat: int) -> str:
    """A play's checker moves as SGF letters, a from and a to a move (``qtst`` for Black's 8/5 6/5)."""
    return "".join(_point_letter(m.src, seat) + _point_letter(m.dst, seat) for m in moves)


def sgf_games(
    variant: Variant,
    options: Mapping[str, Any],
    log: Sequence[str],
    analysis: Analysis | None = None,
    ending: Outcome | None = None,
) -> list[SgfGame]:
    """The games of the match played from ``options`` through ``log``, with ``analysis``'s decisions on
    their nodes; the game under way when ``ending`` ended the match off the board is resigned."""
    state = variant.new_game(options)
    assert isinstance(state, BackgammonState)
    decisions = {d.action: d for d in analysis.decisions if d.action is not None} if analysis else {}
    replay = _Replay(state, decisions)
    for i, text in enumerate(log):
        action = variant.parse_action(state, text)
        after = state.apply(action)
        assert isinstance(after, BackgammonState)
        replay.step(i, state, action, after)
        state = after
    if ending is not None and ending.winner is not None and not state.is_terminal():
        replay.ended_off_the_board(state, ending.winner)
    if replay.game.nodes:
        replay.games.append(replay.game)
    return replay.games


APPLICATION = "Ringside"
"""Who wrote the file (``AP[]``)."""
_NUMBER = re.compile(r"\d+")


def gnubg_plies(level: str) -> int:
    """Our depth ("3-ply") as GNU Backgammon counts it (from 0: its 2-ply); 0 when it has no number."""
    found = _NUMBER.search(level)
    return max(0, int(found.group()) - 1) if found else 0


def escaped(text: str) -> str:
    """A property's text as SGF escapes it (``\\`` and ``]``)."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _root(game: SgfGame, index: int, length: int, names: tuple[str, str], rules: Sequence[str]) -> str:
    out = (
        f"(;FF[4]GM[6]CA[UTF-8]AP[{APPLICATION}]"
        f"MI[length:{length}][game:{index}][ws:{game.score[0]}][bs:{game.score[1]}]"
        f"PW[{escaped(names[0])}]PB[{escaped(names[1])}]"
    )
    if rules:
        out += f"RU[{':'.join(rules)}]"
    if game.cube > 1:
        out += f"CV[{game.cube}]"
    if game.winner is not None:
        out += f"RE[{COLOURS[game.winner]}+{game.points}{'R' if game.resigned else ''}]"
    return out


def _rules(first: BackgammonState, game: SgfGame) -> list[str]:
    rules = []
    if first.length > 1:
        rules.append("Crawford")
        if game.crawford:
            rules.append("CrawfordGame")
    if first.money is not None and first.money.jacoby:
        rules.append("Jacoby")
    if first.rules is RuleSet.NACKGAMMON:
        rules.append("Nackgammon")
    return rules


def _mark(decision: Decision | None, thresholds: tuple[float, float, float], cube_before: bool) -> str:
    """Our category of the decision as GNU Backgammon marks it (``BM[2]`` a blunder ...), or ""."""
    if decision is None or not decision.unforced:
        return ""
    doubtful, error, blunder = thresholds
    letter = "C" if cube_before else "M"
    if decision.loss >= blunder:
        return f"B{letter}[2]"
    if decision.loss >= error:
        return f"B{letter}[1]"
    if decision.loss >= doubtful:
        return "DC[]" if cube_before else "DO[]"
    return ""


def _context(plies: int) -> str:
    """GNU Backgammon's evaluation context of a cubeful evaluation at ``plies`` (deterministic, pruned)."""
    return f"{plies}C 1 0.000000 1"


def cube_analysis(decision: Decision, plies: int) -> str:
    """The ``DA[]`` of a cube decision that kept its candidates (no double, double/take), or ""."""
    if len(decision.candidates) < 2:
        return ""
    no_double, take = decision.candidates[0].equity, decision.candidates[1].equity
    outputs = [*(0.0,) * 6, no_double, *(0.0,) * 6, take]
    return f"DA[E ver 3 {_context(plies)} {' '.join(f'{x:.6f}' for x in outputs)}]"


def _candidates(decision: Decision) -> list[Candidate]:
    if decision.candidates:
        return list(decision.candidates)
    # Saved before candidates were kept: the played and the best play.
    out = []
    if decision.best_equity is not None:
        out.append(Candidate(decision.best, decision.best_equity))
    if decision.played_equity is not None and decision.played != decision.best:
        out.append(Candidate(decision.played, decision.played_equity))
    return out


def move_analysis(node: SgfNode, decision: Decision, plies: int) -> str:
    """The ``A[]`` of a checker play: its candidates, each a legal play of the roll, the played one's
    place first; "" when none can be read (the notation of another version of ours)."""
    assert node.state is not None
    plays: dict[str, Play] = {play_text(play): play for play in node.state.plays()}
    played = plays.get(decision.played)
    entries: list[tuple[Play, float]] = []
    for candidate in _candidates(decision):
        play = plays.get(candidate.text)
        if play is not None and all(play.result != p.result for p, _ in entries):
            entries.append((play, candidate.equity))
    if played is None or not entries:
        return ""
    at = next((k for k, (play, _) in enumerate(entries) if play.result == played.result), None)
    if at is None:
        return ""
    parts = [
        f"[{moves_text(play.moves, node.seat)} E ver 3 {' '.join(['0.000000'] * 5)} {equity:.6f} "
        f"{plies}C 0 1 0.000000 1]"
        for play, equity in entries
    ]
    return f"A[{at}]{''.join(parts)}MR[]"


def node_text(node: SgfNode, plies: int, thresholds: tuple[float, float, float]) -> str:
    """A node with its analysis and marks."""
    out = ";" + node.text
    if node.cube is not None:
        out += cube_analysis(node.cube, plies)
    if node.play is not None:
        out += move_analysis(node, node.play, plies)
    if node.play is not None:
        out += _mark(node.play, thresholds, cube_before=False)
    out += _mark(node.cube, thresholds, cube_before=node.cube_before)
    return out


def sgf_text(
    variant: Variant,
    options: Mapping[str, Any],
    log: Sequence[str],
    names: tuple[str, str],
    analysis: Analysis | None = None,
    ending: Outcome | None = None,
) -> str | None:
    """The ``.sgf`` text of the match with ``analysis`` in it (moves only without one), or None: Old
    English (GNU Backgammon does not know its rule), a match started from a set position, a match ended
    before its first roll."""
    first = variant.new_game(options)
    assert isinstance(first, BackgammonState)
    if first.rules is RuleSet.OLDENGLISH or options.get("position"):
        return None
    games = sgf_games(variant, options, log, analysis, ending)
    if not games:
        return None
    plies = gnubg_plies(analysis.level) if analysis is not None else 0
    thresholds = analysis.thresholds if analysis is not None else (0.02, 0.04, 0.08)
    out = []
    for index, game in enumerate(games):
        nodes = "".join("\n" + node_text(node, plies, thresholds) for node in game.nodes)
        out.append(_root(game, index, first.length, names, _rules(first, game)) + nodes + ")\n")
    return "".join(out)

"""``python -m engine analyse --game backgammon --mat FILE``: a ``.mat`` match analysed as ``/analyse``
does, as one JSON object, so anyone can hold our analysis against another program's.

The object: ``depth`` (in words, "3-ply"); ``players``, each ``name``, ``pr`` (null without a
counted decision), ``doubtful``, ``errors``, ``blunders``, ``luck``; ``decisions``, every counted
decision in match order, each ``game``, ``move`` (the ``.mat`` line the decision is on, as players
count: ``mat_moves``), ``player`` (the name), ``position_id`` (``GNUBGID:MATCHID`` of the position
decided, as GNU Backgammon's "set gnubgid" reads it), ``dice`` (``[6, 4]``, null for a cube
decision), ``played``, ``best`` and ``loss`` (equity lost, in the analysis's units).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.ai.backgammon_analysis import LEVEL, analyse
from engine.ai.coaching import Analysis
from engine.backgammon.formats import gnubg_id
from engine.backgammon.game import BackgammonState, Double, Opening, Pass, Roll, RollOn, Take
from engine.backgammon.matimport import ImportedMatch
from engine.backgammon.variant import VARIANT, match_info
from engine.protocol import replay_states


def mat_report(match: ImportedMatch, level: str = LEVEL) -> dict[str, Any]:
    """The JSON object of ``match`` analysed at ``level``."""
    analysis = analyse(match.options, match.log, level=level)
    states = list(replay_states(VARIANT, match.options, match.log))
    return report(analysis, states, match.log, match.names)


def report(
    analysis: Analysis, states: Sequence[Any], log: Sequence[str], names: tuple[str, str]
) -> dict[str, Any]:
    """The JSON object of ``analysis`` of the match that went through ``states`` by ``log``."""
    moves = mat_moves(states, log)
    decisions = []
    for d in analysis.decisions:
        if not d.unforced or d.action is None:
            continue
        state: BackgammonState = states[d.action]
        dice = None if d.roll is None else [int(x) for x in d.roll.split("-")]
        decisions.append(
            {
                "game": d.game,
                "move": moves[d.action],
                "player": names[d.seat],
                "position_id": gnubg_id(state.board, match_info(state)),
                "dice": dice,
                "played": d.played,
                "best": d.best,
                "loss": round(d.loss, 4),
            }
        )
    players = [
        {
            "name": names[p.seat],
            "pr": None if p.pr is None else round(p.pr, 2),
            "doubtful": p.doubtful,
            "errors": p.errors,
            "blunders": p.blunders,
            "luck": round(p.luck, 3),
        }
        for p in analysis.players
    ]
    return {"depth": analysis.level, "players": players, "decisions": decisions}


def mat_moves(states: Sequence[Any], log: Sequence[str]) -> list[int]:
    """For each action of ``log``, the ``.mat`` line (move number) it belongs to.

    Each line holds one entry of each player (``matfile``): a roll and its play, a double, a take or
    a pass; a game seat 1 starts begins with an empty left column. A play is on its roll's line, and
    rolling on without doubling on the line of the roll that follows. (Stands in for the shared
    move numbering of issue 24 until that lands; the same count.)
    """
    lines: list[int] = []
    entries, offset, game = 0, 0, 0
    for state, text in zip(states, log, strict=False):
        action = VARIANT.parse_action(state, text)
        if state.game_number != game:
            entries, offset, game = 0, 0, state.game_number
        if isinstance(action, Opening) and action.die0 != action.die1:
            offset = 0 if action.die0 > action.die1 else 1
        if isinstance(action, Opening | Roll | Double | Take | Pass) and not (
            isinstance(action, Opening) and action.die0 == action.die1
        ):
            entries += 1
        ahead = 1 if isinstance(action, RollOn) else 0
        lines.append(max(1, (entries + ahead + offset + 1) // 2))
    return lines

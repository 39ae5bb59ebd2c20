"""The analysis of a match in words: the message's table, its definitions and biggest mistakes, and
where a decision was made, as the analysis message and the review say them."""

from __future__ import annotations

from typing import Any

from engine.ai.coaching import Analysis, Decision, PlayerReport, Scale

SCALE_WORDS = {
    Scale.MATCH: "match equity (cubeful: the score, the cube and the Crawford game count)",
    Scale.CUBEFUL_MONEY: "money equity (cubeful: the cube and the session's Jacoby and beaver rules count)",
    Scale.MONEY: "money equity (cubeless)",
    Scale.POINTS: "points won (the play ends the game)",
}
NAME_WIDTH = 10
"""Characters of a player's name in the analysis table (a phone shows about 34 in a code block)."""


def signed(value: float, digits: int = 3) -> str:
    return f"{value:+.{digits}f}"


def analysis_text(analysis: Analysis, match_id: int, title: str, options: str, names: tuple[str, str]) -> str:
    """The analysis as a message: a table per player, the definitions in one line each."""
    low, mid, high = analysis.thresholds
    heads = [name[:NAME_WIDTH] for name in names]

    def row(label: str, value: Any) -> str:
        return f"{label:<10}" + "".join(f"{value(p):>{NAME_WIDTH + 2}}" for p in analysis.players)

    def pr(p: PlayerReport) -> str:
        return "—" if p.pr is None else f"{p.pr:.1f}"

    table = [
        f"{'':<10}" + "".join(f"{h:>{NAME_WIDTH + 2}}" for h in heads),
        row("PR", pr),
        row("Decisions", lambda p: p.unforced),
        row("Doubtful", lambda p: p.doubtful),
        row("Errors", lambda p: p.errors),
        row("Blunders", lambda p: p.blunders),
        row("Luck", lambda p: signed(p.luck if p.luck_total is None else p.luck_total, 2)),
        *luck_rows(analysis, row),
    ]
    what = f"{title}" + (f", {options}" if options else "")
    lines = [
        f"📊 **Analysis of match #{match_id}** ({what})",
        "```\n" + "\n".join(table) + "\n```",
        "PR: 500 × the equity lost per decision, on average (lower is better; 0 plays like the engine). "
        f"Doubtful from {low:.2f} equity lost, error from {mid:.2f}, blunder from {high:.2f}. "
        + luck_words(analysis),
        f"Engine: {analysis.level}; {SCALE_WORDS[analysis.scale]}. The chart shows the first player's "
        "chance to win each game, before each roll.",
    ]
    worst = biggest_mistakes(analysis)
    if worst:
        lines.append("**Biggest mistakes**")
        lines.extend(
            f"· {names[d.seat][:32]}, {decision_place(d)}: {_kind_words(d)} `{d.played}`, best `{d.best}` "
            f"({signed(-d.loss)})"
            for d in worst
        )
    if analysis.approximate:
        lines.append(f"⚠️ This analysis is {analysis.approximate}.")
    lines.append(REVIEW_NOTE)
    return "\n".join(lines)


LUCK_WORDS = "Luck: what the dice gave against average rolls, in equity (+ lucky, − unlucky)."
MATCH_LUCK_WORDS = (
    "Luck: what the dice gave against average rolls, in equity and in match winning chances "
    "(+ lucky, − unlucky). Luck adj.: the result (+50% won, −50% lost) minus your luck plus your "
    "opponent's, as GNU Backgammon counts it: above 0, you outplayed your opponent whatever the dice."
)
MONEY_LUCK_WORDS = (
    "Luck: what the dice gave against average rolls, in equity and in points (+ lucky, − unlucky). "
    "Luck adj.: points won per game, minus your luck plus your opponent's, as GNU Backgammon counts it: "
    "above 0, you outplayed your opponent whatever the dice."
)


def luck_rows(analysis: Analysis, row: Any) -> list[str]:
    """The table's rows of luck in the result's units and of the luck-adjusted result; none for an
    analysis saved before they were kept."""
    first = analysis.players[0]
    if first.luck_result is None or first.luck_adjusted is None:
        return []
    if first.luck_unit == "points":
        games = max(1, len(analysis.chances))
        return [
            row("Luck pts", lambda p: signed(p.luck_result or 0.0, 2)),
            row("Luck adj.", lambda p: signed((p.luck_adjusted or 0.0) / games, 2)),
        ]
    return [
        row("Luck MWC", lambda p: percent(p.luck_result or 0.0)),
        row("Luck adj.", lambda p: percent(p.luck_adjusted or 0.0)),
    ]


def percent(share: float) -> str:
    """A share of match winning chances as a signed percentage: ``+4.5%``."""
    return f"{100 * share:+.1f}%"


def luck_words(analysis: Analysis) -> str:
    """The definition of the luck rows shown."""
    first = analysis.players[0]
    if first.luck_result is None or first.luck_adjusted is None:
        return LUCK_WORDS
    return MONEY_LUCK_WORDS if first.luck_unit == "points" else MATCH_LUCK_WORDS


REVIEW_NOTE = "**Review**: every decision that lost equity, a page each, privately (anyone may review)."


def decision_place(decision: Decision) -> str:
    """Where a decision was made, as the analysis and the review name it: game and move, as players
    count (``Decision.turn`` holds the move: the ``.mat`` line of the turn)."""
    if decision.action is None:
        return f"game {decision.game} turn {decision.turn}"  # saved before moves were counted so
    return f"game {decision.game}, move {decision.turn}"


MISTAKES_SHOWN = 3
"""How many of the costliest decisions the analysis lists."""


def biggest_mistakes(analysis: Analysis) -> list[Decision]:
    """The costliest counted decisions, at least doubtful, costliest first (earlier first on a tie)."""
    low = analysis.thresholds[0]
    counted = [d for d in analysis.decisions if d.unforced and d.loss >= low]
    counted.sort(key=lambda d: (-d.loss, d.game, d.turn))
    return counted[:MISTAKES_SHOWN]


def _kind_words(decision: Decision) -> str:
    if decision.kind == "play" and decision.roll:
        return f"rolled {decision.roll}, played"
    return {"play": "played", "cube": "cube:", "take": "answer:"}.get(decision.kind, "chose")

"""Controls for ring: Roll; the odds swap and evens knock as selects; a move as whole steps.

Each move step is one choice ("2 tokens 7 → 11 (4)"), so a typical turn is Roll and one pick per
die. A step that is forced (the only legal one) is played by the session manager and said.
"""

from __future__ import annotations

import re
from itertools import groupby

from cogs.panels.base import (
    ROLL,
    ButtonSpec,
    OptionSpec,
    PanelSpec,
    Row,
    SelectSpec,
    Style,
    act,
    chunk,
    nav,
)
from engine import GameView
from engine.ring import COLOURS, Knock, Move, Phase, RingState, Swap

MAX_PANEL_ROWS = 4
"""Rows of controls a panel may fill: the board adds a fifth with Resign and Rules (5 at most)."""
BUTTONS_PER_ROW = 5
MAX_OPTIONS = 25
"""Options of one select menu (Discord's limit)."""

_MOVE_SELECTION = re.compile(r"^m(?P<source>\d{1,2})(?:x(?P<count>\d{1,2}))?$")
_SWAP_SELECTION = re.compile(r"^s(?P<own>\d{1,2})$")


def _tokens(n: int) -> str:
    return "1 token" if n == 1 else f"{n} tokens"


class RingPanel:
    def controls(self, view: GameView, selection: str) -> PanelSpec:
        state = view  # ring has no secrets: every view is the position
        assert isinstance(state, RingState)
        if state.is_terminal():
            return PanelSpec()
        if state.phase is Phase.ROLL:
            return PanelSpec(rows=((ButtonSpec("Roll", ROLL, Style.PRIMARY, emoji="🎲"),),))
        if state.phase is Phase.SWAP:
            return self._swap(state, selection)
        if state.phase is Phase.KNOCK:
            return self._knock(state)
        if state.phase is Phase.MOVE:
            return self._move(state, selection)
        return PanelSpec()

    def _swap(self, state: RingState, selection: str) -> PanelSpec:
        swaps = [a for a in state.legal_actions() if isinstance(a, Swap)]
        owns = sorted({a.own for a in swaps})
        notes: list[str] = []
        chosen = _SWAP_SELECTION.match(selection)
        own = int(chosen["own"]) if chosen and int(chosen["own"]) in owns else None
        if own is None and len(owns) == 1:
            own = owns[0]
            notes.append(f"Your only stack is on {own}.")
        if own is None:
            options = tuple(
                OptionSpec(f"Your stack on {s}", nav(f"s{s}"), _tokens(state.stack(s)[1])) for s in owns
            )
            return PanelSpec(rows=(SelectSpec("Swap which of your stacks?", options),))
        enemy = COLOURS[1 - state.to_move()]
        options = tuple(
            OptionSpec(f"{enemy}'s stack on {a.enemy}", act(a.notation), _tokens(state.stack(a.enemy)[1]))
            for a in swaps
            if a.own == own
        )
        rows: list[Row] = [SelectSpec(f"Swap your stack on {own} with…", options)]
        if len(owns) > 1:
            rows.append((ButtonSpec("Back", nav(""), emoji="↩️"),))
        return PanelSpec(rows=tuple(rows), notes=tuple(notes))

    def _knock(self, state: RingState) -> PanelSpec:
        enemy = COLOURS[1 - state.to_move()]
        options = tuple(
            OptionSpec(f"{enemy}'s stack on {a.space}", act(a.notation), _tokens(state.stack(a.space)[1]))
            for a in state.legal_actions()
            if isinstance(a, Knock)
        )
        return PanelSpec(rows=(SelectSpec(f"Knock out which of {enemy}'s stacks?", options),))

    def _move(self, state: RingState, selection: str) -> PanelSpec:
        """Whole steps ("2 tokens 7 → 11 (4)"): one pick per die.

        As buttons when they fit the rows a panel has, else as one select; only when a position has
        more steps than a select holds is a stack picked first (a navigation value, as before: a
        board posted before a restart still answers). A selection of a stack (and a count: boards
        of the earlier stack, count, die layout) narrows the steps to it.
        """
        moves = sorted(
            (a for a in state.legal_actions() if isinstance(a, Move)),
            key=lambda m: (m.source, m.die, m.count),
        )
        sources = sorted({m.source for m in moves})
        chosen = _MOVE_SELECTION.match(selection)
        source = int(chosen["source"]) if chosen and int(chosen["source"]) in sources else None
        if source is None:
            if len(moves) > MAX_OPTIONS:
                options = tuple(
                    OptionSpec(f"Stack on {s}", nav(f"m{s}"), _tokens(state.stack(s)[1])) for s in sources
                )
                return PanelSpec(rows=(SelectSpec("Move which stack?", options),))
            return PanelSpec(rows=self._steps(state, moves))
        steps = [m for m in moves if m.source == source]
        count = int(chosen["count"]) if chosen and chosen["count"] else None
        if count is not None and any(m.count == count for m in steps):
            steps = [m for m in steps if m.count == count]
        rows = list(self._steps(state, steps, room=MAX_PANEL_ROWS - 1))
        rows.append((ButtonSpec("Back", nav(""), emoji="↩️"),))
        return PanelSpec(rows=tuple(rows))

    def _steps(self, state: RingState, moves: list[Move], room: int = MAX_PANEL_ROWS) -> tuple[Row, ...]:
        """``moves`` (sorted; at most a select's worth) as buttons in ``room`` rows: a stack a row,
        split by die when its steps overflow a row, if that fits; else a stack a row; else packed;
        else as one select."""
        buttons = [ButtonSpec(_step_label(state, m), act(m.notation), Style.PRIMARY) for m in moves]
        by_source = [
            [button for _, button in grouped]
            for _, grouped in groupby(zip(moves, buttons, strict=True), key=lambda pair: pair[0].source)
        ]
        by_die: list[tuple[ButtonSpec, ...]] = []
        for _, grouped in groupby(zip(moves, buttons, strict=True), key=lambda pair: pair[0].source):
            steps = list(grouped)
            if len(steps) <= BUTTONS_PER_ROW:
                by_die.append(tuple(button for _, button in steps))
                continue
            for _, same_die in groupby(steps, key=lambda pair: pair[0].die):
                by_die.extend(chunk([button for _, button in same_die]))
        if len(by_die) <= room:
            return tuple(by_die)
        packed = tuple(row for group in by_source for row in chunk(group))
        if len(packed) <= room:
            return packed
        if len(buttons) <= room * BUTTONS_PER_ROW:
            return chunk(buttons)
        dice = " and ".join(str(d) for d in sorted(set(state.dice_left)))
        options = tuple(OptionSpec(b.label, b.value) for b in buttons)
        return (SelectSpec(f"Move which tokens? ({dice} to play)", options),)


def _step_label(state: RingState, move: Move) -> str:
    """ "2 tokens 7 → 11 (4)", and ", captures 1" when it lands on an enemy stack (it is legal, so
    the moving group is at least as large: the whole stack goes back to its owner's pile)."""
    label = f"{_tokens(move.count)} {move.source} → {move.target} ({move.die})"
    owner, size = state.stack(move.target)
    if owner is not None and owner != state.to_move():
        label += f", captures {size}"
    return label


PANEL = RingPanel()

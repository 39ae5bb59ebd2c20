"""Controls for ring: Roll; the odds swap and evens knock as selects; a move as stack, count, die."""

from __future__ import annotations

import re

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
from engine.ring import COLOURS, Knock, Move, Phase, RingState, Swap, advance

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
        moves = [a for a in state.legal_actions() if isinstance(a, Move)]
        notes: list[str] = []
        sources = sorted({m.source for m in moves})
        chosen = _MOVE_SELECTION.match(selection)
        source = int(chosen["source"]) if chosen and int(chosen["source"]) in sources else None
        if source is None and len(sources) == 1:
            source = sources[0]
            notes.append(f"Only your stack on {source} can move.")
        if source is None:
            options = tuple(
                OptionSpec(f"Stack on {s}", nav(f"m{s}"), _tokens(state.stack(s)[1])) for s in sources
            )
            return PanelSpec(rows=(SelectSpec("Move which stack?", options),), notes=tuple(notes))
        counts = sorted({m.count for m in moves if m.source == source})
        count = (
            int(chosen["count"]) if chosen and chosen["count"] and int(chosen["count"]) in counts else None
        )
        if count is None and len(counts) == 1:
            count = counts[0]
            notes.append(f"From {source} you can only move {_tokens(count)}.")
        back = (ButtonSpec("Back", nav(""), emoji="↩️"),) if len(sources) > 1 else ()
        if count is None:
            options = tuple(
                OptionSpec(
                    f"Move {_tokens(c)}" + (" (all)" if c == state.stack(source)[1] else ""),
                    nav(f"m{source}x{c}"),
                )
                for c in counts
            )
            rows: list[Row] = [SelectSpec(f"How many tokens from {source}?", options)]
            if back:
                rows.append(back)
            return PanelSpec(rows=tuple(rows), notes=tuple(notes))
        dice = sorted({m.die for m in moves if m.source == source and m.count == count})
        buttons = [
            ButtonSpec(
                f"{_tokens(count)} by {d}: {source} → {advance(source, d)}",
                act(Move(source, count, d).notation),
                Style.PRIMARY,
            )
            for d in dice
        ]
        if len(sources) > 1 or len(counts) > 1:
            buttons.append(ButtonSpec("Back", nav(""), emoji="↩️"))
        return PanelSpec(rows=chunk(buttons), notes=tuple(notes))


PANEL = RingPanel()

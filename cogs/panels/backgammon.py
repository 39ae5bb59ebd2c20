"""Controls for backgammon: Roll or Double, Take or Pass, and the play one checker at a time.

Each move button is one checker moved by one die ("24/18", "bar/20*", "6/off"), and only moves that
stay inside some legal play are offered (the engine says which). A typical roll is two picks and
Confirm; a double four picks and Confirm. When what is left of the play is forced, the session
manager plays it by itself. A game may be resigned by an offer ("Resign game…": a single game, a
gammon or a backgammon), which the opponent accepts or declines; the choice is made in a private
panel (``PanelSpec.private``) and only the offer made is shown on the board. "Resign game…" is never
crowded out: when the moves would leave it no row, they become one select per die. In a money session the doubled
player may beaver when the session allows it, and the board offers either player **Stop after this
game** until one presses it.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import groupby

from cogs.panels.base import (
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
from engine.backgammon.game import LEVEL_WORDS, LEVELS, BackgammonState, MoveChecker, Phase

MAX_PANEL_ROWS = 4
"""Rows of controls a panel may fill: the board adds a fifth (Resign, Rules), a turn in progress
its Undo / Confirm row."""
BUTTONS_PER_ROW = 5
MAX_OPTIONS = 25
RESIGN = "r"
"""The navigation that opens the resignation offers."""


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def die_select_label(die: int) -> str:
    """The placeholder of the select of one die's moves: "Move a checker 1 pip…", "... 5 pips…"."""
    return f"Move a checker {die} pip{'' if die == 1 else 's'}…"


def move_label(move: MoveChecker) -> str:
    """ "24/18", "bar/20*", "6/off": one checker's move as players write it."""
    return move.notation.removeprefix("move ").replace(" with ", " (") + (
        ")" if " with " in move.notation else ""
    )


class BackgammonPanel:
    def controls(self, view: GameView, selection: str) -> PanelSpec:
        state = view  # backgammon has no secrets: every view is the position
        assert isinstance(state, BackgammonState)
        spec = self._controls(state, selection)
        if state.may_stop(0):
            return replace(spec, stop_after_game=True)
        return spec

    def _controls(self, state: BackgammonState, selection: str) -> PanelSpec:
        if state.is_terminal():
            return PanelSpec()
        offers = state.resign_offers()
        if selection == RESIGN and offers:
            return self._resign(state)
        if state.phase is Phase.DECIDE:
            row = [
                ButtonSpec("Roll", act("roll"), Style.PRIMARY, emoji="🎲"),
                ButtonSpec(f"Double to {state.cube * 2}", act("double"), Style.DANGER),
            ]
            return PanelSpec(rows=((*row, *self._resign_button(state)),))
        if state.phase is Phase.TAKE:
            beaver = (
                (ButtonSpec(f"Beaver (cube at {state.cube * 4}, yours)", act("beaver"), Style.PRIMARY),)
                if state.may_beaver()
                else ()
            )
            return PanelSpec(
                rows=(
                    (
                        ButtonSpec(f"Take (cube at {state.cube * 2})", act("take"), Style.SUCCESS),
                        *beaver,
                        ButtonSpec(f"Pass (lose {_points(state.cube)})", act("pass"), Style.DANGER),
                    ),
                )
            )
        if state.phase is Phase.RESIGN:
            worth = state.offer * state.cube
            return PanelSpec(
                rows=(
                    (
                        ButtonSpec(f"Accept (win {_points(worth)})", act("accept"), Style.SUCCESS),
                        ButtonSpec("Decline (play on)", act("decline"), Style.DANGER),
                    ),
                )
            )
        if state.phase is Phase.PLAY:
            return self._play(state)
        return PanelSpec()

    def _resign_button(self, state: BackgammonState) -> tuple[ButtonSpec, ...]:
        if not state.resign_offers():
            return ()
        return (ButtonSpec("Resign game…", nav(RESIGN), emoji="🏳️"),)

    def _resign(self, state: BackgammonState) -> PanelSpec:
        buttons = tuple(
            ButtonSpec(
                f"Offer {LEVEL_WORDS[LEVELS[offer.level - 1]]} ({_points(offer.level * state.cube)})",
                act(offer.notation),
                Style.DANGER,
            )
            for offer in state.resign_offers()
        )
        back = ButtonSpec("Back", nav(""), emoji="↩️")
        # Chosen privately: the board shows the offer once it is made, not the choice before it.
        return PanelSpec(
            rows=(buttons, (back,)), notes=("Your opponent accepts or declines the offer.",), private=True
        )

    def _play(self, state: BackgammonState) -> PanelSpec:
        """One button per legal move, a row per die (as selects when they do not fit)."""
        moves = sorted(
            (a for a in state.legal_actions() if isinstance(a, MoveChecker)),
            key=lambda m: (-m.die, -m.src, -m.dst),
        )
        extra = self._resign_button(state)
        rows: list[Row] = []
        for _, same_die in groupby(moves, key=lambda m: m.die):
            rows.extend(chunk([ButtonSpec(move_label(m), act(m.notation), Style.PRIMARY) for m in same_die]))
        if len(rows) + (1 if extra else 0) <= MAX_PANEL_ROWS:
            return PanelSpec(rows=(*rows, *((extra,) if extra else ())))
        # The buttons would crowd out "Resign game…" (or not fit at all): a select per die instead.
        selects: list[Row] = []
        for die, same in groupby(moves, key=lambda m: m.die):
            options = tuple(OptionSpec(move_label(m), act(m.notation)) for m in same)
            selects.append(SelectSpec(die_select_label(die), options[:MAX_OPTIONS]))
        if extra and len(selects) < MAX_PANEL_ROWS:
            selects.append(extra)
        return PanelSpec(rows=tuple(selects))


PANEL = BackgammonPanel()

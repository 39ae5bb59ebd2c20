"""Controls for space: each phase's legal choices, read from the deciding seat's own view.

The panel never decides a rule: every control is one of ``view.legal_actions()``, laid out in groups
(the plain moves by die, each card's plays, the discards, the units to keep). A group is a row of
buttons when the groups fit in the rows Discord allows, a select (with each card's text as the
option's description) when they do not, and when even selects do not fit, one select names the
groups and the chosen group opens on its own (navigation in the custom id, ``nav``), page by page if
needed; a group of one choice is that choice in the select (one tap). Choices that cannot differ
are shown once: units of the same force in the same place before any of them could have moved (in
the scrap heap, before the move phase, or when a single die is left), as the engine already does
for the units a fight's winner keeps.

Every phase but choosing the units to keep depends on the hand (a card could be played), so its
controls are private (``PanelSpec.private``): the public board shows "My hand" instead.
``hand_text`` lists the hand with each card's text, and the opponent's hand seen through Espionage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cogs.panels.base import (
    ButtonSpec,
    OptionSpec,
    PanelSpec,
    Row,
    SelectSpec,
    Style,
    act,
    act_copy,
    chunk,
    nav,
)
from engine import GameView
from engine.protocol import Action
from engine.space import cards as C
from engine.space.actions import Build, Discard, Keep, Move, Pass, Play, RollDice
from engine.space.board import FORCE, SCRAP, SIDES, sector_name, unit_label, unit_name
from engine.space.cards import BY_KEY, CARDS, Card, Timing
from engine.space.game import SECRET_PHASES, Phase, SpaceView

PUBLIC_ROWS = 4
"""Rows a public panel may fill: the board adds a fifth (My hand, Resign, Rules)."""
PRIVATE_ROWS = 4
"""Rows a private reply's panel may fill: the reply adds a fifth for the standing answer to response
windows ("Always pass in this match" / "Ask me in windows")."""
BUTTONS_PER_ROW = 5
MAX_OPTIONS = 25
LABEL_LIMIT = 80
OPTION_LABEL_LIMIT = 100
DESCRIPTION_LIMIT = 100
GROUP = "g"
"""Navigation: ``g<i>`` opens group ``i`` alone, ``g<i>p<n>`` its page ``n``."""

FIGHT_PHASES = {
    Phase.ATTACK: "Play attack cards (one or more)…",
    Phase.DEFEND: "Play defense cards (one or more)…",
}
"""The phases whose cards name nothing and may all be played: a select of several."""
PASS_LABELS = {
    Phase.ESPIONAGE: "Let it pass",
    Phase.ROLL_CARDS: "Keep the roll",
    Phase.BUILD: "No build",
    Phase.JAM: "Let it pass",
    Phase.MOVE: "End the move phase",
}
WHEN = {
    Timing.BEFORE_ROLL: "before your roll",
    Timing.AFTER_ROLL: "after your roll",
    Timing.BUILD: "your build phase",
    Timing.MOVE: "your move phase",
    Timing.ATTACK: "attacking",
    Timing.DEFENSE: "defending",
    Timing.ESPIONAGE: "opponent's draw phase",
    Timing.JAM: "before opponent's move",
    Timing.ANY_OWN: "any phase of your turn",
}
"""When a card is played, in a few words for the hand's list."""


@dataclass(frozen=True, slots=True)
class Choice:
    label: str
    value: str
    description: str | None = None
    emoji: str | None = None
    """On a button: the die it uses, as a keycap digit (a select says the die in its placeholder)."""


@dataclass(frozen=True, slots=True)
class Group:
    """Choices that belong together (one die's moves, one card's plays): a row of buttons or a select."""

    title: str
    choices: tuple[Choice, ...]
    buttons: bool = True
    """False when a choice's custom id could be too long for a button (Major Offensive)."""
    picks: tuple[int, int] = (1, 1)
    """How many of the choices are made at once, at least and at most (a select of several: the cards
    to discard, the attack cards to play), as one click."""

    def button_rows(self) -> int:
        return -(-len(self.choices) // BUTTONS_PER_ROW)

    def select_rows(self) -> int:
        return -(-len(self.choices) // MAX_OPTIONS)


def card_of_key(key: str) -> Card:
    return BY_KEY[key]


def card_words(card: Card) -> str:
    """A card's text for an option's description."""
    return card.text[:DESCRIPTION_LIMIT]


def _at(sector: int) -> str:
    return "scrap heap" if sector == SCRAP else sector_name(sector)


def _unit_short(unit: int) -> str:
    """``E2 force 4``: a unit's label and force (the picture shows counters by force)."""
    return f"{unit_label(unit)} force {FORCE[unit]}"


class SpacePanel:
    def controls(self, view: GameView, selection: str) -> PanelSpec:
        assert isinstance(view, SpaceView)
        actions = view.legal_actions()
        if view.result is not None or not actions:
            return PanelSpec()
        private = view.phase in SECRET_PHASES
        fixed, groups = self._choices(view, actions)
        rows = PRIVATE_ROWS if private else PUBLIC_ROWS
        return PanelSpec(rows=layout(fixed, groups, rows, selection), private=private)

    # -- what each phase offers ------------------------------------------------------------------------

    def _choices(self, view: SpaceView, actions: Sequence[Action]) -> tuple[list[ButtonSpec], list[Group]]:
        fixed: list[ButtonSpec] = []
        groups: list[Group] = []
        plays: dict[int, list[Choice]] = {}
        moves: dict[int, list[Choice]] = {}
        builds: list[Choice] = []
        discards: list[tuple[int, Choice]] = []
        keeps: list[Choice] = []
        seen: set[tuple[object, ...]] = set()
        key: tuple[object, ...]
        for action in actions:
            if isinstance(action, Pass):
                fixed.append(ButtonSpec(self._pass_label(view), act("pass"), Style.SECONDARY))
            elif isinstance(action, RollDice):
                fixed.insert(0, ButtonSpec("Roll", act("roll"), Style.PRIMARY, emoji="🎲"))
            elif isinstance(action, Discard):
                card = CARDS[action.kind]
                discards.append(
                    (action.kind, Choice(f"Discard {card.name}", act(action.notation), card_words(card)))
                )
            elif isinstance(action, Build):
                key = view.choice_class(action)
                if key not in seen:
                    seen.add(key)
                    builds.append(
                        Choice(
                            f"Build {_unit_short(action.unit)}", act(action.notation), unit_name(action.unit)
                        )
                    )
            elif isinstance(action, Keep):
                keeps.append(self._keep_choice(view, action))
            elif isinstance(action, Move):
                key = view.choice_class(action)
                if key not in seen:
                    seen.add(key)
                    moves.setdefault(action.die, []).append(self._move_choice(view, action))
            elif isinstance(action, Play):
                key = view.choice_class(action)
                if key not in seen:
                    seen.add(key)
                    plays.setdefault(action.kind, []).append(self._play_choice(view, action))
        if discards and view.discards_due > 1:
            due = view.discards_due
            groups.append(Group(f"Discard {due} cards…", self._copies(view, discards), False, (due, due)))
        elif discards:
            groups.append(Group("Discard a card…", tuple(c for _, c in discards)))
        if builds:
            groups.append(Group("Rebuild a destroyed unit…", tuple(builds)))
        for die in sorted(moves, reverse=True):
            groups.append(Group(f"Move a unit by {die}…", tuple(moves[die])))
        if keeps:
            groups.append(Group("Keep which units…", tuple(keeps), buttons=False))
        fight_cards = self._copies(view, [(kind, c) for kind in sorted(plays) for c in plays[kind]])
        if view.phase in FIGHT_PHASES and len(fight_cards) > 1:
            # Cards that name nothing, each playable with the others: chosen together, one click.
            title = FIGHT_PHASES[view.phase]
            groups.append(Group(title, fight_cards, False, (1, len(fight_cards))))
            return fixed, groups
        for kind in sorted(plays):
            card = CARDS[kind]
            groups.append(
                Group(f"Play {card.name}…", tuple(plays[kind]), buttons=card is not C.MAJOR_OFFENSIVE)
            )
        return fixed, groups

    def _copies(self, view: SpaceView, choices: Sequence[tuple[int, Choice]]) -> tuple[Choice, ...]:
        """``choices`` (the kind of card each discards or plays, and the choice), each once per copy
        of its card in the viewer's hand: as many can be chosen at once as the hand holds."""
        held = Counter(view.hand)
        out: list[Choice] = []
        for kind, choice in choices:
            for copy in range(1, max(1, held[CARDS[kind].key]) + 1):
                label = choice.label if copy == 1 else f"{choice.label} (copy {copy})"
                out.append(Choice(label, act_copy(choice.value[2:], copy), choice.description))
        return tuple(out)

    def _pass_label(self, view: SpaceView) -> str:
        if view.phase is Phase.ATTACK:
            return "No more attack cards" if view.attack_bonus else "No attack card"
        if view.phase is Phase.DEFEND:
            return "No more defense cards" if view.defense_bonus else "Let it pass"
        return PASS_LABELS.get(view.phase, "Pass")

    def _move_choice(self, view: SpaceView, move: Move) -> Choice:
        src = view.positions[move.unit]
        dst = view.lands_on(move.unit, move.die)
        return Choice(
            f"{_unit_short(move.unit)}: {src}→{dst}",
            act(move.notation),
            f"{unit_name(move.unit)} from {_at(src)} to {_at(dst)} with the {move.die}",
            die_emoji(move.die),
        )

    def _keep_choice(self, view: SpaceView, keep: Keep) -> Choice:
        units = " ".join(unit_label(u) for u in keep.units)
        total = sum(FORCE[u] for u in keep.units)
        return Choice(
            f"Keep {units} (force {total})"[:OPTION_LABEL_LIMIT],
            act(keep.notation),
            "the other units there are destroyed",
        )

    def _play_choice(self, view: SpaceView, play: Play) -> Choice:
        card = play.card
        words = card_words(card)
        value = act(play.notation)
        if card is C.MAJOR_OFFENSIVE:
            a, b = (CARDS[k].name for k in play.discards)
            return Choice(f"Major Offensive: discard {a} and {b}", value, words)
        if card.target is C.Target.DIE:
            assert play.die is not None
            if card is C.BATTLE_COMPUTERS:
                return Choice(f"Battle Computers: reroll the {play.die}", value, words)
            if card is C.HOLD_POSITION:
                return Choice(f"Hold Position: skip the {play.die}", value, words)
            return Choice(f"{card.name}: {play.die} → {play.die + card.die_bonus}", value, words)
        if card is C.STRATEGIC_MOVE:
            assert play.sector is not None and play.die is not None
            dst = view.sector_after(play.sector, play.die)
            return Choice(
                f"Strategic Move: all from {play.sector} → {dst}",
                value,
                f"with the {play.die}. {words}",
                die_emoji(play.die),
            )
        if card is C.SPACE_COMBAT_TACTICS:
            assert play.unit is not None and play.die is not None
            src = view.positions[play.unit]
            dst = view.lands_on(play.unit, play.die, forwards=False)
            return Choice(
                f"Combat Tactics: {_unit_short(play.unit)} back {src}→{dst}",
                value,
                f"with the {play.die}. {words}",
                die_emoji(play.die),
            )
        if card is C.DEFEND_THE_HOMEWORLD:
            assert play.unit is not None
            return Choice(
                f"Defend the Homeworld: {_unit_short(play.unit)} from {view.positions[play.unit]}",
                value,
                words,
            )
        if card is C.JAM_TRANSMISSION:
            assert play.unit is not None
            return Choice(f"Jam {_unit_short(play.unit)} at {view.positions[play.unit]}", value, words)
        if card is C.REINFORCEMENTS:
            assert play.unit is not None
            return Choice(f"Reinforcements: rebuild {_unit_short(play.unit)}", value, words)
        bonus = "+1D6" if card.rolls_die else f"+{card.force}"
        force = f" ({bonus})" if card.timing in (Timing.ATTACK, Timing.DEFENSE) else ""
        return Choice(f"Play {card.name}{force}", value, words)

    # -- the hand -------------------------------------------------------------------------------------------

    def hand_text(self, view: GameView) -> str:
        assert isinstance(view, SpaceView)
        lines = [f"**Your hand** ({_cards(len(view.hand))}):"]
        lines += [f"• {line}" for line in hand_lines(view.hand)] or ["• no cards"]
        if view.spied_hand is not None and view.seat is not None:
            other = SIDES[1 - view.seat]
            seen = (
                ", ".join(f"{n}× {name}" if n > 1 else name for name, n in _counted(view.spied_hand))
                or "no cards"
            )
            lines.append(f"**Espionage:** the {other}'s hand was {seen}.")
        return "\n".join(lines)


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def _counted(keys: Sequence[str]) -> list[tuple[str, int]]:
    counts = Counter(keys)
    return [(card_of_key(k).name, counts[k]) for k in sorted(counts, key=lambda k: card_of_key(k).kind)]


def hand_lines(hand: Sequence[str]) -> list[str]:
    """Each card of ``hand`` once (with its count), its text and when it is played."""
    lines = []
    for name, n in _counted(hand):
        card = next(c for c in CARDS if c.name == name)
        count = f"{n}× " if n > 1 else ""
        lines.append(f"{count}**{card.name}** ({WHEN[card.timing]}): {card.text}")
    return lines


# -- laying groups out in rows ----------------------------------------------------------------------------


def _button(choice: Choice) -> ButtonSpec:
    return ButtonSpec(choice.label[:LABEL_LIMIT], choice.value, Style.PRIMARY, emoji=choice.emoji)


def die_emoji(die: int) -> str | None:
    """The keycap digit of a die value (1️⃣ to 9️⃣), none above 9 (cards may raise a die that far)."""
    return f"{die}\ufe0f\u20e3" if 0 <= die <= 9 else None


def _selects(group: Group, choices: Sequence[Choice] | None = None) -> list[Row]:
    options = tuple(
        OptionSpec(
            c.label[:OPTION_LABEL_LIMIT],
            c.value,
            c.description[:DESCRIPTION_LIMIT] if c.description else None,
        )
        for c in (group.choices if choices is None else choices)
    )
    least, most = group.picks
    return [
        SelectSpec(
            group.title,
            options[i : i + MAX_OPTIONS],
            min(least, len(options[i : i + MAX_OPTIONS])),
            min(most, len(options[i : i + MAX_OPTIONS])),
        )
        for i in range(0, len(options), MAX_OPTIONS)
    ]


def layout(
    fixed: Sequence[ButtonSpec], groups: Sequence[Group], max_rows: int, selection: str = ""
) -> tuple[Row, ...]:
    """Rows for ``fixed`` buttons (first) and ``groups``: buttons where they fit, else selects, else one
    select of the groups that opens each alone (``selection`` names the open group and page)."""
    head: list[Row] = list(chunk(list(fixed))) if fixed else []
    if selection.startswith(GROUP):
        opened = _opened(groups, selection, max_rows)
        if opened is not None:
            return opened
    budget = max_rows - len(head)
    as_buttons = [g.buttons for g in groups]

    def used() -> int:
        return sum(g.button_rows() if b else g.select_rows() for g, b in zip(groups, as_buttons, strict=True))

    while used() > budget and any(as_buttons):
        # The group taking the most rows as buttons becomes a select first.
        i = max((i for i, b in enumerate(as_buttons) if b), key=lambda i: groups[i].button_rows())
        as_buttons[i] = False
    if used() <= budget:
        rows = list(head)
        for group, buttons in zip(groups, as_buttons, strict=True):
            rows += chunk([_button(c) for c in group.choices]) if buttons else _selects(group)
        return tuple(rows)
    # Too many for one message: a select of the groups, each opening alone; a group of one choice
    # is that choice itself (one tap, not a page of one with Back).
    pick = SelectSpec(
        "Choose what to do…",
        tuple(_group_option(i, g) for i, g in enumerate(groups))[:MAX_OPTIONS],
    )
    return (*head[: max_rows - 1], pick)


def _group_option(index: int, group: Group) -> OptionSpec:
    """The option of ``group`` in the select of groups: its only choice, or the page it opens."""
    if len(group.choices) == 1:
        choice = group.choices[0]
        description = choice.description[:DESCRIPTION_LIMIT] if choice.description else None
        return OptionSpec(choice.label[:OPTION_LABEL_LIMIT], choice.value, description)
    return OptionSpec(
        group.title.rstrip("…")[:OPTION_LABEL_LIMIT], nav(f"{GROUP}{index}"), f"{len(group.choices)} choices"
    )


def _opened(groups: Sequence[Group], selection: str, max_rows: int) -> tuple[Row, ...] | None:
    """Group ``i`` of ``g<i>`` or ``g<i>p<n>`` alone, with Back (and More for a long one)."""
    number, _, page_text = selection[len(GROUP) :].partition("p")
    if not number.isdigit() or int(number) >= len(groups) or (page_text and not page_text.isdigit()):
        return None
    i, page = int(number), int(page_text or 0)
    group = groups[i]
    back = ButtonSpec("Back", nav(""), emoji="↩️")
    budget = max_rows - 1
    if group.buttons and group.button_rows() <= budget:
        return ((back,), *chunk([_button(c) for c in group.choices]))
    per_page = budget * MAX_OPTIONS
    pages = -(-len(group.choices) // per_page)
    page = min(page, pages - 1)
    shown = group.choices[page * per_page : (page + 1) * per_page]
    nav_row = [back]
    if pages > 1:
        nav_row.append(
            ButtonSpec(f"More ({page + 1}/{pages})", nav(f"{GROUP}{i}p{(page + 1) % pages}"), emoji="➡️")
        )
    return (tuple(nav_row), *_selects(group, shown))


PANEL = SpacePanel()

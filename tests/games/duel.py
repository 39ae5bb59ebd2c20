"""Duel: a tiny test-only card game with a secret hand and a decision by the player not on turn.

It exists to prove the platform's hidden-information machinery before ``space`` relies on it. Rules:
eight cards (Strike 1, 1, 2, 2, 3, 3 and two Guards) are shuffled and each player is dealt three. On a
turn the player either plays a Strike from the hand or draws the top card (while the deck lasts); with
neither possible the player passes. A Strike is answered by the opponent: block it with a Guard, or
take it (the striker scores its value). The first to ``length`` points wins; when both pass in a row
the higher score wins (equal scores draw). Red starts.

Both the choice on a turn and the answer to a Strike depend on the hand, so both are secret
decisions, and the deck order is known to nobody.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from PIL import Image, ImageDraw

from cogs.panels.base import ButtonSpec, PanelSpec, Style, act, chunk
from engine.ai.random_player import random_choice
from engine.errors import CorruptStateError, IllegalActionError, NotationError
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    EndReason,
    GameState,
    GameView,
    JSONDict,
    OptionSpec,
    Outcome,
    Variant,
)
from kits import GameKit, Part
from render.samples import SampleSet, situation_samples
from render.theme import NO_CAPTION, Caption, SeatStyle

CARDS = ("S1", "S1", "S2", "S2", "S3", "S3", "G", "G")
NAMES = ("Red", "Blue")
HAND = 3


def card_name(card: str) -> str:
    return "Guard" if card == "G" else f"Strike {card[1]}"


class DuelEnd(EndReason):
    POINTS = "points"


@dataclass(frozen=True, slots=True)
class Deal(Action):
    order: tuple[int, ...]

    @property
    def notation(self) -> str:
        return "deal " + ",".join(map(str, self.order))


@dataclass(frozen=True, slots=True)
class Play(Action):
    what: str  # "S1".."S3", "draw", "pass", "guard", "take"

    @property
    def notation(self) -> str:
        return self.what


@dataclass(frozen=True, slots=True)
class Event:
    """What the last action did: the public text, and the one seat that may read more."""

    text: str
    private_seat: int | None = None
    private_text: str | None = None

    def for_viewer(self, viewer: int | None) -> str:
        if viewer is not None and viewer == self.private_seat and self.private_text:
            return self.private_text
        return self.text


@dataclass(frozen=True, slots=True)
class DuelState(GameState):
    hands: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    scores: tuple[int, int] = (0, 0)
    turn_seat: int | None = None
    strike: str | None = None  # a Strike waiting for the answer of the seat not on turn
    passes: int = 0
    dealt: bool = False
    length: int = 3
    turn_number: int = 0
    last: Event | None = None
    result: Outcome | None = None

    variant_key: ClassVar[str] = "duel"

    @property
    def turn(self) -> int | None:
        return self.turn_seat

    def to_move(self) -> int:
        if not self.dealt:
            return CHANCE
        assert self.turn_seat is not None
        return 1 - self.turn_seat if self.strike else self.turn_seat

    def chance(self) -> ChanceSpec | None:
        return None if self.dealt else ChanceSpec(ChanceKind.SHUFFLE, len(CARDS))

    def chance_action(self, outcome: Sequence[int]) -> Action:
        return Deal(self.chance_spec().check(outcome))

    def chance_spec(self) -> ChanceSpec:
        spec = self.chance()
        assert spec is not None
        return spec

    def legal_actions(self) -> tuple[Action, ...]:
        if not self.dealt or self.result is not None:
            return ()
        seat = self.to_move()
        hand = self.hands[seat]
        if self.strike:
            return (Play("guard"), Play("take")) if "G" in hand else (Play("take"),)
        plays: list[Action] = [Play(c) for c in sorted(set(hand)) if c != "G"]
        if self.deck:
            plays.append(Play("draw"))
        return tuple(plays) or (Play("pass"),)

    def secret_decision(self) -> bool:
        return self.dealt and self.result is None

    def window_pass(self) -> Action | None:
        """Answering a Strike is a response window: letting it go by takes the strike."""
        if self.result is None and self.dealt and self.strike:
            return Play("take")
        return None

    def outcome(self) -> Outcome | None:
        return self.result

    def apply(self, action: Action) -> DuelState:
        if self.result is not None:
            raise IllegalActionError("the duel is over")
        if isinstance(action, Deal):
            deck = tuple(CARDS[i] for i in action.order)
            if self.dealt:
                raise IllegalActionError("the cards are already dealt")
            return replace(
                self,
                hands=(deck[:HAND], deck[HAND : 2 * HAND]),
                deck=deck[2 * HAND :],
                dealt=True,
                turn_seat=0,
                turn_number=1,
                last=Event("The cards are dealt: three each. Red starts."),
            )
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action.notation} is not allowed now")
        assert isinstance(action, Play) and self.turn_seat is not None
        seat = self.to_move()
        name = NAMES[seat]
        if action.what == "draw":
            card, hands = self.deck[0], self._with(seat, self.hands[seat] + (self.deck[0],))
            text = Event(f"{name} drew a card.", seat, f"You drew {card_name(card)}.")
            return self._next_turn(replace(self, hands=hands, deck=self.deck[1:], passes=0, last=text))
        if action.what == "pass":
            text = Event(f"{name} has nothing to play and passes.")
            passed = replace(self, passes=self.passes + 1, last=text)
            return passed._finished() if passed.passes >= 2 else self._next_turn(passed)
        if action.what.startswith("S"):
            hand = list(self.hands[seat])
            hand.remove(action.what)
            text = Event(f"{name} strikes with {card_name(action.what)}.")
            return replace(self, hands=self._with(seat, tuple(hand)), strike=action.what, passes=0, last=text)
        strike = self.strike
        assert strike is not None
        striker = self.turn_seat
        if action.what == "guard":
            hand = list(self.hands[seat])
            hand.remove("G")
            after = replace(
                self,
                hands=self._with(seat, tuple(hand)),
                discard=(*self.discard, strike, "G"),
                strike=None,
                last=Event(f"{name} blocks the strike with a Guard."),
            )
            return self._next_turn(after)
        scores = list(self.scores)
        scores[striker] += int(strike[1])
        after = replace(
            self,
            scores=(scores[0], scores[1]),
            discard=(*self.discard, strike),
            strike=None,
            last=Event(f"{name} takes the strike: {NAMES[striker]} scores {strike[1]}."),
        )
        if after.scores[striker] >= self.length:
            return after._finished()
        return self._next_turn(after)

    def _with(self, seat: int, hand: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (hand, self.hands[1]) if seat == 0 else (self.hands[0], hand)

    def _next_turn(self, state: DuelState) -> DuelState:
        assert state.turn_seat is not None
        return replace(state, turn_seat=1 - state.turn_seat, turn_number=state.turn_number + 1)

    def _finished(self) -> DuelState:
        a, b = self.scores
        winner = None if a == b else (0 if a > b else 1)
        score = f"{a}-{b}"
        description = (
            f"{NAMES[winner]} wins the duel {score}." if winner is not None else f"The duel is drawn {score}."
        )
        return replace(self, result=Outcome(winner=winner, reason=DuelEnd.POINTS, description=description))

    def to_json(self) -> JSONDict:
        return {
            "schema": 1,
            "game": "duel",
            "hands": [list(h) for h in self.hands],
            "deck": list(self.deck),
            "discard": list(self.discard),
            "scores": list(self.scores),
            "turn": self.turn_seat,
            "strike": self.strike,
            "passes": self.passes,
            "dealt": self.dealt,
            "length": self.length,
            "turn_number": self.turn_number,
            "last": None
            if self.last is None
            else [self.last.text, self.last.private_seat, self.last.private_text],
            "result": None if self.result is None else self.result.to_json(),
        }

    def view(self, viewer: int | None) -> DuelView:
        return DuelView(
            viewer_seat=viewer,
            hand=self.hands[viewer] if viewer is not None else None,
            hand_sizes=(len(self.hands[0]), len(self.hands[1])),
            deck_size=len(self.deck),
            discard=self.discard,
            scores=self.scores,
            turn_seat=self.turn_seat,
            strike=self.strike,
            decider=self.to_move() if self.result is None else None,
            turn_number=self.turn_number,
            actions=self.legal_actions() if viewer is not None and viewer == self._decider() else (),
            last=None if self.last is None else self.last.for_viewer(viewer),
            result=self.result,
        )

    def _decider(self) -> int | None:
        return self.to_move() if self.dealt and self.result is None else None

    def describe(self, action: Action) -> str:
        return f"{NAMES[self.to_move()]}: {action.notation}"

    @property
    def last_text(self) -> str | None:
        return None if self.last is None else self.last.text

    @property
    def phase_text(self) -> str:
        return self.view(None).phase_text


@dataclass(frozen=True, slots=True)
class DuelView(GameView):
    viewer_seat: int | None
    hand: tuple[str, ...] | None
    hand_sizes: tuple[int, int]
    deck_size: int
    discard: tuple[str, ...]
    scores: tuple[int, int]
    turn_seat: int | None
    strike: str | None
    decider: int | None
    turn_number: int
    actions: tuple[Action, ...]
    last: str | None
    result: Outcome | None

    variant_key: ClassVar[str] = "duel"

    @property
    def viewer(self) -> int | None:
        return self.viewer_seat

    def to_move(self) -> int:
        return CHANCE if self.decider is None else self.decider

    @property
    def turn(self) -> int | None:
        return self.turn_seat

    def legal_actions(self) -> tuple[Action, ...]:
        return self.actions

    def outcome(self) -> Outcome | None:
        return self.result

    @property
    def last_text(self) -> str | None:
        return self.last

    @property
    def phase_text(self) -> str:
        if self.result is not None:
            return self.result.description
        if self.decider is None or self.turn_seat is None:
            return "Dealing"
        if self.strike:
            return f"{NAMES[self.decider]} answers the strike"
        return f"{NAMES[self.turn_seat]} to play"


class DuelVariant(Variant):
    key: ClassVar[str] = "duel"
    title: ClassVar[str] = "Duel"
    seat_names: ClassVar[tuple[str, str]] = NAMES
    schema_version: ClassVar[int] = 1
    win_reasons: ClassVar[type[EndReason]] = DuelEnd
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("length", "points to win", 3, minimum=1, maximum=9),
    )

    def new_game(self, options: Mapping[str, Any] | None = None) -> DuelState:
        return DuelState(length=int(self.resolve_options(options)["length"]))

    def from_json(self, data: Mapping[str, Any]) -> DuelState:
        try:
            last = data["last"]
            return DuelState(
                hands=(tuple(data["hands"][0]), tuple(data["hands"][1])),
                deck=tuple(data["deck"]),
                discard=tuple(data["discard"]),
                scores=(int(data["scores"][0]), int(data["scores"][1])),
                turn_seat=data["turn"],
                strike=data["strike"],
                passes=int(data["passes"]),
                dealt=bool(data["dealt"]),
                length=int(data["length"]),
                turn_number=int(data["turn_number"]),
                last=None if last is None else Event(last[0], last[1], last[2]),
                result=None if data["result"] is None else Outcome.from_json(data["result"], self),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CorruptStateError(f"not a duel state: {exc}") from exc

    def parse_action(self, state: GameState, text: str) -> Action:
        text = text.strip()
        if text.startswith("deal "):
            try:
                return Deal(tuple(int(x) for x in text[5:].split(",")))
            except ValueError:
                raise NotationError(f"cannot read {text!r}") from None
        if text in ("S1", "S2", "S3", "draw", "pass", "guard", "take"):
            return Play(text)
        raise NotationError(f"cannot read {text!r}")


VARIANT = DuelVariant()


class DuelPanel:
    """The choices of the deciding seat, from its own view: they name its cards, so they are private."""

    def controls(self, view: GameView, selection: str) -> PanelSpec:
        buttons = []
        for action in view.legal_actions():
            assert isinstance(action, Play)
            label = {
                "draw": "Draw a card",
                "pass": "Pass",
                "guard": "Block with a Guard",
                "take": "Take the strike",
            }.get(action.what) or f"Play {card_name(action.what)}"
            buttons.append(ButtonSpec(label, act(action.notation), Style.PRIMARY))
        return PanelSpec(rows=chunk(buttons), private=True)

    def hand_text(self, view: GameView) -> str:
        assert isinstance(view, DuelView) and view.hand is not None
        cards = ", ".join(card_name(c) for c in sorted(view.hand)) or "no cards"
        return f"Your hand: {cards}."


PANEL = DuelPanel()


SEATS = (
    SeatStyle(
        fill=(222, 72, 72), dark=(128, 30, 38), light=(255, 150, 140), text=(255, 116, 108), shape="disc"
    ),
    SeatStyle(
        fill=(59, 125, 216), dark=(24, 60, 120), light=(150, 190, 255), text=(120, 170, 255), shape="square"
    ),
)


def render(view: GameView, caption: Caption = NO_CAPTION) -> bytes:
    """Scores, hand sizes, deck and discard: the hands themselves are never drawn."""
    assert isinstance(view, DuelView)
    image = Image.new("RGB", (320, 120), (250, 250, 245))
    draw = ImageDraw.Draw(image)
    lines = [
        f"Red {view.scores[0]}  Blue {view.scores[1]}",
        f"hands {view.hand_sizes[0]} / {view.hand_sizes[1]}  deck {view.deck_size}",
        "discard " + " ".join(view.discard),
        caption.ending.description if caption.ending is not None else view.phase_text,
    ]
    for i, line in enumerate(lines):
        draw.text((10, 10 + 25 * i), line, fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def choose(view: GameView, rng: Any) -> Action:
    """The computer plays its highest Strike, else draws; it blocks whenever it can."""
    return max(view.legal_actions(), key=_rank)


def _rank(action: Action) -> int:
    what = action.notation
    if what.startswith("S"):
        return 10 + int(what[1])
    return {"guard": 9, "draw": 1}.get(what, 0)


PLAYERS = {"random": random_choice, "greedy": choose}

SAMPLES = SampleSet(
    ("start", *(f"won-{reason}" for reason in DuelEnd)),
    lambda seed, wanted: situation_samples("duel", {}, len(DuelEnd), seed, wanted),
)

RULES = Path(__file__).with_name("duel.md")

KIT = GameKit(
    key="duel",
    variant=Part(VARIANT),
    players=Part(PLAYERS),
    bot_player="greedy",
    renderer=Part(render),
    seats=Part(SEATS),
    panel=Part(PANEL),
    samples=Part(SAMPLES),
    rules_page=str(RULES),
)
"""Duel added as any game is: through its kit alone (``tests.support.register_kit``)."""

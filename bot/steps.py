"""What an action did, as the board tells it: ``Step`` (who, its notation, its text for each seat),
saved with the match (``Step.to_json``) and read back (``steps_of``), and the notes the bot says
after a step it played for a player (``noted``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import Action, GameState

NO_ANSWER = "no answer in time"
"""Said after a response window's pass that the bot played because the window's time ran out."""
STANDING_PASS = "standing answer: always pass"
"""Said after a response window's pass played at once by the player's standing answer."""
NOTES = (NO_ANSWER, STANDING_PASS)
"""Every note ``noted`` says after a step."""
AUTOMATIC = "auto:"
"""Marks a saved draft step that was forced (played by itself): Undo takes it back with the step before."""


@dataclass(frozen=True, slots=True)
class Step:
    """One applied action: who (a seat, or None for chance), its notation, what it did in words.

    ``text`` is what everyone may read; ``private`` holds, per seat, a fuller text that only that
    seat may read ("You drew a Guard" where the board says that a card was drawn), when there is one.
    """

    seat: int | None
    notation: str
    text: str
    automatic: bool = False
    private: tuple[str | None, str | None] = (None, None)
    continues: bool = False
    """The text continues the step before and replaces it where a turn is told (``last_continues``)."""
    secret: bool = False
    """Decided privately: the step answered a decision that depends on its seat's hand
    (``GameState.secret_decision``), on the player's own panel rather than on the public board."""
    note: str | None = None
    """What the bot said after the step it played for the player (one of ``NOTES``, ``noted``):
    ``NO_ANSWER`` when a window's time ran out, ``STANDING_PASS`` for a standing answer."""

    def text_for(self, viewer: int | None) -> str:
        """The text of this step for seat ``viewer`` (``None``: everyone)."""
        own = self.private[viewer] if viewer is not None else None
        return own or self.text

    def to_json(self) -> dict[str, Any]:
        """The saved form. ``note`` has no key of its own: it is said at the end of the texts, as
        it always was, and read back from there (``from_json``), so saved steps keep their form."""
        data: dict[str, Any] = {"seat": self.seat, "notation": self.notation, "text": self.text}
        if self.automatic:
            data["automatic"] = True
        if self.private != (None, None):
            data["private"] = list(self.private)
        if self.continues:
            data["continues"] = True
        if self.secret:
            data["secret"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> Step | None:
        """A saved step; None if it is not one (a damaged note of what happened is only left out)."""
        try:
            seat, notation, text = data["seat"], str(data["notation"]), str(data["text"])
            private = tuple(data.get("private", (None, None)))
            if seat not in (None, 0, 1) or len(private) != 2:
                return None
            return cls(
                seat,
                notation,
                text,
                bool(data.get("automatic", False)),
                (private[0], private[1]),
                bool(data.get("continues", False)),
                bool(data.get("secret", False)),
                saved_note(text),
            )
        except (KeyError, TypeError, AttributeError):
            return None


def saved_note(text: str) -> str | None:
    """The note a saved step's public ``text`` ends with (``noted``), if any: the one place it is
    read back, since the saved form keeps it in the text only."""
    return next((note for note in NOTES if text.endswith(f"({note})")), None)


def told(steps: Sequence[Step], viewer: int | None) -> list[str]:
    """The texts of ``steps`` for ``viewer``, each run of continuing texts told by its latest."""
    lines: list[str] = []
    for step in steps:
        text = step.text_for(viewer)
        if not text:
            continue
        if step.continues and lines:
            lines[-1] = text
        else:
            lines.append(text)
    return lines


def steps_of(saved: Sequence[Any]) -> tuple[Step, ...]:
    """Saved steps (``Step.to_json``) read back, leaving out any that cannot be read."""
    return tuple(step for data in saved if (step := Step.from_json(data)) is not None)


def step_of(seat: int | None, action: Action, before: GameState, after: GameState, automatic: bool) -> Step:
    """The step for ``action``, with its public text and each seat's own text where that differs."""
    public = after.view(None).last_text
    if not public:
        # ``describe`` speaks for the deciding seat: never for a secret decision.
        public = "" if seat is None or before.secret_decision() else before.describe(action)
    own = tuple(after.view(s).last_text for s in (0, 1))
    private = (own[0] if own[0] != public else None, own[1] if own[1] != public else None)
    continues = bool(public) and after.view(None).last_continues
    return Step(
        seat,
        action.notation,
        public,
        automatic=automatic,
        private=private,
        continues=continues,
        secret=seat is not None and before.secret_decision(),
    )


def noted(step: Step, note: str, name: str) -> Step:
    """``step`` with ``note`` (one of ``NOTES``) said after it, in every seat's text ("... (no answer
    in time)"), and kept as its ``note``; a step the game tells nothing of says that ``name`` (the
    seat's name) let the window pass."""

    def with_note(text: str | None) -> str | None:
        return None if text is None else f"{text} ({note})"

    return replace(
        step,
        text=with_note(step.text or f"{name} let the window pass") or "",
        private=(with_note(step.private[0]), with_note(step.private[1])),
        note=note,
    )

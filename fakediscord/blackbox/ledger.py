"""What a black-box run saw: every click (its kind, who clicked it, whether it was answered) and every
failure, and the summary printed at the end."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

#: Who clicks a control, relative to the match (or challenge) it belongs to: the player it was made for
#: (the one on turn, the challenger, the one a private reply went to), the other player, and a member
#: who plays no part in it.
ROLES = ("player", "opponent", "stranger")


@dataclass(frozen=True, slots=True)
class Click:
    kind: str
    role: str
    custom_id: str
    user: str
    answered: bool
    #: "" on the message as shown; "earlier" (a control of an earlier version of its message),
    #: "forged" or "forged off the message" (sent by a modified client)
    how: str = ""


@dataclass
class Ledger:
    clicks: list[Click] = field(default_factory=list)
    #: (stage, what went wrong), in the order found
    failures: list[tuple[str, str]] = field(default_factory=list)
    #: (what, figure) measured along the way, for the summary
    notes: list[str] = field(default_factory=list)
    stage: str = "start"

    def fail(self, what: str) -> None:
        self.failures.append((self.stage, what))

    def note(self, what: str) -> None:
        self.notes.append(what)

    def clicked(self, click: Click) -> None:
        self.clicks.append(click)

    def roles_of(self) -> dict[str, set[str]]:
        """For each kind, the roles that clicked it."""
        found: dict[str, set[str]] = defaultdict(set)
        for click in self.clicks:
            found[click.kind].add(click.role)
        return found

    def check_coverage(self, kinds: tuple[str, ...]) -> None:
        """Fail for every registered kind not clicked in every role."""
        clicked = self.roles_of()
        for kind in kinds:
            missing = [role for role in ROLES if role not in clicked.get(kind, set())]
            if len(missing) == len(ROLES):
                self.fail(f"{kind}: a registered kind of control that was never clicked")
            elif missing:
                self.fail(f"{kind}: never clicked as {', '.join(missing)}")

    def summary(self, kinds: tuple[str, ...]) -> str:
        clicked = self.roles_of()
        counts: dict[str, int] = defaultdict(int)
        for click in self.clicks:
            counts[click.kind] += 1
        earlier = sum(c.how == "earlier" for c in self.clicks)
        forged = sum(c.how.startswith("forged") for c in self.clicks)
        lines = [
            f"black box: {len(self.clicks)} clicks ({earlier} of earlier versions' controls, {forged} "
            f"forged), {sum(not c.answered for c in self.clicks)} unanswered"
        ]
        width = max((len(k) for k in kinds), default=10)
        for kind in kinds:
            roles = ", ".join(role for role in ROLES if role in clicked.get(kind, set())) or "never clicked"
            lines.append(f"  {kind:<{width}}  {counts.get(kind, 0):4d} clicks  as {roles}")
        others = sorted(set(counts) - set(kinds))
        for kind in others:
            lines.append(f"  {kind:<{width}}  {counts[kind]:4d} clicks  (not a registered kind)")
        lines.extend(f"  {note}" for note in self.notes)
        if self.failures:
            lines.append(f"FAILED: {len(self.failures)} problem(s)")
            for stage, what in self.failures:
                lines.append(f"- [{stage}] {what}")
        else:
            lines.append("black box passed")
        return "\n".join(lines)

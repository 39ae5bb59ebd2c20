"""Acting as the members of the fake server: commands and clicks that must be answered, controls of
someone else's (forged, as a modified client sends them), and matches played turn by turn.

No wait here is a fixed time taken to be enough: after a click the driver waits for what a player
would wait for (the next decision shown to someone, a result, a private refusal), within generous
limits that only a fault of the bot reaches. The one thing the fake cannot tell it, whether the public
board has caught up with what the bot saved, it looks up in the database (``Table.caught_up``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.steps import steps_of
from bot.turn_driver import board_held
from engine import find_variant
from fakediscord.errors import NoResponse
from fakediscord.fake import FakeDiscord
from fakediscord.matches import private_panel, user_on_turn
from fakediscord.patience import patient
from fakediscord.results import InteractionResult
from fakediscord.world import ComponentInfo, FakeInteraction, FakeMessage, FakeUser

from .kinds import Kinds
from .ledger import Click, Ledger

JSON = dict[str, Any]

#: Seconds a match may take to show the next decision after a click (or the computer to move).
SETTLE_TIMEOUT = 60.0
#: Seconds between two looks at whether the public board has caught up.
PACE = 0.02
#: Decisions of a match that change nothing (refused, or nothing saved: a pick that only narrows the
#: controls), one after another, before the run calls it stuck: a person is refused once (a board that
#: moved on, a race) and picks a stack once, then clicks what the refusal points to or a step.
NOWHERE_IN_A_ROW = 5
#: Seconds a member takes to read a refusal before their next click.
REFUSAL_READ = 1.0
#: A control that belongs to a match, and the match: ``g:<match>:...``, ``hand:<match>``, ...
MATCH_CONTROL = re.compile(r"^(?:g|hand|rsk|rm|sa|rs):(\d+)")
GAME_CONTROL = re.compile(r"^g:(\d+):(\d+):(.*)$")
RESULT = "🏆"
STALE_BOARD = "does not belong to this message"
#: Seconds Discord gives a bot to answer an interaction (else: "This interaction failed").
ANSWER_LIMIT = 3.0
#: Controls of an earlier version of a match's board its player clicks, as a client that has not
#: shown the latest edit yet would, before deciding (each answered privately, changing nothing).
EARLIER_PER_MATCH = 2


def held(game: str, state: str, turn_steps: str | None) -> bool:
    """Whether the bot holds the public board of a saved match (the same rule as its publisher)."""
    position = find_variant(game).from_json(json.loads(state))
    return board_held(position, steps_of(json.loads(turn_steps or "[]")))


class Stuck(Exception):
    """A match did not go on (already recorded as a failure): the stage that plays it stops."""


def match_of(message: FakeMessage) -> int | None:
    """The match whose controls a message carries, if any."""
    for custom_id in message.custom_ids:
        found = MATCH_CONTROL.match(custom_id)
        if found:
            return int(found[1])
    return None


def version_of(custom_id: str) -> int | None:
    found = GAME_CONTROL.match(custom_id)
    return int(found[2]) if found else None


def choose(message: FakeMessage, rng: random.Random) -> tuple[str, list[str] | None]:
    """A random game decision on ``message``: an option of its first select, else one of its buttons;
    never one that only navigates back, takes a step back or gives the match up."""
    controls = [c for c in message.all_components if not c.disabled and GAME_CONTROL.match(c.custom_id or "")]
    for select in (c for c in controls if c.is_select):
        assert select.custom_id is not None
        return select.custom_id, select.pick(rng)
    buttons = [
        b.custom_id
        for b in controls
        if b.custom_id and b.label not in ("Back", "Undo") and not (b.label or "").startswith("Resign")
    ]
    if not buttons:
        raise LookupError(f"no game decision on {message!r}: {message.custom_ids}")
    return rng.choice(buttons), None


def older_game_controls(message: FakeMessage) -> list[ComponentInfo]:
    """The game controls an earlier version of ``message`` showed that it no longer shows, of a
    position before the one it shows (an old Roll, an old move): none would act if clicked."""
    shown = [v for c in message.all_components if (v := version_of(c.custom_id or "")) is not None]
    now = max(shown, default=None)
    return [
        c
        for c in message.earlier_components()
        if now is not None and (v := version_of(c.custom_id or "")) is not None and v < now
    ]


def answered_visibly(result: InteractionResult) -> bool:
    """Whether the answer is one a member sees: a message, an edit of the clicked message, a modal, or
    a silent acknowledgement followed by a message or an edit (never the acknowledgement alone)."""
    if result.callback_type in (4, 5, 7, 9):
        return True
    return any(reply.kind in ("followup", "edit_original") for reply in result.replies)


def late_answers(fake: FakeDiscord) -> tuple[list[tuple[FakeInteraction, float | None]], float]:
    """Every interaction the fake sent that was not answered within ``ANSWER_LIMIT`` (with the seconds
    its answer took, None: never), and the slowest answer's seconds."""
    took = {
        i.id: i.callback_at - i.created_at
        for i in fake.world.interactions.values()
        if i.callback_at is not None
    }
    late = [
        (i, took.get(i.id))
        for i in fake.world.interactions.values()
        if took.get(i.id, ANSWER_LIMIT + 1) > ANSWER_LIMIT
    ]
    return late, max(took.values(), default=0.0)


def first_value(control: ComponentInfo) -> list[str] | None:
    """What a select is given when clicked (its first option); None for a button."""
    if not control.is_select:
        return None
    return control.option_values[: max(1, control.min_values or 1)]


class Clicker:
    """Commands and clicks as members make them: each click's kind and role go to the ledger, and one
    nobody answers (Discord: "This interaction failed") is a failure, never an exception."""

    def __init__(self, fake: FakeDiscord, kinds: Kinds, ledger: Ledger) -> None:
        self.fake = fake
        self.kinds = kinds
        self.ledger = ledger
        self._anchors: dict[tuple[int, int], FakeMessage] = {}
        #: seconds a silent acknowledgement of a forged or old control may wait for what follows it
        self.seen_timeout = SETTLE_TIMEOUT

    async def anchor(self, user: FakeUser, channel_id: int) -> FakeMessage:
        """A private message of ``user``'s in that channel (their /help) to send forged controls from:
        like a private reply of the bot's, it names no match, so the bot's own checks of who clicked
        decide, and an answer that edits it harms no board."""
        found = self._anchors.get((user.id, channel_id))
        if found is None or found.deleted:
            asked = await self.command(user, "help", channel=channel_id)
            if asked is None or asked.message is None:
                self.ledger.fail(f"/help by {user.name} showed nothing")
                raise Stuck
            found = self._anchors[(user.id, channel_id)] = asked.message
        return found

    def kind_of(self, custom_id: str) -> str:
        found = self.kinds.of_id(custom_id)
        if len(found) > 1:
            self.ledger.fail(f"custom id {custom_id!r} is taken by several registered kinds: {found}")
        return found[0] if found else "(no registered kind)"

    async def command(
        self, user: FakeUser, name: str, options: Mapping[str, Any] | None = None, channel: int | None = None
    ) -> InteractionResult | None:
        try:
            return await self.fake.slash(user, name, options, channel=channel)
        except NoResponse as exc:
            self.ledger.fail(f"/{name} by {user.name} got no answer: {exc}")
            return None

    async def press(
        self,
        user: FakeUser,
        role: str,
        message: FakeMessage,
        custom_id: str,
        values: Sequence[str] | None = None,
        *,
        on: FakeMessage | None = None,
    ) -> InteractionResult | None:
        """``user`` uses the control ``custom_id`` of ``message`` (``values``: a select's choice, its first
        option by default). If they cannot use it there (someone else's private message, a disabled
        control), a client that still shows it sends it from ``on`` (default: their :meth:`anchor`)."""
        message = self.fake.message(message)
        control = message.component(custom_id)
        chosen = list(values) if values is not None else first_value(control)
        if message.is_visible_to(user) and not message.deleted and not control.disabled:
            return await self._send(user, role, custom_id, message, control.raw, chosen, forged=False)
        where = on or await self.anchor(user, message.channel_id)
        return await self._send(user, role, custom_id, where, control.raw, chosen, forged=True)

    async def press_made_up(
        self, user: FakeUser, role: str, channel_id: int, custom_id: str
    ) -> InteractionResult | None:
        """A button with a custom id the bot never made (forged, or corrupted on the way)."""
        button = {"type": 2, "style": 2, "label": "?", "custom_id": custom_id}
        where = await self.anchor(user, channel_id)
        return await self._send(user, role, custom_id, where, button, None, forged=True)

    async def press_forged(
        self,
        user: FakeUser,
        role: str,
        where: FakeMessage,
        component: JSON,
        values: list[str] | None,
        *,
        on_message: bool,
    ) -> InteractionResult | None:
        """``component`` (``values``: a select's choice) sent from ``where`` by a modified client, the
        interaction's copy of ``where`` carrying it (``on_message``) or not: it must be answered in a
        way the member sees."""
        custom_id = str(component["custom_id"])
        mode = "forged" if on_message else "forged off the message"
        return await self._send(user, role, custom_id, where, component, values, forged=True, mode=mode)

    async def press_earlier(
        self, user: FakeUser, role: str, message: FakeMessage, control: ComponentInfo
    ) -> InteractionResult | None:
        """``control`` used as an earlier version of ``message`` showed it (a client that has not shown
        the bot's latest edit): Discord sends the message as it is now, without it (or greyed out)."""
        assert control.custom_id is not None
        values = first_value(control)
        return await self._send(
            user, role, control.custom_id, message, control.raw, values, forged=False, mode="earlier"
        )

    async def _send(
        self,
        user: FakeUser,
        role: str,
        custom_id: str,
        where: FakeMessage,
        raw: JSON,
        values: list[str] | None,
        *,
        forged: bool,
        mode: str = "",
    ) -> InteractionResult | None:
        """One use of a control: on the message (``forged``: carried by the interaction's copy of
        it), or ``mode`` "earlier" (an earlier version's) or "forged off the message" (not carried)."""
        kind = self.kind_of(custom_id)
        try:
            if mode == "earlier":
                result = await self.fake.click_earlier(user, where, custom_id, values)
            elif forged:
                result = await self.fake.forge(
                    user, where, raw, values, on_message=mode != "forged off the message"
                )
            elif values is not None:
                result = await self.fake.select(user, where, custom_id, values)
            else:
                result = await self.fake.click(user, where, custom_id)
        except NoResponse as exc:
            self.ledger.clicked(Click(kind, role, custom_id, user.name, answered=False, how=mode))
            self.ledger.fail(
                f"{kind} {custom_id!r} used by {user.name} ({role}{f', {mode}' if mode else ''}) got no "
                f"answer (a member would see 'This interaction failed'): {exc}"
            )
            return None
        seen = not mode or await self._seen(result)
        self.ledger.clicked(Click(kind, role, custom_id, user.name, answered=seen, how=mode))
        if not seen:
            self.ledger.fail(
                f"{kind} {custom_id!r} used by {user.name} ({role}, {mode}) was only acknowledged: "
                f"nothing was said to them ({[r.kind for r in result.replies]})"
            )
        return result

    async def _seen(self, result: InteractionResult) -> bool:
        """Whether the member is shown an answer (a silent acknowledgement is followed up in time)."""
        try:
            await self.fake.wait_for(lambda: answered_visibly(result), self.seen_timeout, "a visible answer")
        except TimeoutError:
            return False
        return True

    async def probe(
        self,
        message: FakeMessage,
        roles: Mapping[str, FakeUser],
        *,
        skip: Sequence[str] = (),
        only_new: bool = False,
    ) -> None:
        """Every live control of ``message`` used by each of ``roles`` (who must not change the match
        with it: the players not asked, strangers); controls whose custom id starts with one of ``skip``
        are left alone, and with ``only_new`` so is a kind already clicked in that role."""
        controls = [
            c
            for c in self.fake.message(message).all_components
            if c.custom_id and not c.disabled and not c.custom_id.startswith(tuple(skip))
        ]
        for control in controls:
            assert control.custom_id is not None
            clicked = self.ledger.roles_of().get(self.kind_of(control.custom_id), set())
            for role, user in roles.items():
                if not (only_new and role in clicked):
                    await self.press(user, role, message, control.custom_id)


@dataclass
class Table:
    """One match played through its controls, in its own thread (``place``)."""

    fake: FakeDiscord
    clicker: Clicker
    game: str
    place: int
    match_id: int
    #: both players (the bot's user when it plays the computer)
    players: tuple[FakeUser, FakeUser]
    computer: FakeUser
    #: a member who plays no part in the match
    stranger: FakeUser
    #: the bot's database, read only to pace the players (see :meth:`caught_up`); None: no pacing
    database: Path | None = None
    #: decisions the members made in it
    decisions: int = 0
    #: of those, the ones refused (a board that moved on meanwhile)
    refused: int = 0
    #: the latest decisions, one after another, that changed nothing (refused, or nothing saved)
    nowhere_in_a_row: int = 0
    #: controls of an earlier version of the board its players used (``earlier``)
    earlier_used: int = 0

    @property
    def users(self) -> dict[int, FakeUser]:
        return {u.id: u for u in (*self.players, self.computer)}

    def other(self, user: FakeUser) -> FakeUser:
        return self.players[1] if user.id == self.players[0].id else self.players[0]

    def public(self) -> list[FakeMessage]:
        return [m for m in self.fake.messages_in(self.place) if m.visible_to is None]

    def result(self) -> FakeMessage | None:
        return next((m for m in reversed(self.public()) if m.content.startswith(RESULT)), None)

    def board(self) -> FakeMessage:
        """The newest public message with live controls (the live board), or the newest one."""
        messages = self.public()
        for message in reversed(messages):
            if any(not c.disabled for c in message.all_components):
                return message
        return messages[-1]

    def moved_on(self, board: FakeMessage) -> bool:
        """Whether ``board`` (as read a moment ago) is no longer the live board as it was."""
        now = self.board()
        return now.id != board.id or now.content != board.content or now.history != board.history

    def live(self) -> list[FakeMessage]:
        """The public messages whose controls can still be used (one board, or the result)."""
        return [m for m in self.public() if any(not c.disabled for c in m.all_components)]

    def asked(self, board: FakeMessage) -> FakeUser | None:
        return user_on_turn(board, self.users)

    def fingerprint(self) -> tuple[int, int]:
        messages = self.fake.messages_in(self.place)
        return len(messages), sum(len(m.history) for m in messages)

    async def wait(self, predicate: Callable[[], bool], what: str) -> None:
        try:
            await self.fake.wait_for(predicate, SETTLE_TIMEOUT, what)
        except TimeoutError:
            board = self.board()
            self.clicker.ledger.fail(
                f"{self.game} match #{self.match_id}: no progress within {SETTLE_TIMEOUT:g} s waiting for "
                f"{what}; the board says {board.content[:300]!r} with controls {board.custom_ids}"
            )
            raise Stuck from None

    def latest_messages(self, count: int = 6) -> str:
        """The newest messages of the match's place, a line each (for a failure's report)."""
        lines = []
        for m in self.fake.messages_in(self.place)[-count:]:
            live = [c.custom_id for c in m.all_components if not c.disabled]
            to = f"to {self.users[m.visible_to].name}" if m.visible_to in self.users else "public"
            lines.append(f"    #{m.id} {to}, {len(m.history)} edits: {m.content[:100]!r} {live}")
        return "\n".join(lines)

    def saved(self) -> tuple[object, ...] | None:
        """What the bot saved of the match and of its turn in progress (None without the database)."""
        if self.database is None:
            return None
        row = self.saved_row("version, turn_steps, draft, status")
        return tuple(row) if row is not None else None

    def saved_row(self, columns: str) -> Any:
        """``columns`` of the match's row in the bot's database (read only), or None."""
        assert self.database is not None
        with contextlib.closing(sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=5)) as db:
            return db.execute(f"SELECT {columns} FROM matches WHERE id = ?", (self.match_id,)).fetchone()

    def behind(self) -> bool:
        """Whether the bot saved more of the match than its public board shows yet, and is to show
        it: not while the board waits for the mover's private steps (``bot.turn_driver.board_held``),
        which reach it together when the mover leaves them."""
        row = self.saved_row("board_version, shown_version, status, game, state, turn_steps")
        if row is None or row[1] is None:
            return True
        if row[1] >= row[0]:
            return False
        return not (row[2] == "active" and held(row[3], row[4], row[5]))

    async def caught_up(self) -> None:
        """Wait, as a person does, until the public board shows the last thing saved. A player acting in
        a private panel while the board of their previous step is still being posted is a race no
        person wins at Discord's pace but a driver wins every time; ``database=None`` runs into it.
        (The bot's progress is not an event of the fake's, so this one wait polls.)"""
        if self.database is None:
            return
        deadline = time.perf_counter() + patient(SETTLE_TIMEOUT)
        while self.behind():
            if time.perf_counter() > deadline:
                self.clicker.ledger.fail(
                    f"{self.game} match #{self.match_id}: its public board stayed behind what was saved "
                    f"for {SETTLE_TIMEOUT:g} s"
                )
                raise Stuck
            await asyncio.sleep(PACE)

    async def ready(self) -> FakeMessage:
        """The live board, once it shows everything saved and it alone has live controls (the bot takes
        the controls off the old board before it posts the new one: for a moment there is none)."""
        await self.caught_up()
        await self.wait(
            lambda: len(self.live()) == 1 or (self.result() is not None and len(self.live()) <= 1),
            "a single board with live controls",
        )
        return self.board()

    async def controls(self, user: FakeUser, board: FakeMessage) -> FakeMessage:
        """Where ``user`` decides now: their private panel of a turn in progress, or a fresh private reply
        from **My hand** when the board asks for it, or the board."""
        panel = private_panel(self.fake, self.place, user, board)
        if panel is not None:
            return panel
        hand = next((b.custom_id for b in board.buttons if b.label == "My hand" and b.custom_id), None)
        if hand is not None and "**My hand**" in board.content:
            opened = await self.clicker.press(user, "player", board, hand)
            if opened is None or opened.message is None:
                self.clicker.ledger.fail(
                    f"{self.game} match #{self.match_id}: My hand showed {user.name} nothing"
                )
                raise Stuck
            return opened.message
        return board

    async def step(
        self, rng: random.Random, after_answer: Callable[[], Awaitable[None]] | None = None
    ) -> bool:
        """One decision by whoever the board asks (a human: a random legal control; the computer: wait
        for it); False once the match is over. ``after_answer`` runs as soon as the click is answered,
        instead of waiting for what it leads to (to kill the bot in the middle of showing it)."""
        if self.result() is not None:
            return False
        board = await self.ready()
        if self.result() is not None:  # shown meanwhile
            return False
        user = self.asked(board)
        if user is None or user.id == self.computer.id:
            before = self.fingerprint()
            await self.wait(lambda: self.fingerprint() != before, "the computer's move")
            return True
        await self.earlier(user, board)
        where = await self.controls(user, board)
        # Every kind of control met for the first time is tried by the others too (the computer clicks
        # nothing; Resign's confirmation would resign whoever clicks it).
        others = {"opponent": self.other(user), "stranger": self.stranger}
        if others["opponent"].id == self.computer.id:
            del others["opponent"]
        for message in {board.id: board, where.id: where}.values():
            await self.clicker.probe(message, others, skip=("rs:",), only_new=True)
        try:
            custom_id, values = choose(where, rng)
        except LookupError:
            if STALE_BOARD in where.content or self.moved_on(board):
                # The board was replaced between reading it and clicking it (a person rarely wins that
                # race; --impatient does): the refusal points to the latest board, which is read anew.
                return True
            self.clicker.ledger.fail(
                f"{self.game} match #{self.match_id}: the board asks {user.name} ({board.content[:120]!r}) "
                f"but gives them nothing to decide with: {where.content[:300]!r}"
            )
            raise Stuck from None
        seen = {m.id: len(m.history) for m in self.public()}
        saved = self.saved()
        result = await self.clicker.press(user, "player", where, custom_id, values)
        if result is None:
            raise Stuck
        self.decisions += 1
        if after_answer is not None:
            await after_answer()
            return True
        refusal = await self.settle(
            result, custom_id if not values else values[0], version_of(custom_id), seen
        )
        nowhere = refusal is not None if saved is None else self.saved() == saved
        if nowhere and refusal is not None:
            # A person reads a refusal before clicking again (meanwhile the bot keeps their panel
            # current), even when the match has gone on elsewhere.
            self.refused += 1
            await asyncio.sleep(REFUSAL_READ)
        self.nowhere_in_a_row = self.nowhere_in_a_row + 1 if nowhere else 0
        if self.nowhere_in_a_row >= NOWHERE_IN_A_ROW:
            self.clicker.ledger.fail(
                f"{self.game} match #{self.match_id}: {user.name}'s last {self.nowhere_in_a_row} decisions "
                f"changed nothing; the last, {custom_id!r} {values or ''} on {where.content[:160]!r}, "
                f"answered {refusal!r}; the latest messages there:\n{self.latest_messages()}"
            )
            raise Stuck
        return True

    async def earlier(self, user: FakeUser, board: FakeMessage) -> None:
        """The first few times the board was edited in place and its player decides on it (no turn in
        progress), their other client still shows it as it was: they use an old game control first (an
        old Roll, a move of the position before), which must be answered privately and change
        nothing; then they decide on the board as it is."""
        old = older_game_controls(board) if self.earlier_used < EARLIER_PER_MATCH else []
        if not old or private_panel(self.fake, self.place, user, board) is not None:
            # Only outside a turn in progress: during one the answer is its panel again ("carry on
            # here"), and the panel it replaces keeps controls nobody updates, which this driver,
            # reading the newest panel since the board, would take up again at the next turn.
            return
        self.earlier_used += 1
        saved = self.saved()
        result = await self.clicker.press_earlier(user, "player", board, old[0])
        if result is None:
            raise Stuck
        # A person reads the answer before deciding (a "thinking…" is filled in first).
        await self.wait(
            lambda: not any(self.fake.message(m).loading for m in result.messages),
            f"the answer to {user.name}'s {old[0].custom_id!r} to be filled in",
        )
        if saved is not None and self.saved() != saved:
            self.clicker.ledger.fail(
                f"{self.game} match #{self.match_id}: {old[0].custom_id!r} from an earlier version of its "
                "board changed the match"
            )
        if result.private is None:
            self.clicker.ledger.fail(
                f"{self.game} match #{self.match_id}: {old[0].custom_id!r} from an earlier version of its "
                f"board got no private answer ({[r.kind for r in result.replies]})"
            )

    async def settle(
        self, result: InteractionResult, chosen: str, version: int | None, seen: dict[int, int]
    ) -> str | None:
        """Wait for what the click leads to: the next decision shown (a control of a later version, a
        board posted or edited since the click, ``seen`` (message: edits), asking a person), the
        result, or a private answer with nothing newer to decide on (returned: its text); a click that only opens other controls
        (``n:``) is answered by the edit itself."""
        if chosen.startswith("n:") or version is None:
            return None

        def answers() -> list[FakeMessage]:  # as they are now ("thinking…" is filled in later)
            return [self.fake.message(m) for m in result.messages]

        def refusal() -> str | None:  # a private message sent in answer, with nothing newer to decide on it
            return next(
                (
                    m.content
                    for m in answers()
                    if m.ephemeral
                    and not m.loading
                    and not any((version_of(c.custom_id or "") or 0) > version for c in m.all_components)
                ),
                None,
            )

        def shown() -> bool:
            for message in self.fake.messages_in(self.place):
                for control in message.all_components:
                    if not control.disabled and (version_of(control.custom_id or "") or 0) > version:
                        return True
                if message.visible_to is None and len(message.history) > seen.get(message.id, -1):
                    asked = self.asked(message)
                    if asked is not None and asked.id != self.computer.id:
                        return True
            return False

        await self.wait(
            lambda: self.result() is not None or shown() or refusal() is not None,
            f"what {result.interaction.user.name}'s {chosen!r} leads to",
        )
        # A person waits for "thinking…" to end before clicking again: a private panel that answers
        # a click on an older one ("carry on here") is filled in after the newer controls are shown.
        await self.wait(
            lambda: not any(m.loading for m in answers()),
            f"the answer to {result.interaction.user.name}'s {chosen!r} to be filled in",
        )
        return refusal()

    async def play(self, rng: random.Random, steps: int) -> bool:
        """Up to ``steps`` decisions; whether the match is over."""
        for _ in range(steps):
            if not await self.step(rng):
                return True
        return self.result() is not None

"""Injecting interactions as users: ``slash``, ``autocomplete``, ``click``, ``select``, ``click_earlier``
(a control of an earlier version of a message), ``forge``, ``submit_modal``.

A mixin of :class:`~fakediscord.fake.FakeDiscord`. Each sends INTERACTION_CREATE to the connected
bot and waits (without sleeping a fixed time) until the bot has answered, or raises
:class:`NoResponse` / :class:`BotError`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .errors import MessageNotVisible, NoResponse
from .gateway import Sink
from .interaction_data import InteractionData
from .lookups import ChannelLike, MessageLike, UserLike
from .results import InteractionResult
from .tracking import _Tracker
from .world import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    ComponentDisabled,
    FakeInteraction,
)

if TYPE_CHECKING:
    from .fake import FakeDiscord

JSON = dict[str, Any]


class Interactions(InteractionData):
    """The user-action helpers and ``dispatch_interaction``."""

    timeout: float
    _trackers: dict[int, _Tracker]

    if TYPE_CHECKING:

        def _active_sink(self, guild_id: int | None = None) -> Sink: ...

        async def wait_for(
            self, predicate: Callable[[], bool], timeout: float | None = None, what: str = "a condition"
        ) -> None: ...

        def _raise_errors(self, trackers: Iterable[_Tracker]) -> None: ...

        def bound(self, timeout: float | None = None) -> float: ...

    async def dispatch_interaction(
        self,
        inter: FakeInteraction,
        *,
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Send a prepared interaction to the connected bot and wait for its answer."""
        fake = cast("FakeDiscord", self)  # a mixin: self is always the FakeDiscord
        guild = inter.payload.get("guild_id")
        sink = self._active_sink(int(guild) if guild is not None else None)
        tracker = _Tracker(fake, inter.id, trackable=sink.trackable)
        self._trackers[inter.id] = tracker
        result = InteractionResult(fake, inter, tracker)
        what = f"the bot to answer interaction {self._describe(inter)}"
        inter.created_at = time.perf_counter()
        sink.dispatch_interaction(inter.payload, tracker)
        limit = self.bound(timeout)
        try:
            if sink.trackable:
                await self.wait_for(lambda: inter.answered or tracker.idle(), limit, what=what)
            else:
                await self.wait_for(lambda: inter.answered, limit, what=what)
        except TimeoutError as exc:
            if tracker.errors:
                self._raise_errors([tracker])
            if expect_response:
                busy = [t.get_name() for t in tracker.busy()]
                raise NoResponse(
                    f"{exc}" + (f"; handler tasks still running: {busy}" if busy else "")
                ) from None
            return result
        if not inter.answered and sink.trackable:
            await asyncio.sleep(0)
        self._raise_errors([tracker])
        if expect_response and not inter.answered:
            raise NoResponse(
                f"the bot did not answer interaction {self._describe(inter)}: no handler responded "
                "(a real user would see 'This interaction failed')"
            )
        if idle:
            await result.wait_idle(timeout)
        return result

    def _describe(self, inter: FakeInteraction) -> str:
        if inter.type == APPLICATION_COMMAND:
            return f"/{inter.name}"
        if inter.type == AUTOCOMPLETE:
            return f"autocomplete /{inter.name}"
        return f"{inter.custom_id!r} (type {inter.type})"

    async def slash(
        self,
        user: UserLike,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        channel: ChannelLike | None = None,
        locale: str = "en-US",
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` runs ``/name`` (``"group sub"`` for subcommands) with ``options`` by name.

        The command must have been synced by the bot (its definition gives option types; values are
        checked like the client would: required options, choices, min/max). User options take a
        :class:`FakeUser`, channel options a :class:`FakeChannel`, role options a :class:`FakeRole`,
        attachment options ``(filename, bytes)``. Returns once the bot has answered (``idle=True``:
        once its handler has finished).
        """
        u = self._user(user)
        ch = self._channel(channel)
        data = self._command_data(name, options or {}, ch, u, focused=None)
        inter = self._new_interaction(APPLICATION_COMMAND, u, ch, data, locale=locale, name=name)
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    async def autocomplete(
        self,
        user: UserLike,
        name: str,
        options: Mapping[str, Any],
        *,
        focused: str,
        channel: ChannelLike | None = None,
        locale: str = "en-US",
        timeout: float | None = None,
    ) -> InteractionResult:
        """The user is typing ``options[focused]``; returns the result with ``.choices``."""
        u = self._user(user)
        ch = self._channel(channel)
        data = self._command_data(name, options, ch, u, focused=focused)
        inter = self._new_interaction(AUTOCOMPLETE, u, ch, data, locale=locale, name=name)
        return await self.dispatch_interaction(inter, timeout=timeout)

    async def click(
        self,
        user: UserLike,
        message: MessageLike,
        custom_id: str,
        *,
        locale: str = "en-US",
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` clicks the button ``custom_id`` on ``message`` (which must show it, enabled)."""
        inter = self.prepare_click(user, message, custom_id, locale=locale)
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    def prepare_click(
        self, user: UserLike, message: MessageLike, custom_id: str, *, locale: str = "en-US"
    ) -> FakeInteraction:
        """The interaction of :meth:`click`, built and checked but not sent: pass it to
        :meth:`dispatch_interaction` (a burst prepares every click first, so that building the
        payloads is not part of what it measures)."""
        u = self._user(user)
        msg = self._visible_message(message, u)
        comp = msg.component(custom_id)
        if not comp.is_button:
            raise TypeError(f"{custom_id!r} is not a button (component type {comp.type}); use fake.select()")
        if comp.disabled:
            raise ComponentDisabled(
                f"button {custom_id!r} on message {msg.id} is disabled; a user cannot click it"
            )
        data: JSON = {"custom_id": custom_id, "component_type": 2}
        if comp.id is not None:
            data["id"] = comp.id
        channel = self.world.channels[msg.channel_id]
        return self._new_interaction(
            MESSAGE_COMPONENT, u, channel, data, message=msg, locale=locale, custom_id=custom_id
        )

    async def select(
        self,
        user: UserLike,
        message: MessageLike,
        custom_id: str,
        values: Sequence[Any],
        *,
        locale: str = "en-US",
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` picks ``values`` in the select menu ``custom_id`` on ``message``.

        String selects take option values; user/role/mentionable/channel selects take
        FakeUser/FakeRole/FakeChannel objects (or ids).
        """
        inter = self.prepare_select(user, message, custom_id, values, locale=locale)
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    def prepare_select(
        self,
        user: UserLike,
        message: MessageLike,
        custom_id: str,
        values: Sequence[Any],
        *,
        locale: str = "en-US",
    ) -> FakeInteraction:
        """The interaction of :meth:`select`, built and checked but not sent (see :meth:`prepare_click`)."""
        u = self._user(user)
        msg = self._visible_message(message, u)
        comp = msg.component(custom_id)
        if not comp.is_select:
            raise TypeError(
                f"{custom_id!r} is not a select menu (component type {comp.type}); use fake.click()"
            )
        if comp.disabled:
            raise ComponentDisabled(f"select {custom_id!r} on message {msg.id} is disabled")
        channel = self.world.channels[msg.channel_id]
        data = self._select_data(comp.raw, list(values), channel, u)
        return self._new_interaction(
            MESSAGE_COMPONENT, u, channel, data, message=msg, locale=locale, custom_id=custom_id
        )

    async def click_earlier(
        self,
        user: UserLike,
        message: MessageLike,
        custom_id: str,
        values: Sequence[Any] | None = None,
        *,
        locale: str = "en-US",
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` uses the control ``custom_id`` (``values``: a select's choice) as an earlier version
        of ``message`` showed it: their client has not shown the bot's later edits yet. As Discord does,
        the interaction carries the message as it is now, which may no longer have that control (or
        has it greyed out)."""
        inter = self.prepare_earlier(user, message, custom_id, values, locale=locale)
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    def prepare_earlier(
        self,
        user: UserLike,
        message: MessageLike,
        custom_id: str,
        values: Sequence[Any] | None = None,
        *,
        locale: str = "en-US",
    ) -> FakeInteraction:
        """The interaction of :meth:`click_earlier`, built and checked but not sent."""
        u = self._user(user)
        msg = self._visible_message(message, u)
        comp = msg.earlier_component(custom_id)
        channel = self.world.channels[msg.channel_id]
        if values is None:
            if not comp.is_button:
                raise TypeError(f"{custom_id!r} was a select menu (component type {comp.type}): give values")
            data: JSON = {"custom_id": custom_id, "component_type": 2}
            if comp.id is not None:
                data["id"] = comp.id
        else:
            if not comp.is_select:
                raise TypeError(f"{custom_id!r} was a button (component type {comp.type}): give no values")
            data = self._select_data(comp.raw, list(values), channel, u)
        return self._new_interaction(
            MESSAGE_COMPONENT, u, channel, data, message=msg, locale=locale, custom_id=custom_id
        )

    async def forge(
        self,
        user: UserLike,
        message: MessageLike,
        component: JSON,
        values: Sequence[Any] | None = None,
        *,
        on_message: bool = True,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` uses ``component`` (a button, or with ``values`` a select: its JSON, as on a
        message) as though it were on ``message``, which they can see: a control the bot never gave
        them, as a modified client can send (a copy of another user's private control, an old control
        a lost edit left on screen, a custom id the bot did not make). The stored message is left as
        it was. ``on_message``: the interaction's copy of the message carries the control (first, so
        that it is the one found even when the message shows the same custom id disabled); False: it
        does not, as Discord delivers a click on a control the message no longer has."""
        u = self._user(user)
        msg = self._visible_message(message, u)
        if not on_message:
            channel = self.world.channels[msg.channel_id]
            custom_id = str(component.get("custom_id"))
            if values is None:
                data: JSON = {"custom_id": custom_id, "component_type": int(component.get("type", 2))}
            else:
                data = self._select_data(component, list(values), channel, u)
            inter = self._new_interaction(
                MESSAGE_COMPONENT, u, channel, data, message=msg, custom_id=custom_id
            )
            return await self.dispatch_interaction(inter, timeout=timeout, expect_response=expect_response)
        kept = msg.components
        msg.components = [{"type": 1, "components": [{**component, "disabled": False}]}, *kept]
        try:
            custom_id = str(component.get("custom_id"))
            if values is None:
                inter = self.prepare_click(u, msg, custom_id)
            else:
                inter = self.prepare_select(u, msg, custom_id, values)
        finally:
            msg.components = kept
        return await self.dispatch_interaction(inter, timeout=timeout, expect_response=expect_response)

    async def submit_modal(
        self,
        user: UserLike,
        opened_by: InteractionResult | FakeInteraction | int,
        values: Mapping[str, str | Sequence[str]],
        *,
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Submit the modal the bot opened (callback type 9) in answer to ``opened_by``.

        ``values`` maps text input custom_ids to text (select custom_ids to lists of values).
        """
        source = self._interaction(opened_by)
        if source.modal is None:
            raise LookupError(f"the bot did not open a modal in answer to {self._describe(source)}")
        u = self._user(user)
        if u.id != source.user.id:
            raise MessageNotVisible("only the user who triggered the modal can submit it")
        modal = source.modal
        given = dict(values)
        components = [self._submitted(c, given) for c in modal.get("components") or []]
        components = [c for c in components if c is not None]
        if given:
            raise ValueError(f"the modal has no inputs {sorted(given)}")
        data = {"custom_id": modal.get("custom_id"), "components": components}
        channel = self.world.channels[source.channel_id]
        message = self.world.messages.get(source.source_message_id or 0)
        inter = self._new_interaction(
            MODAL_SUBMIT,
            u,
            channel,
            data,
            message=message,
            custom_id=str(modal.get("custom_id")),
            parent=source,
        )
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    def _submitted(self, comp: JSON, given: dict[str, Any]) -> JSON | None:
        ctype = comp.get("type")
        if ctype == 1:
            children = [self._submitted(c, given) for c in comp.get("components") or []]
            return {"type": 1, "components": [c for c in children if c is not None]}
        if ctype == 18:
            inner = self._submitted(comp.get("component") or {}, given)
            out: JSON = {"type": 18, "component": inner}
            if comp.get("id") is not None:
                out["id"] = comp["id"]
            return out
        custom_id = str(comp.get("custom_id"))
        if ctype == 4:
            value = given.pop(custom_id, comp.get("value") or "")
            if not isinstance(value, str):
                raise TypeError(f"text input {custom_id!r} takes a string")
            if comp.get("required", True) and not value:
                raise ValueError(f"text input {custom_id!r} is required")
            low, high = comp.get("min_length"), comp.get("max_length")
            if value and ((low is not None and len(value) < low) or (high is not None and len(value) > high)):
                raise ValueError(f"text input {custom_id!r} needs {low}..{high} characters")
            out = {"type": 4, "custom_id": custom_id, "value": value}
            if comp.get("id") is not None:
                out["id"] = comp["id"]
            return out
        if ctype in (3, 5, 6, 7, 8):
            picked = given.pop(custom_id, [])
            out = {"type": ctype, "custom_id": custom_id, "values": [str(v) for v in picked]}
            if comp.get("id") is not None:
                out["id"] = comp["id"]
            return out
        if ctype == 10:
            return {"type": 10, "id": comp.get("id")}
        return None

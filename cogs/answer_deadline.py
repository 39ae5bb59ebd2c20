"""Every interaction is answered within Discord's 3 seconds, whatever its handler waits for.

``answer_in_time(interaction, seconds)`` runs for every interaction as it arrives, before any handler
has run (``RingsideBot.dispatch``). It gives the interaction a response object that defers it if its
handler has not answered ``seconds`` after it arrived: a click or a select is acknowledged silently (a
deferred update, as game controls do at once anyway), a command gets a private "thinking…". The
handler goes on unchanged, and its own first answer, whenever it comes, is turned into what the
deferral allows (``DeadlineResponse``). One lock orders the deferral and the handler's first answer:
whichever comes first answers Discord, and the other adapts, so neither meets Discord's "already
acknowledged" (``InteractionResponded``).

The usual reason for a late answer is a database that another process holds locked (the store gives
up after ``bot.store.connection.LOCK_WAIT`` and the handler says "busy, try again"); a render or a
queue of the bot's own writes can be slow too. The deferral is logged, so an operator sees how often.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Sequence
from typing import Any

import discord
from discord.interactions import InteractionCallbackResponse, InteractionResponse
from discord.utils import MISSING

log = logging.getLogger(__name__)

ANSWER_DEADLINE = 2.5
"""Seconds after its arrival an unanswered interaction is deferred: Discord's limit is 3 s from when
it sent the interaction, and the gateway and the deferral's own request take some of the rest."""

_RESPONSE_SLOT = "_cs_response"
"""Where ``discord.Interaction`` keeps its response object (a cached slot, filled on first use)."""
_ANSWERED_TYPES = (
    discord.InteractionType.application_command,
    discord.InteractionType.component,
    discord.InteractionType.modal_submit,
)
_deferrals: set[asyncio.Task[None]] = set()  # running deferrals, kept from the garbage collector


def answer_in_time(interaction: discord.Interaction[Any], seconds: float = ANSWER_DEADLINE) -> None:
    """Defer ``interaction`` if its handler has not answered ``seconds`` from now. Call it before any
    handler runs (autocomplete and pings have nothing to defer and are left alone)."""
    if interaction.type in _ANSWERED_TYPES:
        setattr(interaction, _RESPONSE_SLOT, DeadlineResponse(interaction, seconds))


def _updates_a_message(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction came from a message's control (it can be deferred silently)."""
    return interaction.type is discord.InteractionType.component or (
        interaction.type is discord.InteractionType.modal_submit and interaction.message is not None
    )


class DeadlineResponse(InteractionResponse[Any]):
    """A response that the deadline defers when the handler is late, and that then turns the
    handler's first answer into what the deferral allows:

    - a message (``send_message``) becomes a followup; after a command's private "thinking…", a
      private message takes its place and a public one replaces it with a new message (so that its
      mentions notify, which an edit never does);
    - an edit of the clicked message (``edit_message``) becomes an edit of the original response
      (after a deferred update, that is the clicked message);
    - a deferral does nothing more, except that a public "thinking" removes the private one, so the
      followups that answer it are public.
    """

    __slots__ = (
        "_answered_late",
        "_arrived",
        "_deferral",
        "_late",
        "_lock",
        "_placeholder",
        "_timer",
        "first_answer",
    )

    def __init__(self, parent: discord.Interaction[Any], seconds: float) -> None:
        super().__init__(parent)
        self._lock = asyncio.Lock()
        self._late = False  # deferred by the deadline
        self._answered_late = False  # the handler's first answer came after that and was turned
        self._placeholder = False  # the private "thinking…" of a late command, not filled in yet
        self._deferral: InteractionCallbackResponse[Any] | None = None  # Discord's answer to the deadline's
        loop = asyncio.get_running_loop()
        self._arrived = loop.time()
        self._timer = loop.call_later(seconds, self._deadline_passed)
        #: seconds from the interaction's arrival to its first response (None: not answered yet)
        self.first_answer: float | None = None

    def _answered(self) -> None:
        if self.first_answer is None:
            self.first_answer = asyncio.get_running_loop().time() - self._arrived

    # -- the deadline ------------------------------------------------------------------------------

    def _deadline_passed(self) -> None:
        if self.is_done():
            return
        task = asyncio.get_running_loop().create_task(self._defer_late(), name="ringside-answer-deadline")
        _deferrals.add(task)
        task.add_done_callback(_deferrals.discard)

    async def _defer_late(self) -> None:
        parent = self._parent
        async with self._lock:
            if self.is_done():
                return
            try:
                if _updates_a_message(parent):
                    self._deferral = await super().defer()
                else:
                    self._deferral = await super().defer(ephemeral=True, thinking=True)
                    self._placeholder = True
                self._answered()
            except Exception as exc:  # expired, or the bot is closing: the handler answers or not
                log.warning("interaction %s could not be deferred after its deadline: %r", parent.id, exc)
                return
            self._late = True
        log.info(
            "interaction %s (%s) was not answered in time: deferred; its answer follows",
            parent.id,
            _describe(parent),
        )

    def _late_turn(self) -> bool:
        """Whether the handler's answer is to be turned (the deadline deferred first); a second answer
        after that is refused as discord.py refuses any second answer."""
        if not self._late:
            return False
        if self._answered_late:
            raise discord.InteractionResponded(self._parent)
        self._answered_late = True
        return True

    async def _drop_placeholder(self) -> None:
        """Delete the private "thinking…", so that the next followup is a message of its own."""
        self._placeholder = False
        try:
            await self._parent.delete_original_response()
        except discord.HTTPException as exc:
            log.warning("the placeholder of interaction %s could not be removed: %s", self._parent.id, exc)

    def _callback(
        self, message_id: int, kind: discord.InteractionResponseType
    ) -> InteractionCallbackResponse[Any]:
        """What discord.py would have returned for an answer that became ``message_id``: the response
        to the deadline's deferral, saying what the answer became."""
        assert self._deferral is not None, "an answer is turned only after the deadline's deferral"
        turned = copy.copy(self._deferral)
        turned.type = kind
        turned.message_id = message_id
        turned.resource = None
        return turned

    # -- the handler's answers ---------------------------------------------------------------------

    async def defer(
        self, *, ephemeral: bool = False, thinking: bool = False
    ) -> InteractionCallbackResponse[Any] | None:
        async with self._lock:
            if not self._late_turn():
                deferred = await super().defer(ephemeral=ephemeral, thinking=thinking)
                self._answered()
                self._timer.cancel()
                return deferred
            if thinking and not ephemeral and self._placeholder:
                await self._drop_placeholder()
            return None

    async def send_message(  # type: ignore[override]
        self,
        content: Any | None = None,
        *,
        embed: discord.Embed = MISSING,
        embeds: Sequence[discord.Embed] = MISSING,
        file: discord.File = MISSING,
        files: Sequence[discord.File] = MISSING,
        view: discord.ui.View = MISSING,
        tts: bool = False,
        ephemeral: bool = False,
        allowed_mentions: discord.AllowedMentions = MISSING,
        suppress_embeds: bool = False,
        silent: bool = False,
        delete_after: float | None = None,
        poll: discord.Poll = MISSING,
    ) -> InteractionCallbackResponse[Any]:
        # What a message is, the same whether it is the response or a followup in its place.
        message_args: dict[str, Any] = dict(
            embed=embed,
            embeds=embeds,
            file=file,
            files=files,
            view=view,
            tts=tts,
            ephemeral=ephemeral,
            allowed_mentions=allowed_mentions,
            suppress_embeds=suppress_embeds,
            silent=silent,
            poll=poll,
        )
        async with self._lock:
            if not self._late_turn():
                sent = await super().send_message(content, delete_after=delete_after, **message_args)
                self._answered()
                self._timer.cancel()
                return sent
            if self._placeholder and not ephemeral:
                await self._drop_placeholder()
            # A private message fills the private "thinking…" (Discord: the first followup after a
            # deferred message edits it), or is a message of its own.
            self._placeholder = False
            message = await self._parent.followup.send(
                content if content is not None else MISSING, wait=True, **message_args
            )
            if delete_after is not None:
                await message.delete(delay=delete_after)
            return self._callback(message.id, discord.InteractionResponseType.channel_message)

    async def edit_message(
        self,
        *,
        content: Any | None = MISSING,
        embed: discord.Embed | None = MISSING,
        embeds: Sequence[discord.Embed] = MISSING,
        attachments: Sequence[discord.Attachment | discord.File] = MISSING,
        view: discord.ui.View | discord.ui.LayoutView | None = MISSING,
        allowed_mentions: discord.AllowedMentions | None = MISSING,
        delete_after: float | None = None,
        suppress_embeds: bool = MISSING,
    ) -> InteractionCallbackResponse[Any] | None:
        async with self._lock:
            if not self._late_turn():
                edited = await super().edit_message(
                    content=content,
                    embed=embed,
                    embeds=embeds,
                    attachments=attachments,
                    view=view,
                    allowed_mentions=allowed_mentions,
                    delete_after=delete_after,
                    suppress_embeds=suppress_embeds,
                )
                self._answered()
                self._timer.cancel()
                return edited
            if not _updates_a_message(self._parent):
                return None  # as discord.py: only a control's message can be edited this way
            # Discord's edit of the original response has no flag for embeds; the bot never sets it.
            message = await self._parent.edit_original_response(
                content=content,
                embed=embed,
                embeds=embeds,
                attachments=attachments,
                view=view,
                allowed_mentions=allowed_mentions if allowed_mentions is not MISSING else None,
            )
            if delete_after is not None:
                await message.delete(delay=delete_after)
            return self._callback(message.id, discord.InteractionResponseType.message_update)


def _describe(interaction: discord.Interaction[Any]) -> str:
    if interaction.command is not None:
        return f"/{interaction.command.qualified_name}"
    data: dict[str, Any] = dict(interaction.data or {})
    return f"control {data.get('custom_id', '?')!r}"

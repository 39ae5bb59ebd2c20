"""What a test gets back from an injected interaction: :class:`InteractionResult`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .tracking import _Tracker
from .world import FakeInteraction, FakeMessage, Reply, Request

if TYPE_CHECKING:
    from .fake import FakeDiscord

JSON = dict[str, Any]


class InteractionResult:
    """What happened in answer to one injected interaction (live: reflects later replies too)."""

    def __init__(self, fake: FakeDiscord, interaction: FakeInteraction, tracker: _Tracker) -> None:
        self.fake = fake
        self.interaction = interaction
        self._tracker = tracker

    @property
    def id(self) -> int:
        return self.interaction.id

    @property
    def token(self) -> str:
        return self.interaction.token

    @property
    def payload(self) -> JSON:
        """The INTERACTION_CREATE payload the bot received."""
        return self.interaction.payload

    @property
    def answered(self) -> bool:
        return self.interaction.answered

    @property
    def callback_type(self) -> int | None:
        """4 message, 5 deferred message, 6 deferred update, 7 update message, 8 choices, 9 modal."""
        return self.interaction.callback_type

    @property
    def answer_seconds(self) -> float | None:
        """Seconds from dispatching INTERACTION_CREATE to the fake recording the callback (any type)."""
        inter = self.interaction
        return None if inter.callback_at is None else inter.callback_at - inter.created_at

    @property
    def replies(self) -> list[Reply]:
        return self.fake.replies_to(self.interaction.id)

    @property
    def callback(self) -> Request | None:
        for reply in self.replies:
            if reply.kind == "callback" and 200 <= reply.request.status < 300:
                return reply.request
        return None

    @property
    def message(self) -> FakeMessage | None:
        """The original response (for 6/7: the message the component is on), current state."""
        mid = self.interaction.original_message_id
        return self.fake.world.messages.get(mid) if mid else None

    @property
    def followups(self) -> list[FakeMessage]:
        return [self.fake.world.messages[m] for m in self.interaction.followup_ids]

    @property
    def messages(self) -> list[FakeMessage]:
        """Every message created in answer (original, followups, channel messages sent by the handler)."""
        seen: dict[int, FakeMessage] = {}
        for reply in self.replies:
            msg = reply.message
            if msg is not None and msg.id not in seen and reply.kind in ("callback", "followup", "send"):
                if reply.kind == "callback" and reply.callback_type not in (4, 5):
                    continue
                seen[msg.id] = msg
        return list(seen.values())

    @property
    def private(self) -> FakeMessage | None:
        """The private (ephemeral) message that answers: the response itself, or a followup after a
        deferred answer (a click is acknowledged first, then refused privately)."""
        for msg in (self.message, *self.followups):
            if msg is not None and msg.ephemeral:
                return msg
        return None

    @property
    def ephemeral(self) -> bool:
        """Whether the response message is ephemeral (seen only by the interaction's user)."""
        msg = self.message
        return msg is not None and msg.ephemeral

    @property
    def modal(self) -> JSON | None:
        return self.interaction.modal

    @property
    def choices(self) -> list[JSON] | None:
        return self.interaction.choices

    @property
    def errors(self) -> list[logging.LogRecord]:
        return list(self._tracker.errors)

    def idle(self) -> bool:
        return self._tracker.idle()

    async def wait_idle(self, timeout: float | None = None) -> InteractionResult:
        """Wait until every task of the bot's handler for this interaction has finished."""
        await self.fake._wait_trackers([self._tracker], timeout)
        return self

    async def wait_for_followups(self, count: int = 1, timeout: float | None = None) -> list[FakeMessage]:
        await self.fake.wait_for(
            lambda: len(self.interaction.followup_ids) >= count, timeout, what=f"{count} followup(s)"
        )
        return self.followups

    def __repr__(self) -> str:
        return (
            f"<InteractionResult id={self.id} type={self.interaction.type} "
            f"callback={self.callback_type} replies={len(self.replies)}>"
        )

"""Who may challenge whom, and a challenge's life: pending, then accepted, declined, cancelled or expired."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.clock import Clock
from bot.settings import ServerSettings
from bot.store import ChallengeRecord, Store
from engine import BadOptionsError, GameError, Variant, find_variant
from engine.ai.levels import DEFAULT_LEVEL, levels_of
from engine.live_clock import parse_clock
from engine.protocol import OptionSpec

TUTOR_ELSEWHERE = (
    "The tutor is for backgammon only: {game} has no tutor yet. Leave tutor out of this challenge."
)
"""The answer to ``tutor:on`` for a game without a tutor (``bot.tutor``)."""


class ChallengeError(Exception):
    """A challenge request or answer that cannot be carried out; the message is for the user."""

    def __init__(self, message: str, expired: ChallengeRecord | None = None) -> None:
        super().__init__(message)
        self.expired = expired


@dataclass(frozen=True, slots=True)
class NewChallenge:
    """What ``Challenges.create`` did: ``created`` False when the two players already had a challenge
    pending for this game here (``record`` is then that one, from either of them); ``expired``, the
    overdue challenges it closed first, for the caller to show as expired."""

    record: ChallengeRecord
    created: bool
    expired: list[ChallengeRecord]


class Challenges:
    def __init__(self, store: Store, clock: Clock, settings: ServerSettings) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.computer_ids: set[int] = set()

    def is_computer(self, user_id: int) -> bool:
        return user_id in self.computer_ids

    async def check_new(
        self, *, guild_id: int | None, challenger_id: int, opponent_id: int, opponent_is_bot: bool, game: str
    ) -> Variant:
        """The game to play, if this challenge may be made at all."""
        if opponent_id == challenger_id:
            raise ChallengeError(
                "You cannot challenge yourself. Challenge a friend, or me to play the computer."
            )
        if opponent_is_bot and not self.is_computer(opponent_id):
            raise ChallengeError(
                "That is another bot: it cannot play. Challenge a person, or me to play the computer."
            )
        return await self.check_game(guild_id, game)

    async def check_game(self, guild_id: int | None, game: str) -> Variant:
        """The game named, if it is played on this server (a challenge's, a tournament's)."""
        try:
            variant = find_variant(game)
        except GameError as exc:
            raise ChallengeError(str(exc)) from exc
        allowed = (await self.settings.get(guild_id)).allowed_games
        if allowed is not None and variant.key not in allowed:
            games = ", ".join(allowed) or "none"
            raise ChallengeError(
                f"{variant.title} is not played on this server (games allowed here: {games})."
            )
        return variant

    @staticmethod
    def check_options(variant: Variant, given: Mapping[str, Any]) -> dict[str, Any]:
        """``given`` checked against the game's options and completed with their defaults.

        A string is matched to a choice ignoring case, or to the choice's label, as people type it.
        """
        cleaned: dict[str, Any] = {}
        specs = {spec.name: spec for spec in variant.options}
        if given.get("tutor") and "tutor" not in specs:
            raise ChallengeError(TUTOR_ELSEWHERE.format(game=variant.title))
        for name, value in given.items():
            spec = specs.get(name)
            if spec is not None and isinstance(value, str):
                value = _match_choice(spec, value)
            cleaned[name] = value
        try:
            resolved = variant.resolve_options(cleaned)
            if resolved.get("clock"):
                # Kept as written back ("2m+12s"), so the challenge, the board and a rematch agree.
                resolved["clock"] = parse_clock(str(resolved["clock"])).text
            return resolved
        except BadOptionsError as exc:
            raise ChallengeError(f"{str(exc)[0].upper()}{str(exc)[1:]}.") from exc

    @staticmethod
    def rated(variant: Variant, options: Mapping[str, Any], asked: bool) -> bool:
        """Whether the match is rated: as asked, unless the game says these options are never rated
        (a backgammon money session, a match from a set position: ``Variant.counts_for_rating``)."""
        return asked and variant.counts_for_rating(options)

    def check_level(self, variant: Variant, opponent_id: int, level: str | None) -> str | None:
        """The computer's level for a match of ``variant`` against ``opponent_id``: ``level`` as given
        (any case), else the default level; None against a person, or for a game whose computer has no
        levels yet (it plays its one player). A level named against a person, or one the game does not
        have, is a ``ChallengeError``."""
        if not self.is_computer(opponent_id):
            if level is not None:
                raise ChallengeError(
                    "A level is for games against the computer: challenge me with it, or leave it out."
                )
            return None
        available = levels_of(variant.key)
        if level is None:
            return DEFAULT_LEVEL if DEFAULT_LEVEL in available else None
        chosen = level.strip().lower()
        if chosen not in available:
            if not available:
                raise ChallengeError(
                    f"The computer has no levels in {variant.title} yet: leave the level out to play it."
                )
            raise ChallengeError(
                f"The computer plays {variant.title} at these levels: {', '.join(available)}."
            )
        return chosen

    async def check_no_pending(self, challenger_id: int, opponent_id: int, opponent_mention: str) -> None:
        if await self.store.challenges.pending(challenger_id, opponent_id, self.clock.now()) is not None:
            raise ChallengeError(
                f"You already have a challenge waiting for {opponent_mention}: wait for an answer or cancel it."
            )

    async def create(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        game: str,
        options: dict[str, Any],
        rated: bool,
        rematch_of: int | None = None,
    ) -> NewChallenge:
        """A new pending challenge, unless the pair already has one for this game here: one pending
        challenge per unordered pair, game and place, so crossed challenges (or two Rematch clicks)
        start one match, decided atomically by the store."""
        # An overdue challenge still marked pending must not stand in the way of a new one.
        expired = await self.expire_due()
        now = self.clock.now()
        expiry = (await self.settings.get(guild_id)).challenge_seconds
        record, created = await self.store.challenges.create(
            guild_id=guild_id,
            channel_id=channel_id,
            challenger_id=challenger_id,
            opponent_id=opponent_id,
            game=game,
            options=options,
            rated=rated,
            now=now,
            expires_at=now + expiry,
            rematch_of=rematch_of,
        )
        return NewChallenge(record, created, expired)

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        await self.store.challenges.set_message(challenge_id, message_id)

    async def answer(
        self, challenge_id: int, user_id: int, op: str, message_id: int | None = None
    ) -> ChallengeRecord:
        """Accept, decline or cancel; only the right person, only while it is pending, and only from
        the challenge's own message (``message_id``, the one clicked: the answer is written on it), once
        that is noted. Decline and cancel close it here; an accepted challenge is closed with the
        creation of its match."""
        record = await self.store.challenges.get(challenge_id)
        if record is None:
            raise ChallengeError("This challenge does not exist any more.")
        if record.message_id is not None and message_id != record.message_id:
            raise ChallengeError(
                "That button belongs to another message: answer the challenge on its own message. "
                "Nothing was changed."
            )
        if record.status != "pending":
            raise ChallengeError(f"This challenge was already {record.status}.")
        if self.clock.now() >= record.expires_at:
            await self.store.challenges.close(record.id, "expired")
            raise ChallengeError(
                "This challenge has expired. Start a new one with /challenge.", expired=record
            )
        if op in ("accept", "decline") and user_id != record.opponent_id:
            if user_id == record.challenger_id:
                raise ChallengeError("Only the challenged player can answer; you can Cancel your challenge.")
            raise ChallengeError(f"This challenge is for <@{record.opponent_id}>, not for you.")
        if op == "cancel" and user_id != record.challenger_id:
            raise ChallengeError("Only the player who made the challenge can cancel it.")
        if op == "accept":
            # Accepted by the transaction that creates its match (``SessionManager.start_match``
            # with ``challenge_id``): a challenge is never closed without its match.
            return record
        status = {"decline": "declined", "cancel": "cancelled"}[op]
        if not await self.store.challenges.close(record.id, status):
            raise ChallengeError("This challenge was answered a moment ago.")
        return record

    async def close_unplayable(self, challenge_id: int) -> bool:
        """Close a pending challenge whose match can never start (``session.MatchCannotStart``), as
        cancelled: no Accept can start it later. False if it was answered meanwhile."""
        return await self.store.challenges.close(challenge_id, "cancelled")

    async def expire_due(self) -> list[ChallengeRecord]:
        expired = []
        for record in await self.store.challenges.due(self.clock.now()):
            if await self.store.challenges.close(record.id, "expired"):
                expired.append(record)
        return expired


def _match_choice(spec: OptionSpec, text: str) -> str:
    """The choice ``text`` names (its value or its label, any case), else ``text`` unchanged."""
    wanted = " ".join(text.split()).casefold()
    for choice in spec.choices:
        if isinstance(choice, str) and wanted in (
            choice.casefold(),
            spec.label(choice).casefold(),
            spec.short_label(choice).casefold(),
        ):
            return choice
    return text

"""What the scheduler needs from the Discord side: publishers the cogs implement and register.

The decisions about due work are made in this layer (``Challenges.expire_due``,
``TurnClocks.due_reminders``, ``TurnClocks.timeout_due``); showing each result is the
cogs' part. A cog registers itself on ``RingsideBot.publishers`` when it is loaded and removes itself
when unloaded; while no publisher of a kind is registered, that kind of due work is left for later
(so a reminder is not claimed with nobody to send it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.session import Played, Reminder
from bot.store import ChallengeRecord, ImportedRecord, MatchRecord
from bot.store.jobs import JobRecord
from engine.ai.coaching import Analysis


class Unpostable(Exception):
    """Raised by a publisher for what it can never post (Discord refuses it for good, or a bug): the
    work is given up and not tried again at every round."""


class ChallengePublisher(Protocol):
    async def challenge_expired(self, record: ChallengeRecord) -> None:
        """Show that a challenge ran out unanswered (it is already closed as expired)."""


class MatchPublisher(Protocol):
    async def show(self, match_id: int, *, headline: str | None = None) -> bool:
        """Bring the match's public board up to date with what is saved (``headline``: the first
        board's opening line); False if it could not be shown now (it is tried again)."""

    async def show_behind(self, *, everything: bool = False) -> int:
        """Show every board that is behind what is saved (a failed post, a crash before the post) and
        due to be tried (``everything``: due or not, as when stopping); returns how many were brought
        up to date."""

    async def remind(self, reminder: Reminder) -> None:
        """Remind the player on turn (the reminder is already claimed: it is given out once)."""

    async def match_ended(self, played: Played) -> None:
        """Show a match that ended without a move on the board (a timeout): its last board, result."""

    async def rematch_expired(self, record: MatchRecord) -> None:
        """Grey out a finished match's Rematch button: its time has run out (already claimed)."""


class AnalysisPublisher(Protocol):
    async def analysis_ready(self, match_id: int, analysis: Analysis) -> int | None:
        """Post a finished match's analysis; the id of the message that shows it (raise: tried again
        later; ``Unpostable``: given up)."""

    async def analysis_failed(self, match_id: int) -> None:
        """Say that the match's analysis could not be computed (it is not tried again)."""

    async def analysis_shown(self, match_id: int, message_id: int, line: str) -> None:
        """Show how the match's analysis goes (queued with a place, or its progress) on its result
        message ``message_id`` (a failure is only logged: the next edit says more)."""


class FilePublisher(Protocol):
    """Shows the analyses of match files sent to ``/analyse file:`` (``bot.analyses``)."""

    async def file_shown(self, job: JobRecord, line: str) -> None:
        """Show ``line`` (accepted, queued with a place, progress) on the asker's private answer."""

    async def file_ready(self, job: JobRecord, imported: ImportedRecord) -> int | None:
        """Post the file's analysis in its channel; the message's id (raise: tried again later;
        ``Unpostable``: given up, the asker told)."""

    async def file_failed(self, job: JobRecord, reason: str) -> None:
        """Tell the asker that the file could not be analysed, and why."""


class ReplayPublisher(Protocol):
    """Shows the replays asked for with ``/replay`` (``bot.replays``)."""

    async def replay_shown(self, job: JobRecord, line: str) -> None:
        """Show ``line`` (its place, its frames drawn) on the asker's reply."""

    async def replay_ready(self, job: JobRecord, gif: bytes) -> None:
        """Post the GIF (raise: tried again later; ``Unpostable``: given up, the asker told)."""

    async def replay_failed(self, job: JobRecord, reason: str) -> None:
        """Tell the asker, privately where it can, that the replay could not be made, and why."""


class RolloutPublisher(Protocol):
    """Shows the rollouts asked for with ``/rollout`` (``bot.rollouts``)."""

    async def rollout_shown(self, job: JobRecord, line: str) -> None:
        """Show ``line`` (its place, its games played) on the asker's reply."""

    async def rollout_ready(self, job: JobRecord, result: bytes) -> None:
        """Post the result (JSON; raise: tried again later; ``Unpostable``: given up, the asker told)."""

    async def rollout_failed(self, job: JobRecord, reason: str) -> None:
        """Tell the asker, privately where it can, that the rollout could not be made, and why."""


class TournamentPublisher(Protocol):
    async def match_finished(self, match_id: int) -> None:
        """A match's final board is shown: if it is a tournament's, take its result (once) and show
        what follows (the next round, the champion)."""

    async def match_placed(self, match_id: int) -> None:
        """The match's thread is open (or it is played in its channel, the thread refused): if it is a
        tournament's, its announcement links it. Returns at once (the board is not held up)."""

    async def tournaments_due(self, *, starting: bool = False) -> None:
        """Show whatever tournament work came due (``Tournaments.due``): sign-ups closed, rounds
        past their deadline, results taken up after a restart, champions not announced yet;
        ``starting`` (the first round after start-up): every announcement that may be behind what
        is saved is drawn again too."""


@dataclass(slots=True)
class Publishers:
    """The registered publishers, one per kind of due work (``None``: that work waits)."""

    challenges: ChallengePublisher | None = None
    matches: MatchPublisher | None = None
    analyses: AnalysisPublisher | None = None
    files: FilePublisher | None = None
    replays: ReplayPublisher | None = None
    rollouts: RolloutPublisher | None = None
    tournaments: TournamentPublisher | None = None

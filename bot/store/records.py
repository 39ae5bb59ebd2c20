"""The records the store reads and writes: frozen value types, one per kind of row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.live_clock import reserves_at
from engine.protocol import EndReason


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    id: int
    guild_id: int | None
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    game: str
    options: dict[str, Any]
    rated: bool
    status: str
    match_id: int | None
    created_at: float
    expires_at: float
    rematch_of: int | None = None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: int
    guild_id: int | None
    channel_id: int
    parent_id: int | None
    game: str
    options: dict[str, Any]
    players: tuple[int, int]
    state: str
    version: int
    status: str
    message_id: int | None
    rated: bool
    created_at: float
    updated_at: float
    reminder_at: float | None = None
    timeout_at: float | None = None
    result_message_id: int | None = None
    rematch_until: float | None = None
    board_version: int = 0
    """The version of the last committed change: what the public board must show."""
    shown_version: int | None = None
    """The ``board_version`` the visible board message shows (None: no board shown yet)."""
    new_board: bool = False
    """Whether the board still to show is a new message (someone else decides now, or it is over)."""
    board_steps: tuple[dict[str, Any], ...] = ()
    """The steps (as saved by ``bot.sessions.Step.to_json``) the board to show describes."""
    turn_steps: tuple[dict[str, Any], ...] = ()
    """The committed steps of the turn in progress."""
    draft: tuple[str, ...] = ()
    """Notations of the turn's steps that are not final yet (they can be taken back)."""
    thread_name: str | None = None
    """The thread this match is to be played in, not opened yet."""
    thread_on: int | None = None
    """The message that thread opens on (the challenge), if any."""
    computer_level: str | None = None
    """The computer's level in a match against it ("easy", "medium", "hard", "expert"); None: its default."""
    human: int | None = None
    """The person in a match against the computer (None: between people, or saved before it was kept)."""
    window_at: float | None = None
    """When the open response window passes by itself (None: no window clock is running)."""
    always_pass: tuple[bool, bool] = (False, False)
    """Each seat's standing answer to response windows: True "always pass", False "ask me"."""
    show_tries: int = 0
    """Failed attempts in a row at bringing the board up to date (0 once it is shown)."""
    show_after: float | None = None
    """When the scheduler tries that board again after a failure (None: at once)."""
    redraw: bool = False
    """The board must be drawn again though nothing was committed (a deadline moved, /board)."""
    reposts: int = 0
    """How many times /board asked for the board as a new message (part of the post's nonce)."""
    rematch_id: int | None = None
    """The match that rematched this finished one, once its rematch has started."""
    clock_delay: float | None = None
    """The live clock's delay per decision in seconds (None: no live clock; each turn has a deadline)."""
    clock_left: tuple[float, float] | None = None
    """Each seat's live-clock reserve left in seconds, as charged when the last action was saved."""
    clock_seat: int | None = None
    """The seat whose live clock runs (None: none runs)."""
    clock_since: float | None = None
    """When that seat's live clock started (its board was shown)."""

    def clock_left_at(self, now: float | None) -> tuple[float, float] | None:
        """The live clock's reserves as they stand at ``now`` (the running one charged so far; None:
        as charged at the last decision), or None without a live clock."""
        if self.clock_left is None or now is None or self.clock_delay is None:
            return self.clock_left
        return reserves_at(self.clock_left, self.clock_seat, self.clock_since, self.clock_delay, now)

    @property
    def behind(self) -> bool:
        """Whether something saved is not shown on the public board yet, or the board must be drawn
        again (``redraw``)."""
        return self.shown_version is None or self.shown_version < self.board_version or self.redraw


@dataclass(frozen=True, slots=True)
class ResultRecord:
    match_id: int
    winner_seat: int | None
    reason: EndReason
    """Saved as its key (a string); read back as the game's ``EndReason`` (``Variant.read_reason``)."""
    description: str
    points: int
    length: int
    finished_at: float


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's settings; ``None`` fields fall back to the bot's defaults."""

    guild_id: int
    reminder_seconds: float = 12 * 3600.0
    timeout_seconds: float = 48 * 3600.0
    challenge_seconds: float = 600.0
    allowed_games: tuple[str, ...] | None = None
    use_threads: bool = True
    results_channel: int | None = None
    window_seconds: float = 120.0
    """How long a response window waits for its player before it passes by itself."""
    organiser_role: int | None = None
    """A role whose members run tournaments, besides those with Manage Server (None: no such role)."""
    tournament_rated: bool = True
    """Whether tournament matches count for the server's ratings."""
    rollout_trials: int = 648
    """The most games a ``/rollout`` plays per candidate here (migration 028; ``bot.rollouts``)."""


@dataclass(frozen=True, slots=True)
class Deadlines:
    """When to remind the player on turn and when they lose by timeout (both ``None``: no clock);
    in a response window instead, when the window passes by itself (``window_at``; no forfeit)."""

    reminder_at: float | None
    timeout_at: float | None
    window_at: float | None = None
    clock_seat: int | None = None
    """The seat whose live clock starts with these deadlines (``timeout_at``: its reserve runs out)."""
    clock_since: float | None = None
    """When that live clock starts."""

    def started(self, now: float) -> Deadlines:
        """These deadlines with a live clock starting at ``now`` instead (the board asking for the
        decision was shown then, after it was drawn): its reserve runs out as much later."""
        if self.clock_since is None or self.timeout_at is None:
            return self
        late = now - self.clock_since
        return Deadlines(self.reminder_at, self.timeout_at + late, self.window_at, self.clock_seat, now)


@dataclass(frozen=True, slots=True)
class LoggedAction:
    seat: int | None
    notation: str

"""How many clicks and selects a turn takes, played by two humans through the fake Discord.

    python bench/taps.py [--game ring|backgammon|space] [--length N] [--matches 20] [--seed 1] [--max-interactions 3000]
        [--windows pass|random]

A fresh temporary SQLite file and a fresh bot (``RingsideBot``) on the in-process fake Discord. Each
of ``--matches`` matches of ``--game`` (ring; backgammon matches to ``--length`` points, default 1)
is set up through ``/challenge`` + Accept between two new users, then
played to the end by picking random controls of the player on turn (an option of the first select,
else a button that is not Back, Resign or Rules: see ``fakediscord.matches.pick_control``).

A turn runs from a hand-over board (a new public board message that names the player on turn) to the
next hand-over, a Confirm (which completes a backgammon play even when the board is then edited for the
same player), or the end of the match; every component interaction in between (a click or a select,
Roll included) counts. Private controls are followed: when the bot answers a pick with a message
only that player sees (an ephemeral reply or followup) that carries enabled controls, the next pick
is made on that message, as a player would.

``move_turns`` restricts the figures to turns in which at least one move step was played by a pick
(ring: Roll and then one or two dice; backgammon: one checker per die, and Confirm): the turns a
panel's layout decides. For backgammon ``move_turns_doubles`` and ``move_turns_other`` split them
by the dice rolled (a double is four moves).

Space (``--game space``) is measured by the game's own turn (the board's "Turn N"), as a decision
often passes to the other player inside one (Espionage, Jam and defense windows, the units a fight's
defender keeps): ``mover`` is the player whose turn it is (``turn_seat`` of the saved match: draw,
roll, build, move, attack), ``other`` the other one. The player asked acts where a player would:
on their private panel while it carries live controls (it is edited as the match changes), else
through "My hand" on the board, which counts as a tap (``my_hand``: presses per turn per player).
``--windows pass`` (the default) has the other player let every response window pass by itself (the
bot's clock is moved on by the server's wait and its due work run); ``--windows random`` has them
answer windows with random controls too, as the first measurement of issue 25 did. ``mentions``:
new public messages that mention the other player, per opponent turn (an edit notifies nobody);
the match's first board and its result, which name both players once a match, are counted apart
(``start_and_result_mentions_per_match``).

Prints one JSON object. It asserts nothing about the figures, only that the fake recorded no limit
violation or bot error and that every match ended.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and ``bench/render.py`` would shadow
# the ``render`` package: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from app.client import RingsideBot  # noqa: E402
from bot.clock import ManualClock, SystemClock  # noqa: E402
from bot.store import Store  # noqa: E402
from fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult  # noqa: E402
from fakediscord.matches import (  # noqa: E402
    WINDOW,
    challenge_and_accept,
    pick_control,
    play_one,
    private_panel,
    user_on_turn,
)


@dataclass
class Turn:
    player: int
    interactions: int = 0
    #: the game's turn number the board showed ("Turn N"), 0 before the first
    number: int = 0
    match: int = 0
    #: the action values picked (``a:...``), in order
    actions: list[str] = field(default_factory=list)

    @property
    def moved(self) -> bool:
        return any(a.startswith("a:move") for a in self.actions)

    @property
    def moves(self) -> int:
        return sum(1 for a in self.actions if a.startswith("a:move"))


def has_controls(message: FakeMessage) -> bool:
    return any(not c.disabled and c.custom_id for c in message.all_components)


def public_board(fake: FakeDiscord, channel_id: int) -> FakeMessage:
    """The newest public message of the channel with enabled controls (or the newest public one)."""
    messages = [m for m in fake.messages_in(channel_id) if not m.ephemeral]
    for message in reversed(messages):
        if has_controls(message):
            return message
    return messages[-1]


def private_controls(result: InteractionResult, user: FakeUser) -> FakeMessage | None:
    """A message of this answer that only ``user`` sees and that carries enabled controls."""
    candidates = [result.message] if result.message is not None else []
    candidates += result.messages + result.followups
    for message in reversed(candidates):
        if message is None or message.deleted:
            continue
        if message.ephemeral and message.visible_to == user.id and has_controls(message):
            return message
    return None


def turn_number(board: FakeMessage) -> int:
    """The game's turn number of a board message (its footer "Turn N"), 0 if none."""
    for embed in board.embeds:
        text = str((embed.get("footer") or {}).get("text") or "")
        if text.startswith("Turn ") and text[5:].isdigit():
            return int(text[5:])
    return 0


def picked_value(custom_id: str, values: list[str] | None) -> str:
    """The control value of a pick: a select's (first) option, else the tail of the button's custom id."""
    if values:
        return values[0]
    return custom_id.split(":", 3)[3] if custom_id.count(":") >= 3 else custom_id


async def play_match(
    fake: FakeDiscord,
    alice: FakeUser,
    bob: FakeUser,
    rng: random.Random,
    max_interactions: int,
    game: str = "ring",
    options: dict[str, object] | None = None,
) -> list[Turn]:
    users = {alice.id: alice, bob.id: bob}
    first = await challenge_and_accept(fake, alice, bob, game, **(options or {}))
    channel_id = first.channel_id
    turns: list[Turn] = []
    board_id: int | None = None
    target: FakeMessage | None = None  # where the next pick happens (a private reply or the board)
    for _ in range(max_interactions):
        board = public_board(fake, channel_id)
        if board.content.startswith("🏆"):
            return turns
        if board.id != board_id:
            # A hand-over: a new board message names the player on turn.
            player = user_on_turn(board, users)
            assert player is not None, f"no player on turn in {board.content!r}"
            turns.append(Turn(player.id, number=turn_number(board)))
            board_id = board.id
            target = None
        turn = turns[-1]
        user = users[turn.player]
        message = target if target is not None and has_controls(target) else board
        kind, custom_id, values = pick_control(message, rng)
        if kind == "select":
            assert values is not None
            result = await fake.select(user, message, custom_id, values, idle=True)
        else:
            result = await fake.click(user, message, custom_id, idle=True)
        turn.interactions += 1
        picked = picked_value(custom_id, values)
        if picked.startswith("a:"):
            turn.actions.append(picked)
        target = private_controls(result, user)
        if picked == "confirm":
            # A confirmed play ends the turn even when the board is edited rather than posted anew
            # (the opponent could not move, or its play was forced: the same player is asked again).
            turns.append(Turn(turn.player))
    raise AssertionError(f"a match did not end within {max_interactions} interactions")


def percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def figures(turns: list[Turn]) -> dict[str, Any]:
    return distribution([t.interactions for t in turns if t.interactions])


def distribution(counts: list[int]) -> dict[str, Any]:
    """Median, mean, p90, max, the share at most 3 and a histogram of ``counts``."""
    if not counts:
        return {"turns": 0}
    histogram = Counter(counts)
    return {
        "turns": len(counts),
        "median": statistics.median(counts),
        "mean": round(statistics.fmean(counts), 2),
        "p90": percentile(counts, 0.9),
        "max": max(counts),
        "share_at_most_3": round(sum(1 for c in counts if c <= 3) / len(counts), 3),
        "histogram": {str(k): histogram[k] for k in sorted(histogram)},
    }


WINDOW_WAIT = 121.0
"""Seconds the clock moves on for a window let pass: the default wait (2 minutes), and one more."""
MENTION = re.compile(r"<@(\d+)>")


@dataclass
class GameTurn:
    """One player's part of one game turn of a space match: taps, My hand presses, mentions."""

    taps: int = 0
    my_hand: int = 0
    mentions: int = 0
    bookend_mentions: int = 0
    refused: int = 0


def live_game_controls(message: FakeMessage | None) -> bool:
    return message is not None and any(
        not c.disabled and (c.custom_id or "").startswith("g:") for c in message.all_components
    )


async def play_space_match(
    fake: FakeDiscord,
    bot: RingsideBot,
    clock: ManualClock,
    alice: FakeUser,
    bob: FakeUser,
    rng: random.Random,
    max_interactions: int,
    windows: str,
) -> dict[tuple[int, str], GameTurn]:
    """One match of space; per (game turn, "mover" or "other"): what that player did."""
    users = {alice.id: alice, bob.id: bob}
    first = await challenge_and_accept(fake, alice, bob, "space")
    channel_id = first.channel_id
    match_id = (await bot.sessions.history.matches_of(alice.id))[0].id
    panels: dict[int, FakeMessage] = {}  # each player's latest private panel
    parts: dict[tuple[int, str], GameTurn] = {}
    seen = 0

    async def mover() -> tuple[int, int]:
        """The game's turn number and the user whose turn it is."""
        session = await bot.sessions.get(match_id)
        assert session.state is not None
        view = session.state.view(None)
        return view.turn_number, session.user_of(getattr(view, "turn_seat", 0))

    async def note_mentions() -> None:
        nonlocal seen
        number, on_turn = await mover()
        for message in fake.messages_in(channel_id):
            if message.ephemeral or message.id <= seen:
                continue
            seen = message.id
            # The match's first board (the challenge accepted) and its result name both players
            # once a match: counted apart from the turns' mentions.
            bookend = message.id == first.id or message.content.startswith("🏆")
            for user_id in {int(m) for m in MENTION.findall(message.content)}:
                role = "mover" if user_id == on_turn else "other"
                part = parts.setdefault((number, role), GameTurn())
                if bookend:
                    part.bookend_mentions += 1
                else:
                    part.mentions += 1

    for _ in range(max_interactions):
        await note_mentions()
        board = public_board(fake, channel_id)
        if board.content.startswith("🏆"):
            return parts
        user = user_on_turn(board, users)
        assert user is not None, f"no player on turn in {board.content!r}"
        number, on_turn = await mover()
        part = parts.setdefault((number, "mover" if user.id == on_turn else "other"), GameTurn())
        if windows == "pass" and WINDOW.search(board.content):
            clock.advance(WINDOW_WAIT)  # nobody taps: the window passes by itself
            await bot.run_due_tasks()
            continue
        panel = panels.get(user.id)
        panel = fake.message(panel) if panel is not None else None
        if panel is not None and panel.deleted:
            # The bot sent the live panel again below a newer board (``LivePanels``).
            panel = private_panel(fake, channel_id, user, board)
            if panel is not None:
                panels[user.id] = panel
        if live_game_controls(panel):
            message = panel
        elif "**My hand**" in board.content:
            hand = next(b.custom_id or "" for b in board.buttons if b.label == "My hand")
            opened = await fake.click(user, board, hand, idle=True)
            part.taps += 1
            part.my_hand += 1
            assert opened.message is not None
            panels[user.id] = message = opened.message
        else:
            message = board
        assert message is not None
        version = (await bot.sessions.get(match_id)).version
        result = await play_one(fake, message, user, rng)
        part.taps += 1
        reply = private_controls(result, user)
        if reply is not None:
            panels[user.id] = reply
        elif message is panel and (await bot.sessions.get(match_id)).version == version:
            # The panel was out of date (the match moved on since it was drawn): the click was
            # refused, and the player opens My hand for a current one. Not counted as a tap (a
            # player would see the panel is old), but reported.
            panels.pop(user.id, None)
            part.taps -= 1
            part.refused += 1
    raise AssertionError(f"a match did not end within {max_interactions} interactions")


def space_figures(parts: list[dict[tuple[int, str], GameTurn]]) -> dict[str, Any]:
    """Taps per game turn of the mover and of the other player, My hand presses, mentions."""
    turns = [(match, number) for match, found in enumerate(parts) for number, _ in found if number]
    turns = sorted(set(turns))

    def of(role: str, what: str) -> list[int]:
        return [getattr(parts[m].get((n, role), GameTurn()), what) for m, n in turns]

    taps = of("mover", "taps") + of("other", "taps")
    return {
        "game_turns": len(turns),
        "taps": sum(taps),
        "refused_clicks_on_old_panels": sum(of("mover", "refused") + of("other", "refused")),
        "mover_taps": distribution(of("mover", "taps")),
        "other_taps": distribution(of("other", "taps")),
        "my_hand_per_turn_per_player": distribution(of("mover", "my_hand") + of("other", "my_hand")),
        "other_mentions_per_opponent_turn": distribution(of("other", "mentions")),
        "start_and_result_mentions_per_match": round(
            sum(of("mover", "bookend_mentions") + of("other", "bookend_mentions")) / len(parts), 2
        )
        if parts
        else 0,
        "mentions_per_turn": round(
            statistics.fmean(
                [a + b for a, b in zip(of("mover", "mentions"), of("other", "mentions"), strict=True)]
            ),
            2,
        )
        if turns
        else 0,
    }


async def run_space(matches: int, seed: int, max_interactions: int, windows: str) -> dict[str, Any]:
    rng = random.Random(seed)
    clock = ManualClock()
    found: list[dict[tuple[int, str], GameTurn]] = []
    with tempfile.TemporaryDirectory(prefix="ringside-taps-") as tmp:
        async with FakeDiscord(validate_openapi=False, timeout=60.0) as fake:
            store = await Store.open(Path(tmp) / "taps.sqlite3")
            bot = RingsideBot(
                store, clock=clock, rng=random.Random(seed), run_scheduler=False, render_workers=0
            )
            try:
                await fake.connect(bot)
                for index in range(matches):
                    alice = fake.add_user(f"alice{index}")
                    bob = fake.add_user(f"bob{index}")
                    found.append(
                        await play_space_match(fake, bot, clock, alice, bob, rng, max_interactions, windows)
                    )
                fake.assert_clean()
            finally:
                await bot.close()
                await store.close()
    return {"game": "space", "matches": matches, "seed": seed, "windows": windows, **space_figures(found)}


async def run(
    matches: int,
    seed: int,
    max_interactions: int,
    game: str = "ring",
    options: dict[str, object] | None = None,
) -> dict[str, Any]:
    rng = random.Random(seed)
    turns: list[Turn] = []
    with tempfile.TemporaryDirectory(prefix="ringside-taps-") as tmp:
        async with FakeDiscord(validate_openapi=False, timeout=60.0) as fake:
            store = await Store.open(Path(tmp) / "taps.sqlite3")
            bot = RingsideBot(
                store, clock=SystemClock(), rng=random.Random(seed), run_scheduler=False, render_workers=0
            )
            try:
                await fake.connect(bot)
                for index in range(matches):
                    alice = fake.add_user(f"alice{index}")
                    bob = fake.add_user(f"bob{index}")
                    played = await play_match(fake, alice, bob, rng, max_interactions, game, options)
                    turns += [replace(t, match=index) for t in played]
                fake.assert_clean()
            finally:
                # aiosqlite's thread would keep the process alive after an error
                await bot.close()
                await store.close()
    moved = [t for t in turns if t.moved]
    report: dict[str, Any] = {
        "game": game,
        "options": options or {},
        "matches": matches,
        "seed": seed,
        **figures(turns),
        "move_turns": figures(moved),
    }
    if game == "backgammon":
        # Four checkers moved by picks (no forced remainder): a double played out by hand.
        report["move_turns_doubles"] = figures([t for t in moved if t.moves > 2])
        report["move_turns_other"] = figures([t for t in moved if t.moves <= 2])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--game", default="ring", choices=("ring", "backgammon", "space"), help="the game (ring)"
    )
    parser.add_argument("--length", type=int, default=None, help="match length, for backgammon")
    parser.add_argument("--matches", type=int, default=20, help="matches to play (20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice and the picks (1)")
    parser.add_argument(
        "--max-interactions", type=int, default=3000, help="give up on a match after this many (3000)"
    )
    parser.add_argument(
        "--windows",
        default="pass",
        choices=("pass", "random"),
        help="space: the other player lets response windows pass, or answers them at random (pass)",
    )
    args = parser.parse_args()
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    options: dict[str, object] = {"length": args.length} if args.length else {}
    if args.game == "space":
        report = asyncio.run(run_space(args.matches, args.seed, args.max_interactions, args.windows))
    else:
        report = asyncio.run(run(args.matches, args.seed, args.max_interactions, args.game, options))
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()

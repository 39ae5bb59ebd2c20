"""The black-box stage's own parts (``fakediscord.blackbox``), and the stage itself against this checkout."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord.ext import commands

from cogs.control_kinds import DYNAMIC_ITEMS
from fakediscord import FakeDiscord
from fakediscord.blackbox import Ledger
from fakediscord.blackbox.driver import (
    EARLIER_PER_MATCH,
    NOWHERE_IN_A_ROW,
    Clicker,
    Stuck,
    Table,
    late_answers,
    match_of,
)
from fakediscord.blackbox.kinds import Kinds
from fakediscord.blackbox.processes import BotProcess, alive, children, trouble
from fakediscord.patience import patient

REPO = Path(__file__).resolve().parents[2]

PLAIN_LOG = """\
[2026-01-02 10:00:00] [INFO    ] app.client: synced 13 slash commands
[2026-01-02 10:00:01] [WARNING ] bot.publisher: could not post; retrying
[2026-01-02 10:00:02] [ERROR   ] discord.ui.view: Ignoring exception in dynamic item callback
Traceback (most recent call last):
  File "cogs/help.py", line 262, in callback
AssertionError: the Help cog handles the rules pages
[2026-01-02 10:00:03] [INFO    ] discord.gateway: connected
"""
# What discord.py writes in a container (it takes one for a colour terminal), even to a file.
COLOUR_LOG = (
    "\x1b[30;1m2026-01-02 10:00:00\x1b[0m \x1b[34;1mINFO    \x1b[0m \x1b[35mapp.client\x1b[0m synced\n"
    "\x1b[30;1m2026-01-02 10:00:01\x1b[0m \x1b[33;1mWARNING \x1b[0m \x1b[35mbot.analyses\x1b[0m failed once\n"
    "Traceback (most recent call last):\n"
    '  File "engine/ai/backgammon_analysis.py", line 294, in _played_result\n'
    "IndexError: list index out of range\n"
    "\x1b[30;1m2026-01-02 10:00:02\x1b[0m \x1b[31mCRITICAL\x1b[0m \x1b[35mbot\x1b[0m the store is gone\n"
    "\x1b[30;1m2026-01-02 10:00:03\x1b[0m \x1b[34;1mINFO    \x1b[0m \x1b[35mbot\x1b[0m SIGTERM received\n"
)


def test_trouble_is_every_error_and_every_traceback_in_either_log_format() -> None:
    [error] = trouble(PLAIN_LOG)
    assert error.startswith("[2026-01-02 10:00:02] [ERROR   ] discord.ui.view: Ignoring exception")
    assert error.endswith("AssertionError: the Help cog handles the rules pages")
    warning, critical = trouble(COLOUR_LOG)
    assert warning.startswith("2026-01-02 10:00:01 WARNING  bot.analyses failed once\nTraceback")
    assert warning.endswith("IndexError: list index out of range") and "\x1b" not in warning
    assert critical == "2026-01-02 10:00:02 CRITICAL bot the store is gone"
    assert trouble("[2026-01-02 10:00:00] [INFO    ] app.client: synced\n") == []


def test_children_and_alive_read_the_process_table() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time; c = subprocess.Popen(['sleep', '60']); "
         "print(c.pid, flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert children(parent.pid) == {child} and alive(child)
        assert children(child) == set()
    finally:
        parent.kill()
        parent.wait()
        os.kill(child, 9)
    assert not alive(parent.pid)


def _parent_with_a_child(child: str) -> str:
    """A process standing in for the bot: it starts one worker running ``child`` (given the parent's
    pid) and waits. The worker does not share the pipe "ready" is read from: asyncio's ``wait()`` waits
    for every end of it to close."""
    return textwrap.dedent(f"""
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", {child!r}, str(os.getpid())], stdout=subprocess.DEVNULL)
        print("ready", flush=True)
        time.sleep(60)
    """)


ORPHAN = "import time; time.sleep(60)"
DIES_WITH_PARENT = "import os, sys, time\nwhile os.getppid() == int(sys.argv[1]): time.sleep(0.05)"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.parametrize(("child", "left_behind"), [(ORPHAN, True), (DIES_WITH_PARENT, False)])
@pytest.mark.asyncio
async def test_a_killed_bot_is_watched_for_workers_left_behind(
    tmp_path: Path, child: str, left_behind: bool
) -> None:
    run = BotProcess(REPO, tmp_path, "http://127.0.0.1:1", {}, tmp_path / "bot.log", "test")
    run.proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _parent_with_a_child(child), stdout=asyncio.subprocess.PIPE
    )
    assert run.proc.stdout is not None
    await run.proc.stdout.readline()
    while not run.note_workers():  # the worker is forked just before "ready": wait to see it
        await asyncio.sleep(0.01)
    [worker] = run.workers
    left, _ = await run.kill()
    try:
        assert left == ([worker] if left_behind else [])
    finally:
        if alive(worker):
            os.kill(worker, 9)


def test_the_kinds_are_those_the_bot_registers_in_the_order_discord_py_tries_them() -> None:
    kinds = Kinds.of(REPO)
    assert Path(kinds.source) == REPO
    assert set(kinds.names) == {c.__qualname__ for c in DYNAMIC_ITEMS}
    assert kinds.of_id("g:12:3:roll") == ["GameButton"]
    assert kinds.of_id("rules:ring") == ["OpenRulesButton"] and kinds.of_id("rules:ring:2") == ["RulesButton"]
    assert kinds.of_id("g:99999999999999999999:1:roll") == ["MalformedControl"]
    assert kinds.of_id("counter:1") == []


# -- clicks that are answered, and one that is not ------------------------------------------------


class Control(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?P<word>answers|silent|quiet):(?P<n>\d+)"
):
    """``answers:<n>`` answers privately with ``answers:<n+1>``; ``silent:<n>`` answers nothing;
    ``quiet:<n>`` acknowledges the click and says nothing."""

    def __init__(self, word: str, n: int) -> None:
        super().__init__(discord.ui.Button(label=word, custom_id=f"{word}:{n}"))
        self.word, self.n = word, n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any
    ) -> Control:
        return cls(match["word"], int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.word == "silent":
            return  # a member sees "This interaction failed"
        if self.word == "quiet":
            await interaction.response.defer()  # a member sees nothing happen
            return
        view = discord.ui.View(timeout=None)
        view.add_item(Control("answers", self.n + 1))  # a private control
        await interaction.response.send_message("Not yours.", view=view, ephemeral=True)


class TwoControls(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())

        @self.tree.command(description="A board")
        async def board(interaction: discord.Interaction[Any]) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Control("answers", 1))
            view.add_item(Control("silent", 1))
            await interaction.response.send_message("The board", view=view)

        @self.tree.command(description="Help")
        async def help(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("Some help", ephemeral=True)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Control)
        await self.tree.sync()


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[TwoControls]:
    fake.timeout = 0.5  # how long the unanswered click is waited for
    b = TwoControls()
    await fake.connect(b)
    try:
        yield b
    finally:
        await b.close()


KINDS = Kinds.from_json(
    {
        "source": "test",
        "kinds": [
            {"name": "Answers", "template": r"answers:(?P<n>\d+)"},
            {"name": "Silent", "template": r"silent:(?P<n>\d+)"},
            {"name": "Never", "template": r"never:(?P<n>\d+)"},
            {"name": "AlsoAnswers", "template": r"answers:1"},
        ],
    }
)


@pytest.mark.asyncio
async def test_a_click_nobody_answers_is_a_failure_and_coverage_counts_kinds_and_roles(
    fake: FakeDiscord, bot: TwoControls
) -> None:
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    ledger = Ledger()
    clicker = Clicker(fake, KINDS, ledger)
    board = (await fake.slash(alice, "board")).message
    assert board is not None
    answered = await clicker.press(alice, "player", board, "answers:1")
    reply = answered.private if answered is not None else None
    assert reply is not None and reply.content == "Not yours."
    # Someone else's private message: sent from one they see (their own /help), as a modified client can.
    copied = await clicker.press(bob, "opponent", reply, "answers:2")
    assert copied is not None and copied.payload["message"]["content"] == "Some help"
    assert await clicker.press(carol, "stranger", board, "silent:1") is None
    assert [(c.kind, c.role, c.answered) for c in ledger.clicks] == [
        ("Answers", "player", True),
        ("Answers", "opponent", True),
        ("Silent", "stranger", False),
    ]
    assert len(ledger.failures) == 2  # two kinds take "answers:1" (discord.py would run both); one silence
    assert (
        "'answers:1' is taken by several registered kinds: ['Answers', 'AlsoAnswers']"
        in ledger.failures[0][1]
    )
    assert "Silent 'silent:1' used by carol (stranger) got no answer" in ledger.failures[-1][1]
    ledger.failures.clear()
    ledger.check_coverage(KINDS.names)
    assert [f for _, f in ledger.failures] == [
        "Answers: never clicked as stranger",
        "Silent: never clicked as player, opponent",
        "Never: a registered kind of control that was never clicked",
        "AlsoAnswers: a registered kind of control that was never clicked",
    ]
    assert "FAILED: 4 problem(s)" in ledger.summary(KINDS.names)


@pytest.mark.asyncio
async def test_a_forged_control_needs_an_answer_the_member_sees_and_every_answer_is_timed(
    fake: FakeDiscord, bot: TwoControls
) -> None:
    """Issue 33: a forged control the interaction's message does not carry (which discord.py leaves
    unanswered) and one only acknowledged silently are failures; an interaction answered never (or
    after Discord's 3 s) is counted by ``late_answers``."""
    alice = fake.add_user("alice")
    ledger = Ledger()
    clicker = Clicker(fake, KINDS, ledger)
    clicker.seen_timeout = 0.5
    board = (await fake.slash(alice, "board")).message
    assert board is not None
    on = await clicker.press_forged(alice, "player", board, button("answers:5"), None, on_message=True)
    assert on is not None and on.private is not None and ledger.failures == []
    off = await clicker.press_forged(alice, "player", board, button("answers:5"), None, on_message=False)
    assert off is None
    quiet = await clicker.press_forged(alice, "player", board, button("quiet:1"), None, on_message=True)
    assert quiet is not None and quiet.callback_type == 6
    assert [(c.custom_id, c.how, c.answered) for c in ledger.clicks] == [
        ("answers:5", "forged", True),
        ("answers:5", "forged off the message", False),
        ("quiet:1", "forged", False),
    ]
    first, second = (f for _, f in ledger.failures)
    assert "'answers:5' used by alice (player, forged off the message) got no answer" in first
    assert "'quiet:1' used by alice (player, forged) was only acknowledged" in second
    late, slowest = late_answers(fake)
    assert [(i.custom_id, took) for i, took in late] == [("answers:5", None)]
    assert 0 < slowest < 3


def button(custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": 2, "label": "?", "custom_id": custom_id}


# -- a match whose every decision is refused --------------------------------------------------------


class Refused(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"g:(?P<match>\d+):(?P<version>\d+):a:on"
):
    """A board's game control that the bot always refuses privately (a match that stopped going on)."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Move on", custom_id="g:1:1:a:on"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any
    ) -> Refused:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("That control is out of date.", ephemeral=True)


class StuckBoard(commands.Bot):
    def __init__(self, player: int) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())

        @self.tree.command(description="A board")
        async def board(interaction: discord.Interaction[Any]) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Refused())
            await interaction.response.send_message(f"<@{player}>, your turn: move on.", view=view)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Refused)
        await self.tree.sync()


@pytest.mark.asyncio
async def test_a_match_whose_decisions_are_refused_again_and_again_is_stuck(fake: FakeDiscord) -> None:
    alice, bob, carol, ringside = (fake.add_user(n) for n in ("alice", "bob", "carol", "ringside"))
    b = StuckBoard(alice.id)
    await fake.connect(b)
    try:
        ledger = Ledger()
        kinds = Kinds.from_json(
            {"source": "test", "kinds": [{"name": "Refused", "template": r"g:\d+:\d+:a:on"}]}
        )
        clicker = Clicker(fake, kinds, ledger)
        board = (await fake.slash(alice, "board")).message
        assert board is not None
        table = Table(fake, clicker, "ring", board.channel_id, 1, (alice, bob), ringside, carol)
        with pytest.raises(Stuck):
            for _ in range(NOWHERE_IN_A_ROW + 1):
                await table.step(random.Random(1))
        assert table.decisions == table.refused == NOWHERE_IN_A_ROW
        [(_, failure)] = ledger.failures
        assert failure.startswith(
            f"ring match #1: alice's last {NOWHERE_IN_A_ROW} decisions changed nothing; the last, "
            f"'g:1:1:a:on'  on '<@{alice.id}>, your turn: move on.', answered 'That control is out of date.'; "
            "the latest messages there:\n"
        )
        assert failure.count("to alice, 0 edits: 'That control is out of date.'") == NOWHERE_IN_A_ROW
    finally:
        await b.close()


@pytest.mark.slow  # a minute or more: the real process, every game, a kill and a restart
@pytest.mark.sqlite_only("the black box runs the real process on a SQLite file of its own")
@pytest.mark.skipif(
    os.environ.get("RINGSIDE_BLACKBOX_STAGE") == "1",
    reason="CI runs the black box as a stage of its own right after the tests (.ci/run): once is enough",
)
def test_the_black_box_stage_passes_on_this_checkout(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fakediscord.blackbox", "--keep", str(tmp_path / "run")],
        cwd=REPO, capture_output=True, text=True, timeout=patient(1800), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "black box passed" in done.stdout


# -- old controls used before a decision, against the real bot in process ---------------------------


@pytest.mark.asyncio
@pytest.mark.sqlite_only("the black box's driver reads the bot's SQLite file to pace the players")
@pytest.mark.parametrize("game", ["ring", "backgammon"])
async def test_a_player_who_first_uses_an_old_control_of_the_board_plays_on(
    fake: FakeDiscord, tmp_path: Path, game: str
) -> None:
    """``Table.earlier``: an old control of a board edited in place, used before deciding on the board,
    is answered privately and the match goes on. Not during a turn in progress: the "carry on here"
    panel it gets leaves the panel it replaces with controls nobody updates, which the driver took up
    at the next turn and was refused on until the match was called stuck (the black box's run on this
    change, backgammon against the computer; issue 33)."""
    from tests.support import start_bot, stop_bot

    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    try:
        kinds = Kinds.from_json(
            {
                "source": "test",
                "kinds": [
                    {"name": k.__qualname__, "template": k.__discord_ui_compiled_template__.pattern}
                    for k in DYNAMIC_ITEMS
                ],
            }
        )
        ledger = Ledger()
        clicker = Clicker(fake, kinds, ledger)
        alice, carol = fake.add_user("alice"), fake.add_user("carol")
        options = {"length": 1} if game == "backgammon" else {}
        made = await fake.slash(
            alice, "challenge", {"opponent": fake.bot_user, "game": game, **options}, idle=True
        )
        assert made.message is not None
        thread = fake.thread_of(made.message)
        place = thread.id if thread is not None else int(made.message.content.split("<#")[1].split(">")[0])
        await fake.wait_for(lambda: any(match_of(m) for m in fake.messages_in(place)), 10, "the board")
        match_id = next(m for m in map(match_of, fake.messages_in(place)) if m)
        table = Table(
            fake, clicker, game, place, match_id, (alice, fake.bot_user), fake.bot_user, carol,
            tmp_path / "db.sqlite3",
        )  # fmt: skip
        await table.play(random.Random(3), 24)
        assert table.earlier_used == EARLIER_PER_MATCH
        assert ledger.failures == []
        assert any(c.how == "earlier" for c in ledger.clicks)
    finally:
        await stop_bot(bot)

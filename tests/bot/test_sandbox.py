"""The sandbox (``python -m sandbox``): scripts through its API, transcripts, pictures, errors.

The example script depends on the dice of ``--seed 1`` and on the bot's texts: when either changes,
update ``docs/sandbox-example.txt``, the transcript in ``docs/sandbox.md`` and the lines expected here.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from PIL import Image

from fakediscord import World
from sandbox import CommandError, Sandbox, parse_duration
from sandbox.text import embed_lines, render_mentions

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "sandbox-example.txt"


@asynccontextmanager
async def sandbox_at(tmp_path: Path, seed: int = 1) -> AsyncIterator[tuple[Sandbox, list[str]]]:
    lines: list[str] = []
    async with Sandbox.open(seed=seed, pictures=tmp_path / "pictures", out=lines.append) as sandbox:
        yield sandbox, lines


async def run(tmp_path: Path, script: Sequence[str], **kwargs: bool) -> tuple[int, list[str], Sandbox]:
    async with sandbox_at(tmp_path) as (sandbox, lines):
        failed = await sandbox.run_lines(script, **kwargs)
    return failed, lines, sandbox


def after(lines: list[str], command: str) -> list[str]:
    """The printed lines of one command of a transcript (up to the next prompt or echoed comment)."""
    start = lines.index(f"sandbox> {command}") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(("sandbox> ", "# "))), len(lines))
    return lines[start:end]


def assert_pngs(paths: Sequence[Path]) -> None:
    for path in paths:
        assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), path
        with Image.open(path) as picture:
            picture.verify()


def contains(lines: list[str], wanted: str) -> bool:
    return any(wanted in line for line in lines)


@pytest.mark.asyncio
async def test_the_documented_example_runs_green_and_saves_numbered_pictures(tmp_path: Path) -> None:
    failed, lines, sandbox = await run(tmp_path, EXAMPLE.read_text(encoding="utf-8").splitlines())
    transcript = "\n".join(lines)
    assert failed == 0, transcript
    pictures = tmp_path / "pictures"

    challenge = after(lines, "as alice /challenge opponent:@bob game:ring")
    assert challenge[:3] == ["(new user: alice)", "(new user: bob)", "[#general] ringside:"]
    assert "  @bob, @alice challenges you to **Ring**! Accept within 10 minutes." in challenge
    assert "  [Accept] [Decline] [Cancel]" in challenge

    accept = after(lines, "as bob click Accept")
    assert accept[0] == "[#general] ringside (edited):"
    assert "  [~Accept~] [~Decline~] [~Cancel~]" in accept
    assert "[#general › Ring: Alice vs Bob] ringside:" in accept
    assert "  ┌ Ring · match #1" in accept and "  │ @alice (Red) vs @bob (Blue)" in accept
    assert f"  picture: {pictures / '0001-board.png'}" in accept
    assert "  [🎲 Roll]" in accept
    assert accept[-1].startswith("(the bot opened a thread: now in #general › Ring: Alice vs Bob")

    roll = after(lines, "as bob click Roll")
    assert "[#general › Ring: Alice vs Bob] ringside (edited):" in roll
    # Every whole step is one button, a stack a row: one click per die.
    assert "  [1 token 8 → 9 (1), captures 1] [1 token 8 → 11 (3), captures 1]" in roll
    assert "  [1 token 12 → 1 (1)] [1 token 12 → 3 (3)]" in roll
    # The first step goes to Bob's private panel (Alice sees nothing yet), with Undo.
    taken_back = after(lines, 'as bob click "8 → 11 (3)"')
    assert taken_back[0] == "[#general › Ring: Alice vs Bob] ringside (only bob sees this):"
    assert contains(taken_back, "1. Blue moved 1 token from 8 to 11, capturing 1.")
    assert "  [↩️ Undo]" in taken_back
    undone = after(lines, "as bob click Undo")
    assert contains(undone, "Every step is taken back.")
    assert "  [1 token 8 → 9 (1), captures 1] [1 token 8 → 11 (3), captures 1]" in undone
    first_die = after(lines, 'as bob click "8 → 9 (1)"')
    assert contains(first_die, "1. Blue moved 1 token from 8 to 9, capturing 1.")
    assert "  [1 token 10 → 1 (3)]" in first_die
    end_of_turn = after(lines, 'as bob click "10 → 1 (3)"')
    assert contains(end_of_turn, "@alice, your turn (Red).")
    # The board that hands the turn over says the whole turn, and never the step taken back.
    handover = end_of_turn[end_of_turn.index("  @alice, your turn (Red).") :]
    assert contains(handover, "Blue moved 1 token from 8 to 9, capturing 1.")
    assert contains(handover, "Blue moved 1 token from 10 to 1.")
    assert not contains(handover, "from 8 to 11")

    knock = after(lines, 'as bob select "Knock out which" "stack on 7"')
    assert "  ▾ ~Knock out which of Red's stacks?~ (disabled)" in knock
    assert contains(knock, "Blue knocked Red's 1 token on 7 out of play.")
    board = after(lines, "as alice /board")
    assert board[:2] == [
        "[#general › Ring: Alice vs Bob] ringside (edited: the controls):",
        "  (no controls any more)",
    ]
    assert contains(board, "The board, as it stands:")
    resigned = after(lines, "as alice click Resign")
    assert contains(resigned, "🏆 @bob wins: Red resigned.")
    assert contains(resigned, "[🔁 Rematch]")

    assert after(lines, "in #general") == ["(now in #general)"]
    assert contains(after(lines, "as carol /challenge opponent:@alice game:ring rated:false"), "(unrated)")
    expired = after(lines, "wait 11m")
    # Eleven minutes also run out the Rematch of the resigned match: its button is greyed out too.
    at = expired.index("[#general] ringside (edited):")
    assert expired[at : at + 3] == [
        "[#general] ringside (edited):",
        "  @carol's challenge to @alice expired unanswered.",
        "  [~Accept~] [~Decline~] [~Cancel~]",
    ]
    greyed = expired.index("  [~🔁 Rematch~]")
    assert expired[greyed + 1] == "  [📖 Rules]"  # the rules stay at hand
    assert expired[-1].startswith("(the clock moved 11m:")

    names = sorted(p.name for p in pictures.iterdir())
    # Numbered in order: the public boards and Bob's private pictures of his turn in progress.
    assert [n[:4] for n in names] == [f"{n:04d}" for n in range(1, len(names) + 1)] and len(names) >= 8
    assert {n[5:] for n in names} == {"board.png", "turn.png"}
    assert [p.name for p in sandbox.saved] == names
    assert_pngs(sandbox.saved)
    # Comments and blank lines are echoed as they are, commands after the prompt.
    assert lines[0].startswith("# A short sandbox session")


@pytest.mark.asyncio
async def test_mistakes_print_one_line_each_and_nothing_crashes(tmp_path: Path) -> None:
    script = [
        "as alice /challenge opponent:@bob",
        "dance",
        "/board",
        "as alice",
        "as alice sing",
        "as al!ce /board",
        "as ringside /board",
        "as bob click Nope",
        "as bob select Nope",
        "as alice /nothing",
        "as alice /challenge",
        "as alice /challenge opponent:@bob colour:red",
        "as alice /challenge opponent:@bob rated:maybe",
        "wait soon",
        "in #nowhere",
        "show lots",
        "as bob click Accept",
        "as bob click Accept",
    ]
    failed, lines, _ = await run(tmp_path, script, keep_going=True)
    assert failed == 16
    errors = {command: after(lines, command) for command in script[1:-2]}
    for command, printed in errors.items():
        assert len(printed) == 1 and printed[0].startswith("error: "), (command, printed)
    assert errors["as bob click Nope"] == [
        "error: no button 'Nope' that bob can see; the latest controls bob can see (#general): "
        "[Accept] [Decline] [Cancel]"
    ]
    assert errors["as alice /nothing"][0].startswith(
        "error: the bot has no command /nothing; it has /about, /analyse, /board,"
    )
    assert errors["as alice /challenge"] == ["error: /challenge needs opponent (e.g. /challenge opponent:…)"]
    assert "has no option 'colour'" in errors["as alice /challenge opponent:@bob colour:red"][0]
    assert errors["/board"] == ["error: who runs it? write: as alice /board"]
    assert errors["as ringside /board"] == ["error: ringside is the bot under test; act as a person"]
    # The first Accept starts the match; the second finds only disabled buttons.
    assert after(lines, "as bob click Accept")[0] == "[#general] ringside (edited):"
    assert lines[-1] == "error: [~Accept~] is disabled on the latest message that shows it (in #general)"


@pytest.mark.asyncio
async def test_a_script_stops_at_the_first_failure_unless_told_to_go_on(tmp_path: Path) -> None:
    failed, lines, _ = await run(tmp_path, ["users", "as bob click Accept", "users"])
    assert failed == 1
    assert lines[-1] == "(stopped: line 2 failed)" and lines.count("sandbox> users") == 1
    failed, lines, _ = await run(tmp_path, ["quit", "users"])
    assert failed == 0 and lines == ["sandbox> quit"]


@pytest.mark.asyncio
async def test_ephemeral_replies_ambiguity_and_other_users_clicks(tmp_path: Path) -> None:
    async with sandbox_at(tmp_path) as (sandbox, lines):
        ok = await sandbox.run_lines(
            ["as alice /challenge opponent:@bob", "as bob click Accept", "as bob click Roll"]
        )
        assert ok == 0
        lines.clear()
        # Carol is no player: her /board answer is only for her.
        assert await sandbox.execute("as carol /board")
        assert lines[-2:] == [
            "[#general › Ring: Alice vs Bob] ringside (only carol sees this):",
            "  You have no match in progress here. Start one with /challenge.",
        ]
        # Alice is not on turn: the bot tells her privately; the sandbox itself does not refuse.
        lines.clear()
        assert await sandbox.execute('as alice click "8 → 9 (1)"')
        assert lines[0] == "[#general › Ring: Alice vs Bob] ringside (only alice sees this):"
        # "(1)" is part of three step buttons: the sandbox asks which.
        lines.clear()
        assert not await sandbox.execute('as bob click "(1)"')
        assert len(lines) == 1 and lines[0].startswith(
            "error: '(1)' could be any of [1 token 8 → 9 (1), captures 1] (g:1:"
        )
        assert lines[0].endswith("; say which (label or custom id)")
        # ...and a custom id names one exactly.
        board = [m for m in sandbox.fake.messages_in(sandbox.channel) if m.buttons][-1]
        step = next(b for b in board.buttons if str(b.label).startswith("1 token 8 → 11 (3)"))
        lines.clear()
        assert await sandbox.execute(f"as bob click {step.custom_id}")
        assert contains(lines, "Blue moved 1 token from 8 to 11, capturing 1")
        assert await sandbox.run_lines(['as bob click "10 → 11 (1)"', "as alice click Roll"]) == 0
        # Bob rolls evens: "stack on" is part of every option of the knock select...
        assert await sandbox.execute("as bob click Roll")
        lines.clear()
        assert not await sandbox.execute('as bob select "stack on"')
        assert lines[0].startswith("error: 'stack on' could be any of:") and "Red's stack on 7" in lines[0]
        # ...while a number picks the option with that number, whatever the labels contain.
        lines.clear()
        assert await sandbox.execute("as bob select 2")
        assert contains(lines, "Blue knocked Red's 1 token on 7 out of play.")


@pytest.mark.asyncio
async def test_where_in_show_users_and_the_computer_after_a_restart(tmp_path: Path) -> None:
    async with sandbox_at(tmp_path) as (sandbox, lines):
        assert await sandbox.run_lines(["as alice /challenge @bob rated:no", "as bob click accept"]) == 0
        lines.clear()
        await sandbox.execute("where")
        assert lines == [
            "You are in #general › Ring: Alice vs Bob.",
            "  1. #general",
            "  2. #general › Ring: Alice vs Bob   ← here",
        ]
        for command, landed in [("in 1", "#general"), ("in alice vs", "#general › Ring: Alice vs Bob")]:
            lines.clear()
            assert await sandbox.execute(command)
            assert lines == [f"(now in {landed})"]
        lines.clear()
        assert await sandbox.execute("show 1")
        assert lines[0] == "[#general › Ring: Alice vs Bob] ringside:" and "  [🎲 Roll]" in lines
        lines.clear()
        assert await sandbox.execute("users")
        assert lines == [
            "  @ringside  (the bot: challenge it to play the computer)",
            "  @owner  (owns the server)",
            "  @alice",
            "  @bob",
        ]
        assert await sandbox.execute("in #general")
        assert await sandbox.execute("restart")
        lines.clear()
        assert await sandbox.execute("as dave /challenge opponent:@ringside game:ring")
        assert lines[:2] == ["(new user: dave)", "[#general] ringside:"]
        assert contains(lines, "Ring against the computer (level medium): good luck!")
        # The computer match opens its own thread, its board there with the match's Resign.
        assert contains(lines, "The match is on in #general › Ring: Dave vs the computer")
        assert contains(lines, "[🏳️ Resign]") and (contains(lines, "[🎲 Roll]") or contains(lines, "▾ "))


@pytest.mark.asyncio
async def test_picture_numbers_go_on_after_the_files_already_there(tmp_path: Path) -> None:
    folder = tmp_path / "pictures"
    folder.mkdir()
    (folder / "0041-board.png").write_bytes(b"older")
    failed, _, sandbox = await run(tmp_path, ["as alice /challenge opponent:@ringside"])
    assert failed == 0
    assert [p.name for p in sandbox.saved] == ["0042-board.png"]
    assert (folder / "0041-board.png").read_bytes() == b"older"
    assert_pngs(sandbox.saved)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30),
        ("10m", 600),
        ("49h", 49 * 3600),
        ("2d", 172800),
        ("1h30m", 5400),
        ("90", 90),
        ("1.5h", 5400),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "10x", "m10", "10m soon"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(CommandError):
        parse_duration(text)


def test_mentions_links_and_embed_fields_read_as_text() -> None:
    world = World()
    alice = world.add_user("alice", guild=world.default_guild)
    channel = world.channels[world.default_guild.channel_ids[0]]
    text = (
        f"<@{alice.id}> see <#{channel.id}>: https://discord.com/channels/{channel.guild_id}/{channel.id}/123"
    )
    assert render_mentions(text, world) == "@alice see #general: <link to a message in #general>"
    embed = {
        "title": "T",
        "fields": [{"name": "How", "value": f"1. <@!{alice.id}>\n2. two"}],
        "footer": {"text": "f"},
    }
    assert embed_lines(embed, world) == ["┌ T", "│ How: 1. @alice", "│   2. two", "└ f"]


def _subprocess_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE", "DEV_GUILD_ID")}
    env["PYTHONPATH"] = str(REPO)
    return env


def test_python_m_sandbox_runs_the_example(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox", "--script", str(EXAMPLE), "--seed", "1"],
        cwd=tmp_path,
        env=_subprocess_env(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  @carol's challenge to @alice expired unanswered." in done.stdout
    assert "  picture: sandbox-pictures/0001-board.png" in done.stdout
    saved = sorted((tmp_path / "sandbox-pictures").iterdir())
    assert len(saved) >= 8
    assert_pngs(saved)


NEWCOMER = [
    "as alice /challenge opponent:@ringside game:backgammon",
    "as alice /resign",
    "as alice click Resign",
]
"""A newcomer's first match, lost at once: its analysis is computed in the background afterwards."""


class _Session:
    """``python -m sandbox`` as a real process, typed to at a terminal (a pseudo-terminal) or
    through a pipe, its output read as it comes."""

    def __init__(self, tmp_path: Path, *, terminal: bool) -> None:
        command = [sys.executable, "-m", "sandbox", "--seed", "3"]
        self.output = b""
        if terminal:
            self.fd, child = pty.openpty()
            self.proc = subprocess.Popen(
                command, stdin=child, stdout=child, stderr=child, cwd=tmp_path, env=_subprocess_env()
            )
            os.close(child)
            self.send = lambda text: os.write(self.fd, text.encode())
            self.newline = "\r"
        else:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=tmp_path,
                env=_subprocess_env(),
            )
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.fd = self.proc.stdout.fileno()
            pipe = self.proc.stdin

            def send(text: str) -> int:
                written = pipe.write(text.encode())
                pipe.flush()
                return written

            self.send = send
            self.newline = "\n"

    def type(self, line: str) -> None:
        self.send(line + self.newline)

    def expect(self, wanted: str, timeout: float = 60.0) -> str:
        """Read the output until it shows ``wanted`` (AssertionError after ``timeout`` without it)."""
        deadline = time.monotonic() + timeout
        while wanted.encode() not in self.output:
            left = deadline - time.monotonic()
            assert left > 0, f"{wanted!r} never came; the output:\n{self.output.decode(errors='replace')}"
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the terminal's other end closed: the process ended
                    chunk = b""
                assert chunk or wanted.encode() in self.output, (
                    f"the sandbox ended before {wanted!r}:\n{self.output.decode(errors='replace')}"
                )
                self.output += chunk
        return self.output.decode(errors="replace")

    def close(self) -> None:
        """Stop the process if it still runs, and let go of its terminal or pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        else:
            with contextlib.suppress(OSError):
                os.close(self.fd)


@pytest.mark.parametrize("terminal", [True, False], ids=["at-a-terminal", "piped"])
def test_what_the_bot_does_by_itself_shows_while_the_prompt_waits(tmp_path: Path, terminal: bool) -> None:
    """The analysis after a newcomer's match is computed and posted while the sandbox waits for the
    next line, and printed as it comes (at a terminal above the prompt, which is shown again with
    what was typed so far): nothing more is typed until it is there."""
    session = _Session(tmp_path, terminal=terminal)
    try:
        if terminal:
            session.expect("sandbox> ")
        for line in NEWCOMER:
            session.type(line)
        session.expect("Analysis: being computed…")
        session.expect("📊 **Analysis of match #1** (Backgammon)")
        if terminal:
            # Printed above the prompt, which is shown again after it.
            session.expect("  picture: sandbox-pictures/0004-analysis-1.png\r\nsandbox> ")
            # A line typed in two goes is read whole (the reading thread keeps it).
            session.send("as al")
            session.expect("as al")
            session.type("ice /stats")
        else:
            session.expect("  picture: sandbox-pictures/0004-analysis-1.png\n")
            session.type("as alice /stats")
        session.expect("@alice has no rated matches in this server yet.")
        session.type("quit")
        assert session.proc.wait(30) == 0
    finally:
        session.close()


@pytest.mark.asyncio
async def test_several_options_of_one_select_are_chosen_with_plus(tmp_path: Path) -> None:
    """Space asks for two discards in one select: the sandbox picks both at once, as a member would."""
    from engine.space import cards as C
    from engine.space.game import Phase
    from tests.databases import sql
    from tests.engine.space_helpers import make_state

    db = tmp_path / "sandbox.sqlite3"
    lines: list[str] = []
    async with Sandbox.open(database=db, seed=1, pictures=tmp_path / "pictures", out=lines.append) as sandbox:
        assert await sandbox.run_lines(["as alice /challenge @bob game:space", "as bob click accept"]) == 0
        hand = (C.NOVA_BOMB, C.NOVA_BOMB, C.JAM_TRANSMISSION, C.ESPIONAGE, C.PLASMA_GENERATOR, C.HYPER_JUMP,
                C.SURPRISE_ATTACK, C.REINFORCEMENTS)  # fmt: skip
        state = make_state({"T1": 3, "E1": 20}, home=["E2", "T2"], phase=Phase.DISCARD, hands=(hand, ()))
        (record,) = await sandbox.bot.store.matches.active()
        sql(db, "UPDATE matches SET state = ? WHERE id = ?", (state.canonical(), record.id))
        script = [
            "restart",
            'as alice click "My hand"',
            'as alice select "Discard 2 cards" "Nova Bomb (copy 2)" + "Jam Transmission"',
        ]
        assert await sandbox.run_lines(script) == 0, "\n".join(lines[-30:])
        told = after(lines, script[-1])
        assert contains(told, "Evil Empire discarded Nova Bomb.")
        assert contains(told, "Evil Empire discarded Jam Transmission.")
        assert await sandbox.execute('as alice select "Discard 2 cards" "Hyper Jump" + "Espionage"') is False

"""The black-box run: the real bot process on a fresh database, played and clicked as members would,
killed with SIGKILL in the middle of a match, started again on the same database, and stopped with
SIGTERM; every failure goes to the ledger.

Stages, in order (each a method; a stage that finds its match stuck records why, and the run goes on):

1. challenges: Accept, Decline and Cancel, each tried by those it is not for first;
2. ring between two members: the first board's controls tried by the opponent and a stranger,
   **Rules** by everyone, Resign's confirmation tried by everyone, turns, and a SIGKILL as soon as a
   click is answered (its action being saved and shown); the workers must end by themselves;
3. the bot started again on the same database: that ring match to its end (its player on turn resigns
   after 200 decisions: random play can wander), a stale control, Rematch;
4. ring against the computer, to the end;
5. backgammon (a 1-point match) between two members: turns with Undo, a private panel tried by the
   others, then Resign wherever the match stands;
6. backgammon against the computer, to the end, with /hint and a roll typed with /move;
7. space against the computer: turns through **My hand**, then Resign;
8. space between two members: **Always pass in this match** and **Ask me in windows** in a response
   window, more turns, then /resign;
9. two matches in one channel without threads: the match pickers of /board and /resign;
9b. backgammon for money between two members: **Play this** under a /hint, **Stop after this game**,
   the game to its end, then **Review** under its analysis and a page turned;
9c. a tournament: created by an organiser (a member with Manage Server) before the kill, Join / Leave /
   Start tried by a stranger, an entrant and the organiser; after the restart its one match decided
   by the organiser's result, the champion named on the announcement the killed process posted;
10. custom ids of the bot's kinds that none of its templates accept;
10b. forged controls of every kind (``forged.py``) sent from a live board by its players and a
    stranger, the interaction's copy of the board carrying each or not: each answered privately, the
    match and its board unchanged;
10c. controls of earlier versions of every kind of message (boards edited in place, answered
    questions, pages turned), as a client that missed the edits still shows them: each answered in a
    way the member sees;
11. the other commands; what the fake recorded, and every interaction answered within Discord's 3 s;
    SIGTERM; and, after the run, the bot's output and whether every registered kind was used in every
    role.

Every kind of control met for the first time in a match is also tried by the others there
(``Table.step``), so a kind added to the bot is clicked as soon as a board carries it; and the first
times a board was edited in place, its player first uses an old control of it (``Table.earlier``). A
match whose decisions change nothing five times in a row (refused, or nothing saved) has stopped going
on: a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
import traceback
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import discord

from fakediscord.fake import FakeDiscord
from fakediscord.matches import WINDOW
from fakediscord.results import InteractionResult
from fakediscord.server import FakeDiscordServer
from fakediscord.world import FakeMessage, FakeUser

from .driver import ANSWER_LIMIT, SETTLE_TIMEOUT, Clicker, Stuck, Table, late_answers, match_of, version_of
from .forged import forged_controls
from .kinds import Kinds
from .ledger import Ledger
from .processes import ORPHAN_GRACE, BotProcess, alive, trouble
from .tournament import finish_tournament, start_tournament

TOKEN = "black-box-token"
CHANNEL_MENTION = re.compile(r"<#(\d+)>")
#: What differs between two reports of the same error: the time, the ids of discord.py's items.
TIMESTAMP = re.compile(r"^\[?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]?|\bid=\d+")
#: Seconds the bot may take to start, connect and sync its commands.
START_TIMEOUT = 120.0
#: Seconds the fake waits for the answer to one interaction before calling it unanswered.
ANSWER_TIMEOUT = 15.0
#: Turns of the long games before they are ended by a resignation.
SPACE_STEPS = 80
BACKGAMMON_STEPS = 80
RING_STEPS_BEFORE_KILL = 12
#: Decisions a game played to its end may take before the run calls it stuck.
TO_THE_END = 400
#: Decisions of the ring match between two members after the restart before its player on turn resigns
#: (random play: half its games end within about 30 decisions, one in a hundred takes over 200).
RING_TO_THE_END = 200
ANALYSIS_TIMEOUT = 900.0
"""How long the analysis of a finished match may take to be posted (3-ply, one at a time, in a heavy
worker that runs below everything else: on a machine whose cores are busy with other programs it
gets little of them; stretched further by ``fakediscord.patience`` like every wait of the fake)."""
#: Custom ids of the bot's kinds that none of its templates accept: beyond 64 bits, an unknown
#: operation, a page out of range, no match at all.
MADE_UP = (
    "g:99999999999999999999:1:roll",
    "ch:1:explode",
    "rules:ring:99999",
    "pick:dance",
    "hand:",
    "sa:1:2:maybe",
)
#: Controls of earlier versions of messages used per kind in the stage that sweeps them.
EARLIER_PER_KIND = 4


@dataclass
class BlackBox:
    checkout: Path
    workdir: Path
    seed: int = 1
    #: click as soon as the next decision shows, without waiting for the public board to catch up
    impatient: bool = False
    ledger: Ledger = field(default_factory=Ledger)

    @property
    def database(self) -> Path:
        return self.workdir / "ringside.sqlite3"

    def __post_init__(self) -> None:
        self.fake = FakeDiscord(timeout=ANSWER_TIMEOUT, token=TOKEN)
        self.rng = random.Random(self.seed)
        self.alice, self.bob = self.fake.add_user("alice"), self.fake.add_user("bob")
        self.carol, self.dave = self.fake.add_user("carol"), self.fake.add_user("dave")
        organisers = self.fake.add_role("organisers", discord.Permissions(manage_guild=True))
        self.olga = self.fake.add_user("olga", roles=[organisers])
        self.general = self.fake.channel
        self.lobby = self.fake.add_text_channel("no-threads")
        # The bot may not open threads there: matches stay in the channel, several side by side.
        self.fake.set_bot_permissions(self.lobby, deny=discord.Permissions(create_public_threads=True))
        self.runs: list[BotProcess] = []
        self.tables: list[Table] = []
        self.reported: set[str] = set()
        self.kinds = Kinds((), "")
        self.clicker = Clicker(self.fake, self.kinds, self.ledger)

    @property
    def computer(self) -> FakeUser:
        return self.fake.bot_user

    # -- the process ------------------------------------------------------------------------------

    async def start(self, server: FakeDiscordServer) -> BotProcess:
        run = BotProcess(
            checkout=self.checkout,
            workdir=self.workdir,
            api_base=server.base_url,
            env={"DISCORD_TOKEN": TOKEN, "DATABASE": str(self.database)},
            log_path=self.workdir / f"bot-{len(self.runs) + 1}.log",
            name=f"run {len(self.runs) + 1}",
        )
        sessions = len(server.sessions)
        self.runs.append(run)
        await run.start()

        def connected() -> bool:
            return any(s.identify is not None and s.alive() for s in server.sessions[sessions:])

        try:
            await self.fake.wait_for(connected, START_TIMEOUT, "the bot to connect")
        except TimeoutError:
            raise RuntimeError(f"the bot did not connect:\n{run.log()[-3000:]}") from None
        run.note_workers()
        return run

    async def kill(self, run: BotProcess) -> None:
        """SIGKILL, then every worker process of the bot must end by itself."""
        left, took = await run.kill()
        if left:
            self.ledger.fail(
                f"worker processes {left} of the killed bot (pid {run.pid}) still run {ORPHAN_GRACE:g} s later"
            )
        else:
            self.ledger.note(
                f"kill -9 of pid {run.pid}: its {len(run.workers)} worker processes ended {took:.2f} s later"
            )

    async def stop(self, run: BotProcess) -> None:
        """SIGTERM: the bot must exit 0, its workers with it."""
        started = time.perf_counter()
        status = await run.terminate()
        took = time.perf_counter() - started
        if status != 0:
            self.ledger.fail(f"SIGTERM: the bot (pid {run.pid}) exited with {status} after {took:.1f} s")
        else:
            self.ledger.note(f"SIGTERM: exit 0 after {took:.1f} s")
        deadline = time.perf_counter() + ORPHAN_GRACE
        while time.perf_counter() < deadline and any(map(alive, run.workers)):
            await asyncio.sleep(0.05)
        if left := sorted(pid for pid in run.workers if alive(pid)):
            self.ledger.fail(f"worker processes {left} still run after the bot stopped on SIGTERM")

    # -- helpers ----------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def stage(self, name: str) -> AsyncIterator[None]:
        self.ledger.stage = name
        try:
            yield
        except Stuck:
            pass  # recorded; the next stage starts from what is left
        except Exception as exc:  # the bot showed something the driver did not expect: say what
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.ledger.fail(f"the driver could not go on ({where.name}, line {where.lineno}): {exc!r}")

    async def challenge(
        self,
        challenger: FakeUser,
        opponent: FakeUser,
        game: str,
        channel: int | None = None,
        **options: int,
    ) -> FakeMessage:
        made = await self.clicker.command(
            challenger, "challenge", {"opponent": opponent, "game": game, **options}, channel
        )
        if made is None or made.message is None:
            self.ledger.fail(f"/challenge {game} by {challenger.name} posted no challenge")
            raise Stuck
        return made.message

    async def play_the_computer(self, member: FakeUser, game: str, **options: int) -> Table:
        """``member`` challenges the bot itself: the match starts at once."""
        challenge = await self.challenge(member, self.computer, game, **options)
        return await self.table(challenge, game, (member, self.computer))

    async def play_a_member(
        self, challenger: FakeUser, opponent: FakeUser, game: str, **options: int
    ) -> Table:
        challenge = await self.challenge(challenger, opponent, game, **options)
        await self.clicker.press(opponent, "opponent", challenge, self.op(challenge, ":accept"))
        return await self.table(challenge, game, (challenger, opponent))

    def button(self, message: FakeMessage, label: str) -> str:
        found = next((b.custom_id for b in self.fake.message(message).buttons if b.label == label), None)
        if found is None:
            self.ledger.fail(f"no {label!r} on {message.content[:200]!r} ({message.custom_ids})")
            raise Stuck
        return found

    def op(self, message: FakeMessage, suffix: str) -> str:
        """The control of ``message`` whose custom id ends with ``suffix`` (":accept", ":yes")."""
        found = next((c for c in self.fake.message(message).custom_ids if c.endswith(suffix)), None)
        if found is None:
            self.ledger.fail(f"no control …{suffix} on {message.content[:200]!r} ({message.custom_ids})")
            raise Stuck
        return found

    async def table(self, challenge: FakeMessage, game: str, players: tuple[FakeUser, FakeUser]) -> Table:
        """The match started from ``challenge`` (accepted, or against the computer), once its first
        board is shown in its thread."""

        def board() -> FakeMessage | None:
            # A challenge accepted opens the thread on its message; a match against the computer says
            # where it is played.
            thread = self.fake.thread_of(challenge)
            mentioned = CHANNEL_MENTION.search(challenge.content)
            place = thread.id if thread else int(mentioned[1]) if mentioned else None
            found = self.fake.messages_in(place) if place in self.fake.world.channels else []
            return next((m for m in found if match_of(m) is not None), None)

        try:
            await self.fake.wait_for(lambda: board() is not None, SETTLE_TIMEOUT, f"the first {game} board")
        except TimeoutError:
            self.ledger.fail(f"{game}: the first board was never shown ({challenge.content[:200]!r})")
            raise Stuck from None
        first = board()
        assert first is not None
        match_id = match_of(first)
        assert match_id is not None
        table = Table(
            self.fake, self.clicker, game, first.channel_id, match_id, players, self.computer, self.carol,
            None if self.impatient else self.database,
        )  # fmt: skip
        self.tables.append(table)
        return table

    async def rules_for_everyone(self, table: Table) -> None:
        """**Rules** on the board by both players and a stranger, then Next on each one's own page."""
        board = table.board()
        rules = self.button(board, "Rules")
        for role, user in (
            ("player", table.players[0]),
            ("opponent", table.players[1]),
            ("stranger", self.carol),
        ):
            opened = await self.clicker.press(user, role, board, rules)
            if opened is None:
                continue
            page = opened.private
            following = (
                next((b.custom_id for b in page.buttons if b.label == "Next ▶"), None) if page else None
            )
            if page is None or following is None:
                self.ledger.fail(f"Rules by {user.name} showed no private rules page with Next ▶")
                continue
            await self.clicker.press(user, role, page, following)

    async def resign_by_button(self, table: Table, user: FakeUser) -> None:
        """Resign on the board, then the private confirmation's Resign."""
        board = table.board()
        asked = await self.clicker.press(user, "player", board, self.button(board, "Resign"))
        prompt = asked.message if asked is not None else None
        if prompt is None:
            self.ledger.fail(f"Resign by {user.name} in match #{table.match_id} asked nothing")
            raise Stuck
        await self.clicker.press(user, "player", prompt, self.op(prompt, ":yes"))
        await table.wait(lambda: table.result() is not None, "the result after a resignation")

    # -- stages -----------------------------------------------------------------------------------

    async def challenges(self) -> FakeMessage:
        """Three challenges: one declined, one withdrawn, one accepted (returned: ring, alice v bob);
        each button is tried first by those it is not for."""
        declined = await self.challenge(self.alice, self.dave, "backgammon", length=1)
        roles = {"player": self.alice, "stranger": self.carol}
        await self.clicker.probe(declined, roles, skip=(self.op(declined, ":cancel"),))
        await self.in_turn(declined, "decline", (self.dave, "opponent"), done="declined")
        withdrawn = await self.challenge(self.bob, self.carol, "space")
        tried = ((self.alice, "stranger"), (self.carol, "opponent"), (self.bob, "player"))
        await self.in_turn(withdrawn, "cancel", *tried, done="withdrew")
        accepted = await self.challenge(self.alice, self.bob, "ring")
        tried = ((self.carol, "stranger"), (self.alice, "player"), (self.bob, "opponent"))
        await self.in_turn(accepted, "accept", *tried, done="accepted")
        return accepted

    async def in_turn(self, challenge: FakeMessage, op: str, *tried: tuple[FakeUser, str], done: str) -> None:
        """The challenge's ``op`` button clicked by each of ``tried`` in turn; the last one's click must
        leave the challenge saying ``done``."""
        custom_id = self.op(challenge, f":{op}")
        for user, role in tried:
            await self.clicker.press(user, role, challenge, custom_id)
        if done not in self.fake.message(challenge).content:
            self.ledger.fail(
                f"{op.title()} left the challenge saying {self.fake.message(challenge).content!r}"
            )

    async def ring_until_the_kill(self, challenge: FakeMessage, run: BotProcess) -> Table:
        table = await self.table(challenge, "ring", (self.alice, self.bob))
        board = table.board()
        asked = table.asked(board)
        assert asked is not None
        await self.clicker.probe(
            board, {"opponent": table.other(asked), "stranger": self.carol}, skip=("rules:", "rsk:")
        )
        await self.rules_for_everyone(table)
        await self.resign_prompts(table)
        await table.play(self.rng, RING_STEPS_BEFORE_KILL)
        if table.result() is None:
            # Killed as soon as the click is answered: the action is being saved and shown.
            await table.step(self.rng, after_answer=lambda: self.kill(run))
            self.ledger.note(
                f"ring match #{table.match_id}: killed as decision {table.decisions} was answered"
            )
        else:
            await self.kill(run)
        return table

    async def resign_prompts(self, table: Table) -> None:
        """Resign on the board by a stranger (refused) and by a player, whose private confirmation is
        then tried by everyone: Keep playing by its player, Resign and Keep playing by the others."""
        board = table.board()
        resign = self.button(board, "Resign")
        await self.clicker.press(self.carol, "stranger", board, resign)
        player, opponent = table.players
        asked = await self.clicker.press(player, "player", board, resign)
        prompt = asked.message if asked is not None else None
        if prompt is None or not prompt.ephemeral:
            self.ledger.fail("Resign on the board gave its player no private confirmation")
            return
        for role, user in (("opponent", opponent), ("stranger", self.carol)):
            for suffix in (":yes", ":no"):
                if (role, suffix) != ("opponent", ":yes"):  # the opponent's Resign would resign *them*
                    await self.clicker.press(user, role, prompt, self.op(prompt, suffix))
        await self.clicker.press(player, "player", prompt, self.op(prompt, ":no"))
        if table.result() is not None:
            self.ledger.fail(f"match #{table.match_id} ended although nobody confirmed a resignation")

    async def ring_after_the_restart(self, table: Table) -> None:
        before = [m for m in table.public() if m.all_components]
        if not await table.play(self.rng, RING_TO_THE_END):
            # Random play can wander a long time in ring (no side moves towards a goal, as in
            # backgammon); a match that stopped going on fails in Table.step, so this one resigns.
            asked = table.asked(await table.ready())
            if asked is None:
                self.ledger.fail(f"ring match #{table.match_id}: its board asks nobody to decide")
                return
            self.ledger.note(
                f"ring match #{table.match_id}: not over after {table.decisions} decisions; {asked.name} resigns"
            )
            await self.resign_by_button(table, asked)
        result = table.result()
        if result is None:
            self.ledger.fail(f"ring match #{table.match_id} did not end")
            return
        # A control of an earlier board, as a client that missed an edit still shows it.
        old = next((m for m in before if m.custom_ids and m.id != result.id), None)
        if old is not None:
            stale = next((c for c in old.custom_ids if c.startswith("g:")), None)
            if stale is not None:
                await self.clicker.press(self.alice, "player", old, stale, on=old)
        rematch = self.button(result, "Rematch")
        await self.clicker.press(self.carol, "stranger", result, rematch)
        await self.clicker.press(self.alice, "player", result, rematch)
        await self.clicker.press(self.bob, "opponent", result, rematch)
        await self.clicker.probe(result, {"player": self.bob, "stranger": self.carol}, skip=("rm:",))
        offered = [
            m
            for m in self.fake.messages_in(result.channel_id)
            if "ch:" in str(m.custom_ids) and m.id > result.id
        ]
        if not offered:
            self.ledger.fail(f"Rematch of match #{table.match_id} offered no new challenge")
            return
        await self.clicker.press(self.bob, "opponent", offered[-1], self.op(offered[-1], ":decline"))

    async def ring_against_the_computer(self) -> None:
        table = await self.play_the_computer(self.dave, "ring")
        if not await table.play(self.rng, TO_THE_END):
            self.ledger.fail(
                f"ring against the computer (match #{table.match_id}) did not end in {TO_THE_END} decisions"
            )

    async def backgammon(self) -> None:
        table = await self.play_a_member(self.bob, self.alice, "backgammon", length=1)
        undone = probed = False
        for _ in range(BACKGAMMON_STEPS):
            board = table.board()
            user = table.asked(board)
            if user is not None and user.id != self.computer.id:
                panel = await table.controls(user, board)
                if panel.ephemeral and not probed:
                    probed = True
                    roles = {"opponent": table.other(user), "stranger": self.carol}
                    await self.clicker.probe(panel, roles, skip=("rules:",))
                undo = next((b.custom_id for b in panel.buttons if b.label == "Undo" and b.custom_id), None)
                if undo is not None and not undone:
                    undone = True
                    await self.clicker.press(user, "player", panel, undo)
            if not await table.step(self.rng):
                return
        if not (undone and probed):
            self.ledger.fail(
                f"backgammon match #{table.match_id}: no turn in progress with Undo in {BACKGAMMON_STEPS} decisions"
            )
        # A 1-point match offers no resignation of a game (any loss loses the match): Resign the match
        # wherever it stands, often in the middle of a turn (a log ending in a forced step once made
        # the match's analysis fail).
        board = await table.ready()
        asked = table.asked(board)
        if table.result() is None and asked is not None:
            await self.resign_by_button(table, asked)

    async def backgammon_against_the_computer(self) -> None:
        """A 1-point match against the computer to its end, with /hint and a roll typed with /move."""
        table = await self.play_the_computer(self.carol, "backgammon", length=1)
        while table.result() is None and table.asked(await table.ready()) != self.carol:
            await table.step(self.rng)
        if table.result() is None:
            await self.must_say(self.carol, "hint", channel=table.place)
            if any(b.label == "Roll" for b in table.board().buttons):
                await self.must_say(self.carol, "move", {"notation": "roll"}, channel=table.place)
        if not await table.play(self.rng, TO_THE_END):
            self.ledger.fail(
                f"backgammon against the computer (match #{table.match_id}) did not end in {TO_THE_END} decisions"
            )

    async def money_session(self) -> None:
        """Backgammon for money between two members (unrated, so hints are allowed): **Play this** under
        a /hint and **Stop after this game**, each tried by the others first, then the game to its end,
        which ends the session; then **Review** under an analysis and its pages."""
        table = await self.play_a_member(self.alice, self.dave, "backgammon", length=0)
        board = await table.ready()
        while table.result() is None and table.asked(board) is None:
            await table.step(self.rng)
            board = await table.ready()
        asked = table.asked(board)
        if asked is None:
            return
        await self.play_this(table, asked)
        board = await table.ready()
        stop = self.button(board, "Stop after this game")
        await self.clicker.press(self.carol, "stranger", board, stop)
        asked = table.asked(board) or asked
        await self.clicker.press(asked, "player", board, stop)
        # The other player's client still shows the button it had: their click is answered too.
        await self.clicker.press_made_up(table.other(asked), "opponent", table.place, stop)
        if not await table.play(self.rng, TO_THE_END):
            self.ledger.fail(
                f"money session #{table.match_id}: its last game did not end in {TO_THE_END} decisions"
            )
        # The longest match between members has decisions to review (random play loses equity).
        played = [t for t in self.tables if t.game == "backgammon" and self.computer not in t.players]
        reviewed = max(played, key=lambda t: t.decisions)
        await self.review(reviewed)
        # A match (not this money session: the importer reads matches only) as a file played
        # elsewhere: /analyse file: and its review.
        await self.review_file(max((t for t in played if t is not table), key=lambda t: t.decisions))

    async def play_this(self, table: Table, user: FakeUser) -> None:
        """``user``'s /hint, whose **Play this** the others try first (refused), then ``user``."""
        said = await self.clicker.command(user, "hint", channel=table.place)
        if said is None:
            return

        def offered() -> FakeMessage | None:
            return next((m for m in said.messages if any(b.label == "Play this" for b in m.buttons)), None)

        try:
            await self.fake.wait_for(lambda: offered() is not None, SETTLE_TIMEOUT, "a hint with Play this")
        except TimeoutError:
            self.ledger.fail(f"/hint by {user.name} in money session #{table.match_id} offered no Play this")
            raise Stuck from None
        hint = offered()
        assert hint is not None
        play = self.button(hint, "Play this")
        for role, other in (("opponent", table.other(user)), ("stranger", self.carol), ("player", user)):
            await self.clicker.press(other, role, hint, play)
        await table.caught_up()

    async def review(self, table: Table) -> None:
        """**Review** under the match's analysis by a player, the other player and a stranger, and a
        page turned on each one's private review (the others' turned from a client that still shows
        the player's buttons)."""
        posted = await self.analysis_with_review(table.place, "rvo:", f"match #{table.match_id}")
        if posted is not None:
            await self.turn_review_pages(posted, table, f"match #{table.match_id}")

    async def review_file(self, table: Table) -> None:
        """The match's ``.mat`` file (from its result message) sent back with ``/analyse file:`` by a
        stranger, as a match played elsewhere: its analysis's **Review** and pages, in every role."""
        result = table.result()
        exported = [a for a in result.attachments if a.filename.endswith(".mat")] if result else []
        if not exported:
            self.ledger.fail(f"match #{table.match_id}: its result has no .mat file to analyse")
            return
        name, data = f"elsewhere-{exported[0].filename}", exported[0].data
        said = await self.clicker.command(self.carol, "analyse", {"file": (name, data)}, channel=table.place)
        if said is None:
            return
        posted = await self.analysis_with_review(table.place, "rvo:f", name, said)
        if posted is not None:
            await self.turn_review_pages(posted, table, name)

    async def analysis_with_review(
        self, place: int, prefix: str, what: str, said: InteractionResult | None = None
    ) -> FakeMessage | None:
        """The newest analysis in ``place`` whose **Review** custom id starts with ``prefix``, once posted
        (``said``: the command that asked for it, whose answers a failure quotes)."""

        def analysis() -> FakeMessage | None:
            found = reversed(self.fake.messages_in(place))
            return next((m for m in found if any(c.startswith(prefix) for c in m.custom_ids)), None)

        try:
            await self.fake.wait_for(
                lambda: analysis() is not None, ANALYSIS_TIMEOUT, f"the analysis of {what}"
            )
        except TimeoutError:
            answers = [self.fake.message(m).content[:200] for m in said.messages] if said else []
            self.ledger.fail(f"{what}: no analysis with Review in {ANALYSIS_TIMEOUT:g} s {answers or ''}")
            raise Stuck from None
        return analysis()

    async def turn_review_pages(self, posted: FakeMessage, table: Table, what: str) -> None:
        opened = next(c for c in posted.custom_ids if c.startswith("rvo:"))
        opened_by_player: InteractionResult | None = None
        for role, user in (
            ("player", table.players[0]),
            ("opponent", table.players[1]),
            ("stranger", self.carol),
        ):
            result = await self.clicker.press(user, role, posted, opened)
            if role == "player":
                opened_by_player = result

        def first_page() -> tuple[FakeMessage, str] | None:
            # The page comes as a followup of the deferred click (replaying the match takes a moment).
            for message in opened_by_player.messages if opened_by_player is not None else []:
                shown = self.fake.message(message)
                turn = next((c for c in shown.custom_ids if c.startswith("rv:")), None)
                if turn is not None:
                    return shown, turn
            return None

        try:
            await self.fake.wait_for(
                lambda: first_page() is not None, SETTLE_TIMEOUT, "the review's first page"
            )
        except TimeoutError:
            said = [m.content[:200] for m in opened_by_player.messages] if opened_by_player else "nothing"
            self.ledger.fail(f"Review of {what} showed no pages to turn: {said}")
            return
        found = first_page()
        assert found is not None
        pages, page = found
        for role, user in (
            ("opponent", table.players[1]),
            ("stranger", self.carol),
            ("player", table.players[0]),
        ):
            await self.clicker.press(user, role, pages, page)

    async def must_say(
        self, user: FakeUser, name: str, options: dict[str, object] | None = None, channel: int | None = None
    ) -> None:
        """``/name``, whose answer must be something (a deferred answer must be followed up)."""
        said = await self.clicker.command(user, name, options, channel)
        if said is None:
            return
        original = said.message
        if said.callback_type == 5:
            try:
                await self.fake.wait_for(
                    lambda: original is None or not original.loading, SETTLE_TIMEOUT, f"/{name} to follow up"
                )
            except TimeoutError:
                self.ledger.fail(f"/{name} by {user.name} stayed 'thinking…' for {SETTLE_TIMEOUT:g} s")
        if not said.messages:
            self.ledger.fail(f"/{name} by {user.name} was answered with no message")

    async def commands(self) -> None:
        """The other commands once, where they mean something and where they do not."""
        asked: tuple[tuple[str, dict[str, object], int | None], ...] = (
            ("stats", {}, None),
            ("leaderboard", {}, None),
            ("history", {}, None),
            ("replay", {}, None),  # alice's latest finished match, drawn by a render worker
            ("board", {}, None),  # no match of alice's in #general
            ("position", {}, self.tables[0].place if self.tables else None),
            ("move", {"notation": "13/7"}, None),
            ("settings", {"threads": False}, None),  # not a moderator
        )
        for name, options, channel in asked:
            await self.must_say(self.alice, name, options, channel)

    async def space_against_the_computer(self) -> None:
        table = await self.play_the_computer(self.bob, "space")
        if not await table.play(self.rng, SPACE_STEPS):
            board = table.board()
            hand = self.button(board, "My hand")
            await self.clicker.press(self.carol, "stranger", board, hand)
            await self.resign_by_button(table, self.bob)

    async def space_windows(self) -> None:
        """Two members play space until the standing answers were used in a response window and a
        select was met (and tried by the other player), then one resigns with /resign."""
        table = await self.play_a_member(self.dave, self.alice, "space")
        answered = False
        for _ in range(SPACE_STEPS):
            board = await table.ready()
            defender = table.asked(board)
            if not answered and defender is not None and WINDOW.search(board.content):
                await self.standing_answers(table, board, defender)
                answered = True
            elif (answered and self.select_tried() and table.decisions >= SPACE_STEPS // 2) or not (
                await table.step(self.rng)
            ):
                break
        if not answered:
            self.ledger.fail(f"space match #{table.match_id}: no response window in {SPACE_STEPS} decisions")
        if table.result() is None:
            await table.ready()
            resigned = await self.clicker.command(self.dave, "resign", channel=table.place)
            prompt = resigned.message if resigned is not None else None
            if prompt is None:
                self.ledger.fail("/resign asked nothing")
                return
            await self.clicker.press(self.dave, "player", prompt, self.op(prompt, ":yes"))
            await table.wait(lambda: table.result() is not None, "the result after /resign")

    def select_tried(self) -> bool:
        """Whether a select was tried by the other player: only a match between members can (a select
        met first against the computer has no opponent to try it), so this one plays on until then."""
        return "opponent" in self.ledger.roles_of().get("GameSelect", set())

    async def standing_answers(self, table: Table, board: FakeMessage, defender: FakeUser) -> None:
        """In a response window: the defender's private reply's **Always pass in this match**, then, once
        the window has passed by it, **Ask me in windows** in a fresh reply; each tried by the others
        first."""
        for label in ("Always pass in this match", "Ask me in windows"):
            opened = await self.clicker.press(defender, "player", board, self.button(board, "My hand"))
            reply = opened.message if opened is not None else None
            if reply is None:
                return
            answer = self.button(reply, label)
            for role, user in (("opponent", table.other(defender)), ("stranger", self.carol)):
                await self.clicker.press(user, role, reply, answer)
            await self.clicker.press(defender, "player", reply, answer)
            await table.wait(lambda: not WINDOW.search(table.board().content), "the window to pass")
            board = await table.ready()

    async def pickers(self) -> None:
        """Alice plays Bob and Dave in one channel: /board and /resign ask which match."""
        first = await self.challenge(self.alice, self.bob, "ring", channel=self.lobby.id)
        second = await self.challenge(self.alice, self.dave, "ring", channel=self.lobby.id)
        await self.clicker.press(self.bob, "opponent", first, self.op(first, ":accept"))
        await self.clicker.press(self.dave, "opponent", second, self.op(second, ":accept"))

        def boards() -> dict[int, FakeMessage]:
            return {
                mid: m
                for m in self.fake.messages_in(self.lobby)
                if m.visible_to is None and (mid := match_of(m)) is not None
            }

        try:
            await self.fake.wait_for(lambda: len(boards()) >= 2, SETTLE_TIMEOUT, "two boards in one channel")
        except TimeoutError:
            self.ledger.fail(f"two matches in #{self.lobby.name}: the boards were not both shown")
            return
        mine = sorted(boards())
        others = {"opponent": self.bob, "stranger": self.carol}
        shown = await self.pick(self.alice, "board", mine[0], others)
        if shown is not None and not shown.messages:
            self.ledger.fail("the /board picker's choice showed no board")
        for match_id in mine:  # the first /resign asks which match; the second has one left
            asked = await self.clicker.command(self.alice, "resign", channel=self.lobby.id)
            if asked is not None and asked.message is not None and asked.message.selects:
                asked = await self.pick(self.alice, "resign", match_id, others, asked.message)
            prompt = asked.private if asked is not None else None
            if prompt is None or not any(c.endswith(":yes") for c in prompt.custom_ids):
                self.ledger.fail(
                    f"/resign in #{self.lobby.name} did not ask to confirm resigning match #{match_id}"
                )
                continue
            await self.clicker.press(self.alice, "player", prompt, self.op(prompt, ":yes"))

    async def pick(
        self,
        user: FakeUser,
        op: str,
        match_id: int,
        others: dict[str, FakeUser],
        picker: FakeMessage | None = None,
    ) -> InteractionResult | None:
        """``/op`` (unless its ``picker`` is given) and the choice of ``match_id``, tried by ``others``
        first."""
        if picker is None:
            asked = await self.clicker.command(user, op, channel=self.lobby.id)
            picker = asked.message if asked is not None else None
        if picker is None or not picker.selects:
            self.ledger.fail(f"/{op} with two matches in one channel showed no picker")
            return None
        select = picker.selects[0]
        assert select.custom_id is not None
        for role, other in others.items():
            await self.clicker.press(other, role, picker, select.custom_id, [str(match_id)])
        return await self.clicker.press(user, "player", picker, select.custom_id, [str(match_id)])

    async def made_up(self) -> None:
        for custom_id in MADE_UP:
            for role, user in (("player", self.alice), ("opponent", self.bob), ("stranger", self.carol)):
                await self.clicker.press_made_up(user, role, self.general.id, custom_id)

    async def forged_everywhere(self) -> None:
        """Carol and Dave play ring; from its board, forged controls of every kind, each sent by the
        player on turn, the other and a stranger, carried by the interaction's copy of the board and
        not: every one refused privately, the match and its board unchanged. Then Carol resigns."""
        table = await self.play_a_member(self.carol, self.dave, "ring")
        board = await table.ready()
        asked = table.asked(board) or self.carol
        version = max((v for c in board.custom_ids if (v := version_of(c)) is not None), default=1)
        edits, saved = len(board.history), table.saved()
        roles = {"player": asked, "opponent": table.other(asked), "stranger": self.alice}
        for component, values in forged_controls(table.match_id, version, asked.id):
            for on_message in (True, False):
                for role, user in roles.items():
                    await self.clicker.press_forged(
                        user, role, board, component, values, on_message=on_message
                    )
        if len(self.fake.message(board).history) != edits or table.saved() != saved:
            self.ledger.fail(f"forged controls changed ring match #{table.match_id} or its board")
        await self.resign_by_button(table, self.carol)

    async def earlier_versions(self) -> None:
        """Controls of earlier versions of every kind of message, each used by whoever sees it (a
        match's member for a public message), as a client that missed the later edits still shows
        them; a few per kind. Every match is over by now, so none can change a match."""
        used: dict[str, int] = {}
        for message in list(self.fake.world.messages.values()):
            if message.deleted:
                continue
            for control in message.earlier_components():
                kind = self.clicker.kind_of(control.custom_id or "")
                if used.get(kind, 0) >= EARLIER_PER_KIND:
                    continue
                user = self.seer(message)
                if user is None:
                    continue
                used[kind] = used.get(kind, 0) + 1
                await self.clicker.press_earlier(user, "player", message, control)
        self.ledger.note(
            "controls of earlier versions used: " + ", ".join(f"{k} {n}" for k, n in sorted(used.items()))
        )

    def seer(self, message: FakeMessage) -> FakeUser | None:
        """Who uses a control of ``message``: the one a private message went to; for a public one, a
        player of its match, else Alice."""
        users = self.fake.world.users
        if message.visible_to is not None:
            return users.get(message.visible_to)
        match_id = match_of(message)
        table = next((t for t in self.tables if t.match_id == match_id), None)
        if table is None:
            return self.alice
        return next((p for p in table.players if p.id != self.computer.id), None)

    def check_answer_times(self) -> None:
        """Every interaction answered within Discord's 3 s (the deferral of a slow one counts); the
        run fails unless none was late or unanswered."""
        late, slowest = late_answers(self.fake)
        self.ledger.note(
            f"{len(self.fake.world.interactions)} interactions, {len(late)} not answered within "
            f"{ANSWER_LIMIT:g} s (the slowest answer: {slowest:.2f} s)"
        )
        for inter, took in late[:20]:
            when = f"after {took:.2f} s" if took is not None else "never"
            self.ledger.fail(
                f"interaction {inter.custom_id or inter.name!r} by {inter.user.name} was answered {when}"
            )
        if len(late) > 20:
            self.ledger.fail(f"... and {len(late) - 20} more interactions answered late or never")

    def check_the_fake(self) -> None:
        """Whatever the fake recorded that Discord would refuse or show as broken (once each)."""
        found = [f"fake Discord: {problem}" for problem in self.fake.problems()]
        for inter in self.fake.world.interactions.values():
            original = self.fake.world.messages.get(inter.original_message_id or 0)
            if original is not None and original.loading:
                found.append(
                    f"interaction {inter.custom_id or inter.name!r} by {inter.user.name} was left "
                    "'thinking…' (deferred, never followed up)"
                )
        for problem in found:
            if problem not in self.reported:
                self.reported.add(problem)
                self.ledger.fail(problem)

    def check_logs(self) -> None:
        """Every error and traceback the bot wrote, each different one once (with how many times)."""
        for run in self.runs:
            seen: dict[str, list[str]] = {}
            for excerpt in trouble(run.log()):
                seen.setdefault(TIMESTAMP.sub("", excerpt), []).append(excerpt)
            for same in seen.values():
                times = f" ({len(same)} times)" if len(same) > 1 else ""
                text = same[0].replace("\n", "\n    ")
                self.ledger.fail(f"{run.name} (pid {run.pid}) logged{times}:\n    {text}")

    def note_match(self, table: Table) -> None:
        result = table.result()
        ending = result.content.splitlines()[0][:120] if result is not None else "not over"
        names = " v ".join(p.name for p in table.players)
        self.ledger.note(
            f"{table.game} match #{table.match_id} ({names}): {table.decisions} decisions"
            f"{f' ({table.refused} refused)' if table.refused else ''}; {ending}"
        )

    # -- the whole run ----------------------------------------------------------------------------

    async def run(self) -> Ledger:
        async with FakeDiscordServer(self.fake) as server:
            try:
                await self.run_on(server)
            except Exception as exc:  # the bot did not start, or could not be asked what it registers
                self.ledger.fail(f"the run stopped: {exc}")
            finally:
                for run in self.runs:
                    await run.ensure_stopped()
        for table in self.tables:
            self.note_match(table)
        self.ledger.stage = "the bot's output"
        self.check_logs()
        self.ledger.stage = "coverage"
        self.ledger.check_coverage(self.kinds.names)
        return self.ledger

    async def run_on(self, server: FakeDiscordServer) -> None:
        self.ledger.stage = "start"
        kinds = asyncio.create_task(asyncio.to_thread(Kinds.of, self.checkout))
        first = await self.start(server)
        self.kinds = await kinds
        self.clicker.kinds = self.kinds
        if Path(self.kinds.source).resolve() != self.checkout.resolve():
            self.ledger.fail(f"the bot's modules came from {self.kinds.source}, not {self.checkout}")
        table: Table | None = None
        accepted: FakeMessage | None = None
        async with self.stage("challenges"):
            accepted = await self.challenges()
        cup: FakeMessage | None = None
        async with self.stage("a tournament started before the kill"):
            cup = await start_tournament(self)
        async with self.stage("ring, then kill -9"):
            if accepted is not None:
                table = await self.ring_until_the_kill(accepted, first)
        if first.running:
            await self.kill(first)
        self.check_the_fake()
        self.ledger.stage = "restart"
        second = await self.start(server)
        async with self.stage("ring after the restart"):
            if table is not None:
                await self.ring_after_the_restart(table)
        for name, stage in (
            ("ring against the computer", self.ring_against_the_computer),
            ("backgammon", self.backgammon),
            ("backgammon against the computer", self.backgammon_against_the_computer),
            ("space against the computer", self.space_against_the_computer),
            ("space, response windows", self.space_windows),
            ("match pickers", self.pickers),
            ("backgammon for money, hints played, a review", self.money_session),
            ("the tournament after the restart", lambda: finish_tournament(self, cup) if cup else _nothing()),
            ("made-up custom ids", self.made_up),
            ("forged controls of every kind", self.forged_everywhere),
            ("controls of earlier versions", self.earlier_versions),
            ("commands", self.commands),
        ):
            async with self.stage(name):
                await stage()
        self.ledger.stage = "the fake's records"
        self.check_the_fake()
        self.check_answer_times()
        self.ledger.stage = "SIGTERM"
        await self.stop(second)


async def _nothing() -> None:
    """A stage with nothing to do (what it needed failed earlier, and was reported there)."""

"""The sandbox session: the real bot against the in-process fake Discord, driven by text commands."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import random
import re
import tempfile
import traceback
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.client import RingsideBot
from bot.clock import ManualClock
from bot.store import Store
from fakediscord import (
    ComponentInfo,
    FakeAttachment,
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeRole,
    FakeUser,
    MessageNotVisible,
    NoResponse,
)

from .text import (
    CommandError,
    button_label,
    channel_label,
    component_lines,
    embed_lines,
    format_duration,
    normalise,
    option_text,
    parse_duration,
    render_mentions,
    split_args,
    strip_comment,
)

DEFAULT_PICTURES = Path("sandbox-pictures")
PROMPT = "sandbox> "
_NAME = re.compile(r"^@?([A-Za-z0-9_.]{1,32})$")
_NUMBERED = re.compile(r"^(\d{4})-")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_TRUE = {"true", "yes", "y", "on", "1"}
_FALSE = {"false", "no", "n", "off", "0"}
# Discord's option types (application command option type)
_SUBCOMMAND, _GROUP, _STRING, _INTEGER, _BOOLEAN, _USER, _CHANNEL, _ROLE, _MENTIONABLE, _NUMBER = range(1, 11)
_ATTACHMENT = 11

HELP = """\
Commands (users are created the first time you name them):
  as alice /challenge opponent:@bob game:ring    run a slash command as alice (here: the current channel);
                                                 options are name:value, "quote values with spaces",
                                                 @name is a user, #name a channel; rated:false etc.
  as bob click Accept                            click a button (by label, part of it, or custom id) on
                                                 the latest message that shows it to bob
  as bob select "Stack on 7"                     pick an option (label, value, number or part of a label)
  as bob select "Move which stack?" "Stack on 7" ...of the select with that placeholder
  as bob select "Discard 2" "Nova Bomb" + "Jam"  several options of one select at once
  wait 10m | wait 49h | wait 30s | wait 1h30m    move the bot's clock forward and run its scheduled work
  show [N|all]                                   the latest N (default 5) messages here, as they are now
  where                                          where you are, and the channels and threads there are
  in #general | in <thread name> | in <number>   go to a channel or thread (numbers as listed by where)
  users                                          who exists
  restart                                        stop the bot and start it again on the same database
  help                                           this
  quit                                           leave (also Ctrl-D)
Every picture the bot sends is saved in the pictures folder; its path is printed."""

Out = Callable[[str], None]


@dataclass(frozen=True)
class _Seen:
    """What a message looked like the last time it was shown."""

    content: str
    embeds: str
    components: str
    attachments: tuple[int, ...]
    deleted: bool
    loading: bool


def _seen(message: FakeMessage) -> _Seen:
    return _Seen(
        message.content,
        json.dumps(message.embeds, sort_keys=True),
        json.dumps(message.components, sort_keys=True),
        tuple(a.id for a in message.attachments),
        message.deleted,
        message.loading,
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else exc.__class__.__name__


class Sandbox:
    """Text commands against a connected bot. Make one with :meth:`open`; feed it :meth:`execute`
    (one line) or :meth:`run_lines` (a script). Everything it prints goes to ``out``."""

    def __init__(
        self,
        fake: FakeDiscord,
        bot: RingsideBot,
        clock: ManualClock,
        *,
        database: Path,
        rng: random.Random,
        pictures: Path = DEFAULT_PICTURES,
        out: Out = print,
        verbose: bool = False,
    ) -> None:
        self.fake = fake
        self.bot = bot
        self.clock = clock
        self.database = database
        self.rng = rng
        self.pictures = pictures
        self.out = out
        self.verbose = verbose
        self.channel: FakeChannel = fake.channel
        self.start_time = clock.now()
        self.quit_requested = False
        #: paths of the pictures saved so far, in order
        self.saved: list[Path] = []
        self._saved_by_attachment: dict[int, Path] = {}
        self._next_number = self._first_free_number()
        self._shown: dict[int, _Seen] = {m.id: _seen(m) for m in fake.world.messages.values()}
        self._problem_counts = self._problems_now()
        self._commands_running = 0

    # -- life cycle -------------------------------------------------------------------------------

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        *,
        database: Path | None = None,
        pictures: Path = DEFAULT_PICTURES,
        seed: int | None = None,
        out: Out = print,
        verbose: bool = False,
    ) -> AsyncIterator[Sandbox]:
        """Start the bot on ``database`` (a temporary one by default) against a fresh fake Discord."""

        # One source of dice for the whole session: a restart goes on with the same sequence.
        rng = random.Random(seed) if seed is not None else random.SystemRandom()
        with contextlib.ExitStack() as stack:
            if database is None:
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="ringside-sandbox-"))
                database = Path(folder) / "sandbox.sqlite3"
            # A sandbox has no 3-second deadline to keep; bot errors are reported, not raised.
            async with FakeDiscord(timeout=60.0, raise_bot_errors=False, response_deadline=None) as fake:
                clock = ManualClock()
                bot = await cls._start_bot(fake, database, clock, rng)
                sandbox = cls(
                    fake,
                    bot,
                    clock,
                    database=database,
                    rng=rng,
                    pictures=pictures,
                    out=out,
                    verbose=verbose,
                )
                try:
                    yield sandbox
                finally:
                    await sandbox._stop_bot()

    @staticmethod
    async def _start_bot(
        fake: FakeDiscord, database: Path, clock: ManualClock, rng: random.Random
    ) -> RingsideBot:
        store = await Store.open(database)
        bot = RingsideBot(store, clock=clock, rng=rng, run_scheduler=False, render_workers=0)
        try:
            await fake.connect(bot)
        except BaseException:
            await bot.close()
            await store.close()
            raise
        return bot

    async def _stop_bot(self) -> None:
        await self.fake.wait_idle()
        await self.bot.close()
        await self.bot.store.close()

    # -- running lines ----------------------------------------------------------------------------

    async def run_lines(
        self, lines: Iterable[str] | AsyncIterable[str], *, echo: bool = True, keep_going: bool = False
    ) -> int:
        """Run script lines (echoed after the prompt, comments as they are); returns how many failed.
        Stops at the first failure unless ``keep_going``, and at ``quit``. ``lines`` may arrive as
        they are typed or piped (an async iterable): the bot goes on meanwhile."""
        failed = 0
        number = 0
        async for raw in _each(lines):
            number += 1
            line = raw.rstrip("\n")
            if echo:
                stripped = line.strip()
                self.out(line if not stripped or stripped.startswith("#") else PROMPT + stripped)
            if not await self.execute(line):
                failed += 1
                if not keep_going:
                    self.out(f"(stopped: line {number} failed)")
                    break
            if self.quit_requested:
                break
        return failed

    async def execute(self, line: str) -> bool:
        """Run one command line; False when it failed (the reason has been printed)."""
        text = strip_comment(line)
        if not text:
            return True
        self._commands_running += 1
        try:
            await self._dispatch(text)
        except CommandError as exc:
            self.out(f"error: {exc}")
            return False
        except (LookupError, ValueError, TypeError, NoResponse, MessageNotVisible, TimeoutError) as exc:
            # What the fake Discord refused (an option it does not take, a missing message...).
            self.out(f"error: {_first_line(exc)}")
            return False
        except Exception as exc:  # the sandbox must not die with the session
            self.out(f"error: {exc.__class__.__name__}: {_first_line(exc)}")
            if self.verbose:
                self.out(traceback.format_exc().rstrip())
            return False
        finally:
            self._commands_running -= 1
            bot_failed = self._report_problems()
        return not bot_failed

    async def show_background(self) -> None:
        """Print what the bot does by itself between commands (an analysis posted after a match), as
        it happens. Runs until cancelled; a command prints what happens while it runs itself."""
        fake = self.fake
        while True:

            def sent(count: int = len(fake.requests)) -> bool:
                return len(fake.requests) > count

            with contextlib.suppress(TimeoutError):
                await fake.wait_for(sent, 60.0, "the bot to do something")
            await asyncio.sleep(0)  # what the same step of the bot sends next belongs with it
            if self._commands_running == 0:
                self._print_changes()
                self._report_problems()

    async def _dispatch(self, text: str) -> None:
        word, _, rest = text.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if word in ("help", "?"):
            self.out(HELP)
        elif word in ("quit", "exit"):
            self.quit_requested = True
        elif word == "users":
            self._users()
        elif word == "where":
            self._where()
        elif word == "in":
            self._go(rest)
        elif word == "show":
            self._show(rest)
        elif word == "wait":
            await self._wait(rest)
        elif word == "restart":
            await self._restart()
        elif word == "as":
            await self._as(rest)
        elif word.startswith("/"):
            raise CommandError(f"who runs it? write: as alice {text}")
        else:
            raise CommandError(f"unknown command {word!r}; try help")

    async def _as(self, rest: str) -> None:
        name, _, action = rest.partition(" ")
        if not name:
            raise CommandError("as whom? e.g. as alice /challenge opponent:@bob")
        action = action.strip()
        if not action:
            raise CommandError(f"as {name} does what? /command, click <button> or select <option>")
        user = self.user(name)
        if user.id == self.fake.bot_user.id:
            raise CommandError(f"{user.name} is the bot under test; act as a person")
        verb, _, args = action.partition(" ")
        if action.startswith("/"):
            await self._slash(user, action[1:])
        elif verb.lower() == "click":
            await self._click(user, split_args(args))
        elif verb.lower() == "select":
            await self._select(user, split_args(args))
        else:
            raise CommandError(f"as {user.name} what? /command, click <button> or select <option>")

    # -- users, channels --------------------------------------------------------------------------

    def user(self, name: str, *, create: bool = True) -> FakeUser:
        """The user called ``name`` (``@`` optional), created the first time unless ``create`` is false."""
        found = _NAME.match(name)
        if not found:
            raise CommandError(f"{name!r} is not a user name: letters, digits, _ and . (like alice)")
        wanted = found[1].lower()
        for user in self.fake.world.users.values():
            if user.name.lower() == wanted:
                return user
        if not create:
            raise CommandError(f"there is no user {wanted!r}")
        user = self.fake.add_user(wanted)
        self.out(f"(new user: {wanted})")
        return user

    def _users(self) -> None:
        world = self.fake.world
        for user in world.users.values():
            what = "the bot: challenge it to play the computer" if user.id == world.bot_user.id else ""
            if user.bot and not what:
                what = "a bot"
            if user.id == world.owner.id:
                what = "owns the server"
            self.out(f"  @{user.name}" + (f"  ({what})" if what else ""))

    def _places(self) -> list[FakeChannel]:
        world = self.fake.world
        out: list[FakeChannel] = []
        for channel in world.channels.values():
            if channel.deleted or channel.is_thread or channel.guild_id is None:
                continue
            out.append(channel)
            out += [t for t in self.fake.threads(channel) if not t.deleted]
        return out

    def label(self, channel: FakeChannel) -> str:
        return channel_label(channel, self.fake.world)

    def _where(self) -> None:
        self.out(f"You are in {self.label(self.channel)}.")
        for number, place in enumerate(self._places(), 1):
            here = "   ← here" if place.id == self.channel.id else ""
            self.out(f"  {number}. {self.label(place)}{here}")

    def _go(self, where: str) -> None:
        target = where.strip().strip("\"'")
        if not target:
            raise CommandError("in where? e.g. in #general, in Ring (a thread's name) or a number from where")
        places = self._places()
        if target.isdigit():
            index = int(target)
            if not 1 <= index <= len(places):
                raise CommandError(f"there is no place {index}; where lists {len(places)}")
            self.channel = places[index - 1]
        else:
            self.channel = self._find_place(target, places)
        self.out(f"(now in {self.label(self.channel)})")

    def _find_place(self, target: str, places: Sequence[FakeChannel]) -> FakeChannel:
        if target.startswith("#") or target.startswith("<#"):
            name = normalise(target.strip("<>#"))
            for place in places:
                if not place.is_thread and normalise(place.name) == name:
                    return place
            raise CommandError(f"there is no channel #{name}")
        wanted = normalise(target)
        exact = [p for p in places if normalise(p.name) == wanted]
        if len(exact) == 1:
            return exact[0]
        partial = [p for p in places if wanted in normalise(p.name)]
        if len(partial) == 1:
            return partial[0]
        if not partial:
            raise CommandError(f"no channel or thread called {target!r}; see where")
        names = "; ".join(self.label(p) for p in partial)
        raise CommandError(f"{target!r} could be any of: {names}; say which (or use a number from where)")

    # -- time -------------------------------------------------------------------------------------

    async def _wait(self, how_long: str) -> None:
        seconds = parse_duration(how_long)
        with self._reporting():
            self.clock.advance(seconds)
            await self.bot.run_due_tasks()
            await self._settle()
        when = dt.datetime.fromtimestamp(self.clock.now(), dt.UTC)
        since = format_duration(self.clock.now() - self.start_time)
        self.out(
            f"(the clock moved {format_duration(seconds)}: {when:%a %H:%M} UTC, {since} since the start)"
        )

    async def _restart(self) -> None:
        with self._reporting():
            await self._stop_bot()
            self.bot = await self._start_bot(self.fake, self.database, self.clock, self.rng)
        self.out("(the bot restarted: a new process on the same database; old buttons keep working)")

    async def _settle(self) -> None:
        await self.fake.wait_idle()
        for _ in range(3):
            await asyncio.sleep(0)

    # -- slash commands ---------------------------------------------------------------------------

    def _commands(self) -> list[dict[str, Any]]:
        guild_scoped = self.fake.guild_commands() if self.channel.guild_id is not None else []
        return [c for c in [*guild_scoped, *self.fake.commands] if c.get("type", 1) == 1]

    async def _slash(self, user: FakeUser, text: str) -> None:
        words = split_args(text)
        if not words:
            raise CommandError("which command? e.g. /challenge opponent:@bob")
        commands = self._commands()
        command = next((c for c in commands if c["name"] == words[0].lower()), None)
        if command is None:
            known = ", ".join(sorted({f"/{c['name']}" for c in commands}))
            raise CommandError(f"the bot has no command /{words[0]}; it has {known}")
        path = [command["name"]]
        defs: list[dict[str, Any]] = command.get("options") or []
        rest = words[1:]
        while rest and ":" not in rest[0]:
            sub = next(
                (d for d in defs if d["type"] in (_SUBCOMMAND, _GROUP) and d["name"] == rest[0].lower()), None
            )
            if sub is None:
                break
            path.append(sub["name"])
            defs = sub.get("options") or []
            rest = rest[1:]
        subs = [d["name"] for d in defs if d["type"] in (_SUBCOMMAND, _GROUP)]
        if subs:
            raise CommandError(f"/{' '.join(path)} needs one of: {', '.join(subs)}")
        options = self._options(" ".join(path), defs, rest)
        with self._reporting():
            await self.fake.slash(user, " ".join(path), options, channel=self.channel, idle=True)

    def _options(self, command: str, defs: list[dict[str, Any]], words: list[str]) -> dict[str, Any]:
        by_name = {d["name"]: d for d in defs}
        given: dict[str, Any] = {}
        positional = iter(d["name"] for d in defs)
        for word in words:
            name, sep, value = word.partition(":")
            if not sep or name.lower() not in by_name:
                if sep and name and not name.startswith(("@", "<", "#")):
                    known = ", ".join(by_name) or "none"
                    raise CommandError(f"/{command} has no option {name!r} (its options: {known})")
                # A bare value fills the next option, as Discord's client does.
                name = next((n for n in positional if n not in given), "")
                if not name:
                    raise CommandError(f"/{command}: {word!r} is one value too many; write name:value")
                value = word
            name = name.lower()
            if name in given:
                raise CommandError(f"option {name} is given twice")
            given[name] = self._option_value(by_name[name], value)
        missing = [d["name"] for d in defs if d.get("required") and d["name"] not in given]
        if missing:
            example = " ".join(f"{n}:…" for n in missing)
            raise CommandError(f"/{command} needs {', '.join(missing)} (e.g. /{command} {example})")
        return given

    def _option_value(self, definition: dict[str, Any], value: str) -> Any:
        otype = definition["type"]
        name = definition["name"]
        choices = definition.get("choices") or []
        if otype == _STRING:
            for choice in choices:
                if normalise(str(choice.get("name"))) == normalise(value):
                    return choice["value"]
            return value
        if otype in (_INTEGER, _NUMBER):
            try:
                number = int(value) if otype == _INTEGER else float(value)
            except ValueError:
                kind = "a whole number" if otype == _INTEGER else "a number"
                raise CommandError(f"option {name} takes {kind}, not {value!r}") from None
            return number
        if otype == _BOOLEAN:
            if value.lower() in _TRUE:
                return True
            if value.lower() in _FALSE:
                return False
            raise CommandError(f"option {name} is true or false, not {value!r}")
        if otype == _USER:
            return self.user(value)
        if otype == _MENTIONABLE:
            role = self._role(value)
            return role if role is not None else self.user(value)
        if otype == _ROLE:
            role = self._role(value)
            if role is None:
                raise CommandError(f"there is no role {value!r}")
            return role
        if otype == _CHANNEL:
            return self._find_place(value, self._places())
        if otype == _ATTACHMENT:
            path = Path(value).expanduser()
            if not path.is_file():
                raise CommandError(f"option {name} takes a file to upload; there is no file {value!r}")
            return (path.name, path.read_bytes())
        raise CommandError(f"option {name} has a type ({otype}) the sandbox cannot fill")

    def _role(self, value: str) -> FakeRole | None:
        guild = self.fake.guild
        wanted = normalise(value.lstrip("@"))
        for role in guild.roles.values():
            if normalise(role.name.lstrip("@")) == wanted:
                return role
        return None

    # -- buttons and selects ----------------------------------------------------------------------

    def _candidates(self, user: FakeUser) -> list[FakeMessage]:
        """Messages the user can see, newest first: the current channel first, then everywhere else."""
        world = self.fake.world
        visible = [
            m
            for m in world.messages.values()
            if not m.deleted and not m.loading and m.is_visible_to(user) and m.all_components
        ]
        here = [m for m in visible if m.channel_id == self.channel.id]
        elsewhere = [m for m in visible if m.channel_id != self.channel.id]
        return list(reversed(here)) + list(reversed(elsewhere))

    async def _click(self, user: FakeUser, words: list[str]) -> None:
        wanted = " ".join(words).strip()
        if not wanted:
            raise CommandError("click what? e.g. click Accept, click Roll")
        key = normalise(wanted)
        disabled_seen: tuple[FakeMessage, ComponentInfo] | None = None
        for message in self._candidates(user):
            buttons = [b for b in message.buttons if b.custom_id and not b.url]
            found = _best_matches(
                key, wanted, buttons, lambda b: [button_label(b), b.label or ""], lambda b: b.custom_id
            )
            if not found:
                continue
            enabled = [b for b in found if not b.disabled]
            if not enabled:
                disabled_seen = disabled_seen or (message, found[0])
                continue
            if len(enabled) > 1:
                shown = ", ".join(f"[{button_label(b)}] ({b.custom_id})" for b in enabled)
                raise CommandError(f"{wanted!r} could be any of {shown}; say which (label or custom id)")
            button = enabled[0]
            self._note_elsewhere(message)
            with self._reporting():
                await self.fake.click(user, message, str(button.custom_id), idle=True)
            return
        if disabled_seen is not None:
            message, button = disabled_seen
            raise CommandError(
                f"[~{button_label(button)}~] is disabled on the latest message that shows it "
                f"(in {self.label(self.fake.world.channels[message.channel_id])})"
            )
        raise CommandError(f"no button {wanted!r} that {user.name} can see{self._controls_hint(user)}")

    async def _select(self, user: FakeUser, words: list[str]) -> None:
        if not words:
            raise CommandError('select what? e.g. select "Stack on 7" or select 2')
        attempts: list[tuple[str | None, str]] = [(None, " ".join(words))]
        if len(words) >= 2:
            attempts.append((words[0], " ".join(words[1:])))
        for placeholder, wanted in attempts:
            # Several options of one select at once (the cards to discard): "A" + "B".
            parts = [part.strip() for part in wanted.split(" + ")] if " + " in wanted else [wanted]
            found = [self._find_option(user, placeholder, part) for part in parts]
            if any(picked is None for picked in found):
                continue
            chosen = [picked for picked in found if picked is not None]
            message, select, _ = chosen[0]
            if any((m.id, s.custom_id) != (message.id, select.custom_id) for m, s, _ in chosen):
                raise CommandError(f"{wanted!r}: pick several options of one select at a time")
            values = [str(option.get("value")) for _, _, option in chosen]
            if len(set(values)) != len(values):
                raise CommandError(f'{wanted!r} names one option twice; name each copy ("copy 2")')
            self._note_elsewhere(message)
            with self._reporting():
                await self.fake.select(user, message, str(select.custom_id), values, idle=True)
            return
        what = f"{words[0]!r} with an option {' '.join(words[1:])!r}" if len(words) >= 2 else repr(words[0])
        raise CommandError(f"no select {what} that {user.name} can see{self._controls_hint(user)}")

    def _find_option(
        self, user: FakeUser, placeholder: str | None, wanted: str
    ) -> tuple[FakeMessage, ComponentInfo, dict[str, Any]] | None:
        key = normalise(wanted)
        for message in self._candidates(user):
            selects = [s for s in message.selects if s.custom_id and not s.disabled and s.type == 3]
            if placeholder is not None:
                selects = [s for s in selects if _text_matches(normalise(placeholder), s.placeholder or "")]
            pairs: list[tuple[ComponentInfo, dict[str, Any]]] = []
            for select in selects:
                options = [dict(o) for o in select.options]
                found = _best_matches(
                    key,
                    wanted,
                    options,
                    lambda o: [option_text(o), str(o.get("label", ""))],
                    _value_of,
                    numbered=True,
                )
                pairs += [(select, o) for o in found]
            if not pairs:
                continue
            if len(pairs) > 1:
                shown = "; ".join(f'"{s.placeholder}" → "{option_text(o)}"' for s, o in pairs)
                raise CommandError(
                    f'{wanted!r} could be any of: {shown}; say which, e.g. select "{pairs[0][0].placeholder}" '
                    f'"{pairs[0][1].get("label")}"'
                )
            select, option = pairs[0]
            return message, select, option
        return None

    def _controls_hint(self, user: FakeUser) -> str:
        for message in self._candidates(user):
            labels = [f"[{button_label(b)}]" for b in message.buttons if not b.disabled and not b.url]
            labels += [f'"{s.placeholder}"' for s in message.selects if not s.disabled]
            if labels:
                where = self.label(self.fake.world.channels[message.channel_id])
                return f"; the latest controls {user.name} can see ({where}): {' '.join(labels)}"
        return f"; {user.name} sees no controls anywhere"

    def _note_elsewhere(self, message: FakeMessage) -> None:
        if message.channel_id != self.channel.id:
            self.out(f"(on a message in {self.label(self.fake.world.channels[message.channel_id])})")

    # -- what the bot did -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _reporting(self) -> Iterator[None]:
        """Around an action: afterwards print every message it created or changed, follow a new thread."""
        threads_before = {t.id for t in self.fake.threads()}
        try:
            yield
        finally:
            self._print_changes()
            new_threads = [t for t in self.fake.threads() if t.id not in threads_before]
            if new_threads:
                self.channel = new_threads[-1]
                parent = self.fake.world.channels.get(self.channel.parent_id or 0)
                back = f'; "in {self.label(parent)}" goes back' if parent else ""
                self.out(f"(the bot opened a thread: now in {self.label(self.channel)}{back})")

    def _print_changes(self) -> None:
        for message in list(self.fake.world.messages.values()):
            now = _seen(message)
            before = self._shown.get(message.id)
            if before == now or now.loading:
                continue
            self._shown[message.id] = now
            if now.deleted:
                if before is not None and not before.deleted:
                    self.out(f"[{self._where_of(message)}] (a message was deleted: {self._gist(message)})")
                continue
            if before is None or before.loading:
                self._print_message(message, "")
            elif (before.content, before.embeds, before.attachments) == (
                now.content,
                now.embeds,
                now.attachments,
            ):
                self.out(
                    f"[{self._where_of(message)}] {self._author(message)} (edited: the controls){self._only(message)}:"
                )
                self._indent(component_lines(message) or ["(no controls any more)"])
            else:
                self._print_message(message, " (edited)")

    def _print_message(self, message: FakeMessage, status: str) -> None:
        world = self.fake.world
        self.out(f"[{self._where_of(message)}] {self._author(message)}{status}{self._only(message)}:")
        lines: list[str] = []
        if message.content:
            lines += render_mentions(message.content, world).split("\n")
        for embed in message.embeds:
            lines += embed_lines(embed, world)
        for attachment in message.attachments:
            lines.append(self._save(attachment))
        lines += component_lines(message)
        self._indent(lines or ["(empty message)"])

    def _indent(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.out(f"  {line}".rstrip())

    def _where_of(self, message: FakeMessage) -> str:
        return self.label(self.fake.world.channels[message.channel_id])

    def _author(self, message: FakeMessage) -> str:
        return message.author.name

    def _only(self, message: FakeMessage) -> str:
        if message.visible_to is None:
            return ""
        user = self.fake.world.users.get(message.visible_to)
        return f" (only {user.name if user else message.visible_to} sees this)"

    def _gist(self, message: FakeMessage) -> str:
        text = render_mentions(message.content, self.fake.world).replace("\n", " ")
        return repr(text if len(text) <= 50 else text[:47] + "...")

    def _show(self, how_many: str) -> None:
        arg = how_many.strip().lower()
        if arg and arg != "all" and not arg.isdigit():
            raise CommandError("show how many? show, show 10, show all")
        messages = self.fake.messages_in(self.channel)
        if arg != "all":
            messages = messages[-(int(arg) if arg else 5) :]
        if not messages:
            self.out(f"(nothing in {self.label(self.channel)} yet)")
        for message in messages:
            if not message.loading:
                self._print_message(message, "")
                self._shown[message.id] = _seen(message)

    def _save(self, attachment: FakeAttachment) -> str:
        kind = "picture" if attachment.filename.lower().endswith(_IMAGE_SUFFIXES) else "file"
        path = self._saved_by_attachment.get(attachment.id)
        if path is None:
            self.pictures.mkdir(parents=True, exist_ok=True)
            path = self.pictures / f"{self._next_number:04d}-{Path(attachment.filename).name}"
            self._next_number += 1
            path.write_bytes(attachment.data)
            self._saved_by_attachment[attachment.id] = path
            self.saved.append(path)
        return f"{kind}: {path}"

    def _first_free_number(self) -> int:
        """Numbering goes on after the pictures already in the folder (none is overwritten)."""
        if not self.pictures.is_dir():
            return 1
        numbers = [int(m[1]) for p in self.pictures.iterdir() if (m := _NUMBERED.match(p.name))]
        return max(numbers, default=0) + 1

    # -- problems ---------------------------------------------------------------------------------

    def _problems_now(self) -> tuple[int, int, int, int]:
        fake = self.fake
        return (len(fake.errors), len(fake.violations), len(fake.spec_errors), len(fake.unhandled))

    def _report_problems(self) -> bool:
        """Print what went wrong on the bot's side since the last call; True when the bot failed."""
        fake = self.fake
        errors, violations, spec_errors, unhandled = self._problem_counts
        self._problem_counts = self._problems_now()
        for record in fake.errors[errors:]:
            text = f"{record.name}: {record.getMessage()}"
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                text += f" ({exc.__class__.__name__}: {_first_line(exc)})"
            self.out(f"error: the bot failed: {text}")
            if self.verbose and exc is not None:
                self.out("".join(traceback.format_exception(exc)).rstrip())
        for problem in fake.violations[violations:] + fake.spec_errors[spec_errors:]:
            self.out(f"warning: Discord would refuse this: {problem}")
        for request in fake.unhandled[unhandled:]:
            self.out(f"warning: the fake Discord has no route for {request.method} {request.path}")
        return len(fake.errors) > errors


async def _each(lines: Iterable[str] | AsyncIterable[str]) -> AsyncIterator[str]:
    if isinstance(lines, AsyncIterable):
        async for line in lines:
            yield line
    else:
        for line in lines:
            yield line


def _value_of(option: dict[str, Any]) -> str:
    return str(option.get("value"))


def _text_matches(key: str, text: str) -> bool:
    return key == normalise(text) or key in normalise(text)


def _best_matches(
    key: str,
    raw: str,
    items: Sequence[Any],
    texts: Callable[[Any], list[str]],
    ident: Callable[[Any], str | None],
    *,
    numbered: bool = False,
) -> list[Any]:
    """Items whose text equals what was typed, else whose id does, else (``numbered``) the one with
    that number, else that start with it, else that contain it (ignoring case and spacing)."""
    levels: list[Callable[[Any], bool]] = [
        lambda item: any(normalise(t) == key for t in texts(item)),
        lambda item: ident(item) == raw,
        lambda item: (
            numbered and key.isdigit() and 0 < int(key) <= len(items) and item is items[int(key) - 1]
        ),
        lambda item: any(normalise(t).startswith(key) for t in texts(item)),
        lambda item: any(key in normalise(t) for t in texts(item)),
    ]
    for level in levels:
        found = [item for item in items if level(item)]
        if found:
            return found
    return []

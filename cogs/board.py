"""Turns a match into a Discord message: the picture, what just happened, whose turn, the controls."""

from __future__ import annotations

import io
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace

import discord

from bot.session import Session, Step, deciding_seat, in_window, told
from bot.store import MatchRecord
from cogs.control_kinds import (
    GameButton,
    GameSelect,
    HandButton,
    OpenRulesButton,
    RematchButton,
    ResignAskButton,
    StandingAnswerButton,
    StopAfterGameButton,
)
from cogs.help import add_rules_button
from cogs.mentions import pings
from cogs.panels import PANELS
from cogs.panels.base import CONFIRM, UNDO, ButtonSpec, HandPanel, PanelSpec, SelectSpec, Style
from engine import GameView, Outcome
from engine.live_clock import reserve_text
from render import Caption, render_board, seat_style

NEUTRAL_COLOUR = 0x888888
MAX_ROWS = 5  # Discord's rows of controls per message
DESCRIPTION_LIMIT = 3800  # below Discord's 4096 for an embed description, leaving room for the prompt
_STYLES = {
    Style.PRIMARY: discord.ButtonStyle.primary,
    Style.SECONDARY: discord.ButtonStyle.secondary,
    Style.SUCCESS: discord.ButtonStyle.success,
    Style.DANGER: discord.ButtonStyle.danger,
}


@dataclass(frozen=True, slots=True)
class BoardMessage:
    content: str
    embed: discord.Embed
    file: discord.File
    view: discord.ui.View | None
    mentions: discord.AllowedMentions


def in_brackets(*parts: str) -> str:
    """`` (a, b)`` from the non-empty parts, or nothing: "**Backgammon** (5-point match, unrated)"."""
    text = ", ".join(p for p in parts if p)
    return f" ({text})" if text else ""


def options_text(session: Session) -> str:
    """The match's options that differ from the game's defaults, in words ("5-point match")."""
    return session.variant.describe_options(session.record.options)


def build_view(session: Session, spec: PanelSpec, *, public: bool = False) -> discord.ui.View | None:
    """The controls of ``spec``; on the public board, private controls give way to "My hand".

    A public board's controls carry the committed version (``board_version``): everyone sees them, so
    they say nothing of a turn in progress (its steps and undos change only the match's version)."""
    version = session.record.board_version if public else session.version
    hand = public and isinstance(PANELS[session.variant.key], HandPanel)
    rows = () if public and spec.private else spec.rows
    # Every live public board carries the match's own Resign (confirmed privately).
    resign = public and session.record.status == "active" and len(rows) < MAX_ROWS
    if not rows and not hand and not resign:
        return None
    view = discord.ui.View(timeout=None)
    for row_index, row in enumerate(rows):
        if isinstance(row, SelectSpec):
            view.add_item(GameSelect.build(session.id, version, row_index, row))
        else:
            for button in row:
                view.add_item(GameButton.build(session.id, version, button, _STYLES[button.style], row_index))
    if hand:
        # On the row after the game's controls (a panel of a game with hands leaves one free).
        hand_button = HandButton.build(session.id)
        hand_button.item.row = len(rows)
        view.add_item(hand_button)
    if resign:
        resign_button = ResignAskButton.build(session.id)
        resign_button.item.row = len(rows)
        view.add_item(resign_button)
    if public and len(rows) < MAX_ROWS:
        # Rules beside Resign, on every live board, so the controls below the game's stay one row.
        rules_button = OpenRulesButton.build(session.variant.key)
        rules_button.row = len(rows)
        view.add_item(rules_button)
    if resign and spec.stop_after_game:
        stop_button = StopAfterGameButton.build(session.id)
        stop_button.item.row = len(rows)
        view.add_item(stop_button)
    return view


def panel_for(session: Session, selection: str = "", *, draft: bool = False) -> PanelSpec:
    """The deciding seat's controls, read from that seat's own view of the position (with ``draft``:
    of the position after its turn's steps that are not final yet)."""
    state = session.position if draft else session.state
    assert state is not None and session.state is not None
    seat = deciding_seat(session.state)
    if seat is None:
        return PanelSpec()
    return PANELS[session.variant.key].controls(state.view(seat), selection)


@dataclass(frozen=True, slots=True)
class PrivateMessage:
    """A reply only one player sees: what they hold, their turn in progress, their controls."""

    content: str
    view: discord.ui.View | None
    embed: discord.Embed | None = None
    file: discord.File | None = None


def drafting(session: Session, seat: int) -> bool:
    """Whether ``seat`` has a turn in progress with steps that are not final yet (a draft)."""
    return (
        bool(session.draft)
        and session.record.status == "active"
        and session.state is not None
        and deciding_seat(session.state) == seat
    )


def private_reply(
    session: Session,
    seat: int,
    steps: Sequence[Step] = (),
    selection: str = "",
    picture: bytes | None = None,
    *,
    turn: bool = False,
) -> PrivateMessage:
    """The private message for ``seat``: what it holds, what just happened as it may read it, its turn
    in progress (the steps only it sees yet, with the picture of that position and Undo) and its
    controls when the decision is its own. ``turn``: show it as a turn in progress (with its picture)
    even when every step has been taken back."""
    state = session.state
    assert state is not None
    draft = drafting(session, seat) or (
        turn and session.record.status == "active" and deciding_seat(state) == seat
    )
    position = session.position if draft else state
    assert position is not None
    view = position.view(seat)
    panel = PANELS[session.variant.key]
    lines = [f"**{session.variant.title} · match #{session.id}** (only you see this)"]
    lines += _turn_so_far(session, seat) if draft else told(steps, seat)
    if isinstance(panel, HandPanel):
        lines.append(panel.hand_text(view))
    standing: str | None = None
    if session.record.status == "active" and session.record.always_pass[seat]:
        lines.append(
            "Your standing answer in this match: **always pass** (your response windows pass as they open)."
        )
        standing = "ask"
    now = _private_now(session, seat, view, selection, draft=draft)
    lines += now.lines
    controls = now.controls
    standing = standing or now.standing
    if standing is not None:
        controls = with_standing_answer(controls, session, standing)
    embed, file = _turn_picture(session, seat, picture)
    return PrivateMessage("\n".join(lines)[:2000], controls, embed, file)


def _turn_so_far(session: Session, seat: int) -> list[str]:
    """``seat``'s turn in progress, as only it sees it yet: its steps so far, one line each."""
    if not session.draft:
        return ["Every step is taken back."]
    # A play told checker by checker is one line, the play so far, not the play again per step.
    return [
        "**Your turn so far** (your opponent sees it when it is complete):",
        *(f"{i}. {text}" for i, text in enumerate(told(session.draft, seat), 1)),
    ]


@dataclass(frozen=True, slots=True)
class PrivateNow:
    """What a player's private reply says of the present: what they are to do (or who is), their
    controls if the decision is theirs, and the standing answer offered with them (``pass``)."""

    lines: list[str]
    controls: discord.ui.View | None = None
    standing: str | None = None


def _private_now(session: Session, seat: int, view: GameView, selection: str, *, draft: bool) -> PrivateNow:
    """What ``seat`` is to do now, with its controls when the decision is its own; or who is deciding."""
    state = session.state
    assert state is not None
    active = session.record.status == "active"
    if active and deciding_seat(state) == seat:
        spec = panel_for(session, selection, draft=draft)
        if draft:
            if session.awaiting_confirmation:
                said = "**Your turn is complete:** confirm it, or take a step back."
            else:
                said = f"**Your next step:** {view.phase_text}."
            return PrivateNow([said], build_view(session, _with_draft_row(session, spec)))
        if spec.private:
            lines = [f"**Your decision:** {view.phase_text}."]
            if in_window(state):
                lines.append(window_line(session.record.window_at))
                return PrivateNow(lines, build_view(session, spec), "pass")
            return PrivateNow(lines, build_view(session, spec))
        return PrivateNow(["It is your turn: use the controls on the board."])
    if active and state.secret_decision() and not in_window(state):
        # Which private step of their turn the opponent is at would show what the public board does
        # not while it waits for them (``turn_driver.board_held``); it says where they are.
        mover = deciding_seat(state)
        assert mover is not None
        return PrivateNow([f"Now: {session.variant.seat_names[mover]} is taking their turn."])
    if active:
        return PrivateNow([f"Now: {view.phase_text}."])
    return PrivateNow([])


def _turn_picture(
    session: Session, seat: int, picture: bytes | None
) -> tuple[discord.Embed | None, discord.File | None]:
    """The picture of ``seat``'s turn in progress, in its embed (none without a picture)."""
    if picture is None:
        return None, None
    embed = discord.Embed(
        title=f"Your turn so far · match #{session.id}"
        if session.draft
        else f"Your turn · match #{session.id}",
        colour=seat_colour(session, seat),
    )
    embed.set_image(url="attachment://turn.png")
    return embed, discord.File(io.BytesIO(picture), filename="turn.png")


def window_line(window_at: float | None) -> str:
    """The private reply's line on an open response window's wait."""
    if window_at is None:
        return "If you do not answer, the window passes by itself."
    return f"If you do not answer, the window passes by itself <t:{int(window_at)}:R>."


def with_standing_answer(view: discord.ui.View | None, session: Session, op: str) -> discord.ui.View:
    """``view`` with the player's standing-answer button (``op``: "pass" for "Always pass in this
    match", "ask" for "Ask me in windows") on a row of its own below the controls."""
    view = view or discord.ui.View(timeout=None)
    button = StandingAnswerButton.build(session.id, session.version, op)
    below = _last_row_in_use(view) + 1
    button.item.row = below if below < MAX_ROWS else None
    view.add_item(button)
    return view


def _last_row_in_use(view: discord.ui.View) -> int:
    """The last row ``view``'s controls fill (-1 if none), placing the ones without a row where
    Discord does: explicit rows first, then each free item on the first row with room."""
    widths = [0] * MAX_ROWS
    for item in view.children:
        if item.row is not None:
            widths[item.row] += item.width
    for item in view.children:
        if item.row is None:
            free = next((row for row, width in enumerate(widths) if width + item.width <= 5), None)
            if free is not None:
                widths[free] += item.width
    return max((row for row, width in enumerate(widths) if width), default=-1)


def _with_draft_row(session: Session, spec: PanelSpec) -> PanelSpec:
    """The panel of a turn in progress with a last row: Undo while there is a step to take back,
    Confirm when the complete turn waits for it."""
    buttons = []
    if session.awaiting_confirmation:
        buttons.append(ButtonSpec("Confirm", CONFIRM, Style.SUCCESS, emoji="✅"))
    if session.draft:
        buttons.append(ButtonSpec("Undo", UNDO, Style.SECONDARY, emoji="↩️"))
    rows = spec.rows if not session.awaiting_confirmation else ()
    if buttons:
        rows = (*rows[: MAX_ROWS - 1], tuple(buttons))
    return PanelSpec(rows=rows, notes=spec.notes, private=spec.private)


def seat_colour(session: Session, seat: int) -> int:
    """The embed colour of ``seat``: the colour its tokens have on the game's board picture."""
    return seat_style(session.variant.key, seat).hex


NAME_LIMIT = 32
"""Display names are cut to this many characters before the picture elides them to fit."""


NAME_TTL = 600.0
"""Seconds a display name is reused before it is asked for again (a rename shows within that)."""

_name_cache: weakref.WeakKeyDictionary[discord.Client, dict[tuple[int, int], tuple[str, float]]] = (
    weakref.WeakKeyDictionary()
)


async def player_names(client: discord.Client, session: Session) -> tuple[str, str]:
    """The players' display names in the match's server (their nickname there, else their Discord
    name), as plain strings for the picture; "" for one that cannot be found. Kept for ``NAME_TTL``
    seconds, so a click does not wait for Discord each time."""
    return await record_names(client, session.record)


async def record_names(client: discord.Client, record: MatchRecord) -> tuple[str, str]:
    """``player_names`` of a stored match."""
    guild_id = record.guild_id
    guild = client.get_guild(guild_id) if guild_id is not None else None
    cache = _name_cache.setdefault(client, {})
    now = time.monotonic()
    names: list[str] = []
    for user_id in record.players:
        key = (guild_id or 0, user_id)
        cached = cache.get(key)
        if cached is not None and now - cached[1] < NAME_TTL:
            names.append(cached[0])
            continue
        try:
            if guild is not None:
                member = guild.get_member(user_id) or await guild.fetch_member(user_id)
                name = member.display_name
            else:
                user = client.get_user(user_id) or await client.fetch_user(user_id)
                name = user.display_name
        except discord.HTTPException:
            name = ""
        name = name[:NAME_LIMIT]
        cache[key] = (name, now)
        names.append(name)
    return names[0], names[1]


async def match_label(
    client: discord.Client, computer_ids: set[int], record: MatchRecord, user_id: int
) -> str:
    """A match as a picker lists it: ``#12 · ring vs Bob`` (or both players, for someone not in it)."""
    found = await record_names(client, record)
    names = [
        "the computer" if player in computer_ids else (name or f"user {player}")
        for player, name in zip(record.players, found, strict=True)
    ]
    if user_id not in record.players:
        return f"#{record.id} · {record.game}: {names[0]} vs {names[1]}"
    return f"#{record.id} · {record.game} vs {names[1] if record.players[0] == user_id else names[0]}"


def sentence(text: str) -> str:
    """``text`` as a full sentence: a capital first letter and a full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def how_won(session: Session, outcome: Outcome) -> str:
    """How the winner won, as a sentence that follows "@alice wins: ". The game's description
    ("<seat> wins: <how>") loses its first part, which the mention replaces."""
    text = outcome.description
    if outcome.winner is not None:
        prefix = f"{session.variant.seat_names[outcome.winner]} wins: "
        text = text.removeprefix(prefix)
    return sentence(text)


def _player_line(session: Session) -> str:
    names = session.variant.seat_names
    a, b = session.record.players
    return f"<@{a}> ({names[0]}) vs <@{b}> ({names[1]})"


def _step_lines(steps: Sequence[Step]) -> list[str]:
    """The public texts of ``steps``, a run of continuing texts (a play told checker by checker) by
    its latest."""
    lines = told(steps, None)
    text = "\n".join(lines)
    while len(text) > DESCRIPTION_LIMIT and len(lines) > 1:
        lines = ["…", *lines[2:]] if lines[0] == "…" else ["…", *lines[1:]]
        text = "\n".join(lines)
    return lines


def board_message(
    session: Session,
    steps: Sequence[Step] = (),
    *,
    selection: str = "",
    outcome: Outcome | None = None,
    headline: str | None = None,
    rating_changes: Sequence[tuple[int, float, float]] = (),
    names: tuple[str, str] = ("", ""),
    picture: bytes | None = None,
    timeout_at: float | None = None,
    window_at: float | None = None,
    now: float | None = None,
) -> BoardMessage:
    """The whole message for the match's current position (with rating changes once it is over).

    ``names`` are the players' display names (``player_names``) for the picture. An ``outcome`` that
    is not on the board (a resignation, a timeout) is drawn on the picture too. ``picture``: the board
    picture already drawn (``board_picture`` says what to draw), else it is drawn here. ``timeout_at``:
    the deadline of the turn this board starts, when its clock starts as it is shown; ``window_at``
    likewise for a response window this board opens. ``now``: the moment it is drawn, at which a
    running live clock's reserve is shown (None: the reserves as charged at the last decision).
    """
    state = session.state
    assert state is not None
    spec = panel_for(session, selection) if session.record.status == "active" else PanelSpec()
    public = state.view(None)
    if outcome is not None:
        # A resignation or a timeout is said once, by the message's first line.
        steps = [s for s in steps if s.text != outcome.description]
    lines = [_player_line(session), ""]
    if headline:
        lines.append(headline)
    lines += _step_lines(steps)
    lines += list(spec.notes)
    if rating_changes:
        lines.append(_ratings_line(rating_changes))
    seat = deciding_seat(state) if session.record.status == "active" else None
    outcome = outcome or state.outcome()
    if outcome is not None and session.record.status != "active":
        call = _result_call(session, outcome)
    elif seat is not None and in_window(state):
        call = _window_call(session, seat, public, spec, window_at)
    elif seat is not None:
        call = _turn_call(session, seat, public, spec, timeout_at, now)
    else:
        call = BoardCall(sentence(public.phase_text), NEUTRAL_COLOUR)
    lines += call.lines
    content, colour = call.content, call.colour
    embed = discord.Embed(
        title=f"{session.variant.title} · match #{session.id}",
        description="\n".join(lines)[:4096],
        colour=colour,
    )
    embed.set_image(url="attachment://board.png")
    # One turn counter, as the game's players count it: the picture's header shows the same.
    embed.set_footer(text=public.turn_label or "Before the first turn")
    if picture is None:
        picture = render_board(*board_picture(session, outcome, names, now))
    file = discord.File(io.BytesIO(picture), filename="board.png")
    return BoardMessage(
        content=content[:2000],
        embed=embed,
        file=file,
        view=_board_view(session, spec),
        mentions=pings(*session.record.players),
    )


def _ratings_line(rating_changes: Sequence[tuple[int, float, float]]) -> str:
    return "Ratings: " + ", ".join(
        f"<@{user}> {before:.0f} → {after:.0f} ({after - before:+.1f})"
        for user, before, after in rating_changes
    )


@dataclass(frozen=True, slots=True)
class BoardCall:
    """What a board calls out: its message's first line (who is to act, or the result), the colour of
    its embed, and the lines that say it more fully at the end of the embed (a deadline, the clocks)."""

    content: str
    colour: int
    lines: tuple[str, ...] = ()


def _result_call(session: Session, outcome: Outcome) -> BoardCall:
    """The match is over: who won and how (or the draw), and how much time each had left."""
    winner = outcome.winner
    options = in_brackets(options_text(session))
    content = (
        f"🏆 <@{session.user_of(winner)}> wins{options}: {how_won(session, outcome)}"
        if winner is not None
        else f"The match{options} is drawn: {sentence(outcome.description)}"
    )
    colour = seat_colour(session, winner) if winner is not None else NEUTRAL_COLOUR
    # How much time each had left.
    clocks = (clock_line(session, None),) if session.record.clock_left is not None else ()
    return BoardCall(content, colour, clocks)


def _window_call(
    session: Session, seat: int, public: GameView, spec: PanelSpec, window_at: float | None
) -> BoardCall:
    """A response window: the same words whatever the hand holds, and a wait, not a forfeit."""
    lines = [f"**{public.phase_text}**"]
    deadline = session.record.window_at or window_at
    when = ""
    if deadline is not None:
        due = int(deadline)
        when = f" <t:{due}:R>"
        lines.append(f"⏳ Answer by <t:{due}:f> (<t:{due}:R>), or the window passes by itself.")
    how = "open **My hand** to answer" if spec.private else "answer with the buttons below"
    content = f"<@{session.user_of(seat)}>: {how}, or it passes by itself{when}."
    return BoardCall(content, seat_colour(session, seat), tuple(lines))


def _turn_call(
    session: Session,
    seat: int,
    public: GameView,
    spec: PanelSpec,
    timeout_at: float | None,
    now: float | None,
) -> BoardCall:
    """``seat``'s turn: whose it is, what they decide, and by when (their clock, or the turn's deadline)."""
    lines = [f"**{public.phase_text}**"]
    deadline = session.record.timeout_at or timeout_at
    if session.record.clock_left is not None:
        lines.append(clock_line(session, deadline, now))
    elif deadline is not None:
        # Discord shows a timestamp in each reader's own time zone, and counts down the relative one.
        due = int(deadline)
        lines.append(f"⏳ Play by <t:{due}:f> (<t:{due}:R>), or the match is lost on time.")
    where = " Open **My hand** to decide." if spec.private else ""
    content = f"<@{session.user_of(seat)}>, your turn ({session.variant.seat_names[seat]}).{where}"
    return BoardCall(content, seat_colour(session, seat), tuple(lines))


def _board_view(session: Session, spec: PanelSpec) -> discord.ui.View | None:
    """The board's controls: the game's while it is played, Rematch once it is finished, and Rules."""
    view = build_view(session, spec, public=True)
    if session.record.status == "finished":
        return rematch_view(session.id, session.variant.key)
    if view is None or session.record.status != "active":
        view = view or discord.ui.View(timeout=None)
        add_rules_button(view, session.variant.key)  # on every board, after the game's controls
    return view


def board_picture(
    session: Session,
    outcome: Outcome | None = None,
    names: tuple[str, str] = ("", ""),
    now: float | None = None,
) -> tuple[GameView, Caption]:
    """What the public board picture of the match's committed position shows: everyone's view, the
    players' names, an ending that is not on the board (a resignation, a timeout), and a live
    clock's reserves as they stand at ``now`` (``caption_of``)."""
    state = session.state
    assert state is not None
    ending = outcome if outcome is not None and state.outcome() is None else None
    return state.view(None), caption_of(session, names, ending, now)


def turn_picture(
    session: Session, seat: int, names: tuple[str, str] = ("", ""), now: float | None = None
) -> tuple[GameView, Caption]:
    """What the private picture of ``seat``'s turn in progress shows: its own view of the position
    after the steps only it sees yet (a live clock's reserves as they stand at ``now``). A complete
    turn waiting for its Confirm already hands the turn over: the caption carries where the turn
    began, so the picture still says ``seat`` is moving."""
    position = session.position
    assert position is not None
    caption = caption_of(session, names, now=now)
    if session.awaiting_confirmation and session.state is not None:
        caption = replace(caption, turn_start=session.state.view(seat))
    return position.view(seat), caption


def caption_of(
    session: Session, names: tuple[str, str], ending: Outcome | None = None, now: float | None = None
) -> Caption:
    """A picture's caption: the players' names, an ending not on the board, and a live clock's
    reserves with the one running, as they stand at ``now`` (the moment it is drawn; None: as
    charged at the last decision)."""
    left = session.record.clock_left_at(now)
    if left is None:
        return Caption(names=names, ending=ending)
    clocks = (reserve_text(left[0]), reserve_text(left[1]))
    # The picture is drawn before it is shown, which is when the decider's clock starts: mark the
    # seat that must act (as the text line does), not the clock that ran for the board before.
    running = deciding_seat(session.state) if session.state is not None else session.record.clock_seat
    return Caption(names=names, ending=ending, clocks=clocks, clock_running=running)


def clock_line(session: Session, runs_out: float | None, now: float | None = None) -> str:
    """The board's line of a live clock: both reserves as they stand at ``now`` (the moment the
    board is drawn; None: as charged at the last decision) and when the running one runs out (a
    timestamp Discord counts down itself), or that it starts when the board is shown."""
    record = session.record
    left_now = record.clock_left_at(now)
    assert left_now is not None and record.clock_delay is not None
    names = session.variant.seat_names
    reserves = " · ".join(f"{names[seat]} {reserve_text(left)}" for seat, left in enumerate(left_now))
    seat = record.clock_seat if runs_out == record.timeout_at else None
    if seat is None and session.state is not None and runs_out is not None:
        seat = deciding_seat(session.state)  # its clock starts as this board is shown
    if runs_out is None or seat is None:
        return f"⏱️ {reserves}"
    delay = f" ({record.clock_delay:g} s delay first)" if record.clock_delay else ""
    return f"⏱️ {reserves} — {names[seat]}'s clock runs out <t:{int(runs_out)}:R>{delay}."


def rematch_view(match_id: int, game: str, *, disabled: bool = False) -> discord.ui.View:
    """A finished match's Rematch button (greyed out once its time has run out) and its Rules."""
    view = discord.ui.View(timeout=None)
    button = RematchButton.build(match_id)
    button.item.disabled = disabled
    view.add_item(button)
    add_rules_button(view, game)
    return view


def disabled_copy(message: discord.Message | None) -> discord.ui.View | None:
    """The message's controls, greyed out (for a board message whose turn is over)."""
    if message is None or not message.components:
        return None
    view = discord.ui.View.from_message(message, timeout=None)
    for item in view.children:
        if isinstance(item, discord.ui.Button | discord.ui.Select):
            item.disabled = True
    return view

"""``/challenge ... position:<code>`` (issue 24, positions in): a backgammon match, with a friend or
the computer, started from a GNU Backgammon ID, "ID:match ID" or an XGID; unrated; the position shown
on the challenge; a code that cannot be read or played refused privately with nothing created."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.client import RingsideBot
from engine.backgammon import position_start
from engine.backgammon.game import BackgammonState, Phase
from engine.backgammon.variant import VARIANT
from fakediscord import FakeDiscord
from fakediscord.matches import match_id_of, resign
from fakediscord.world import FakeChannel, FakeMessage
from tests.support import start_bot, stop_bot

# GNU Backgammon's "new match 7": player 0 (our seat 0, the challenger) won the opening roll 4-3.
GNUBG = "4HPwATDgc/ABMA:MAHuAAAAAAAE"
# A 2-cube owned by the top player (seat 0), 7-point match at 4-2, the bottom player (seat 1) on 6-3.
XGID = "XGID=b----aC-B---------------bA:2:-1:1:63:2:4:0:7:10"
POSITION_ID = "4HPwATDgc/ABMA"
SET = "from a set position, unrated"
# Both sides on the bar, three checkers each, against a closed board (issue 33).
NOBODY_MOVES = "27YBAHDbtgEAcA"


async def state_of(bot: RingsideBot, match_id: int) -> BackgammonState:
    record = await bot.store.matches.get(match_id)
    assert record is not None
    state = VARIANT.from_json(json.loads(record.state))
    return state


async def only_match(bot: RingsideBot) -> int:
    (match,) = await bot.store.matches.active()
    return match.id


def result_message(fake: FakeDiscord, thread: FakeChannel) -> FakeMessage:
    """The match's result (the trophy line), not whatever came last: its analysis may follow at once."""
    return next(m for m in reversed(fake.messages_in(thread)) if m.content.startswith("🏆"))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("code", "given", "shown", "turn", "dice", "kind"),
    [
        (XGID, {}, "7-point match", 1, (6, 3), "XGID"),
        (POSITION_ID, {"length": 3}, "3-point match", 0, None, ""),
    ],
)
async def test_a_friend_plays_from_an_xgid_or_a_bare_position_id(
    fake: FakeDiscord,
    tmp_path: Path,
    code: str,
    given: dict[str, object],
    shown: str,
    turn: int,
    dice: tuple[int, int] | None,
    kind: str,
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(
        alice, "challenge", {"opponent": bob, "game": "backgammon", "position": code, **given}
    )
    assert made.message is not None and f"**Backgammon** ({shown}, {SET})!" in made.message.content
    accept = next(c for c in made.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, made.message, accept, idle=True)
    thread = fake.thread_of(made.message)
    assert thread is not None
    match_id = match_id_of(fake.messages_in(thread)[-1])
    match = await bot.store.matches.get(match_id)
    assert match is not None and not match.rated
    state = await state_of(bot, match_id)
    assert (state.turn_seat, state.dice) == (turn, dice)
    if kind:
        assert dict(VARIANT.position_codes(state))[kind] == code
    else:
        assert dict(VARIANT.position_codes(state))["GNUBG ID"].startswith(code + ":")
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_friend_accepts_a_match_from_a_gnubg_id_shown_on_the_challenge(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(alice, "challenge", {"opponent": bob, "game": "backgammon", "position": GNUBG})
    assert made.message is not None and not made.ephemeral
    assert f"challenges you to **Backgammon** (7-point match, {SET})!" in made.message.content
    # The position is on the challenge, so Bob sees what he accepts.
    assert made.message.attachment("position.png").data.startswith(b"\x89PNG")
    challenge = await bot.store.challenges.get(1)
    assert challenge is not None and not challenge.rated
    assert challenge.options == {"length": 7, "rules": "standard", "position": GNUBG}
    accept = next(c for c in made.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, made.message, accept, idle=True)
    thread = fake.thread_of(made.message)
    assert thread is not None
    board = fake.messages_in(thread)[-1]
    match_id = match_id_of(board)
    match = await bot.store.matches.get(match_id)
    assert match is not None and not match.rated
    state = await state_of(bot, match_id)
    # Alice (seat 0) is on roll with the code's 4-3, and the codes read back as given.
    assert (state.turn_seat, state.phase, state.dice, state.length) == (0, Phase.PLAY, (4, 3), 7)
    assert dict(VARIANT.position_codes(state))["GNUBG ID"] == GNUBG
    assert alice.mention in board.content
    await resign(fake, alice, thread.id)
    result = result_message(fake, thread)
    assert result.content.startswith(f"🏆 {bob.mention} wins (7-point match, {SET}): ")
    assert "Ratings:" not in result.content
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_rated_challenge_from_a_position_is_unrated(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(
        alice,
        "challenge",
        {"opponent": bob, "game": "backgammon", "position": XGID, "rated": True, "length": 7},
    )
    assert made.message is not None and f"(7-point match, {SET})" in made.message.content
    assert "unrated, unrated" not in made.message.content
    challenge = await bot.store.challenges.get(1)
    assert challenge is not None and not challenge.rated
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("code", "length", "turn_seat", "dice", "kind"),
    [
        (XGID, 7, 1, (6, 3), "XGID"),
        (GNUBG, 7, 0, (4, 3), "GNUBG ID"),
        (POSITION_ID, 3, 0, None, "GNUBG ID"),
    ],
)
async def test_the_computer_plays_from_a_pasted_position(
    fake: FakeDiscord,
    tmp_path: Path,
    code: str,
    length: int,
    turn_seat: int,
    dice: tuple[int, int] | None,
    kind: str,
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    options: dict[str, object] = {"opponent": fake.bot_user, "game": "backgammon", "position": code}
    if code == POSITION_ID:
        options["length"] = 3  # a bare position ID takes the challenge's length
    done = await fake.slash(alice, "challenge", options, idle=True)
    assert not done.ephemeral
    match_id = await only_match(bot)
    match = await bot.store.matches.get(match_id)
    assert match is not None and not match.rated and match.options["position"] == code
    log = await bot.store.matches.action_log(match_id)
    # The match's first state is the pasted one (the computer may have played on since).
    first = VARIANT.new_game(match.options)
    assert (first.length, first.turn_seat, first.dice) == (length, turn_seat, dice)
    shown = dict(VARIANT.position_codes(first))[kind]
    assert shown == code if code != POSITION_ID else shown.startswith(code + ":")
    state = await state_of(bot, match_id)
    assert state.length == length and (state.turn_seat == turn_seat or log)
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"position": "not a code"}, "not a position code"),
        ({"position": "XGID=-b----E-C---eE---c-e---BB-:0:0:1:52:0:0:0:5:10"}, "at most 15 are allowed"),
        ({"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:5:0:0:5:10"}, "already won"),
        (
            {"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10", "length": 3},
            "5-point match, not 3",
        ),
        (
            {"position": "XGID=-b----F-C---eD---c-e----B-:0:0:1:52:0:0:0:5:10", "rules": "oldenglish"},
            "at most 5 checkers on a point",
        ),
        ({"position": "XGID=-b----E-C---eE---c-e----B-:1:0:1:52:0:0:0:1:10"}, "without the cube"),
        # Both sides on the bar against closed boards (issue 33): no roll can ever be played.
        ({"position": NOBODY_MOVES}, "nobody can ever move"),
    ],
)
async def test_a_bad_code_is_refused_privately_and_nothing_is_created(
    fake: FakeDiscord, tmp_path: Path, options: dict[str, object], reason: str
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for opponent in (bob, fake.bot_user):
        refused = await fake.slash(
            alice, "challenge", {"opponent": opponent, "game": "backgammon", **options}, idle=True
        )
        assert refused.ephemeral and refused.message is not None
        text = refused.message.content
        assert reason in text and "\n" not in text, text
    assert await bot.store.challenges.get(1) is None
    assert await bot.store.matches.active() == []
    assert [m for m in fake.messages_in(fake.channel) if not m.ephemeral] == []
    await stop_bot(bot)


def let_nobody_moves_through(monkeypatch: pytest.MonkeyPatch) -> None:
    """A challenge the refusal at /challenge does not catch (one made before it, or a rules bug that
    loops where it should not): the engine's check is switched off, so the turn driver's guard on
    the automatic actions is what answers."""
    monkeypatch.setattr(position_start, "check_someone_can_move", lambda board, rules: None)


@pytest.mark.asyncio
async def test_an_endless_start_against_the_computer_fills_in_the_thinking_answer(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: the dice rolled and passed by themselves forever, and the 'thinking…' answer was never
    filled in (a RuntimeError in the log). Now the guard ends in words for the player, and nothing
    is created."""
    let_nobody_moves_through(monkeypatch)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    done = await fake.slash(
        alice,
        "challenge",
        {"opponent": fake.bot_user, "game": "backgammon", "position": NOBODY_MOVES},
        idle=True,
    )
    assert done.errors == []
    answer = done.message
    assert answer is not None and not answer.loading
    assert "cannot be played" in answer.content and "nobody ever decides" in answer.content
    assert await bot.store.matches.active() == []
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_endless_start_closes_the_accepted_challenge_with_the_reason(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: Accept was acknowledged, the challenge stayed pending with a live Accept and no match.
    Now the challenge is closed, its buttons greyed out, and the message says why."""
    let_nobody_moves_through(monkeypatch)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(
        alice, "challenge", {"opponent": bob, "game": "backgammon", "position": NOBODY_MOVES}
    )
    assert made.message is not None
    accept = next(c for c in made.message.custom_ids if c.endswith(":accept"))
    clicked = await fake.click(bob, made.message, accept, idle=True)
    assert clicked.errors == []
    message = fake.world.messages[made.message.id]
    assert "cannot be played" in message.content and "nobody ever decides" in message.content
    assert all(component.disabled for component in message.all_components)
    challenge = await bot.store.challenges.get(1)
    assert challenge is not None and challenge.status != "pending"
    assert await bot.store.matches.active() == []
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_challenge_made_before_its_position_was_refused_is_closed_on_accept(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A challenge saved before the position was refused at /challenge: Accept tells both why, and
    closes it (the engine refuses the position when the match starts)."""
    let_nobody_moves_through(monkeypatch)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(
        alice, "challenge", {"opponent": bob, "game": "backgammon", "position": NOBODY_MOVES}
    )
    assert made.message is not None
    monkeypatch.undo()
    accept = next(c for c in made.message.custom_ids if c.endswith(":accept"))
    clicked = await fake.click(bob, made.message, accept, idle=True)
    assert clicked.errors == []
    message = fake.world.messages[made.message.id]
    assert "cannot be played: in that position nobody can ever move" in message.content
    assert all(component.disabled for component in message.all_components)
    challenge = await bot.store.challenges.get(1)
    assert challenge is not None and challenge.status == "cancelled"
    assert await bot.store.matches.active() == []
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_move_after_which_nobody_ever_decides_is_refused_in_words(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same guard in play: when more actions would play by themselves than it allows, the player
    is told, privately, and nothing is saved (the guard's limit lowered to 1 here, so that the
    computer's roll and reply after Alice's play are enough to reach it)."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon", "position": GNUBG}, idle=True
    )
    match_id = await only_match(bot)
    before = await bot.store.matches.get(match_id)
    assert before is not None
    monkeypatch.setattr("bot.match_writer.MAX_AUTOMATIC_ACTIONS", 1)
    moved = await fake.slash(alice, "move", {"notation": "13/9 24/21"}, channel=before.channel_id, idle=True)
    assert moved.errors == []
    answer = moved.private
    assert answer is not None and "cannot be played: nobody ever decides" in answer.content, answer
    after = await bot.store.matches.get(match_id)
    assert after is not None and after.version == before.version
    await stop_bot(bot)


# Money game codes (issue 33): the top player doubled a centred cube and the bottom player beavered
# it, beavers and no Jacoby rule; a money game's GNUBG ID with its match ID (Jacoby rule on).
BEAVERED = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:2:0:10"
MONEY_GNUBG = "4HPwATDgc/ABMA:cAkAAAAAAAAA"


@pytest.mark.asyncio
async def test_a_money_xgid_with_a_beaver_waiting_is_played_as_the_money_game_it_is(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Issue 33: refused before ('our games have no beavers'). The beaver stands: the doubler rolls,
    the cube at 4 is the beaverer's, the session has beavers; the challenge says which rules are in
    force and that it is unrated."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(alice, "challenge", {"opponent": bob, "game": "backgammon", "position": BEAVERED})
    assert made.message is not None and not made.ephemeral, made.message
    shown = f"money game, no Jacoby rule, beavers, {SET}"
    assert f"**Backgammon** ({shown})!" in made.message.content
    accept = next(c for c in made.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, made.message, accept, idle=True)
    thread = fake.thread_of(made.message)
    assert thread is not None and thread.name.endswith(f" · {shown}")
    match_id = match_id_of(fake.messages_in(thread)[-1])
    first = VARIANT.new_game((await bot.store.matches.get(match_id)).options)  # type: ignore[union-attr]
    assert first.money is not None and first.money.beavers and not first.money.jacoby
    assert (first.cube, first.cube_owner, first.turn_seat) == (4, 1, 0)
    await resign(fake, alice, thread.id)
    result = result_message(fake, thread)
    assert f"({shown})" in result.content
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("options", "shown"),
    [
        ({"position": BEAVERED}, f"money game, no Jacoby rule, beavers, {SET}"),
        ({"position": MONEY_GNUBG}, f"money game, Jacoby rule, {SET}"),
        ({"position": POSITION_ID, "length": 0, "jacoby": True}, f"money game, Jacoby rule, {SET}"),
        ({"length": 0, "jacoby": True, "clock": "5m+10s"}, "money game, Jacoby rule, clock 5m+10s"),
    ],
)
async def test_money_challenges_say_their_rules_and_that_a_set_position_is_unrated(
    fake: FakeDiscord, tmp_path: Path, options: dict[str, object], shown: str
) -> None:
    """Issue 33: challenges from a money game's XGID or GNUBG ID said neither 'unrated' nor 'from a set
    position', and jacoby:true (or a clock) was confirmed nowhere a player reads."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(alice, "challenge", {"opponent": bob, "game": "backgammon", **options})
    assert made.message is not None and not made.ephemeral, made.message
    unrated = "" if "position" in options else ", unrated"
    assert f"**Backgammon** ({shown}{unrated})!" in made.message.content
    played = await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon", **options}, idle=True
    )
    assert (
        played.message is not None and f"Backgammon ({shown}) against the computer" in played.message.content
    )
    await stop_bot(bot)

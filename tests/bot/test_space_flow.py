"""Space without the tapping: what the bot plays by itself in a player's own turn (a step with one
answer), what it still asks (a response window, whatever the hand holds), and how a turn is shown."""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.client import RingsideBot
from bot.clock import ManualClock
from bot.match_writer import MatchWriter
from bot.session import Session
from bot.steps import NO_ANSWER, Step, noted, step_of
from bot.turn_driver import board_held, next_automatic
from bot.turn_policy import PANEL_LIFETIME, BoardChange, asked, board_change, in_window
from cogs.board import board_message
from engine.space import cards as C
from engine.space.actions import Pass
from engine.space.game import Phase, SpaceView
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import (
    WINDOW,
    challenge_and_accept,
    live_board,
    play_one,
    private_panel,
    user_on_turn,
)
from tests.bot.test_space_discord import session_of
from tests.engine.space_helpers import make_state, play, with_fields
from tests.support import board_parts, start_bot, stop_bot

MENTION = re.compile(r"<@(\d+)>")
TURN_CHANGE = re.compile(r"'s turn \d+\.")


def people(seat: int) -> bool:
    return False


def automatic(state: object, held: bool = False) -> object:
    found = next_automatic(state, people, (False, False), random.Random(1), held)  # type: ignore[arg-type]
    return None if found is None else (found.seat, found.action)


def test_the_end_of_the_move_phase_is_played_by_itself_while_the_board_is_held_or_for_an_empty_hand() -> None:
    moved = make_state({"T1": 3, "E1": 20}, phase=Phase.MOVE, dice=(2, 5), dice_left=())
    assert moved.legal_actions() == (Pass(),) and moved.secret_decision() and moved.holds_nothing()
    assert automatic(moved) == (0, Pass())
    # A card of no use now: one answer still; asked where the board shows when it is answered, as for
    # a player who could play a card, played by itself while the board is held.
    useless = make_state(
        {"T1": 3, "E1": 20}, phase=Phase.MOVE, dice=(2, 5), dice_left=(), hands=((C.ESPIONAGE,), ())
    )
    assert useless.legal_actions() == (Pass(),) and automatic(useless) is None
    assert automatic(useless, held=True) == (0, Pass())
    # A card that could still be played keeps the question.
    holding = make_state(
        {"T1": 3, "E1": 20},
        phase=Phase.MOVE,
        dice=(2, 5),
        dice_left=(),
        hands=((C.DEFEND_THE_HOMEWORLD,), ()),
    )
    assert len(holding.legal_actions()) > 1 and automatic(holding, held=True) is None


def test_keep_the_roll_is_played_by_itself_while_the_board_is_held_or_for_an_empty_hand() -> None:
    rolled = make_state({"T1": 3, "E1": 20}, phase=Phase.ROLL_CARDS, dice=(2, 5))
    assert rolled.legal_actions() == (Pass(),)
    assert automatic(rolled) == (0, Pass())
    useless = make_state({"T1": 3, "E1": 20}, phase=Phase.ROLL_CARDS, dice=(2, 5), hands=((C.ESPIONAGE,), ()))
    assert useless.legal_actions() == (Pass(),) and automatic(useless) is None
    assert automatic(useless, held=True) == (0, Pass())
    holding = make_state(
        {"T1": 3, "E1": 20}, phase=Phase.ROLL_CARDS, dice=(2, 5), hands=((C.BATTLE_COMPUTERS,), ())
    )
    assert len(holding.legal_actions()) > 1 and automatic(holding, held=True) is None


def test_a_window_with_one_answer_is_still_asked() -> None:
    jam = make_state({"T1": 3, "E1": 20}, phase=Phase.JAM, dice=(2, 5))
    assert jam.to_move() == 1 and jam.legal_actions() == (Pass(),) and jam.secret_decision()
    assert automatic(jam) is None, "answering at once would tell that the hand holds no Jam"
    assert automatic(jam, held=True) is None


def test_the_board_is_held_only_after_a_click_of_the_mover_since_anyone_else_acted() -> None:
    rolled = make_state({"T1": 3, "E1": 20}, phase=Phase.ROLL_CARDS, dice=(2, 5), hands=((C.ESPIONAGE,), ()))
    clicked = Step(0, "roll", "", secret=True)
    assert not board_held(rolled, []), "the board just changed hands: that moment is public"
    assert board_held(rolled, [clicked, step(None, "dice 2-5")])
    # A click on the public board itself (a fight's keep select) leaves that board to be redrawn:
    # it still shows the select, so the private step that follows is not held behind it.
    kept_on_board = Step(0, "keep T1", "")
    assert not board_held(rolled, [clicked, kept_on_board, step(None, "dice 2-5")])
    # A window of the other player that ran out, then a step the bot played for the mover: the
    # window's end is public, and so is what follows it.
    ran_out = Step(1, "pass", "", automatic=True)
    played_for = Step(0, "keep T1", "", automatic=True)
    assert not board_held(rolled, [clicked, ran_out, step(None, "fight"), played_for])
    assert board_held(rolled, [clicked, ran_out, played_for, Step(0, "move T1 by 2", "", secret=True)])
    # Never in a window, nor for a step that does not depend on the hand.
    jam = make_state({"T1": 3, "E1": 20}, phase=Phase.JAM, dice=(2, 5))
    assert not board_held(jam, [Step(1, "pass", "")])


def step(seat: int | None, notation: str = "pass") -> Step:
    return Step(seat, notation, "")


def test_a_window_inside_a_turn_keeps_one_story_and_mentions_a_player_once() -> None:
    build = make_state({"T1": 3, "E1": 20}, phase=Phase.BUILD, dice=(2, 5), dice_left=())
    jam = play(build, "pass")
    moving = play(jam, "pass")
    assert asked(jam) == (1, True) and asked(moving) == (0, False)
    # The Jam window opens: the responder has not been asked in this turn yet, so a new board
    # mentions them; the turn's story goes on.
    assert board_change(build, jam, [step(0, "roll"), step(0)]) == BoardChange(True, False)
    # Asked before in this turn (Espionage): the same board, no second mention.
    assert board_change(build, jam, [step(1), step(0), step(0)]) == BoardChange(False, False)
    # The window closes: the player on turn, who took a step in it, carries on on that board.
    assert board_change(jam, moving, [step(1), step(0), step(1)]) == BoardChange(False, False)
    # Another turn: a new board that tells the whole turn that ended.
    assert board_change(jam, with_fields(moving, turn_number=6), [step(0), step(1)]) == BoardChange(
        True, True
    )
    # Steps the bot played for the player on turn (a roll with one answer) asked nobody: the first
    # real question of their turn is a new board that mentions them.
    played_for = Step(0, "roll", "", automatic=True)
    assert board_change(jam, moving, [step(1), played_for, step(1)]) == BoardChange(True, False)
    # A window let run out did ask its player: the next window of the turn mentions them no more.
    ran_out = Step(1, "pass", "Jam let the window pass (no answer in time)", automatic=True, note=NO_ANSWER)
    assert board_change(build, jam, [ran_out, step(0)]) == BoardChange(False, False)
    # A window that waited longer than a private panel lives: the player on turn is mentioned again.
    assert board_change(jam, moving, [step(0), step(1)], PANEL_LIFETIME + 1) == BoardChange(True, False)
    # The same decider in the same way: the board is edited.
    assert board_change(moving, moving, [step(0)]) == BoardChange(False, False)


def test_the_defender_keeping_units_in_the_movers_turn_is_told_on_the_turns_board() -> None:
    """A fight's defender who won chooses the units to keep inside the attacker's turn: that decision
    goes on the turn's one board (the story is not cut), mentions the defender only if nothing asked
    them in this turn yet, and the attacker carries on on the same board."""
    fight = make_state({"E1": 10, "T1": 10}, phase=Phase.ATTACK, fight_sector=10, dice=(), dice_left=())
    keep = make_state({"E1": 10, "T1": 10}, phase=Phase.KEEP, fight_sector=10, keep_seat=1)
    after = make_state({"T1": 10}, phase=Phase.MOVE, dice=(), dice_left=())
    assert asked(fight) == (0, False) and asked(keep) == (1, False)
    assert board_change(fight, keep, [step(0, "roll"), step(0)]) == BoardChange(True, False)
    # Asked in a window of this turn already (its Defend window): the board is edited, no ping.
    assert board_change(fight, keep, [step(0), step(1), step(0)]) == BoardChange(False, False)
    assert board_change(keep, after, [step(0), step(1)]) == BoardChange(False, False)
    # The next turn is a new board that tells the whole turn that ended.
    next_turn = with_fields(after, turn_number=after.turn_number + 1, turn_seat=1)
    assert board_change(after, next_turn, [step(0), step(1), step(0)]) == BoardChange(True, True)


def playing_writer() -> MatchWriter:
    """A writer that only plays what plays by itself (``advance``): it reads and saves nothing, and
    nobody in these games is rolled for by a preference."""

    async def never(session: Session, state: object) -> bool:
        raise AssertionError("no roll is judged here")

    return MatchWriter(None, ManualClock(), random.SystemRandom(), set(), never)  # type: ignore[arg-type]


def public_parts(session: Session, steps: Sequence[Step]) -> tuple[str, str, bytes, str]:
    return board_parts(board_message(session, steps, window_at=1_790_000_120.0))


@pytest.mark.asyncio
async def test_a_window_inside_a_turn_costs_the_same_whatever_the_responder_holds() -> None:
    """The Jam window opens after the build phase, on the board of a turn whose Espionage window the
    responder let pass: whether or not they hold a Jam Transmission, the bot stops at the window
    (nothing is played for them), the board is edited the same way (no second mention) and reads
    the same, and the window that runs out closes it the same way."""
    manager = playing_writer()
    seen, answers = [], []
    for card in (C.JAM_TRANSMISSION, C.ION_THRUSTERS):
        build = make_state({"T1": 3, "E1": 20}, phase=Phase.BUILD, dice=(2, 5), hands=((), (card,)))
        session = session_of(build)
        espionage = Step(
            1,
            "pass",
            "The Evil Empire let the window pass (no answer in time)",
            automatic=True,
            note=NO_ANSWER,
        )
        steps = [espionage, step_of(0, Pass(), build, build.apply(Pass()), automatic=False)]
        opened = await manager.advance(session, build.apply(Pass()), steps)
        assert in_window(opened) and opened.to_move() == 1, "the window opens whatever the hand holds"
        change = board_change(build, opened, steps)
        session.state = opened
        window = public_parts(session, steps)
        closed = opened.apply(Pass())
        ran_out = noted(step_of(1, Pass(), opened, closed, automatic=True), NO_ANSWER, "Evil Empire")
        after = await manager.advance(session, closed, [*steps, ran_out])
        session.state = after
        seen.append(
            (change, window, board_change(opened, after, [*steps, ran_out]), public_parts(session, []))
        )
        answers.append(len(opened.legal_actions()))
    assert answers[0] > 1 and answers[1] == 1, "the hands differ in what they could answer"
    assert seen[0] == seen[1]
    assert seen[0][0] == BoardChange(False, False), "the responder was asked in this turn already"
    assert seen[0][2] == BoardChange(False, False), "the mover carries on on the same board"


# -- through the fake Discord ----------------------------------------------------------------------------

TURNS = 8
"""Game turns played through the fake Discord: enough for every kind of window and a few fights."""


def story(message: FakeMessage) -> list[str]:
    """The lines of a board message's embed that tell what happened (not whose turn it is, nor when)."""
    text = str(message.embeds[0].get("description") or "") if message.embeds else ""
    return [line for line in text.splitlines() if line and not line.startswith(("**", "⏳", "⏱", "<@"))]


async def play_turns(
    fake: FakeDiscord, tmp_path: Path, expire: bool = False
) -> tuple[Counter[tuple[int, int]], Counter[int], list[FakeMessage], dict[int, list[str]]]:
    """Two people play ``TURNS`` turns of space by random picks, the other player letting every
    window pass by itself; each acts on their private panel while it has live controls, else opens
    My hand. ``expire``: every panel's interaction expires at once (as after Discord's 15 minutes).
    The My hand presses per (turn, user), the mentions of the other player per turn, the boards, and
    each board's story as it was posted."""
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock, seed=3)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    first = await challenge_and_accept(fake, alice, bob, "space")
    channel = first.channel_id
    match_id = (await bot.sessions.history.matches_of(alice.id))[0].id
    rng = random.Random(3)
    presses: Counter[tuple[int, int]] = Counter()
    mentions: Counter[int] = Counter()
    panels: dict[int, FakeMessage] = {}
    seen = first.id  # the first board greets both players
    posted: dict[int, list[str]] = {}
    for _ in range(1000):
        session = await bot.sessions.get(match_id)
        assert session.state is not None and session.record.status == "active"
        view = session.state.view(None)
        assert isinstance(view, SpaceView)
        if view.turn_number > TURNS:
            break
        mover = session.user_of(view.turn_seat)
        for message in fake.messages_in(channel):
            if not message.ephemeral and message.id > seen:
                seen = message.id
                posted[message.id] = story(message)
                mentions[view.turn_number] += sum(
                    1 for u in MENTION.findall(message.content) if int(u) != mover
                )
        board = live_board(fake, channel)
        user = user_on_turn(board, users)
        assert user is not None, board.content
        if WINDOW.search(board.content):
            clock.advance(121)  # nobody taps: the window passes by itself
            await bot.run_due_tasks()
            continue
        # As a player looks: their newest private reply below the latest board, if it has live
        # controls (a live panel is kept there: ``LivePanels`` moves it below a newer board).
        panel = private_panel(fake, channel, user, board) if user.id in panels else None
        if panel is None:
            panel = board
            if "**My hand**" in board.content:
                hand = next(b.custom_id or "" for b in board.buttons if b.label == "My hand")
                opened = await fake.click(user, board, hand, idle=True)
                assert opened.message is not None
                if expire:
                    fake.expire_interaction(opened)
                presses[(view.turn_number, user.id)] += 1
                panel = panels[user.id] = opened.message
        result = await play_one(fake, panel, user, rng)
        answer = result.message
        if (await bot.sessions.get(match_id)).version == session.version and (
            answer is None or answer.id != panel.id
        ):
            panels.pop(user.id, None)  # a refused click on an old panel: the player opens My hand
        elif expire:
            fake.expire_interaction(result)
    else:
        raise AssertionError(f"{TURNS} turns were not played")
    fake.assert_clean()
    await stop_bot(bot)
    boards = [m for m in fake.messages_in(channel) if not m.ephemeral and m.embeds]
    return presses, mentions, boards, posted


@pytest.mark.asyncio
async def test_my_hand_once_a_turn_one_mention_of_the_other_player_and_one_story_per_turn(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    presses, mentions, boards, posted = await play_turns(fake, tmp_path)
    assert presses and max(presses.values()) == 1, "a live panel keeps itself current"
    assert max(mentions.values()) == 1, "the other player is mentioned once per turn at most"
    # Every board's story goes on in the next one, as it is posted: the board that hands the turn over
    # tells it all (the first board, which deals the cards, tells the match's setup on its own).
    for before, after in itertools.pairwise(boards[1:]):
        if any(TURN_CHANGE.search(line) for line in story(before)):
            continue  # a board that handed a turn over, and was not edited since: its story is whole
        missing = [line for line in story(before) if line not in posted.get(after.id, story(after))]
        assert not missing, f"{missing} told on {before.id} but not on the next board {after.id}"


@pytest.mark.asyncio
async def test_a_panel_that_can_no_longer_be_edited_gives_way_to_a_fresh_my_hand(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    presses, *_ = await play_turns(fake, tmp_path, expire=True)
    assert max(presses.values()) > 1, "an expired panel is not edited: My hand gives a fresh one"


@pytest.mark.asyncio
async def test_cards_to_discard_are_chosen_together_in_one_click_or_not_at_all(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Two cards over the hand limit: one select asks for exactly two (each copy of a card is its own
    option), and choosing them discards both in one click. A choice that cannot all be played (a
    forged option naming a card not in the hand) is refused and changes nothing."""
    from cogs.panels.base import act_copy
    from tests.databases import sql

    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, seed=3)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "space")
    mid = int(next(c for c in board.custom_ids if c.startswith("hand:")).split(":")[1])
    hand = (C.NOVA_BOMB, C.NOVA_BOMB, C.JAM_TRANSMISSION, C.ESPIONAGE, C.PLASMA_GENERATOR, C.HYPER_JUMP,
            C.SURPRISE_ATTACK, C.REINFORCEMENTS)  # fmt: skip
    state = make_state({"T1": 3, "E1": 20}, home=["E2", "T2"], phase=Phase.DISCARD, hands=(hand, ()))
    assert state.view(0).discards_due == 2
    await stop_bot(bot)
    sql(db, "UPDATE matches SET state = ? WHERE id = ?", (state.canonical(), mid))
    bot = await start_bot(fake, db, seed=3)
    opened = await fake.click(
        alice, board, next(c for c in board.custom_ids if c.startswith("hand:")), idle=True
    )
    panel = opened.message
    assert panel is not None
    (select,) = [s for s in panel.selects if (s.placeholder or "").startswith("Discard 2 cards")]
    assert (select.min_values, select.max_values) == (2, 2) and len(select.options) == 8
    assert {act_copy("discard nova-bomb", 1), act_copy("discard nova-bomb", 2)} <= set(select.option_values)
    version = (await bot.sessions.get(mid)).version
    # Forged: a card the hand does not hold, beside one it does.
    forged = {
        **select.raw,
        "options": [*select.options, {"label": "x", "value": "a:discard battle-computers"}],
    }
    refused = await fake.forge(alice, panel, forged, ["a:discard nova-bomb", "a:discard battle-computers"])
    await fake.wait_idle()
    said = " ".join(m.content for m in refused.messages if m.ephemeral)
    assert "'discard battle-computers' is not allowed now" in said and "Nothing was changed" in said, said
    session = await bot.sessions.get(mid)
    assert session.version == version and len(session.state.view(0).hand) == 8  # type: ignore[union-attr]
    # Both copies of Nova Bomb, in one click.
    panel = fake.message(panel)
    (select,) = [s for s in panel.selects if (s.placeholder or "").startswith("Discard 2 cards")]
    await fake.select(
        alice, panel, str(select.custom_id), [act_copy("discard nova-bomb", n) for n in (1, 2)], idle=True
    )
    session = await bot.sessions.get(mid)
    view = session.state.view(0)  # type: ignore[union-attr]
    assert len(view.hand) == 6 and "nova-bomb" not in view.hand
    fake.assert_clean()
    await stop_bot(bot)


async def discard_panel_of_alice(
    fake: FakeDiscord, tmp_path: Path
) -> tuple[RingsideBot, FakeUser, FakeMessage, int, str]:
    """A space match whose Evil Empire (alice) must discard two cards: its bot, alice, the board, the
    match's id, and My hand's custom id."""
    from tests.databases import sql

    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, seed=3)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "space")
    hand_id = next(c for c in board.custom_ids if c.startswith("hand:"))
    mid = int(hand_id.split(":")[1])
    hand = (C.NOVA_BOMB, C.NOVA_BOMB, C.JAM_TRANSMISSION, C.ESPIONAGE, C.PLASMA_GENERATOR, C.HYPER_JUMP,
            C.SURPRISE_ATTACK, C.REINFORCEMENTS)  # fmt: skip
    state = make_state({"T1": 3, "E1": 20}, home=["E2", "T2"], phase=Phase.DISCARD, hands=(hand, ()))
    await stop_bot(bot)
    sql(db, "UPDATE matches SET state = ? WHERE id = ?", (state.canonical(), mid))
    return await start_bot(fake, db, seed=3), alice, board, mid, hand_id


def discard_select(panel: FakeMessage) -> tuple[str, list[str]]:
    (select,) = [s for s in panel.selects if (s.placeholder or "").startswith("Discard 2 cards")]
    return str(select.custom_id), select.option_values[:2]


@pytest.mark.asyncio
async def test_a_private_panel_replaced_by_a_newer_one_loses_its_controls(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """One live panel a player: My hand pressed again, the older panel keeps no control that the new
    one would not answer."""
    bot, alice, board, _, hand_id = await discard_panel_of_alice(fake, tmp_path)
    first = (await fake.click(alice, board, hand_id, idle=True)).message
    assert first is not None and first.selects
    second = (await fake.click(alice, board, hand_id, idle=True)).message
    assert second is not None and second.selects
    await fake.wait_idle()
    assert not fake.message(first).all_components, "the replaced panel lost its controls"
    assert fake.message(second).selects, "the new panel keeps them"
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_click_on_an_older_private_panel_turns_it_into_the_current_panel(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """An older panel that could not be edited any more (Discord's 15 minutes ran out on it), clicked
    after the match moved on: that message becomes the player's panel as the match stands, with the
    controls of now; the click itself changes nothing and points nowhere else."""
    bot, alice, board, mid, hand_id = await discard_panel_of_alice(fake, tmp_path)
    opened = await fake.click(alice, board, hand_id, idle=True)
    old = opened.message
    assert old is not None
    fake.expire_interaction(opened)
    stale_id, stale_values = discard_select(old)
    new = (await fake.click(alice, board, hand_id, idle=True)).message
    assert new is not None
    await fake.select(alice, new, *discard_select(new), idle=True)
    session = await bot.sessions.get(mid)
    version = session.version
    assert session.state is not None and len(session.state.view(0).hand) == 6  # type: ignore[attr-defined]
    assert fake.message(old).selects, "an expired panel cannot be edited: it still shows the old select"
    clicked = await fake.select(alice, old, stale_id, stale_values, idle=True)
    said = " ".join(m.content for m in clicked.messages)
    assert "earlier position" not in said, said
    now = fake.message(old)
    assert now.content.startswith("That panel was out of date"), now.content
    assert "Your hand** (6 cards)" in now.content, now.content
    live = [c.custom_id or "" for c in now.all_components if (c.custom_id or "").startswith("g:")]
    assert all(f"g:{mid}:{version}:" in c for c in live), (live, version)
    assert (await bot.sessions.get(mid)).version == version, "the click itself changed nothing"
    fake.assert_clean()
    await stop_bot(bot)

"""The turn's flow of space: what each kind of action does to the working copy (``STEPS``), the
phases that follow, fights, the end of a turn and of the game, and the words said on the way.

Its interface is ``STEPS``: ``SpaceState.apply`` checks an action, makes the working copy
(``state.working_copy``) and runs the step of the action's kind on it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.protocol import (
    Action,
    Outcome,
)
from engine.space import cards as C
from engine.space.actions import Build, Dice, Discard, Keep, Move, Pass, Play, RollDice, Shuffle
from engine.space.board import (
    DIRECTION,
    HOMEWORLD,
    PLANETS,
    SCRAP,
    SECTORS,
    SIDES,
    UNITS_PER_SIDE,
    contested,
    owner,
    sector_name,
    step,
    unit_label,
    unit_name,
)
from engine.space.cards import CARDS, Timing, card_of
from engine.space.fights import force_total, winner_is_attacker
from engine.space.state import (
    DRAWS_PER_TURN,
    WINDOW_PHASES,
    FightRecord,
    LastEvent,
    MoveRecord,
    Phase,
    SpaceWin,
    Table,
    hand_limit,
)

# ---------------------------------------------------------------------------------------------------
# The flow of a turn, on the mutable working copy


def _say(table: Table, text: str, seat: int | None = None, private: tuple[int, str] | None = None) -> None:
    """Add ``text`` to the words of this action; ``private`` (seat, words) replaces it for that seat."""
    last = table.last
    if private is None:
        # The common case: the same words for everyone, so far and now.
        if last is None:
            table.last = LastEvent(seat, text, _NO_OWN)
            return
        if last.own is _NO_OWN:
            table.last = LastEvent(last.seat, f"{last.text} {text}", _NO_OWN)
            return
    if last is None:
        head, own, who = "", _NO_OWN, seat
    else:
        head, own, who = last.text + " ", last.own, last.seat
    mine = [own[0], own[1]]
    for s in (0, 1):
        secret = private is not None and private[0] == s
        if mine[s] or secret:
            before = mine[s] + " " if mine[s] else head
            mine[s] = before + (private[1] if private is not None and secret else text)
    table.last = LastEvent(who, head + text, _NO_OWN if mine == ["", ""] else (mine[0], mine[1]))


_NO_OWN = ("", "")
"""The same words for every viewer."""


def _card_names(cards: Sequence[int]) -> str:
    names = [card_of(c).name for c in cards]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _units_words(units: Sequence[int]) -> str:
    return ", ".join([_UNIT_NAMES[u] for u in units])


def _set_hand(table: Table, seat: int, hand: Sequence[int]) -> None:
    hands = list(table.hands)
    hands[seat] = tuple(sorted(hand))
    table.hands = (hands[0], hands[1])


def _remove_card(table: Table, seat: int, kind: int) -> int:
    """Take one card of ``kind`` from ``seat``'s hand to the vortex; its id."""
    hand = list(table.hands[seat])
    card = next(c for c in hand if c // C.COPIES == kind)
    hand.remove(card)
    _set_hand(table, seat, hand)
    table.vortex = (*table.vortex, card)
    return card


def _take_die(table: Table, value: int) -> None:
    """Use the first die left that shows ``value`` (with its additions)."""
    dice, bonus, left = table.dice, table.bonus, table.dice_left
    for k, i in enumerate(left):
        if dice[i] + bonus[i] == value:
            table.dice_left = left[:k] + left[k + 1 :]
            return
    raise AssertionError("no such die")


def _step_units(table: Table, units: Sequence[int], value: int, forwards: bool, how: str = "die") -> None:
    """Move ``units`` (of the player on turn) ``value`` sectors, forwards or back, as one move of the
    turn: each takes one more die of its two and stops if it ends on an enemy sector."""
    seat = table.turn_seat
    direction = DIRECTION[seat] if forwards else -DIRECTION[seat]
    positions = list(table.positions)
    first = (1 - seat) * UNITS_PER_SIDE
    enemy = positions[first : first + UNITS_PER_SIDE]
    moved = {u: (n, s) for u, n, s in table.moved} if table.moved else {}
    number = table.turn_moves[-1].number + 1 if table.turn_moves else 1
    records = []
    for u in units:
        source = positions[u]
        target = (source - 1 + direction * value) % SECTORS + 1
        positions[u] = target
        moved[u] = (moved[u][0] + 1 if u in moved else 1, target in enemy)
        records.append(MoveRecord(number, u, source, target, value, how))
    table.positions = tuple(positions)
    table.moved = tuple(sorted((u, n, s) for u, (n, s) in moved.items()))
    table.turn_moves = (*table.turn_moves, *records)


def _step_one(table: Table, unit: int, value: int, direction: int, how: str) -> tuple[int, int]:
    """``_step_units`` for one unit (the plain move, made hundreds of times a game): (from, to)."""
    positions = table.positions
    source = positions[unit]
    target = (source - 1 + direction * value) % SECTORS + 1
    table.positions = (*positions[:unit], target, *positions[unit + 1 :])
    first = (1 - table.turn_seat) * UNITS_PER_SIDE
    stopped = target in positions[first : first + UNITS_PER_SIDE]
    used = 1
    others = []
    for entry in table.moved:
        if entry[0] == unit:
            used = entry[1] + 1
        else:
            others.append(entry)
    others.append((unit, used, stopped))
    table.moved = tuple(sorted(others))
    number = table.turn_moves[-1].number + 1 if table.turn_moves else 1
    table.turn_moves = (*table.turn_moves, MoveRecord(number, unit, source, target, value, how))
    return source, target


_UNIT_NAMES = tuple(unit_name(u) for u in range(2 * UNITS_PER_SIDE))
_SECTOR_NAMES = tuple(sector_name(s) for s in range(SECTORS + 1))


def _next_move_number(table: Table) -> int:
    return table.turn_moves[-1].number + 1 if table.turn_moves else 1


def _continue_drawing(table: Table) -> None:
    """Draw what is still to be drawn (the initial hands, or the turn's two cards), stopping at a
    shuffle when the deck runs out; then go on to the discards."""
    for seat in (0, 1):
        wanted = table.to_draw[seat]
        if not wanted:
            continue
        drawn = table.deck[:wanted]
        if drawn:
            table.deck = table.deck[len(drawn) :]
            _set_hand(table, seat, (*table.hands[seat], *drawn))
            _say_drawn(table, seat, drawn)
        left = wanted - len(drawn)
        table.to_draw = (left, table.to_draw[1]) if seat == 0 else (table.to_draw[0], left)
        if left:
            if table.vortex:
                table.phase = Phase.SHUFFLE
                return
            _say(table, f"{SIDES[seat]} could not draw: the deck and the vortex are empty.")
            table.to_draw = (0, table.to_draw[1]) if seat == 0 else (table.to_draw[0], 0)
    if table.turn_number == 0:
        _start_turn(table, 0)
        return
    _after_draw(table)


def _say_drawn(table: Table, seat: int, drawn: Sequence[int]) -> None:
    """ "Evil Empire drew 2 cards." for everyone, "You drew Hyper Jump and Espionage." for the drawer."""
    if drawn:
        _say(
            table,
            f"{SIDES[seat]} drew {_cards(len(drawn))}.",
            private=(seat, f"You drew {_card_names(drawn)}."),
        )


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def _start_turn(table: Table, seat: int) -> None:
    table.turn_seat = seat
    table.turn_number += 1
    table.dice = table.bonus = table.dice_left = ()
    table.hyper = False
    table.builds = 0
    table.reroll = -1
    table.moved = ()
    table.jammed = ()
    table.fight_sector = 0
    table.attack_bonus = table.defense_bonus = 0
    table.die_for = table.keep_seat = -1
    table.keep_difference = 0
    table.spy = None
    table.to_draw = (DRAWS_PER_TURN, 0) if seat == 0 else (0, DRAWS_PER_TURN)
    _say(table, f"{SIDES[seat]}'s turn {table.turn_number}.")
    _continue_drawing(table)


def _after_draw(table: Table) -> None:
    seat = table.turn_seat
    if len(table.hands[seat]) > hand_limit(table.positions, seat):
        table.phase = Phase.DISCARD
    else:
        table.phase = Phase.ESPIONAGE


def _to_build(table: Table) -> None:
    seat = table.turn_seat
    table.builds = 1 if table.dice[0] == table.dice[1] else 0
    if table.has_scrapped(seat) and table.controls_homeworld(seat):
        table.phase = Phase.BUILD
    else:
        _to_jam(table)


def _to_jam(table: Table) -> None:
    if table.on_board(table.turn_seat):
        table.phase = Phase.JAM
    else:
        _to_move(table)


def _to_move(table: Table) -> None:
    table.phase = Phase.MOVE
    table.dice_left = tuple(range(len(table.dice)))


def _next_fight(table: Table, after: int) -> None:
    later = [s for s in contested(table.positions) if s > after]
    if not later:
        _end_turn(table)
        return
    table.fight_sector = later[0]
    table.attack_bonus = table.defense_bonus = 0
    table.keep_seat = -1
    table.keep_difference = 0
    table.phase = Phase.ATTACK
    _say(table, f"Fight in sector {sector_name(later[0])}.")


def _resolve_fight(table: Table) -> None:
    seat = table.turn_seat
    sector = table.fight_sector
    mine = table.units_at(sector, seat)
    theirs = table.units_at(sector, 1 - seat)
    attack = force_total(mine, table.attack_bonus)
    defense = force_total(theirs, table.defense_bonus)
    winner = seat if winner_is_attacker(attack, defense) else 1 - seat
    losers = theirs if winner == seat else mine
    positions = list(table.positions)
    for u in losers:
        positions[u] = SCRAP
    table.positions = tuple(positions)
    table.keep_seat = winner
    table.keep_difference = abs(attack - defense)
    table.phase = Phase.KEEP
    table.last_fight = FightRecord(table.turn_number, sector, seat, attack, defense, winner, tuple(losers))
    _say(
        table,
        f"{SIDES[seat]} {attack} against {SIDES[1 - seat]} {defense}: {SIDES[winner]} wins; "
        f"destroyed: {_units_words(losers)}.",
    )


def _end_turn(table: Table) -> None:
    table.phase = Phase.OVER
    table.fight_sector = table.keep_difference = 0
    table.keep_seat = -1
    winner = _holder_of_all_planets(table.positions)
    if winner is not None:
        _finish(table, winner, SpaceWin.ALL_PLANETS, f"{SIDES[winner]} wins: all four planets held.")
        return
    for seat in (0, 1):
        if not table.on_board(seat):
            _finish(
                table, 1 - seat, SpaceWin.NO_UNITS, f"{SIDES[1 - seat]} wins: {SIDES[seat]} has no unit left."
            )
            return
    if table.extra_turns > 0:
        table.extra_turns -= 1
        _say(table, f"{SIDES[table.turn_seat]} takes another turn (Major Offensive).")
        _start_turn(table, table.turn_seat)
    else:
        _start_turn(table, 1 - table.turn_seat)


def _holder_of_all_planets(positions: Sequence[int]) -> int | None:
    """The seat that controls all four planets (units on each, no enemy unit on any), if one does."""
    empire, terrans = set(positions[:UNITS_PER_SIDE]), set(positions[UNITS_PER_SIDE:])
    if empire >= _ALL_PLANETS and not terrans & _ALL_PLANETS:
        return 0
    if terrans >= _ALL_PLANETS and not empire & _ALL_PLANETS:
        return 1
    return None


_ALL_PLANETS = frozenset(PLANETS)


def _finish(table: Table, winner: int, reason: SpaceWin, text: str) -> None:
    table.phase = Phase.OVER
    table.result = Outcome(winner=winner, reason=reason, description=text)
    _say(table, text)


def _apply_move(table: Table, move: Move) -> None:
    seat = table.turn_seat
    _take_die(table, move.die)
    source, target = _step_one(table, move.unit, move.die, DIRECTION[seat], "die")
    _say(
        table,
        f"{SIDES[seat]} moved {_UNIT_NAMES[move.unit]} from {_SECTOR_NAMES[source]} to {_SECTOR_NAMES[target]}.",
        seat,
    )


def _apply_shuffle(table: Table, action: Shuffle) -> None:
    pool = sorted(table.vortex)
    table.deck = (*table.deck, *(pool[i] for i in action.order))
    table.vortex = ()
    if table.turn_number == 0:
        _say(table, f"The {len(pool)} cards were shuffled into the deck.")
    else:
        _say(table, f"The vortex ({_cards(len(pool))}) was shuffled into a new deck.")
    _continue_drawing(table)


def _apply_roll(table: Table, action: RollDice) -> None:
    table.phase = Phase.DICE
    _say(table, f"{SIDES[table.turn_seat]} rolls.", table.turn_seat)


def _apply_discard(table: Table, action: Discard) -> None:
    seat = table.turn_seat
    card = _remove_card(table, seat, action.kind)
    _say(table, f"{SIDES[seat]} discarded {card_of(card).name}.", seat)
    if len(table.hands[seat]) <= hand_limit(table.positions, seat):
        table.phase = Phase.ESPIONAGE


def _apply_build(table: Table, action: Build) -> None:
    unit = action.unit
    _rebuild(table, unit)
    table.builds -= 1
    _say(table, f"{SIDES[table.turn_seat]} rebuilt {unit_name(unit)} on its homeworld.", table.turn_seat)
    _after_build(table)


def _dice(table: Table, action: Dice) -> None:
    values = action.values
    seat = table.turn_seat
    if table.phase is Phase.DICE:
        table.dice = values
        table.bonus = (0,) * len(values)
        table.phase = Phase.ROLL_CARDS
        # A new roll: the moves and the fight shown from the turn before are done with.
        table.turn_moves = ()
        table.last_fight = None
        double = " (doubles)" if values[0] == values[1] else ""
        _say(table, f"{SIDES[seat]} rolled {'-'.join(map(str, values))}{double}.", seat)
    elif table.phase is Phase.REROLL:
        dice = list(table.dice)
        dice[table.reroll] = values[0]
        table.dice = tuple(dice)
        table.reroll = -1
        table.phase = Phase.ROLL_CARDS
        _say(table, f"The rerolled die shows {values[0]}.", seat)
    else:
        if table.die_for == seat:
            table.attack_bonus += values[0]
            table.phase = Phase.ATTACK
        else:
            table.defense_bonus += values[0]
            table.phase = Phase.DEFEND
        table.die_for = -1
        _say(table, f"The die adds {values[0]} to the force.")


def _rebuild(table: Table, unit: int) -> None:
    positions = list(table.positions)
    positions[unit] = HOMEWORLD[owner(unit)]
    table.positions = tuple(positions)


def _after_build(table: Table) -> None:
    if not table.has_scrapped(table.turn_seat):
        _to_jam(table)


_PASS_TEXT = {
    Phase.ESPIONAGE: "{other} does not play Espionage.",
    Phase.ROLL_CARDS: "{name} keeps the roll.",
    Phase.BUILD: "{name} ends the build phase.",
    Phase.JAM: "{other} does not play Jam Transmission.",
    Phase.ATTACK: "{name} plays no more attack cards.",
    Phase.DEFEND: "{other} plays no more defense cards.",
}


_PASS_WORDS = {
    (phase, seat): text.format(name=SIDES[seat], other=SIDES[1 - seat])
    for phase, text in _PASS_TEXT.items()
    for seat in (0, 1)
}


def _pass(table: Table, action: Pass) -> None:
    seat = table.turn_seat
    phase = table.phase
    words = _PASS_WORDS.get((phase, seat))
    if words is not None:
        _say(table, words, _decider(table))
    if phase is Phase.ESPIONAGE:
        table.phase = Phase.ROLL
    elif phase is Phase.ROLL_CARDS:
        _to_build(table)
    elif phase is Phase.BUILD:
        _to_jam(table)
    elif phase is Phase.JAM:
        _to_move(table)
    elif phase is Phase.MOVE:
        _say(table, f"{SIDES[seat]} ends the move phase.", seat)
        _next_fight(table, 0)
    elif phase is Phase.ATTACK:
        table.phase = Phase.DEFEND
    elif phase is Phase.DEFEND:
        _resolve_fight(table)


def _keep(table: Table, action: Keep) -> None:
    kept = action.units
    sector = table.fight_sector
    positions = list(table.positions)
    lost = [u for u in table.units_at(sector, table.keep_seat) if u not in kept]
    for u in lost:
        positions[u] = SCRAP
    table.positions = tuple(positions)
    fight = table.last_fight
    if fight is not None and fight.sector == sector:
        table.last_fight = FightRecord(
            fight.turn,
            fight.sector,
            fight.attacker,
            fight.attack,
            fight.defense,
            fight.winner,
            (*fight.destroyed, *lost),
            tuple(kept),
            True,
        )
    words = ", ".join(unit_label(u) for u in kept)
    more = f"; destroyed: {_units_words(lost)}." if lost else "; no more units destroyed."
    _say(table, f"{SIDES[table.keep_seat]} keeps {words}{more}")
    _next_fight(table, sector)


def _play(table: Table, action: Play) -> None:
    seat = _decider(table)
    card = action.card
    _remove_card(table, seat, card.kind)
    if card is C.ESPIONAGE:
        _play_espionage(table, seat, card)
        return
    _say(table, f"{SIDES[seat]} played {card.name}.", seat)
    if card is C.MAJOR_OFFENSIVE:
        _play_major_offensive(table, seat, action)
    elif card is C.HYPER_JUMP or card is C.BATTLE_COMPUTERS or card.die_bonus:
        _play_roll_card(table, card, action)
    elif card is C.REINFORCEMENTS:
        assert action.unit is not None
        _rebuild(table, action.unit)
        _say(table, f"{unit_name(action.unit)} is back on its homeworld.")
        _after_build(table)
    elif card is C.JAM_TRANSMISSION:
        assert action.unit is not None
        table.jammed = tuple(sorted((*table.jammed, action.unit)))
        _say(table, f"{unit_name(action.unit)} cannot move this turn.")
    elif card.kind in C.MOVE_CARD_KINDS:
        _play_move_card(table, seat, card, action)
    elif card.timing is Timing.ATTACK:
        _fight_card(table, card, attacker=True)
    elif card.timing is Timing.DEFENSE:
        _fight_card(table, card, attacker=False)


def _play_espionage(table: Table, seat: int, card: C.Card) -> None:
    """Espionage: the spy sees the other hand (and alone reads what it holds)."""
    seen = table.hands[1 - seat]
    table.spy = (seat, seen)
    table.phase = Phase.ROLL
    held = f"{SIDES[1 - seat]} holds {_card_names(seen)}." if seen else f"{SIDES[1 - seat]} holds no card."
    _say(table, f"{SIDES[seat]} played {card.name}.", seat, private=(seat, f"You played {card.name}: {held}"))


def _play_major_offensive(table: Table, seat: int, action: Play) -> None:
    """Major Offensive: two more cards discarded for an extra turn."""
    for kind in action.discards:
        _remove_card(table, seat, kind)
    table.extra_turns += 1
    _say(table, f"It discarded {CARDS[action.discards[0]].name} and {CARDS[action.discards[1]].name}.")
    if table.phase is Phase.DISCARD and len(table.hands[seat]) <= hand_limit(table.positions, seat):
        table.phase = Phase.ESPIONAGE


def _play_roll_card(table: Table, card: C.Card, action: Play) -> None:
    """Hyper Jump (a third die), Battle Computers (a die rerolled) or a die's addition."""
    if card is C.HYPER_JUMP:
        table.hyper = True
    elif card is C.BATTLE_COMPUTERS:
        assert action.die is not None
        table.reroll = next(i for i in range(2) if table.dice[i] + table.bonus[i] == action.die)
        table.phase = Phase.REROLL
    else:
        assert action.die is not None
        i = next(i for i in range(len(table.dice)) if table.dice[i] + table.bonus[i] == action.die)
        bonus = list(table.bonus)
        bonus[i] += card.die_bonus
        table.bonus = tuple(bonus)
        _say(table, f"The {action.die} becomes {action.die + card.die_bonus}.")


def _play_move_card(table: Table, seat: int, card: C.Card, action: Play) -> None:
    """A card of the move phase: Strategic Move, Space Combat Tactics, Defend the Homeworld, Hold
    Position."""
    if card is C.STRATEGIC_MOVE:
        assert action.sector is not None and action.die is not None
        used = table.used_dice()
        units = [u for u in table.units_at(action.sector, seat) if table.movable(u, used)]
        _take_die(table, action.die)
        _step_units(table, units, action.die, forwards=True, how=card.key)
        target = step(action.sector, DIRECTION[seat] * action.die)
        _say(
            table,
            f"{len(units)} units moved from {sector_name(action.sector)} to {sector_name(target)} "
            f"by {action.die}.",
        )
    elif card is C.SPACE_COMBAT_TACTICS:
        assert action.unit is not None and action.die is not None
        _take_die(table, action.die)
        _step_units(table, [action.unit], action.die, forwards=False, how=card.key)
        record = table.turn_moves[-1]
        _say(
            table,
            f"{unit_name(action.unit)} moved back from {sector_name(record.source)} to "
            f"{sector_name(record.target)}.",
        )
    elif card is C.DEFEND_THE_HOMEWORLD:
        assert action.unit is not None
        source = table.positions[action.unit]
        _rebuild(table, action.unit)
        moved = {u: (n, s) for u, n, s in table.moved}
        moved[action.unit] = (2, True)
        table.moved = tuple(sorted((u, n, s) for u, (n, s) in moved.items()))
        home = HOMEWORLD[seat]
        table.turn_moves = (
            *table.turn_moves,
            MoveRecord(_next_move_number(table), action.unit, source, home, 0, card.key),
        )
        _say(table, f"{unit_name(action.unit)} jumped from {sector_name(source)} to its homeworld.")
    else:
        assert action.die is not None
        _take_die(table, action.die)
        _say(table, f"The {action.die} is not used.")


STEPS: dict[type[Action], Callable[[Table, Any], None]] = {
    Pass: _pass,
    Move: _apply_move,
    Play: _play,
    Dice: _dice,
    Shuffle: _apply_shuffle,
    RollDice: _apply_roll,
    Discard: _apply_discard,
    Build: _apply_build,
    Keep: _keep,
}
"""What each kind of action does to the working copy (each step takes its own kind of action)."""


def _fight_card(table: Table, card: C.Card, attacker: bool) -> None:
    if card.rolls_die:
        table.die_for = table.turn_seat if attacker else 1 - table.turn_seat
        table.phase = Phase.FIGHT_DIE
    elif attacker:
        table.attack_bonus += card.force
    else:
        table.defense_bonus += card.force


def _decider(table: Table) -> int:
    """The seat deciding in ``table``'s phase (the player on turn, or the other in a window)."""
    return 1 - table.turn_seat if table.phase in WINDOW_PHASES else table.turn_seat

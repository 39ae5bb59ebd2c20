"""A greedy space player: each decision by a simple score, no look-ahead, from the seat's own view.

It reads only what its seat may see (``SpaceView``: its own hand, the board, the dice, the fight) and
chooses among the view's legal actions:

* moves: the unit and die whose resulting board scores best (``board_score``: planets held, the
  fights the move starts judged by force, force on the board, units left where a stronger enemy
  stack can reach them);
* fights: attack or defense cards while the fight would be lost without them and can still be won;
  the strongest units kept after a won fight;
* the rest by rule of thumb: rebuild the strongest unit, jam the strongest enemy unit, Hyper Jump
  before rolling, Major Offensive (discarding the two least useful cards) whenever it can, and the
  least useful card discarded.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.protocol import Action, GameView
from engine.space import cards as C
from engine.space.actions import Build, Discard, Keep, Move, Pass, Play, RollDice
from engine.space.board import DIRECTION, FORCE, HOMEWORLD, PLANETS, SCRAP, owner, step, units_of
from engine.space.cards import CARDS, Timing
from engine.space.fights import force_total
from engine.space.game import Phase, SpaceView

PLANET_VALUE = 10.0
HOME_VALUE = 6.0
FORCE_VALUE = 1.0
EXPOSED_SHARE = 0.35
"""The share of a stack's force counted as lost when a stronger enemy stack can reach it next turn."""
DIE_CARD_FORCE = 3.5
"""What a +1D6 card adds to a fight, on average."""

CARD_VALUE: dict[int, float] = {
    C.MAJOR_OFFENSIVE.kind: 9.0,
    C.REINFORCEMENTS.kind: 6.0,
    C.HYPER_JUMP.kind: 3.0,
    C.ESPIONAGE.kind: 0.5,
    C.JAM_TRANSMISSION.kind: 3.0,
    C.STRATEGIC_MOVE.kind: 2.0,
    C.SPACE_COMBAT_TACTICS.kind: 1.5,
    C.DEFEND_THE_HOMEWORLD.kind: 2.5,
    C.HOLD_POSITION.kind: 1.0,
    C.BATTLE_COMPUTERS.kind: 1.0,
}
"""How much a card in hand is worth keeping (fight cards: their force; die cards: their bonus)."""


def card_value(kind: int) -> float:
    card = CARDS[kind]
    if kind in CARD_VALUE:
        return CARD_VALUE[kind]
    if card.rolls_die:
        return DIE_CARD_FORCE
    return float(card.force or card.die_bonus)


def _view(view: GameView) -> SpaceView:
    assert isinstance(view, SpaceView), "the space player reads space views"
    return view


def choose(view: GameView, rng: random.Random) -> Action:
    """The greedy choice among the view's legal actions."""
    space = _view(view)
    actions = space.legal_actions()
    assert actions, "the space player is asked only when its seat decides"
    seat = space.to_move()
    scored = [(_action_score(space, seat, a), i) for i, a in enumerate(actions)]
    best = max(score for score, _ in scored)
    ties = [i for score, i in scored if score == best]
    return actions[ties[0] if len(ties) == 1 else rng.choice(ties)]


def _hand_kinds(view: SpaceView) -> list[int]:
    return [C.BY_KEY[key].kind for key in view.hand]


def _action_score(view: SpaceView, seat: int, action: Action) -> float:
    phase = view.phase
    if isinstance(action, Play) and action.card is C.MAJOR_OFFENSIVE:
        return 100.0 - sum(card_value(k) for k in action.discards)
    if isinstance(action, Discard):
        return -card_value(action.kind)
    if isinstance(action, RollDice):
        return 0.0
    if isinstance(action, Build):
        return 10.0 + FORCE[action.unit]
    if isinstance(action, Keep):
        return float(force_total(action.units))
    if isinstance(action, Move):
        return _move_score(view, seat, action)
    if isinstance(action, Play):
        return _play_score(view, seat, action)
    if isinstance(action, Pass):
        if phase is Phase.MOVE:
            return board_score(view.positions, seat, view.turn_seat) - 0.5
        if phase in (Phase.ATTACK, Phase.DEFEND):
            return 0.0
        return 0.0
    return -1.0


def _play_score(view: SpaceView, seat: int, action: Play) -> float:
    card = action.card
    if card is C.HYPER_JUMP:
        return 1.0
    if card is C.REINFORCEMENTS and action.unit is not None:
        return 10.0 + FORCE[action.unit]
    if card is C.JAM_TRANSMISSION and action.unit is not None:
        return FORCE[action.unit] - 2.0
    if card.timing in (Timing.ATTACK, Timing.DEFENSE):
        return _fight_card_score(view, seat, card)
    if view.phase is Phase.MOVE:
        # Card moves only when no plain move is left (they cost a card).
        return board_score(view.positions, seat, view.turn_seat) - 1.0 - card_value(card.kind)
    return -card_value(card.kind)


def _fight_card_score(view: SpaceView, seat: int, card: C.Card) -> float:
    """Play a fight card while the fight is lost without it and the cards in hand can still win it;
    the card that wins with the least to spare scores best."""
    sector = view.fight_sector
    attacker = view.turn_seat
    attack = force_total(_units_at(view.positions, sector, attacker), view.attack_bonus)
    defense = force_total(_units_at(view.positions, sector, 1 - attacker), view.defense_bonus)
    mine, theirs = (attack, defense) if seat == attacker else (defense, attack)

    def wins(own: float, other: float) -> bool:
        return own > other if seat == attacker else own >= other  # a tie goes to the defender

    if wins(mine, theirs):
        return -1.0
    timing = Timing.ATTACK if seat == attacker else Timing.DEFENSE
    reserve = sum(card_value(k) for k in _hand_kinds(view) if CARDS[k].timing is timing)
    if not wins(mine + reserve, theirs):
        return -1.0
    added = DIE_CARD_FORCE if card.rolls_die else card.force
    if wins(mine + added, theirs):
        return 10.0 - added  # enough on its own: the smallest such card
    return added  # not enough alone: the biggest first


def _units_at(positions: Sequence[int], sector: int, seat: int) -> list[int]:
    return [u for u in units_of(seat) if positions[u] == sector]


def _move_score(view: SpaceView, seat: int, move: Move) -> float:
    positions = list(view.positions)
    positions[move.unit] = step(positions[move.unit], DIRECTION[seat] * move.die)
    return board_score(positions, seat, view.turn_seat)


def board_score(
    positions: Sequence[int], seat: int, attacker: int, bonus: tuple[float, float] = (0.0, 0.0)
) -> float:
    """How good ``positions`` look for ``seat`` with ``attacker`` on turn (its fights still to come;
    ``bonus``: what each seat's fight cards are expected to add to a fight)."""
    forces: dict[int, list[int]] = {}
    for u, where in enumerate(positions):
        if where != SCRAP:
            forces.setdefault(where, [0, 0])[owner(u)] += FORCE[u]
    # The fights of this turn, judged by force: the loser's stack goes to the scrap heap.
    held: dict[int, int] = {}
    score = 0.0
    for sector, (empire, terrans) in forces.items():
        totals = (empire, terrans)
        if empire and terrans:
            a, d = totals[attacker] + bonus[attacker], totals[1 - attacker] + bonus[1 - attacker]
            winner = attacker if a > d else 1 - attacker
            loser_force = totals[1 - winner]
            sign = 1.0 if winner == seat else -1.0
            score += sign * loser_force * FORCE_VALUE * 1.5
            held[sector] = winner
        elif empire or terrans:
            held[sector] = 0 if empire else 1
    for planet in PLANETS:
        who = held.get(planet)
        if who is None:
            continue
        value = PLANET_VALUE + (HOME_VALUE if planet == HOMEWORLD[who] else 0.0)
        score += value if who == seat else -value
    mine = sum(f[seat] for f in forces.values())
    theirs = sum(f[1 - seat] for f in forces.values())
    score += (mine - theirs) * FORCE_VALUE
    score -= _exposure(forces, held, seat) * EXPOSED_SHARE
    score += _exposure(forces, held, 1 - seat) * EXPOSED_SHARE * 0.5
    return score


def _exposure(forces: dict[int, list[int]], held: dict[int, int], seat: int) -> float:
    """The force of ``seat``'s stacks that a stronger enemy stack could reach with one die or two."""
    enemy = 1 - seat
    exposed = 0.0
    for sector, who in held.items():
        if who != seat:
            continue
        mine = forces[sector][seat]
        for distance in range(1, 13):
            source = step(sector, -DIRECTION[enemy] * distance)
            if held.get(source) == enemy and forces[source][enemy] > mine:
                exposed += mine
                break
    return exposed

"""Space computer players by strength: ``easy``, ``medium`` and ``hard``, from the seat's own view.

* ``easy`` plays the greedy choice (``space_greedy``) most of the time and a random legal action
  otherwise, so a beginner can beat it.
* ``medium`` is the greedy player itself (``space_greedy.choose``): each decision by its scores, one
  move at a time.
* ``hard`` plans the whole move phase: it tries every order of its units and dice left (as the rules
  let a unit take one or two dice, stopping on an enemy sector) and plays the first move of the plan
  whose final board scores best, counting the fight cards it holds as force it can add to the
  fights it starts (and the opponent's hand as some defence). Other decisions are the greedy ones.

They read only their seat's view (their own hand, never the opponent's nor the deck).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.ai import space_greedy
from engine.ai.random_player import random_choice
from engine.protocol import Action, GameView
from engine.space.actions import Move
from engine.space.board import DIRECTION, FORCE, SCRAP, owner, step
from engine.space.cards import CARDS, Timing
from engine.space.game import Phase, SpaceView

EASY_RANDOM_SHARE = 0.35
"""How often ``easy`` plays a uniformly random legal action instead of the greedy one."""
HIDDEN_DEFENCE = 0.6
"""The defence force ``hard`` expects per card in the opponent's hand."""
PLAN_LIMIT = 3000
"""At most this many plans are scored in one decision (three dice and many units)."""


def easy(view: GameView, rng: random.Random) -> Action:
    actions = view.legal_actions()
    if rng.random() < EASY_RANDOM_SHARE:
        return actions[rng.randrange(len(actions))]
    return space_greedy.choose(view, rng)


def hard(view: GameView, rng: random.Random) -> Action:
    space = view
    assert isinstance(space, SpaceView), "the space player reads space views"
    if space.phase is not Phase.MOVE:
        return space_greedy.choose(view, rng)
    moves = [a for a in space.legal_actions() if isinstance(a, Move)]
    if not moves:
        return space_greedy.choose(view, rng)
    seat = space.turn_seat
    bonus = _fight_bonus(space, seat)
    best: tuple[float, int] | None = None
    budget = [PLAN_LIMIT]
    for i, move in enumerate(moves):
        positions = list(space.positions)
        used = _dice_used(space, seat)
        score = _best_plan(positions, used, _after(space.dice_left, move.die), move, seat, bonus, budget)
        if best is None or score > best[0]:
            best = (score, i)
    assert best is not None
    return moves[best[1]]


def _fight_bonus(view: SpaceView, seat: int) -> tuple[float, float]:
    mine = sum(
        space_greedy.card_value(CARDS_BY_KEY[key])
        for key in view.hand
        if CARDS[CARDS_BY_KEY[key]].timing is Timing.ATTACK
    )
    theirs = view.hand_sizes[1 - seat] * HIDDEN_DEFENCE
    return (mine, theirs) if seat == 0 else (theirs, mine)


CARDS_BY_KEY = {card.key: card.kind for card in CARDS}


def _dice_used(view: SpaceView, seat: int) -> dict[int, tuple[int, bool]]:
    """Units that cannot take every die: (dice used, stopped) for those moved this turn (from the
    view's record of the turn's moves: a unit on an enemy sector has stopped; Defend the Homeworld
    ends a unit's movement) and the jammed ones."""
    used: dict[int, tuple[int, bool]] = {}
    enemy = {view.positions[u] for u in range(len(view.positions)) if owner(u) != seat}
    for record in getattr(view, "turn_moves", ()):
        n, _ = used.get(record.unit, (0, False))
        done = record.how == "defend-the-homeworld"
        used[record.unit] = (2 if done else n + 1, done or view.positions[record.unit] in enemy)
    for unit in view.jammed:
        used[unit] = (2, True)
    return used


def _after(dice: Sequence[int], die: int) -> list[int]:
    rest = list(dice)
    rest.remove(die)
    return rest


def _best_plan(
    positions: list[int],
    used: dict[int, tuple[int, bool]],
    dice: list[int],
    move: Move,
    seat: int,
    bonus: tuple[float, float],
    budget: list[int],
) -> float:
    """The best final-board score reachable by playing ``move`` and then the ``dice`` left."""
    enemy = {positions[u] for u in range(len(positions)) if owner(u) != seat and positions[u] != SCRAP}
    target = step(positions[move.unit], DIRECTION[seat] * move.die)
    before = positions[move.unit]
    positions[move.unit] = target
    n, _ = used.get(move.unit, (0, False))
    previous = used.get(move.unit)
    used[move.unit] = (n + 1, target in enemy)
    best = space_greedy.board_score(positions, seat, seat, bonus)
    budget[0] -= 1
    if dice and budget[0] > 0:
        for die in sorted(set(dice)):
            seen: set[tuple[int, int, int]] = set()
            for unit in range(len(positions)):
                if owner(unit) != seat or positions[unit] == SCRAP:
                    continue
                count, stopped = used.get(unit, (0, False))
                if count >= 2 or stopped:
                    continue
                kind = (positions[unit], FORCE[unit], count)
                if kind in seen:
                    continue  # a unit like one tried already leads to the same boards
                seen.add(kind)
                score = _best_plan(positions, used, _after(dice, die), Move(unit, die), seat, bonus, budget)
                best = max(best, score)
    positions[move.unit] = before
    if previous is None:
        del used[move.unit]
    else:
        used[move.unit] = previous
    return best


PLAYERS = {
    "random": random_choice,
    "greedy": space_greedy.choose,
    "easy": easy,
    "medium": space_greedy.choose,
    "hard": hard,
}
"""Space's computer players by the names the arena and ``/challenge level:`` take (``medium`` is the
greedy player)."""

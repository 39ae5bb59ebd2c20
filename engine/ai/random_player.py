"""The weakest computer player and the chance sampler shared by self-play, tests and the bot.

The rules never draw random numbers; whoever drives a game samples chance outcomes here with a
random source it owns (``random.SystemRandom`` in live games, a seeded ``random.Random`` in tests).
"""

from __future__ import annotations

import random

from engine.protocol import Action, ChanceKind, ChanceSpec, GameState, GameView


def sample_outcome(spec: ChanceSpec, rng: random.Random) -> tuple[int, ...]:
    """One outcome of ``spec`` drawn from ``rng``."""
    if spec.kind is ChanceKind.DICE:
        return tuple(rng.randint(1, spec.sides) for _ in range(spec.count))
    order = list(range(spec.count))
    rng.shuffle(order)
    return tuple(order)


def random_choice(view: GameView, rng: random.Random) -> Action:
    """A uniformly random legal action of the seat the view is for (the random computer player)."""
    actions = view.legal_actions()
    if not actions:
        raise ValueError("no legal action for this seat now")
    return rng.choice(actions)


def random_action(state: GameState, rng: random.Random) -> Action:
    """A uniformly random legal action of the deciding seat, or a sampled chance outcome."""
    # A seat decides far more often than chance does, so the actions are asked for first; they are
    # empty at a chance step (``GameState.legal_actions``).
    actions = state.legal_actions()
    if actions:
        # ``choice`` draws exactly what ``randrange(len(actions))`` drew (both take
        # ``_randbelow(n)``), so seeded games are the same as before; it is the cheaper call.
        return rng.choice(actions)
    spec = state.chance()
    if spec is None:
        raise ValueError("no legal action in a non-terminal state")
    return state.chance_action(sample_outcome(spec, rng))

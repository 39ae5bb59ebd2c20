"""Issue 22 reshaped the engines without changing what they save, offer or say: random states of
each game (several hundred) hash to the digests taken on the commit before the reshaping (a1bee46).

A digest covers each state's saved JSON, its legal actions in order, and the texts both a player and
an onlooker see; and each state is read back from its JSON to the same JSON."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engine.ai.selfplay import random_states
from engine.backgammon.variant import VARIANT as BACKGAMMON
from engine.protocol import Variant
from engine.ring import VARIANT as RING
from engine.space.variant import VARIANT as SPACE

DIGESTS = {
    "ring": "4ec24692a6d533b2ec974d1bdf124cc2911e925b298827a245586c6ac4806806",
    # Issue 24 writes plays exactly as GNU Backgammon does ("4/3*(2)"), which changes only the play
    # texts (the state's "last" line and the views' texts), and saves "game_start_turn" (the turn the
    # game under way began at, for "game G, move M"); a match saved without it still loads
    # (tests/engine/test_backgammon_move_numbers.py); a one-point match's result says what the match
    # was won by ("White wins the match with a gammon"), not its points.
    "backgammon": "61488be5829a8ee59ece0f147e3c58addd08f4751f1929acbc5f78273966052e",
    # Issue 25 words a won game of space as the other games do, "<winner> wins: <how>" (the
    # board's title is the winner, whole): only the ending's text changes.
    "space": "363c95b7fd12191c03fc2fd52e4147551d23e97cac6fcf39ce3fa6dfcba4b624",
}
MIN_STATES = 300


def digest(variant: Variant, seed: int = 22) -> tuple[str, int]:
    rng = random.Random(seed)
    sha = hashlib.sha256()
    count = 0
    while count < MIN_STATES:
        for state in random_states(variant, rng):
            saved = state.to_json()
            assert variant.from_json(saved).to_json() == saved
            record = {
                "saved": saved,
                "actions": [repr(a) for a in state.legal_actions()],
                "texts": [
                    [view.phase_text, view.last_text]
                    for view in (state.view(None), state.view(0), state.view(1))
                ],
            }
            sha.update(json.dumps(record, sort_keys=True).encode())
            count += 1
    return sha.hexdigest(), count


@pytest.mark.parametrize("variant", [RING, BACKGAMMON, SPACE], ids=lambda v: v.key)
def test_random_states_save_offer_and_say_what_they_did_before(variant: Variant) -> None:
    assert digest(variant)[0] == DIGESTS[variant.key]


if __name__ == "__main__":
    for v in (RING, BACKGAMMON, SPACE):
        print(v.key, *digest(v))

"""Digests of the board pictures of random states, for checking that a change draws nothing new.

    PYTHONPATH=$PWD .venv/bin/python bench/picture_digests.py [STATES]

For each game, ``STATES`` (40) random states (``engine.ai.selfplay.random_states``, seed 35), each
drawn for an onlooker and for both seats; prints the game, the count and the sha256 of every PNG's
bytes in order. Run it before and after a change: the same three lines mean the same pictures
(issue 35 compared main and the reshaped code with ``200``).
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path (and bench/render.py would be imported
# as ``render``): put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from engine.ai.selfplay import random_states  # noqa: E402
from engine.backgammon.variant import VARIANT as BACKGAMMON  # noqa: E402
from engine.ring import VARIANT as RING  # noqa: E402
from engine.space.variant import VARIANT as SPACE  # noqa: E402
from render import render_board  # noqa: E402


def main() -> None:
    wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    for variant in (RING, BACKGAMMON, SPACE):
        rng = random.Random(35)
        sha = hashlib.sha256()
        count = 0
        while count < wanted:
            for state in random_states(variant, rng):
                for seat in (None, 0, 1):
                    sha.update(render_board(state.view(seat)))
                count += 1
                if count >= wanted:
                    break
        print(variant.key, count, sha.hexdigest())


if __name__ == "__main__":
    main()

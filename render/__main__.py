"""``python -m render sample --game ring --out DIR``: write sample board pictures from seeded games.

Each picture shows one situation worth looking at (the start, tall stacks, every kind of roll, a
finished game per way of winning), found by playing seeded random games, so the same command always
writes the same files. ``--only`` picks some of them by name.

``python -m render rules --game ring --out cogs/rules``: the pictures of the rules pages (sheets of
small sample boards with captions, see ``render/rules_pictures.py``), redrawn the same way.

``python -m render palette --game ring``: rebuild the ring pictures' fixed palette from sample
pictures and write it to ``render/ring_palette.py`` (after a change of colours or shapes); the same
with ``--game backgammon`` writes ``render/backgammon_palette.py``, ``--game space``
``render/space_palette.py``.

Backgammon (``--game backgammon``) is not in the engine's registry yet: its samples come from seeded
random 5-point matches of its own variant (``render.backgammon.random_match``).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from engine import find_variant
from engine.ai.random_player import random_action
from engine.backgammon.board import BAR, CHECKERS, RuleSet
from engine.backgammon.game import BackgammonState, OfferResignation
from engine.backgammon.game import Phase as BgPhase
from engine.protocol import GameState
from engine.ring import WIN_KEYS, MarkKind, Phase, RingState
from engine.space.game import Phase as SpacePhase
from engine.space.game import SpaceState, SpaceWin
from render import RENDERERS, backgammon, render_board, ring, space
from render.rules_pictures import RING_SHEETS, SPACE_SHEETS, Sheet, rules_pictures

MAX_GAMES = 3000
"""How many seeded games the search plays at most before it gives up on what it has not found."""


class _Parser(argparse.ArgumentParser):
    """Bad arguments end with one line on stderr, not a usage block or a traceback."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _games(key: str, seed: int) -> Iterator[list[GameState]]:
    """Whole random games, one per seed from ``seed`` on, each as its list of states."""
    variant = find_variant(key)
    for n in range(seed, seed + MAX_GAMES):
        rng = random.Random(n)
        state = variant.new_game()
        states = [state]
        while state.outcome() is None:
            state = state.apply(random_action(state, rng))
            states.append(state)
        yield states


def _kinds(state: RingState) -> set[MarkKind]:
    return {m.kind for m in state.last.marks} if state.last is not None else set()


def _rolled(state: RingState) -> bool:
    return state.last is not None and state.last.notation.startswith("roll ")


RING_SITUATIONS: dict[str, Callable[[RingState], bool]] = {
    "opening-roll": lambda s: s.phase is Phase.ROLL and s.turn_number == 1 and s.dice is None,
    "tall-stacks": lambda s: (
        s.result is None and max(s.board) >= 4 and min(s.board) <= -4 and s.phase is Phase.ROLL
    ),
    "triples-placed": lambda s: (
        _rolled(s) and MarkKind.PLACE in _kinds(s) and s.dice is not None and len(set(s.dice)) == 1
    ),
    "odds-swap-pending": lambda s: s.phase is Phase.SWAP and len(s.stacks_of(0)) + len(s.stacks_of(1)) >= 6,
    "odds-swap-done": lambda s: MarkKind.SWAP in _kinds(s) and s.result is None,
    "evens-knock-pending": lambda s: (
        s.phase is Phase.KNOCK and len(s.stacks_of(0)) + len(s.stacks_of(1)) >= 6
    ),
    "evens-knock-done": lambda s: MarkKind.KNOCK in _kinds(s) and s.result is None,
    "doubles-placed": lambda s: (
        _rolled(s)
        and MarkKind.PLACE in _kinds(s)
        and s.dice is not None
        and s.dice[0] == s.dice[1] != s.dice[2]
    ),
    "move-one-die-left": lambda s: s.phase is Phase.MOVE and len(s.dice_left) == 1,
    "move-capture": lambda s: (
        MarkKind.FROM in _kinds(s)
        and MarkKind.CAPTURE in _kinds(s)
        and s.result is None
        and any(m.count >= 2 for m in (s.last.marks if s.last else ()) if m.kind is MarkKind.CAPTURE)
    ),
    "placement-blocked": lambda s: s.last is not None and "is blocked by" in s.last.text,
}


def _situation_samples(
    game: str,
    situations: dict[str, Callable[[Any], bool]],
    ways_to_win: int,
    seed: int,
    wanted: frozenset[str],
) -> list[tuple[str, GameState]]:
    """The first state of seeded random games of ``game`` in each of ``situations``, in their order,
    and one finished game per way of winning. The search stops once it has everything (every
    situation and ``ways_to_win`` endings), or as soon as it has the ``wanted`` names if given."""
    found: dict[str, GameState] = {"start": find_variant(game).new_game()}
    wins: dict[str, GameState] = {}
    for states in _games(game, seed):
        for state in states:
            for name, test in situations.items():
                if name not in found and test(state):
                    found[name] = state
            outcome = state.outcome()
            if outcome is not None and f"won-{outcome.reason}" not in wins:
                wins[f"won-{outcome.reason}"] = state
        if wanted and wanted <= set(found) | set(wins):
            break
        if len(found) == len(situations) + 1 and len(wins) >= ways_to_win:
            break
    ordered = [(name, found[name]) for name in ("start", *situations) if name in found]
    return ordered + sorted(wins.items())


def ring_samples(seed: int, wanted: frozenset[str] = frozenset()) -> list[tuple[str, GameState]]:
    """The ring situations worth a picture, in a fixed order, and one finished game per way of
    winning (five of the seven are enough to stop searching: two are rare in random play)."""
    return _situation_samples("ring", RING_SITUATIONS, 5, seed, wanted)


def _borne_off(state: BackgammonState) -> int:
    return max(CHECKERS - sum(side) for side in state.sides)


BACKGAMMON_SITUATIONS: dict[str, Callable[[BackgammonState], bool]] = {
    "opening-roll": lambda s: s.phase is BgPhase.PLAY and s.turn_number == 1 and not s.played,
    "hits-and-bar": lambda s: (
        s.phase in (BgPhase.DECIDE, BgPhase.ROLL)
        and s.last_play is not None
        and sum(m.hit for m in s.last_play.moves) >= 2
        and s.sides[0][BAR] + s.sides[1][BAR] >= 2
    ),
    "six-six-in-progress": lambda s: s.phase is BgPhase.PLAY and s.dice == (6, 6) and len(s.played) == 2,
    "double-offered": lambda s: s.phase is BgPhase.TAKE and s.cube >= 2 and s.turn_number > 6,
    "crawford-game": lambda s: (
        s.crawford and s.phase is BgPhase.PLAY and s.turn_number > 8 and len(s.played) == 1
    ),
    "bear-off": lambda s: (
        s.result is None and s.phase is BgPhase.PLAY and 5 <= _borne_off(s) <= 12 and bool(s.played)
    ),
    "tall-stacks": lambda s: (
        s.result is None and max(max(side[:24]) for side in s.sides) >= 8 and s.phase is BgPhase.ROLL
    ),
    "old-english": lambda s: s.rules is RuleSet.OLDENGLISH and s.phase is BgPhase.PLAY and s.turn_number > 20,
    "resignation-offered": lambda s: (
        s.phase is BgPhase.DECIDE and s.turn_number > 30 and s.rules is RuleSet.STANDARD
    ),
    "match-won": lambda s: s.result is not None and s.length > 1,
}
"""Situations of seeded random 5-point matches (the rule set cycles standard, nackgammon, Old English
with the seed); "resignation-offered" is the found position with a gammon resignation offered."""


def backgammon_samples(seed: int, wanted: frozenset[str] = frozenset()) -> list[tuple[str, GameState]]:
    """The backgammon situations worth a picture, in a fixed order."""
    found: dict[str, GameState] = {
        "start": find_variant("backgammon").new_game({"length": 5}),
        "nackgammon-start": find_variant("backgammon").new_game({"length": 5, "rules": "nackgammon"}),
    }
    rule_sets = (RuleSet.STANDARD, RuleSet.NACKGAMMON, RuleSet.OLDENGLISH)
    for n in range(seed, seed + MAX_GAMES):
        for state in backgammon.random_match(n, 5, rule_sets[n % 3]):
            for name, test in BACKGAMMON_SITUATIONS.items():
                if name not in found and test(state):
                    if name == "resignation-offered":
                        state = state.apply(OfferResignation(2))
                    found[name] = state
        if wanted and wanted <= set(found):
            break
        if len(found) == len(BACKGAMMON_SITUATIONS) + 2:
            break
    names = ("start", "nackgammon-start", *BACKGAMMON_SITUATIONS)
    return [(name, found[name]) for name in names if name in found]


SPACE_SITUATIONS: dict[str, Callable[[SpaceState], bool]] = {
    "first-roll": lambda s: s.phase is SpacePhase.ROLL_CARDS and s.turn_number == 1,
    "move": lambda s: s.phase is SpacePhase.MOVE and " moved " in (s.last_text or ""),
    "three-dice": lambda s: s.phase is SpacePhase.MOVE and len(s.dice) == 3,
    "fight": lambda s: s.phase is SpacePhase.DEFEND and s.turn_number > 4,
    "fight-result": lambda s: s.phase is SpacePhase.KEEP and " against " in (s.last_text or ""),
    "mid-game": lambda s: s.phase is SpacePhase.MOVE and s.turn_number >= 30,
}
"""Situations of seeded random space games, each the first state that fits."""


def space_samples(seed: int, wanted: frozenset[str] = frozenset()) -> list[tuple[str, GameState]]:
    """The space situations worth a picture, in a fixed order, and one finished game per way of winning."""
    return _situation_samples("space", SPACE_SITUATIONS, len(SpaceWin), seed, wanted)


@dataclass(frozen=True, slots=True)
class SampleSet:
    """The sample pictures of one game: every name it may write, and the search that finds them."""

    names: tuple[str, ...]
    find: Callable[[int, frozenset[str]], list[tuple[str, GameState]]]


SAMPLES: dict[str, SampleSet] = {
    "ring": SampleSet(("start", *RING_SITUATIONS, *(f"won-{key}" for key in WIN_KEYS)), ring_samples),
    "backgammon": SampleSet(("start", "nackgammon-start", *BACKGAMMON_SITUATIONS), backgammon_samples),
    "space": SampleSet(("start", *SPACE_SITUATIONS, *(f"won-{r}" for r in SpaceWin)), space_samples),
}


def _sample(game: str, out: Path, only: list[str] | None, seed: int) -> list[Path]:
    key = game.strip().lower()
    if key not in SAMPLES or key not in RENDERERS:
        known = ", ".join(sorted(set(SAMPLES) & set(RENDERERS)))
        raise ValueError(f"no sample pictures for the game {game!r} (games: {known})")
    sample_set = SAMPLES[key]
    unknown = [n for n in only or () if n not in sample_set.names]
    if unknown:
        raise ValueError(f"no sample called {', '.join(unknown)} (samples: {', '.join(sample_set.names)})")
    samples = sample_set.find(seed, frozenset(only or ()))
    if only:
        samples = [(name, state) for name, state in samples if name in only]
        missing = [n for n in only if n not in {name for name, _ in samples}]
        if missing:
            raise ValueError(f"{', '.join(missing)} did not occur in {MAX_GAMES} seeded random games")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, state in samples:
        path = out / f"{key}-{name}.png"
        path.write_bytes(render_board(state.view(None)))
        written.append(path)
    return written


RULES_SHEETS: dict[str, tuple[Sheet, ...]] = {"ring": RING_SHEETS, "space": SPACE_SHEETS}


def _rules(game: str, out: Path, seed: int) -> list[Path]:
    key = game.strip().lower()
    if key not in RULES_SHEETS or key not in SAMPLES:
        raise ValueError(
            f"no rules pictures for the game {game!r} (games: {', '.join(sorted(RULES_SHEETS))})"
        )
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, data in rules_pictures(RULES_SHEETS[key], SAMPLES[key].find, seed).items():
        path = out / f"{key}-{name}.png"
        path.write_bytes(data)
        written.append(path)
    return written


def _palette(game: str) -> Path:
    key = game.strip().lower()
    if key == "ring":
        path = Path(ring.__file__).with_name("ring_palette.py")
        path.write_text(ring.palette_module(ring.build_palette()))
        return path
    if key == "backgammon":
        path = Path(backgammon.__file__).with_name("backgammon_palette.py")
        path.write_text(backgammon.palette_module(backgammon.build_palette()))
        return path
    if key == "space":
        return space.write_palette()
    raise ValueError(f"no fixed palette for the game {game!r} (games: backgammon, ring, space)")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m render", description="Board pictures of the bot's games.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sample = commands.add_parser("sample", help="write sample pictures of a game from seeded random games")
    sample.add_argument("--game", required=True, help="the game's key, e.g. ring")
    sample.add_argument("--out", required=True, type=Path, help="directory to write the PNG files to")
    sample.add_argument("--only", help="comma-separated sample names to write (default: all)")
    sample.add_argument(
        "--seed", type=int, default=1, help="first seed of the random games searched (default 1)"
    )
    rules = commands.add_parser("rules", help="write the pictures of a game's rules pages")
    rules.add_argument("--game", required=True, help="the game's key, e.g. ring")
    rules.add_argument("--out", required=True, type=Path, help="directory to write the PNG files to")
    rules.add_argument(
        "--seed", type=int, default=1, help="first seed of the random games searched (default 1)"
    )
    palette = commands.add_parser("palette", help="rebuild a game's fixed palette (render/<game>_palette.py)")
    palette.add_argument("--game", required=True, help="the game's key, e.g. ring")
    args = parser.parse_args(argv)
    try:
        if args.command == "palette":
            written = [_palette(args.game)]
        elif args.command == "rules":
            written = _rules(args.game, args.out, args.seed)
        else:
            only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
            written = _sample(args.game, args.out, only, args.seed)
    except (ValueError, OSError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Command line.

``python -m engine selfplay --game ring --games N --seed S``: random self-play figures.
``python -m engine arena --game ring --players hard,greedy --games N --seed S``: two computer players
play each other (seats alternating) and the figures come out as one JSON object.
``python -m engine move --game G --level hard --state FILE`` (``-``: stdin): the computer's action in
a state saved as the bot saves it, one line of notation.

A game may add commands of its own and its own way of answering ``move`` (its kit's ``commands``,
``engine/commands.py``), such as a ``move`` from a position ID and a roll rather than a saved state.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping

from engine.ai.arena import arena
from engine.ai.levels import LEVEL_PLAYERS, UnknownPlayerError, find_player
from engine.ai.selfplay import selfplay
from engine.ai.state_move import StateMoveError, choose_action, read_state
from engine.commands import Command, GameCommands, spoken_list
from engine.errors import GameError
from engine.protocol import Variant
from engine.registry import VARIANTS, find_variant
from kits import KITS, KitTable

COMMANDS: Mapping[str, GameCommands] = KitTable(KITS, lambda kit: kit.commands)
"""The games with commands of their own, by key."""


def _variant(name: str) -> Variant | None:
    """The game called ``name``, or ``None`` once the error is printed on stderr."""
    try:
        return find_variant(name)
    except GameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def _selfplay(args: argparse.Namespace) -> int:
    variant = _variant(args.game)
    if variant is None:
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    report = selfplay(variant, args.games, args.seed)
    print(json.dumps(report.to_json()))
    return 0


def _arena(args: argparse.Namespace) -> int:
    variant = _variant(args.game)
    if variant is None:
        return 2
    names = [n.strip() for n in str(args.players).split(",")]
    if len(names) != 2 or not all(names):
        print(
            "error: --players takes two player names separated by a comma, like hard,greedy", file=sys.stderr
        )
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    try:
        report = arena(variant, (names[0], names[1]), args.games, args.seed)
    except UnknownPlayerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


def _move(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    game = args.game
    if game is None:
        owners = [key for key, c in COMMANDS.items() for name, _ in c.move_options if _given(args, name)]
        defaults = [key for key, c in COMMANDS.items() if c.move_by_default]
        game = (owners or defaults or [next(iter(VARIANTS))])[0]
        args.game = game
    commands = COMMANDS.get(str(game).strip().lower())
    if commands is not None:
        return commands.move(args, parser)
    return _move_from_state(args)


def _given(args: argparse.Namespace, name: str) -> bool:
    return getattr(args, name, None) not in (None, False)


def _move_from_state(args: argparse.Namespace) -> int:
    """``move`` for a game without its own: read the saved state, print the chosen action's notation."""
    variant = _variant(args.game)
    if variant is None:
        return 2
    for owner, commands in COMMANDS.items():
        given = [flag for name, flag in commands.move_options if _given(args, name)]
        if given:
            print(
                f"error: {', '.join(given)} {'is' if len(given) == 1 else 'are'} for {owner} only; "
                f"{variant.key} reads --state FILE (- for stdin)",
                file=sys.stderr,
            )
            return 2
    if args.state is None:
        print(f"error: give --state FILE (- for stdin) with the saved {variant.key} state", file=sys.stderr)
        return 2
    try:
        player = find_player(variant.key, str(args.level))
        if args.state == "-":
            text = sys.stdin.read()
        else:
            with open(args.state, encoding="utf-8") as file:
                text = file.read()
        state = read_state(variant, text)
        action = choose_action(state, player, args.seed)
    except (StateMoveError, UnknownPlayerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read the state file {args.state!r} ({exc.__class__.__name__})", file=sys.stderr)
        return 2
    print(action.notation)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    games = ", ".join(sorted(VARIANTS))
    first = next(iter(VARIANTS))
    play = commands.add_parser("selfplay", help="play games between two random players and print figures")
    play.add_argument("--game", default=first, help=f"one of: {games}")
    play.add_argument("--games", type=int, default=1000)
    play.add_argument("--seed", type=int, default=1)
    handlers: dict[str, Command] = {"selfplay": _selfplay, "arena": _arena}
    for own in COMMANDS.values():
        handlers.update(own.add_commands(commands))
    fight = commands.add_parser(
        "arena", help="play games between two computer players (seats alternating) and print figures"
    )
    fight.add_argument("--game", default=first, help=f"one of: {games}")
    players_help = "; ".join(f"{game}: {', '.join(table)}" for game, table in sorted(LEVEL_PLAYERS.items()))
    fight.add_argument("--players", default="hard,greedy", help=f"two names, A,B ({players_help})")
    fight.add_argument("--games", type=int, default=200)
    fight.add_argument("--seed", type=int, default=1)
    from_state = spoken_list([key for key in VARIANTS if key not in COMMANDS])
    own_moves = " ".join(c.move_help for c in COMMANDS.values())
    move = commands.add_parser(
        "move",
        help=f"the computer's choice in one position; for {from_state} the action's notation in a saved "
        "state (see the description for the other games)",
        description=f"The computer's choice in one position. {own_moves} {from_state.capitalize()}: "
        "--state FILE (- for stdin) holding the state's JSON as the bot saves it; prints the notation "
        "of the deciding seat's action (chosen from that seat's view only). A state at a chance "
        "step or a finished game, bad JSON, a corrupt state or an unknown level: one line on stderr, "
        "exit status 2.",
    )
    move.add_argument("--game", default=None, help=f"one of: {games}")
    move.add_argument("--level", default="medium", help=f"a player of the game ({players_help})")
    for own in COMMANDS.values():
        own.add_move_options(move)
    move.add_argument("--state", help=f"{from_state}: a file with the saved state's JSON, - for stdin")
    move.add_argument("--seed", type=int, default=1, help="the random source of levels that draw (easy)")
    handlers["move"] = lambda parsed: _move(parsed, move)
    args = parser.parse_args(argv)
    return handlers[args.command](args)


if __name__ == "__main__":
    sys.exit(main())

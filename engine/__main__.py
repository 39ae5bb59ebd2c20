"""Command line.

``python -m engine selfplay --game ring --games N --seed S``: random self-play figures.
``python -m engine plays --game backgammon --position ID --dice 6-4`` (or ``--stdin``): legal plays.
``python -m engine arena --game ring --players hard,greedy --games N --seed S``: two computer players
play each other (seats alternating) and the figures come out as one JSON object.
``python -m engine move --game backgammon --level hard --position ID --dice 6-4`` (or ``--stdin``): the
computer's play, one line as ``plays`` prints it.
``python -m engine move --game ring --level hard --state FILE`` (``-``: stdin; ring and space): the
computer's action in a state saved as the bot saves it, one line of notation.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.ai.arena import arena
from engine.ai.backgammon_move import level_player, move_line, serve_moves
from engine.ai.levels import LEVEL_PLAYERS, UnknownPlayerError, find_player
from engine.ai.selfplay import selfplay
from engine.ai.state_move import StateMoveError, choose_action, read_state
from engine.backgammon.board import RuleSet
from engine.backgammon.cli import (
    QueryError,
    check_game,
    parse_dice,
    parse_position,
    play_lines,
    serve,
)
from engine.errors import GameError
from engine.protocol import Variant
from engine.registry import VARIANTS, find_variant


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


def _plays(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    rules = RuleSet(args.rules)
    if args.stdin:
        if args.position is not None or args.dice is not None:
            parser.error("--stdin reads the positions and dice: leave out --position and --dice")
    elif args.position is None or args.dice is None:
        parser.error("give --position and --dice, or --stdin")
    try:
        check_game(args.game)
        if args.stdin:
            return 0 if serve(sys.stdin, sys.stdout, rules) else 1
        board = parse_position(str(args.position))
        d1, d2 = parse_dice(str(args.dice))
    except QueryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in play_lines(board, d1, d2, rules):
        print(line)
    return 0


BACKGAMMON_ONLY = (("position", "--position"), ("dice", "--dice"), ("stdin", "--stdin"), ("rules", "--rules"))
"""The options of ``move`` that only backgammon reads (its position ID and roll)."""


def _move(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.game != "backgammon":
        return _move_from_state(args)
    if args.state is not None:
        print("error: backgammon reads --position and --dice (or --stdin), not --state", file=sys.stderr)
        return 2
    rules = RuleSet(args.rules or RuleSet.STANDARD.value)
    if args.stdin:
        if args.position is not None or args.dice is not None:
            parser.error("--stdin reads the positions and dice: leave out --position and --dice")
    elif args.position is None or args.dice is None:
        parser.error("give --position and --dice, or --stdin")
    try:
        check_game(args.game)
        player = level_player(str(args.level))
        if args.stdin:
            return 0 if serve_moves(sys.stdin, sys.stdout, player, rules, args.seed) else 1
        board = parse_position(str(args.position))
        d1, d2 = parse_dice(str(args.dice))
    except (QueryError, UnknownPlayerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(move_line(player, board, d1, d2, rules, args.seed))
    return 0


def _move_from_state(args: argparse.Namespace) -> int:
    """``move`` for ring and space: read the saved state, print the chosen action's notation."""
    variant = _variant(args.game)
    if variant is None:
        return 2
    given = [flag for name, flag in BACKGAMMON_ONLY if getattr(args, name) not in (None, False)]
    if given:
        print(
            f"error: {', '.join(given)} {'is' if len(given) == 1 else 'are'} for backgammon only; "
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
    play = commands.add_parser("selfplay", help="play games between two random players and print figures")
    play.add_argument("--game", default="ring", help=f"one of: {', '.join(sorted(VARIANTS))}")
    play.add_argument("--games", type=int, default=1000)
    play.add_argument("--seed", type=int, default=1)
    plays = commands.add_parser(
        "plays", help="list the legal plays of a roll: notation, TAB, GNU Backgammon position ID after it"
    )
    plays.add_argument("--game", default="backgammon", help="backgammon")
    plays.add_argument("--rules", choices=[r.value for r in RuleSet], default=RuleSet.STANDARD.value)
    plays.add_argument("--position", help="GNU Backgammon position ID, the player on roll to move")
    plays.add_argument("--dice", help="the roll, like 6-4")
    plays.add_argument(
        "--stdin",
        action="store_true",
        help="read 'POSITION_ID A-B' lines; each answer ends with an empty line",
    )
    fight = commands.add_parser(
        "arena", help="play games between two computer players (seats alternating) and print figures"
    )
    fight.add_argument("--game", default="ring", help=f"one of: {', '.join(sorted(VARIANTS))}")
    players_help = "; ".join(f"{game}: {', '.join(table)}" for game, table in sorted(LEVEL_PLAYERS.items()))
    fight.add_argument("--players", default="hard,greedy", help=f"two names, A,B ({players_help})")
    fight.add_argument("--games", type=int, default=200)
    fight.add_argument("--seed", type=int, default=1)
    move = commands.add_parser(
        "move",
        help="the computer's choice in one position: for backgammon the play of a roll (notation, TAB, "
        "GNU Backgammon position ID after it); for ring and space the action's notation in a saved state",
        description="The computer's choice in one position. Backgammon: --position ID --dice A-B (or "
        "--stdin), the play and the position ID it reaches, cubeless money play. Ring and space: "
        "--state FILE (- for stdin) holding the state's JSON as the bot saves it; prints the notation "
        "of the deciding seat's action (space: chosen from that seat's view only). A state at a chance "
        "step or a finished game, bad JSON, a corrupt state or an unknown level: one line on stderr, "
        "exit status 2.",
    )
    move.add_argument("--game", default="backgammon", help=f"one of: {', '.join(sorted(VARIANTS))}")
    move.add_argument(
        "--level",
        default="medium",
        help=f"a player of the game ({players_help}); backgammon plays cubeless money play",
    )
    move.add_argument(
        "--rules", choices=[r.value for r in RuleSet], help="backgammon only: the rule set (standard)"
    )
    move.add_argument(
        "--position", help="backgammon only: GNU Backgammon position ID, the player on roll to move"
    )
    move.add_argument("--dice", help="backgammon only: the roll, like 6-4")
    move.add_argument("--state", help="ring and space: a file with the saved state's JSON, - for stdin")
    move.add_argument("--seed", type=int, default=1, help="the random source of levels that draw (easy)")
    move.add_argument(
        "--stdin",
        action="store_true",
        help="backgammon only: read 'POSITION_ID A-B' lines, one answer line each",
    )
    args = parser.parse_args(argv)
    if args.command == "move":
        return _move(args, move)
    if args.command == "arena":
        return _arena(args)
    if args.command == "plays":
        return _plays(args, plays)
    return _selfplay(args)


if __name__ == "__main__":
    sys.exit(main())

"""Backgammon's part of ``python -m engine``: ``plays`` (the legal plays of a roll), ``move`` from a
GNU Backgammon position ID and a roll rather than a saved state, and ``analyse`` (a ``.mat`` file's
analysis as JSON, ``engine.ai.backgammon_mat_report``)."""

from __future__ import annotations

import argparse
import json
import sys

from engine.ai.backgammon_mat_report import mat_report
from engine.ai.backgammon_move import level_player, move_line, serve_moves
from engine.ai.levels import UnknownPlayerError
from engine.backgammon.board import RuleSet
from engine.backgammon.cli import QueryError, check_game, parse_dice, parse_position, play_lines, serve
from engine.backgammon.matimport import MatImportError, read_mat
from engine.commands import Command, Subcommands

RULES = [r.value for r in RuleSet]


class BackgammonCommands:
    move_options = (
        ("position", "--position"),
        ("dice", "--dice"),
        ("stdin", "--stdin"),
        ("rules", "--rules"),
    )
    move_help = (
        "Backgammon: --position ID --dice A-B (or --stdin), the play and the position ID it reaches, "
        "cubeless money play."
    )
    move_by_default = True

    def add_commands(self, commands: Subcommands) -> dict[str, Command]:
        plays = commands.add_parser(
            "plays", help="list the legal plays of a roll: notation, TAB, GNU Backgammon position ID after it"
        )
        plays.add_argument("--game", default="backgammon", help="backgammon")
        plays.add_argument("--rules", choices=RULES, default=RuleSet.STANDARD.value)
        plays.add_argument("--position", help="GNU Backgammon position ID, the player on roll to move")
        plays.add_argument("--dice", help="the roll, like 6-4")
        plays.add_argument(
            "--stdin",
            action="store_true",
            help="read 'POSITION_ID A-B' lines; each answer ends with an empty line",
        )
        analysis = commands.add_parser(
            "analyse",
            help="analyse a .mat match file as /analyse does and print one JSON object",
            description="Analyse a Jellyfish .mat match file (GNU Backgammon, eXtreme Gammon) as the bot's "
            "/analyse does; print one JSON object: depth, players (name, pr, doubtful, errors, blunders, "
            "luck) and decisions (game, move, player, position_id, dice, played, best, loss). A file that "
            "cannot be read: one line on stderr, exit status 2.",
        )
        analysis.add_argument("--game", default="backgammon", help="backgammon")
        analysis.add_argument("--mat", required=True, help="the .mat file")
        return {"plays": lambda args: self._plays(args, plays), "analyse": self._analyse}

    @staticmethod
    def _analyse(args: argparse.Namespace) -> int:
        try:
            check_game(args.game)
            with open(args.mat, "rb") as file:
                match = read_mat(file.read())
        except OSError as exc:
            print(
                f"error: {args.mat}: cannot read the file ({exc.strerror or exc.__class__.__name__})",
                file=sys.stderr,
            )
            return 2
        except (QueryError, MatImportError) as exc:
            print(f"error: {args.mat}: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(mat_report(match)))
        return 0

    def add_move_options(self, move: argparse.ArgumentParser) -> None:
        move.add_argument("--rules", choices=RULES, help="backgammon only: the rule set (standard)")
        move.add_argument(
            "--position", help="backgammon only: GNU Backgammon position ID, the player on roll to move"
        )
        move.add_argument("--dice", help="backgammon only: the roll, like 6-4")
        move.add_argument(
            "--stdin",
            action="store_true",
            help="backgammon only: read 'POSITION_ID A-B' lines, one answer line each",
        )

    @staticmethod
    def _plays(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        rules = RuleSet(args.rules)
        _check_query(args, parser)
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

    def move(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        if args.state is not None:
            print("error: backgammon reads --position and --dice (or --stdin), not --state", file=sys.stderr)
            return 2
        rules = RuleSet(args.rules or RuleSet.STANDARD.value)
        _check_query(args, parser)
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


def _check_query(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """A position and a roll, or ``--stdin`` for lines of them: not both, not neither."""
    if args.stdin:
        if args.position is not None or args.dice is not None:
            parser.error("--stdin reads the positions and dice: leave out --position and --dice")
    elif args.position is None or args.dice is None:
        parser.error("give --position and --dice, or --stdin")


COMMANDS = BackgammonCommands()

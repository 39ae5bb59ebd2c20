"""Interchange formats of backgammon positions: GNU Backgammon position and match IDs, eXtreme Gammon XGIDs.

Written from the specifications, not from another program's code:

- GNU Backgammon manual, "A technical description of the Position ID": for each side in turn (first
  ``board[0]``, the player not on roll, then ``board[1]``, the player on roll), for each of its points
  1..24 and then its bar, as many 1 bits as checkers followed by one 0 bit. At most 80 bits, packed
  little-endian into 10 bytes (the first bit is the least significant bit of the first byte), written
  as Base64 without the padding: 14 characters.
- GNU Backgammon manual, "A technical description of the Match ID": a 66-bit key (plus, in current
  GNU Backgammon, a 67th bit "Jacoby off"), fields little-endian, packed like the position key into
  9 bytes, Base64: 12 characters.
- eXtreme Gammon's XGID: ``XGID=`` then ten fields separated by colons: the 26-character position,
  the cube value (log2), the cube position, the turn, the dice (``00`` to roll or double, ``D`` a
  double waiting, ``B`` a double beavered, ``R`` a beaver raccooned, else the two dice), the bottom
  and top player's scores, the Crawford / Jacoby-beaver field, the match length and the maximum cube
  (log2). ``read_xgid`` gives an ``Xgid``: what a GNUBG ID holds, and the beaver rule and state.

The board is GNU Backgammon's: ``board[side][i]`` is the number of checkers of ``side`` on its own
point ``i + 1`` (``i`` = 0..23, counted from that side's own view), ``board[side][24]`` its bar;
``board[1]`` is the player on roll. Player numbers (0 and 1) in ``MatchInfo`` are GNU Backgammon's
match players, as in its match ID.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import IntEnum

from engine.backgammon.board import Board
from engine.errors import NotationError

CHECKERS = 15
POINTS = 24
BAR = 24  # index of the bar in one side's row
ROW = 25  # points and bar

POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
POSITION_KEY_LENGTH = 20

_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class FormatError(NotationError):
    """A position ID, match ID, position key or XGID could not be read or written; the message says why."""


class GameState(IntEnum):
    """The game state field of a GNU Backgammon match ID."""

    NONE = 0  # no game started
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4  # ended by a cube pass


class Resignation(IntEnum):
    """What is offered by a pending resignation (match ID bits 14-15)."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """Everything a GNU Backgammon match ID holds.

    ``cube_log2``: the cube value as a power of two (0 = 1, 3 = 8; at most 15).
    ``cube_owner``: 0 or 1, or None for a centred cube.
    ``on_roll``: the player on roll, or who did roll (match ID "dice owner", bit 7).
    ``crawford``: this game is the Crawford game.
    ``game_state``: see ``GameState``.
    ``turn``: the player who is to move or decide (bit 12): the opponent of ``on_roll`` while a
    double or a resignation waits for an answer.
    ``doubled``: a double is being offered. ``resigned``: a resignation is offered (``Resignation``).
    ``dice``: the dice rolled, ``(0, 0)`` if not rolled yet.
    ``match_length``: 0 for a money game. ``score``: points of player 0 and of player 1.
    ``jacoby``: the Jacoby rule is in force (money games; written as the match ID's "Jacoby off" bit).
    """

    cube_log2: int = 0
    cube_owner: int | None = None
    on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: Resignation = Resignation.NONE
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False

    @property
    def cube_value(self) -> int:
        return 1 << self.cube_log2


# --- checks ------------------------------------------------------------------------------------------


def check_board(board: Board) -> None:
    """Raise ``FormatError`` unless ``board`` is two rows of 25 non-negative counts, at most 15 checkers a
    side, and no point held by both sides."""
    if len(board) != 2 or any(len(row) != ROW for row in board):
        raise FormatError("A board is two rows of 25 counts: 24 points and the bar for each side.")
    for side, row in enumerate(board):
        if any(not isinstance(n, int) or n < 0 for n in row):
            raise FormatError(f"Side {side} has a negative or non-integer checker count.")
        total = sum(row)
        if total > CHECKERS:
            who = "The player on roll" if side else "The player not on roll"
            raise FormatError(f"{who} has {total} checkers on the board; at most {CHECKERS} are allowed.")
    for i in range(POINTS):
        # Side 1's point i+1 is side 0's point 24-i.
        if board[1][i] and board[0][POINTS - 1 - i]:
            raise FormatError(
                f"Point {i + 1} of the player on roll holds checkers of both sides "
                f"({board[1][i]} and {board[0][POINTS - 1 - i]})."
            )


def _check_player(name: str, value: object) -> None:
    if value not in (0, 1) or isinstance(value, bool):
        raise FormatError(f"{name} must be player 0 or 1, not {value!r}.")


def check_match_info(info: MatchInfo) -> None:
    """Raise ``FormatError`` unless every field of ``info`` fits its place in a match ID."""
    if not 0 <= info.cube_log2 <= 15:
        raise FormatError(f"The cube value 2^{info.cube_log2} cannot be written (at most 2^15).")
    if info.cube_owner is not None:
        _check_player("The cube owner", info.cube_owner)
    _check_player("The player on roll", info.on_roll)
    _check_player("The player to move or decide", info.turn)
    if info.game_state not in tuple(GameState):
        raise FormatError(f"Unknown game state {info.game_state!r}.")
    if info.resigned not in tuple(Resignation):
        raise FormatError(f"Unknown resignation {info.resigned!r}.")
    d1, d2 = info.dice
    if (d1, d2) != (0, 0) and not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise FormatError(f"Dice {d1}-{d2} are not a roll (each 1 to 6, or 0-0 for not rolled).")
    limit = (1 << 15) - 1
    if not 0 <= info.match_length <= limit:
        raise FormatError(f"A match length of {info.match_length} cannot be written (0 to {limit}).")
    for player, points in enumerate(info.score):
        if not 0 <= points <= limit:
            raise FormatError(f"A score of {points} for player {player} cannot be written (0 to {limit}).")
    if info.match_length and max(info.score) >= info.match_length:
        # GNU Backgammon aborts on such a match ID: the score of a match under way is below its length.
        raise FormatError(
            f"A score of {info.score[0]}-{info.score[1]} has already won a {info.match_length}-point match."
        )


# --- bits and Base64 ---------------------------------------------------------------------------------


def _pack(bits: list[int], nbytes: int) -> bytes:
    """Little-endian bit string to bytes: bit k goes to byte k // 8, value 1 << (k % 8)."""
    out = bytearray(nbytes)
    for k, bit in enumerate(bits):
        if bit:
            out[k // 8] |= 1 << (k % 8)
    return bytes(out)


def _bit(data: bytes, k: int) -> int:
    return (data[k // 8] >> (k % 8)) & 1


def _decode_base64(text: str, length: int, nbytes: int, what: str) -> bytes:
    if not isinstance(text, str):
        raise FormatError(f"A {what} is text, not {type(text).__name__}.")
    if len(text) != length:
        raise FormatError(f"A {what} has {length} characters; {text!r} has {len(text)}.")
    bad = sorted({c for c in text if c not in _BASE64})
    if bad:
        raise FormatError(
            f"{text!r} is not a {what}: {', '.join(repr(c) for c in bad)} "
            "is not a Base64 character (A-Z, a-z, 0-9, + and /)."
        )
    padding = "=" * (-len(text) % 4)
    try:
        data = base64.b64decode(text + padding, validate=True)
    except binascii.Error as error:  # pragma: no cover - the checks above leave nothing to fail
        raise FormatError(f"{text!r} is not a {what}: {error}.") from error
    return data[:nbytes]


def _encode_base64(data: bytes, length: int) -> str:
    return base64.b64encode(data).decode("ascii")[:length]


# --- position ID -------------------------------------------------------------------------------------


def _position_bits(board: Board) -> list[int]:
    bits: list[int] = []
    for row in board:
        for count in row:
            bits.extend([1] * count)
            bits.append(0)
    return bits


def _position_key_bytes(board: Board) -> bytes:
    check_board(board)
    return _pack(_position_bits(board), 10)


def _board_from_key_bytes(data: bytes, text: str, what: str) -> Board:
    rows: list[list[int]] = [[], []]
    k = 0
    for side in (0, 1):
        total = 0
        while len(rows[side]) < ROW:
            count = 0
            while k < 80 and _bit(data, k):
                count += 1
                total += 1
                k += 1
                if total > CHECKERS:
                    raise FormatError(
                        f"{text!r} is not a {what}: it gives side {side} more than {CHECKERS} checkers."
                    )
            if k >= 80:
                raise FormatError(f"{text!r} is not a {what}: its bits run out before both sides are read.")
            k += 1  # the 0 that ends this point
            rows[side].append(count)
    if any(_bit(data, j) for j in range(k, 80)):
        raise FormatError(f"{text!r} is not a {what}: it has bits set after the last point.")
    board: Board = (tuple(rows[0]), tuple(rows[1]))
    try:
        check_board(board)
    except FormatError as error:
        raise FormatError(f"{text!r} is not a possible {what}: {_lower_first(error)}") from error
    return board


def _lower_first(error: FormatError) -> str:
    text = str(error)
    return text[:1].lower() + text[1:]


def position_id(board: Board) -> str:
    """The 14-character GNU Backgammon position ID of ``board`` (``board[1]`` on roll)."""
    return _encode_base64(_position_key_bytes(board), POSITION_ID_LENGTH)


def board_from_position_id(text: str) -> Board:
    """The board of a GNU Backgammon position ID; ``FormatError`` if ``text`` is not one."""
    data = _decode_base64(
        text.strip() if isinstance(text, str) else text, POSITION_ID_LENGTH, 10, "GNU Backgammon position ID"
    )
    return _board_from_key_bytes(data, text, "GNU Backgammon position ID")


def position_key(board: Board) -> str:
    """The 20-letter position key gnubg-nn uses (``key_of_board``): each byte of the 10-byte key as two
    letters 'A' + nibble, high nibble first."""
    return "".join(chr(65 + (b >> 4)) + chr(65 + (b & 15)) for b in _position_key_bytes(board))


def board_from_position_key(text: str) -> Board:
    """The board of a 20-letter position key (see ``position_key``)."""
    if (
        not isinstance(text, str)
        or len(text) != POSITION_KEY_LENGTH
        or any(not "A" <= c <= "P" for c in text)
    ):
        raise FormatError(f"{text!r} is not a position key: 20 letters from A to P.")
    data = bytes(((ord(text[2 * i]) - 65) << 4) | (ord(text[2 * i + 1]) - 65) for i in range(10))
    return _board_from_key_bytes(data, text, "position key")


# --- match ID ----------------------------------------------------------------------------------------

# (name, first bit, width), in the manual's order (its bit numbers are 1-based; these are 0-based).
_MATCH_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("cube", 0, 4),
    ("owner", 4, 2),
    ("on_roll", 6, 1),
    ("crawford", 7, 1),
    ("state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("jacoby_off", 66, 1),
)
_CENTRED = 3


def match_id(info: MatchInfo) -> str:
    """The 12-character GNU Backgammon match ID of ``info``."""
    check_match_info(info)
    values = {
        "cube": info.cube_log2,
        "owner": _CENTRED if info.cube_owner is None else info.cube_owner,
        "on_roll": info.on_roll,
        "crawford": int(info.crawford),
        "state": int(info.game_state),
        "turn": info.turn,
        "doubled": int(info.doubled),
        "resigned": int(info.resigned),
        "die1": info.dice[0],
        "die2": info.dice[1],
        "length": info.match_length,
        "score0": info.score[0],
        "score1": info.score[1],
        "jacoby_off": int(not info.jacoby),
    }
    bits = [0] * 72
    for name, first, width in _MATCH_FIELDS:
        for j in range(width):
            bits[first + j] = (values[name] >> j) & 1
    return _encode_base64(_pack(bits, 9), MATCH_ID_LENGTH)


def match_info_from_id(text: str) -> MatchInfo:
    """The match information of a GNU Backgammon match ID; ``FormatError`` if ``text`` is not one."""
    what = "GNU Backgammon match ID"
    data = _decode_base64(text.strip() if isinstance(text, str) else text, MATCH_ID_LENGTH, 9, what)
    v = {name: sum(_bit(data, first + j) << j for j in range(width)) for name, first, width in _MATCH_FIELDS}
    if v["owner"] == 2:
        raise FormatError(f"{text!r} is not a {what}: its cube owner field is 2 (0, 1 or 3 for centred).")
    if v["state"] > GameState.DROPPED:
        raise FormatError(f"{text!r} is not a {what}: its game state {v['state']} is unknown (0 to 4).")
    dice = (v["die1"], v["die2"])
    if dice != (0, 0) and not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
        raise FormatError(f"{text!r} is not a {what}: its dice {dice[0]}-{dice[1]} are not a roll.")
    return MatchInfo(
        cube_log2=v["cube"],
        cube_owner=None if v["owner"] == _CENTRED else v["owner"],
        on_roll=v["on_roll"],
        crawford=bool(v["crawford"]),
        game_state=GameState(v["state"]),
        turn=v["turn"],
        doubled=bool(v["doubled"]),
        resigned=Resignation(v["resigned"]),
        dice=dice,
        match_length=v["length"],
        score=(v["score0"], v["score1"]),
        jacoby=not v["jacoby_off"],
    )


def gnubg_id(board: Board, info: MatchInfo) -> str:
    """``POSITIONID:MATCHID``, the form GNU Backgammon's "set gnubgid" reads and shows."""
    return f"{position_id(board)}:{match_id(info)}"


# --- XGID --------------------------------------------------------------------------------------------


def _xg_char(count: int, upper: bool) -> str:
    if count == 0:
        return "-"
    return chr((65 if upper else 97) + count - 1)


def xgid(board: Board, info: MatchInfo, *, beaver: bool = False, max_cube_log2: int = 10) -> str:
    """The eXtreme Gammon XGID of ``board`` with ``info``.

    GNU Backgammon's player 1 is XG's bottom player (upper-case letters, turn 1, cube position 1, the
    first score), player 0 the top player (lower case, -1). The position field is the bar of the top
    player, points 1..24 counted from the bottom player's view, then the bottom player's bar.
    ``board[1]`` is ``info.on_roll``'s checkers. The turn field is ``info.on_roll``: while a double
    waits for an answer the dice field is ``D`` and the turn still names the player who doubled
    (GNU Backgammon reads it so: it steps back to that player's cube decision). ``info.turn``,
    ``game_state`` and ``resigned`` have no place in an XGID. The Crawford / Jacoby field is the
    Crawford flag in a match; in a money game 1 for the Jacoby rule plus 2 for beavers (``beaver``).
    """
    check_board(board)
    check_match_info(info)
    if not 0 <= max_cube_log2 <= 15:
        raise FormatError(f"The maximum cube 2^{max_cube_log2} cannot be written (at most 2^15).")
    bottom = board[1] if info.on_roll == 1 else board[0]
    top = board[0] if info.on_roll == 1 else board[1]
    cells = [_xg_char(top[BAR], upper=False)]
    for point in range(1, POINTS + 1):  # the bottom player's point numbers
        mine, theirs = bottom[point - 1], top[POINTS - point]
        cells.append(_xg_char(mine, upper=True) if mine else _xg_char(theirs, upper=False))
    cells.append(_xg_char(bottom[BAR], upper=True))

    def side(player: int) -> int:
        return 1 if player == 1 else -1

    cube_position = 0 if info.cube_owner is None else side(info.cube_owner)
    if info.doubled:
        dice = "D"
    elif info.dice == (0, 0):
        dice = "00"
    else:
        dice = f"{info.dice[0]}{info.dice[1]}"
    # In a match the Crawford flag; in a money game 1 for the Jacoby rule plus 2 for beavers.
    rules = int(info.crawford) if info.match_length else int(info.jacoby) + 2 * int(beaver)
    fields = [
        "".join(cells),
        str(info.cube_log2),
        str(cube_position),
        str(side(info.on_roll)),
        dice,
        str(info.score[1]),
        str(info.score[0]),
        str(rules),
        str(info.match_length),
        str(max_cube_log2),
    ]
    return "XGID=" + ":".join(fields)


_XG_LETTERS = "-abcdefghijklmnoABCDEFGHIJKLMNO"


def _xg_count(char: str, text: str) -> tuple[int, bool]:
    """The checkers a position letter stands for, and whether they are the bottom player's."""
    index = _XG_LETTERS.find(char)
    if index < 0 or not char:
        raise FormatError(
            f"{text!r} is not an XGID: {char!r} is not a position letter (- for none, a-o or A-O for 1 to 15)."
        )
    if index == 0:
        return 0, False
    return (index - 15, True) if index > 15 else (index, False)


def _xg_number(text: str, field: str, name: str, low: int, high: int) -> int:
    try:
        value = int(field)
    except ValueError:
        raise FormatError(f"{text!r} is not an XGID: its {name} {field!r} is not a number.") from None
    if not low <= value <= high:
        raise FormatError(f"{text!r} is not an XGID: its {name} {value} is not {low} to {high}.")
    return value


def _xg_fields(text: str) -> list[str]:
    """The ten fields of an XGID (``XGID=`` before them or not)."""
    if not isinstance(text, str):
        raise FormatError(f"An XGID is text, not {type(text).__name__}.")
    body = text.strip()
    if body[:5].upper() == "XGID=":
        body = body[5:]
    fields = body.split(":")
    if len(fields) != 10:
        raise FormatError(
            f"{text!r} is not an XGID: it has {len(fields)} fields separated by ':' (10 expected)."
        )
    return fields


def _xg_position(text: str, cells: str) -> tuple[list[int], list[int]]:
    """The bottom and top players' checkers (``ROW`` counts each) from the 26 letters of the position:
    the top player's bar, points 1 to 24 from the bottom player's side, the bottom player's bar."""
    if len(cells) != 26:
        raise FormatError(f"{text!r} is not an XGID: its position has {len(cells)} letters (26 expected).")
    bottom = [0] * ROW
    top = [0] * ROW
    for index, char in enumerate(cells):
        count, is_bottom = _xg_count(char, text)
        if index == 0:
            if is_bottom:
                raise FormatError(
                    f"{text!r} is not an XGID: its first letter, the top player's bar, is upper case."
                )
            top[BAR] = count
        elif index == 25:
            if count and not is_bottom:
                raise FormatError(
                    f"{text!r} is not an XGID: its last letter, the bottom player's bar, is lower case."
                )
            bottom[BAR] = count
        elif is_bottom:
            bottom[index - 1] = count
        else:
            top[POINTS - index] = count
    return bottom, top


def _xg_dice(text: str, dice_f: str) -> tuple[bool, tuple[int, int]]:
    """Whether a double waits for an answer (``D``, or ``B`` beavered) and the dice (``00``: none)."""
    doubled = dice_f in ("D", "B")
    dice = (0, 0)
    if dice_f == "R":
        raise FormatError(
            f"{text!r} waits for an answer to a raccoon (a beaver redoubled at once): our money games "
            "have beavers but no raccoons."
        )
    if not doubled and dice_f != "00":
        if len(dice_f) != 2 or not all(c in "123456" for c in dice_f):
            raise FormatError(
                f"{text!r} is not an XGID: its dice {dice_f!r} are not a roll (00 for none, D for a double)."
            )
        dice = (int(dice_f[0]), int(dice_f[1]))
    return doubled, dice


@dataclass(frozen=True, slots=True)
class Xgid:
    """What an XGID says: the board and the match information as a GNUBG ID holds them, the maximum
    cube (log2), and two things a match ID cannot hold: ``beavers``, a money game played with beavers
    (the Crawford/Jacoby field's 2), and ``beavered``, the double waiting (``info.doubled``) has been
    beavered (the dice field ``B``)."""

    board: Board
    info: MatchInfo
    max_cube_log2: int = 10
    beavers: bool = False
    beavered: bool = False


def read_xgid(text: str) -> Xgid:
    """An XGID read as ``xgid`` writes it (see there); ``FormatError`` if ``text`` is not one.

    The dice field ``D`` (a double waits for an answer) gives ``doubled`` with the turn field's player
    as the doubler, the cube field and the cube position being the cube before the double (so GNU
    Backgammon reads it). ``B``, eXtreme Gammon's "player doubled, opponent beavered", is read the
    same way with ``beavered``: the answer to the double was a beaver (a money game's; a match has
    none). ``R`` (the beaver raccooned, redoubled at once by the doubler) is refused: our money games
    have no raccoons. In a money game the Crawford/Jacoby field is 1 for the Jacoby rule plus 2 for
    beavers, in a match 0 or 1, the Crawford flag (GNU Backgammon refuses other values there)."""
    cells, cube_f, owner_f, turn_f, dice_f, bottom_score, top_score, rules_f, length_f, max_f = _xg_fields(
        text
    )
    bottom, top = _xg_position(text, cells)
    cube_log2 = _xg_number(text, cube_f, "cube (a power of two: 0 for 1, 1 for 2 ...)", 0, 15)
    owner = _xg_number(text, owner_f, "cube position", -1, 1)
    if turn_f not in ("1", "-1"):
        raise FormatError(f"{text!r} is not an XGID: its turn {turn_f!r} is not 1 (bottom) or -1 (top).")
    on_roll = 1 if turn_f == "1" else 0
    doubled, dice = _xg_dice(text, dice_f)
    length = _xg_number(text, length_f, "match length", 0, (1 << 15) - 1)
    scores = (
        _xg_number(text, top_score, "top player's score", 0, (1 << 15) - 1),
        _xg_number(text, bottom_score, "bottom player's score", 0, (1 << 15) - 1),
    )
    rules = _xg_number(text, rules_f, "Crawford / Jacoby field", 0, 3)
    if length and rules > 1:
        raise FormatError(
            f"{text!r} is not an XGID: its Crawford field {rules} is not 0 or 1 (a match has no Jacoby "
            "rule or beavers)."
        )
    if length and dice_f == "B":
        raise FormatError(f"{text!r} has a beaver in a match: beavers are a rule of money play.")
    max_cube = _xg_number(text, max_f, "maximum cube", 0, 15)
    info = MatchInfo(
        cube_log2=cube_log2,
        cube_owner=None if owner == 0 else (1 if owner == 1 else 0),
        on_roll=on_roll,
        crawford=bool(rules & 1) if length else False,
        turn=1 - on_roll if doubled else on_roll,
        doubled=doubled,
        dice=dice,
        match_length=length,
        score=scores,
        jacoby=bool(rules & 1) if not length else False,
    )
    mine, theirs = tuple(bottom), tuple(top)
    board: Board = (theirs, mine) if on_roll == 1 else (mine, theirs)
    try:
        check_board(board)
    except FormatError as error:
        raise FormatError(f"{text!r} is not a possible XGID: {_lower_first(error)}") from error
    beavers = not length and bool(rules & 2)
    return Xgid(board, info, max_cube, beavers=beavers, beavered=dice_f == "B")

"""Vorcept: the options, and what every part of its rules shares.

The lowest of the game's files (the model is in `shared_rules.vorcept`, the game's module):
the players, what a cell may hold (the grid values and the pieces' kinds and ranges), the
house defaults and the options that change them, with the checks that set a state's options
(`_configure`), the phases and the reasons a game ends, and each board size's geometry
(cell names and neighbours). It imports none of the game's other files, which all take
their shared names from here; `shared_rules.vorcept` passes them all on as its own.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules.errors import BadPosition

BLUE = const(0)
RED = const(1)
PLAYER_NAMES = ("Blue", "Red")

# Cell contents. A piece is 3 + 4 * player + kind.
EMPTY = const(0)
LAVA = const(1)
PYLON = const(2)
FIRST_PIECE = const(3)
HOST = const(0)
DRONE1 = const(1)
DRONE2 = const(2)
DRONE3 = const(3)
KINDS = ("host", "drone1", "drone2", "drone3")
# How far each kind moves in a straight line: Host 1, Drone-1 1-2, Drone-2 1-3, Drone-3 1-4.
RANGES = (1, 2, 3, 4)
# One letter per cell content, in code order: positions and the JSON board use them.
LETTERS = ".#@HABChabc"
# Per grid value: the player owning it (-1: not a piece), and the piece's kind.
_OWNER = (-1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 1)
_KIND = (-1, -1, -1, 0, 1, 2, 3, 0, 1, 2, 3)


def piece_code(player, kind):
    """The grid value of a piece of `player` (0 Blue, 1 Red) and `kind` (HOST..DRONE3)."""
    return FIRST_PIECE + 4 * player + kind


# House defaults (docs/rules-decisions.md, "Vorcept"); every one is an option below.
DEFAULT_SIZE = const(7)  # the board's whole 7x7 key grid, one key per cell
MIN_SIZE = const(5)
MAX_SIZE = const(11)
DEFAULT_PIECES = (4, 3, 2)  # Drone-1, Drone-2, Drone-3 in each player's reserve
DEFAULT_LAVA_MIN = const(6)  # the rulebook's "6-9 red Lava blocks"
DEFAULT_LAVA_MAX = const(9)
DEFAULT_MAX_TURNS = const(200)  # a safeguard: a draw after this many turns (both players')
DEFAULT_CONCEDE_BELOW = const(3)  # "fewer than three pieces": only then may a player concede
# "Important: You cannot surround your own pieces such that no adjacent cells remain
# free": "forbid" (the default) refuses such an action; "remove" lets it be played and
# removes the enclosed piece ("If you accidentally surround your own piece, it is also
# removed"). docs/rules-decisions.md, Vorcept 14, gives the measured play of both.
SELF_CAPTURE_CHOICES = ("forbid", "remove")
DEFAULT_SELF_CAPTURE = "forbid"
# Readings of the rulebook, fixed (not options): a Host is placed at least this many
# steps (orthogonal moves, the game's own distance) from the Pylon.
HOST_PYLON_DISTANCE = const(2)  # (_pylon_ok in vorcept_setup counts on 2: not beside the Pylon)

OPTIONS = (
    ("size", DEFAULT_SIZE, "int", "the board is size x size cells (5 to 11; 7 = the whole board)"),
    ("pieces", None, "dict",
     "each player's reserve, {drone1: n, drone2: n, drone3: n} (default 4, 3, 2)"),
    ("lava_min", DEFAULT_LAVA_MIN, "int", "lava blocks placed at least (the rulebook: 6)"),
    ("lava_max", DEFAULT_LAVA_MAX, "int", "lava blocks placed at most (the rulebook: 9)"),
    ("host_only", False, "bool",
     "the rulebook's variant: only the enemy Host wins, the Pylon triangle does not"),
    ("edge_wall", True, "bool", "the board's edge counts as a wall for the full surround"),
    ("self_capture", DEFAULT_SELF_CAPTURE, SELF_CAPTURE_CHOICES,
     "an action that would leave a piece of yours with no free neighbour: forbidden (the "
     "rulebook's 'you cannot surround your own pieces'), or played and the piece removed"),
    ("concede_below", DEFAULT_CONCEDE_BELOW, "int",
     "a player may concede with fewer pieces than this (board and reserve; 0: never)"),
    ("max_turns", DEFAULT_MAX_TURNS, "int", "a safeguard: the game is a draw after this many turns"),
)

PHASE_PYLON = const(0)
PHASE_LAVA = const(1)
PHASE_HOST = const(2)
PHASE_PLAY = const(3)
PHASE_OVER = const(4)
PHASE_NAMES = ("pylon", "lava", "host", "play", "over")
# Why a game ended: the enemy Host taken (or your own lost), the Pylon triangle, a
# concession, the house turn limit, a player with no action at the start of a turn.
END_REASONS = ("host", "pylon", "concede", "turns", "stalemate")

FILES = "abcdefghijk"
_GEOMETRY = {}


def geometry(size):
    """(cell names, name -> index, per cell the neighbours north, east, south, west (-1
    off the board), per cell its on-board neighbours, per cell its rank and its file as
    bytes) of a size x size board; made once per size and shared by every state."""
    g = _GEOMETRY.get(size)
    if g is None:
        n = size
        names = tuple(FILES[i % n] + str(i // n + 1) for i in range(n * n))
        index = {}
        for i in range(n * n):
            index[names[i]] = i
        steps = []
        orth = []
        for i in range(n * n):
            r = i // n
            f = i % n
            s = (i + n if r + 1 < n else -1, i + 1 if f + 1 < n else -1,
                 i - n if r > 0 else -1, i - 1 if f > 0 else -1)
            steps.append(s)
            orth.append(tuple(c for c in s if c >= 0))
        ranks = bytes(i // n for i in range(n * n))
        files = bytes(i % n for i in range(n * n))
        g = (names, index, tuple(steps), tuple(orth), ranks, files)
        _GEOMETRY[size] = g
    return g


# ---------------------------------------------------------------- setting the options
# new_game() and from_json() set a state's options through _configure(): both refuse a bad
# value with the same BadPosition, naming the option.

def _flag(name, value):
    if value is not True and value is not False:
        raise BadPosition("%s must be true or false, not %r" % (name, value))
    return value


def _count(name, value, lo, hi):
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise BadPosition("%s must be an integer from %d to %d, not %r" % (name, lo, hi, value))
    return value


def _pieces_list(pieces, size):
    if pieces is None:
        return list(DEFAULT_PIECES)
    if not isinstance(pieces, dict):
        raise BadPosition("pieces must be a dict {drone1: n, drone2: n, drone3: n}, not %r"
                          % (pieces,))
    out = [0, 0, 0]
    for name in pieces:
        if name not in KINDS[1:]:
            raise BadPosition("pieces: unknown piece %r (drone1, drone2 or drone3; the Host "
                              "is always one)" % (name,))
        out[KINDS.index(name) - 1] = _count("pieces: the count of " + name, pieces[name], 0,
                                            size * size)
    return out


def _configure(s, size, pieces, lava_min, lava_max, host_only, edge_wall, self_capture,
               concede_below, max_turns):
    # Check every option and set it on the state `s`, whose reserves start full.
    _count("size", size, MIN_SIZE, MAX_SIZE)
    s._set_size(size)
    s.pieces = _pieces_list(pieces, size)
    s.lava_max = _count("lava_max", lava_max, 0, size * size)
    s.lava_min = _count("lava_min", lava_min, 0, lava_max)
    s.host_only = _flag("host_only", host_only)
    s.edge_wall = _flag("edge_wall", edge_wall)
    if self_capture not in SELF_CAPTURE_CHOICES:
        raise BadPosition("self_capture must be one of %s, not %r"
                          % (", ".join(SELF_CAPTURE_CHOICES), self_capture))
    s.self_capture = self_capture
    s.concede_below = _count("concede_below", concede_below, 0, 999)
    s.max_turns = _count("max_turns", max_turns, 1, 99999)
    s.reserves = [s.pieces[:], s.pieces[:]]


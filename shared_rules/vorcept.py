"""Vorcept: the complete rules, pure and small enough for the board.

The rulebook is ../shared/rulebooks/vorcept.md (Russian original, English translation;
the English is the reference, the Russian clarifies what it leaves open);
every choice it leaves open is listed in docs/rules-decisions.md ("Vorcept") and lives
here as a named option or constant. The notation is documented in docs/vorcept-notation.md.

Two players: player 0 is Blue, player 1 is Red. The board is size x size cells (default
7, the board's whole 7x7 key grid), numbered rank * size + file, with file a.. west to
east and rank 1.. south to north (cell names as in chess: a1 is the south-west corner).
Grid values: EMPTY, LAVA, PYLON, or a piece code 3 + 4 * player + kind, kind being
HOST, DRONE1, DRONE2 or DRONE3.

Everything is a move, the setup included:
  PYLON -> Blue plays "pylon <cell>"
  LAVA  -> Red, Blue, Red ... play "lava <cell>", or "lava done" once enough lava is down
  HOST  -> Blue, then Red, play "host <cell>"
  PLAY  -> each turn is two actions by the same player, with two different pieces:
           "move <from> <to>" or "summon <drone> <cell>"; "concede" when allowed.
Vorcept has no chance at all: the PRNG state is kept (and seeded) only for the common
interface, and no rule ever draws from it.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "vorcept"
TITLE = "Vorcept"
PLAYER_COUNTS = (2,)
HIDDEN_INFORMATION = False  # everything is on the table, and nothing is left to chance
FORMAT_VERSION = const(1)

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
HOST_PYLON_DISTANCE = const(2)  # (_pylon_ok counts on it being 2: not beside the Pylon)

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


_NUMBERS = tuple(str(i) for i in range(-1, 130))  # small numbers as text, made once


def _num(n):
    return _NUMBERS[n + 1] if -1 <= n <= 128 else str(n)


def _ints(parts, values):
    parts.append("[")
    for i, n in enumerate(values):
        if i:
            parts.append(",")
        parts.append(_num(n))
    parts.append("]")


# ---------------------------------------------------------------- the state

class VorceptState:
    """One game of Vorcept. Build it with new_game(), from_position() or from_json()."""

    def __init__(self, size=DEFAULT_SIZE, grid=None):
        self._set_size(size, grid)
        self.pieces = list(DEFAULT_PIECES)
        self.lava_min = DEFAULT_LAVA_MIN
        self.lava_max = DEFAULT_LAVA_MAX
        self.host_only = False
        self.edge_wall = True
        self.self_capture = DEFAULT_SELF_CAPTURE
        self.concede_below = DEFAULT_CONCEDE_BELOW
        self.max_turns = DEFAULT_MAX_TURNS
        self.reserves = [list(DEFAULT_PIECES), list(DEFAULT_PIECES)]
        self.phase = PHASE_PYLON
        self.active = BLUE
        self.action = 0  # 0: the first action of the turn, 1: the second
        self.acted = -1  # cell of the piece that made this turn's first action, or -1
        self.removed = []  # cell, piece code, ... of the pieces removed this turn so far
        self.turn = 0  # turns completed in the play phase (the last one included at the end)
        self.win = -1  # the winner once over; -1 while playing or for a draw
        self.end = ""
        self.rng = prng.seed_state(0)  # kept for the interface; never drawn from

    def _set_size(self, size, grid=None):
        self.size = size
        self.names, self.index, self.steps, self.orth, self._ranks, self._files = \
            geometry(size)
        self.grid = [EMPTY] * (size * size) if grid is None else grid

    # ---- the interface shared by every game

    def to_act(self):
        """The player (0 Blue, 1 Red) who chooses the next move, or None once over."""
        return None if self.phase == PHASE_OVER else self.active

    def is_over(self):
        return self.phase == PHASE_OVER

    def scores(self):
        """1 for the winner, 0 otherwise (a draw, or while the game goes on)."""
        return [1 if self.win == p else 0 for p in (BLUE, RED)]

    def winner(self):
        """The winning player, or None while the game goes on or after a draw."""
        return self.win if self.phase == PHASE_OVER and self.win >= 0 else None

    def turn_count(self):
        """Play turns completed (setup moves are not turns), the last one included."""
        return self.turn

    def end_reason(self):
        """"" while playing; then "host", "pylon", "concede", "turns" or "stalemate"."""
        return self.end

    def options(self):
        """Every option spelled out, house defaults included."""
        return {"size": self.size, "pieces": self._pieces_dict(), "lava_min": self.lava_min,
                "lava_max": self.lava_max, "host_only": self.host_only,
                "edge_wall": self.edge_wall, "self_capture": self.self_capture,
                "concede_below": self.concede_below, "max_turns": self.max_turns}

    def _pieces_dict(self):
        return {"drone1": self.pieces[0], "drone2": self.pieces[1], "drone3": self.pieces[2]}

    def view(self, player=None):
        """Everything (nothing is secret) as a JSON-ready dict but the PRNG state (no
        view of any game holds an "rng" key): Vorcept never draws from it, and
        determinize() reseeds it."""
        import json
        d = json.loads(self.to_json())
        del d["rng"]
        return d

    def clone(self):
        s = VorceptState(self.size, self.grid[:])
        s.pieces = self.pieces[:]
        s.lava_min = self.lava_min
        s.lava_max = self.lava_max
        s.host_only = self.host_only
        s.edge_wall = self.edge_wall
        s.self_capture = self.self_capture
        s.concede_below = self.concede_below
        s.max_turns = self.max_turns
        s.reserves = [self.reserves[0][:], self.reserves[1][:]]
        s.phase = self.phase
        s.active = self.active
        s.action = self.action
        s.acted = self.acted
        s.removed = self.removed[:]
        s.turn = self.turn
        s.win = self.win
        s.end = self.end
        s.rng = self.rng
        return s

    def to_json(self):
        """The whole state as canonical JSON text (fixed key order, no spaces)."""
        p = ['{"game":"', NAME, '","format":', _num(FORMAT_VERSION), ',"size":',
             _num(self.size), ',"pieces":']
        _ints(p, self.pieces)
        p += [',"lava_min":', _num(self.lava_min), ',"lava_max":', _num(self.lava_max),
              ',"host_only":', "true" if self.host_only else "false",
              ',"edge_wall":', "true" if self.edge_wall else "false",
              ',"self_capture":"', self.self_capture, '","concede_below":',
              _num(self.concede_below), ',"max_turns":', _num(self.max_turns),
              ',"board":"', self._board_text(), '","reserves":[']
        _ints(p, self.reserves[0])
        p.append(",")
        _ints(p, self.reserves[1])
        p += ['],"phase":', _num(self.phase), ',"active":', _num(self.active),
              ',"action":', _num(self.action), ',"acted":', _num(self.acted), ',"removed":']
        _ints(p, self.removed)
        p += [',"turn":', _num(self.turn), ',"win":', _num(self.win), ',"end":"', self.end,
              '","rng":', _num(self.rng), "}"]
        return "".join(p)

    def _board_text(self):
        n = self.size
        g = self.grid
        out = []
        for r in range(n - 1, -1, -1):
            if r != n - 1:
                out.append("/")
            for c in range(r * n, r * n + n):
                out.append(LETTERS[g[c]])
        return "".join(out)

    def digest(self):
        """16 hex digits of SHA-256 over to_json(): equal on CPython and MicroPython."""
        import hashlib
        import binascii
        h = hashlib.sha256(self.to_json().encode()).digest()
        return binascii.hexlify(h[:8]).decode()

    def __eq__(self, other):
        return isinstance(other, VorceptState) and self.to_json() == other.to_json()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        return "vorcept.from_json(%r)" % self.to_json()

    # ---- what a renderer needs (docs/vorcept-notation.md, "For renderers")

    def cell_names(self):
        """Every cell name in index order (a1, b1, ..., rank 1 first)."""
        return list(self.names)

    def board_rows(self):
        """The board as `size` strings of letters (LETTERS), the top rank first."""
        return self._board_text().split("/")

    def position(self):
        """The position as text (docs/vorcept-notation.md): board, player to act, action
        (1 or 2), the piece that acted, reserves, turns completed."""
        acted = self.names[self.acted] if self.acted >= 0 else "-"
        res = "/".join(",".join(str(n) for n in r) for r in self.reserves)
        return "%s %d %d %s %s %d" % (self._board_text(), self.active, self.action + 1, acted,
                                      res, self.turn)

    def _cell_arg(self, cell):
        i = self.index.get(cell) if isinstance(cell, str) else None
        if i is None:
            raise ValueError("%r is not a cell of the %dx%d board" % (cell, self.size, self.size))
        return i

    def content(self, cell):
        """What is on a cell: "empty", "lava", "pylon", or (player, kind name)."""
        v = self.grid[self._cell_arg(cell)]
        if v >= FIRST_PIECE:
            return (_OWNER[v], KINDS[_KIND[v]])
        return ("empty", "lava", "pylon")[v]

    def piece_at(self, cell):
        """(player, kind name) of the piece on a cell, or None (empty, lava, Pylon)."""
        v = self.grid[self._cell_arg(cell)]
        return (_OWNER[v], KINDS[_KIND[v]]) if v >= FIRST_PIECE else None

    def pylon_cell(self):
        """The Pylon's cell name, or None before it is placed."""
        return self.names[self.grid.index(PYLON)] if PYLON in self.grid else None

    def host_cell(self, player):
        """The cell name of a player's Host, or None (not placed yet, or taken)."""
        code = piece_code(player, HOST)
        return self.names[self.grid.index(code)] if code in self.grid else None

    def lava_count(self):
        return self.grid.count(LAVA)

    def reserve(self, player):
        """A player's reserve as {kind name: count} (all three drones, zeros included)."""
        r = self.reserves[player]
        return {"drone1": r[0], "drone2": r[1], "drone3": r[2]}

    def pieces_left(self, player):
        """A player's pieces on the board and in reserve, the Host included."""
        lo = FIRST_PIECE + 4 * player
        n = sum(self.reserves[player])
        for v in self.grid:
            if lo <= v < lo + 4:
                n += 1
        return n

    def phase_name(self):
        """"pylon", "lava", "host" (the setup), "play" or "over"."""
        return PHASE_NAMES[self.phase]

    def action_number(self):
        """In the play phase, which action of the turn comes next: 1 or 2 (else 0)."""
        return self.action + 1 if self.phase == PHASE_PLAY else 0

    def acted_cells(self):
        """Cells of the pieces that already acted this turn (moved or were summoned)."""
        return [self.names[self.acted]] if self.acted >= 0 else []

    def last_removed(self):
        """Pieces removed by the current turn's actions so far, or, at the start of a turn,
        by the previous turn: [(cell, player, kind name)]. A piece of the player whose turn
        it was is a self-capture (docs/rules-decisions.md)."""
        out = []
        r = self.removed
        for k in range(0, len(r), 2):
            v = r[k + 1]
            out.append((self.names[r[k]], _OWNER[v], KINDS[_KIND[v]]))
        return out

    def destinations(self, cell):
        """The cells the piece on `cell` may move to now (sorted names; [] if none)."""
        prefix = "move " + cell + " "
        return sorted(m[len(prefix):] for m in self.legal_moves() if m.startswith(prefix))

    # ---- move generation

    def legal_moves(self):
        """Every move the player to act may play now, as sorted notation strings."""
        phase = self.phase
        names = self.names
        if phase == PHASE_PLAY:
            return self._play_moves()
        if phase == PHASE_PYLON:
            moves = ["pylon " + names[c] for c in range(len(self.grid)) if self._pylon_ok(c)]
        elif phase == PHASE_LAVA:
            moves = ["lava " + names[c] for c in self._lava_cells()]
            if self._lava_done_ok(moves):
                moves.append("lava done")
        elif phase == PHASE_HOST:
            moves = ["host " + names[c] for c in self._host_cells()]
        else:
            return []
        moves.sort()
        return moves

    def _play_moves(self):
        p = self.active
        g = self.grid
        names = self.names
        steps = self.steps
        forbid = self.self_capture == "forbid"
        moves = []
        if self._may_concede():
            moves.append("concede")
        lo = FIRST_PIECE + 4 * p
        for c in range(len(g)):
            v = g[c]
            if v < lo or v >= lo + 4 or c == self.acted:
                continue
            reach = RANGES[v - lo]
            prefix = "move " + names[c] + " "
            for k in range(4):
                x = c
                for _ in range(reach):
                    x = steps[x][k]
                    if x < 0 or g[x] == PYLON:
                        break  # the edge, or the one obstacle nothing passes
                    if g[x] == EMPTY and (not forbid or self._keeps_own(c, x, v)):
                        moves.append(prefix + names[x])
        host = self._host(p)
        res = self.reserves[p]
        if host >= 0:
            for kind in (DRONE1, DRONE2, DRONE3):
                if res[kind - 1]:
                    prefix = "summon " + KINDS[kind] + " "
                    code = lo + kind
                    for x in self.orth[host]:
                        if g[x] == EMPTY and (not forbid or self._keeps_own(-1, x, code)):
                            moves.append(prefix + names[x])
        moves.sort()
        return moves

    def _may_concede(self):
        return self.pieces_left(self.active) < self.concede_below

    def pylon_winnable(self):
        """Whether the Pylon triangle can still win this game: not with the host_only
        variant, nor with the Pylon in a corner, where it has only two sides (it may be
        placed there, "on the board"; the players are told, docs/rules-decisions.md,
        Vorcept 6). True before the Pylon is placed."""
        if self.host_only:
            return False
        g = self.grid
        return PYLON not in g or len(self.orth[g.index(PYLON)]) >= 3

    def _has_action(self):
        # Whether the player to act has any move or summon (concession aside).
        p = self.active
        g = self.grid
        steps = self.steps
        forbid = self.self_capture == "forbid"
        lo = FIRST_PIECE + 4 * p
        host = self._host(p)
        if host >= 0 and sum(self.reserves[p]):
            kind = 1
            while not self.reserves[p][kind - 1]:
                kind += 1
            for x in self.orth[host]:
                if g[x] == EMPTY and (not forbid or self._keeps_own(-1, x, lo + kind)):
                    return True
        for c in range(len(g)):
            v = g[c]
            if v < lo or v >= lo + 4 or c == self.acted:
                continue
            for k in range(4):
                x = c
                for _ in range(RANGES[v - lo]):
                    x = steps[x][k]
                    if x < 0 or g[x] == PYLON:
                        break
                    if g[x] == EMPTY and (not forbid or self._keeps_own(c, x, v)):
                        return True
        return False

    def _host(self, p):
        code = FIRST_PIECE + 4 * p
        g = self.grid
        for c in range(len(g)):
            if g[c] == code:
                return c
        return -1

    # ---- captures

    def _enclosed(self, c, freed):
        # True when the cell has no free neighbour: every neighbour holds a piece (of
        # either player), lava or the Pylon, or is off the board when the edge is a wall.
        # Cells in `freed` are about to be emptied by captures.
        g = self.grid
        for x in self.steps[c]:
            if x < 0:
                if not self.edge_wall:
                    return False
            elif g[x] == EMPTY or x in freed:
                return False
        return True

    def _effects(self, d, p):
        # A piece of player p has just arrived on d (moved or summoned). Returns the enemy
        # pieces it captures and then the pieces of p left with no free neighbour.
        g = self.grid
        steps = self.steps
        victims = []
        for k in range(4):
            n = steps[d][k]
            if n < 0:
                continue
            v = g[n]
            if v < FIRST_PIECE or _OWNER[v] == p:
                continue
            # Sandwich: the arriving piece and one of p's pieces on the opposite side.
            far = steps[n][k]
            if far >= 0 and _OWNER[g[far]] == p:
                victims.append(n)
                continue
            # Triangle: p's pieces on three of its four sides (the arriving one included).
            mine = 0
            for x in steps[n]:
                if x >= 0 and _OWNER[g[x]] == p:
                    mine += 1
            if mine >= 3 or self._enclosed(n, ()):
                victims.append(n)  # the triangle, or the full surround
        own = []
        if self._enclosed(d, victims):
            own.append(d)
        for n in self.orth[d]:
            if _OWNER[g[n]] == p and self._enclosed(n, victims):
                own.append(n)
        return victims, own

    def _keeps_own(self, origin, d, code):
        # For self_capture "forbid": the action leaves none of the mover's pieces enclosed.
        g = self.grid
        if origin >= 0:
            g[origin] = EMPTY
        g[d] = code
        p = _OWNER[code]
        # Only the arriving piece and p's pieces beside it can be enclosed, and captures
        # only free cells: when none of them is enclosed before captures, none is after.
        at_risk = self._enclosed(d, ())
        if not at_risk:
            for n in self.orth[d]:
                if _OWNER[g[n]] == p and self._enclosed(n, ()):
                    at_risk = True
                    break
        own = self._effects(d, p)[1] if at_risk else ()
        g[d] = EMPTY
        if origin >= 0:
            g[origin] = code
        return not own

    def _pylon_triangle(self, p):
        # Three of the Pylon's four sides held by p's pieces.
        g = self.grid
        if PYLON not in g:
            return False
        mine = 0
        for x in self.orth[g.index(PYLON)]:
            if _OWNER[g[x]] == p:
                mine += 1
        return mine >= 3

    # ---- setup rules

    def distance(self, a, b):
        """Steps between two cells (indices) moving along cell edges: |ranks| + |files|."""
        r = self._ranks
        f = self._files
        return abs(r[a] - r[b]) + abs(f[a] - f[b])

    def _host_ok_cell(self, c, pylon):
        # Where a Host may be set up: a free cell touching no lava, not too near the Pylon.
        g = self.grid
        if g[c] != EMPTY or self.distance(c, pylon) < HOST_PYLON_DISTANCE:
            return False
        for x in self.orth[c]:
            if g[x] == LAVA:
                return False
        return True

    def _host_room(self, pylon):
        # Cells where a Host could be set up now, as a 0/1 bytearray, and their count.
        room = bytearray(len(self.grid))
        count = 0
        for c in range(len(self.grid)):
            if self._host_ok_cell(c, pylon):
                room[c] = 1
                count += 1
        return room, count

    def _two_apart(self, room, skip):
        # Two cells of `room` (minus the cells in `skip`) that do not touch: room for
        # both Hosts. Grid cells never form a triangle, so any three cells hold such a pair.
        cells = [c for c in range(len(room)) if room[c] and c not in skip]
        if len(cells) >= 3:
            return True
        return len(cells) == 2 and cells[1] not in self.orth[cells[0]]

    def _pylon_ok(self, c):
        # With no lava yet, a Host may stand anywhere but on the Pylon and beside it (closer
        # than HOST_PYLON_DISTANCE = 2 steps); any three cells hold two that do not touch.
        # On boards of 5x5 and more this holds for every cell.
        return len(self.grid) - 1 - len(self.orth[c]) >= 3

    def _lava_ok(self, c, pylon, room, count):
        # Lava goes on a free cell not touching the Pylon, and leaves room for both Hosts.
        g = self.grid
        if g[c] != EMPTY or pylon in self.orth[c]:
            return False
        lost = room[c]
        for x in self.orth[c]:
            lost += room[x]
        if count - lost >= 3:
            return True
        return self._two_apart(room, (c,) + self.orth[c])

    def _lava_cells(self):
        pylon = self.grid.index(PYLON)
        room, count = self._host_room(pylon)
        return [c for c in range(len(self.grid)) if self._lava_ok(c, pylon, room, count)]

    def _lava_done_ok(self, lava_moves):
        # Enough lava is down, or no block can be placed any more.
        return self.grid.count(LAVA) >= self.lava_min or not lava_moves

    def _host_cells(self):
        pylon = self.grid.index(PYLON)
        room, count = self._host_room(pylon)
        out = []
        if self.active == BLUE:
            for c in range(len(self.grid)):
                # Blue's Host must leave Red a cell that does not touch it.
                if room[c]:
                    left = count - 1
                    for x in self.orth[c]:
                        left -= room[x]
                    if left > 0:
                        out.append(c)
        else:
            blue = self._host(BLUE)
            for c in range(len(self.grid)):
                if room[c] and c not in self.orth[blue]:
                    out.append(c)
        return out

    # ---- playing moves

    def play(self, move):
        """Apply one move in notation; raise IllegalMove (state unchanged) if it cannot be
        played."""
        if self.phase == PHASE_OVER:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, str):
            raise IllegalMove(move, "a move is a notation string such as 'move d2 d4'")
        words = move.split(" ")
        verb = words[0]
        handler = _HANDLERS.get(verb)
        if handler is None:
            raise IllegalMove(move, "unknown move word %r; moves start with one of: %s"
                              % (verb, ", ".join(sorted(_HANDLERS))))
        phase, arity, method = handler
        if self.phase != phase:
            raise IllegalMove(move, "now is the time to %s" % _PHASE_HINT[self.phase])
        if len(words) != arity + 1:
            raise IllegalMove(move, "%r takes %d argument%s separated by single spaces"
                              % (verb, arity, "" if arity == 1 else "s"))
        # Each handler checks everything before it changes anything.
        method(self, move, words[1:])

    def _arg_cell(self, move, word):
        i = self.index.get(word)
        if i is None:
            last = self.names[-1]
            raise IllegalMove(move, "%r is not a cell of the board (a1 to %s)" % (word, last))
        return i

    def _do_pylon(self, move, args):
        c = self._arg_cell(move, args[0])
        if not self._pylon_ok(c):
            raise IllegalMove(move, "the Pylon on %s would leave no room for both Hosts" % args[0])
        self.grid[c] = PYLON
        self.phase = PHASE_LAVA if self.lava_max > 0 else PHASE_HOST
        self.active = RED if self.lava_max > 0 else BLUE

    def _do_lava(self, move, args):
        g = self.grid
        if args[0] == "done":
            if not self._lava_done_ok(self._lava_cells()):
                down = g.count(LAVA)
                raise IllegalMove(move, "%d lava %s down; at least %d are placed" % (
                    down, "block is" if down == 1 else "blocks are", self.lava_min))
            self._end_lava()
            return
        c = self._arg_cell(move, args[0])
        pylon = g.index(PYLON)
        if g[c] != EMPTY:
            raise IllegalMove(move, "%s is not free" % args[0])
        if pylon in self.orth[c]:
            raise IllegalMove(move, "lava must not touch the Pylon (%s)" % self.names[pylon])
        room, count = self._host_room(pylon)
        if not self._lava_ok(c, pylon, room, count):
            raise IllegalMove(move, "lava on %s would leave no room for both Hosts" % args[0])
        g[c] = LAVA
        if g.count(LAVA) >= self.lava_max:
            self._end_lava()
        else:
            self.active = 1 - self.active

    def _end_lava(self):
        self.phase = PHASE_HOST
        self.active = BLUE

    def _do_host(self, move, args):
        c = self._arg_cell(move, args[0])
        g = self.grid
        pylon = g.index(PYLON)
        if c not in self._host_cells():
            if g[c] != EMPTY:
                why = "%s is not free" % args[0]
            elif self.distance(c, pylon) < HOST_PYLON_DISTANCE:
                why = "the Host must be at least %d cells from the Pylon (%s)" % (
                    HOST_PYLON_DISTANCE, self.names[pylon])
            elif any(g[x] == LAVA for x in self.orth[c]):
                why = "the Host must not touch lava"
            elif self.active == RED:
                why = "the Red Host must not touch the Blue Host"
            else:
                why = "it would leave the Red Host no cell"
            raise IllegalMove(move, why)
        g[c] = piece_code(self.active, HOST)
        if self.active == BLUE:
            self.active = RED
        else:
            self.active = BLUE
            self.phase = PHASE_PLAY
            self.action = 0
            if not self._has_action() and not self._may_concede():
                self._finish(-1, "stalemate", counted=True)

    def _do_move(self, move, args):
        a = self._arg_cell(move, args[0])
        b = self._arg_cell(move, args[1])
        g = self.grid
        v = g[a]
        p = self.active
        if _OWNER[v] != p:
            raise IllegalMove(move, "%s holds no piece of %s" % (args[0], PLAYER_NAMES[p]))
        if a == self.acted:
            raise IllegalMove(move, "the piece on %s has already acted this turn" % args[0])
        if a == b:
            raise IllegalMove(move, "a move goes to another cell")
        kind = _KIND[v]
        k = -1
        for d in range(4):
            x = a
            for dist in range(1, self.size):
                x = self.steps[x][d]
                if x < 0:
                    break
                if x == b:
                    k = d
                    break
            if k >= 0:
                break
        if k < 0:
            raise IllegalMove(move, "pieces move in a straight line along cell edges, "
                                    "never diagonally")
        if dist > RANGES[kind]:
            raise IllegalMove(move, "the %s moves at most %d cell%s" % (
                KINDS[kind], RANGES[kind], "" if RANGES[kind] == 1 else "s"))
        x = a
        for _ in range(dist - 1):
            x = self.steps[x][k]
            if g[x] == PYLON:
                raise IllegalMove(move, "nothing passes over the Pylon (%s)" % self.names[x])
        if g[b] != EMPTY:
            raise IllegalMove(move, "%s is not free" % args[1])
        if self.self_capture == "forbid" and not self._keeps_own(a, b, v):
            raise IllegalMove(move, "it would leave a piece of yours with no free neighbour")
        self._act(a, b, v)

    def _do_summon(self, move, args):
        word = args[0]
        if word not in KINDS[1:]:
            raise IllegalMove(move, "%r is not a drone (drone1, drone2, drone3)" % (word,))
        kind = KINDS.index(word)
        c = self._arg_cell(move, args[1])
        p = self.active
        if not self.reserves[p][kind - 1]:
            raise IllegalMove(move, "%s has no %s in reserve" % (PLAYER_NAMES[p], word))
        host = self._host(p)
        if c not in self.orth[host]:
            raise IllegalMove(move, "a reinforcement enters beside the Host (%s)"
                              % self.names[host])
        if self.grid[c] != EMPTY:
            raise IllegalMove(move, "%s is not free" % args[1])
        code = piece_code(p, kind)
        if self.self_capture == "forbid" and not self._keeps_own(-1, c, code):
            raise IllegalMove(move, "it would leave a piece of yours with no free neighbour")
        self.reserves[p][kind - 1] -= 1
        self._act(-1, c, code)

    def _do_concede(self, move, args):
        p = self.active
        if self.pieces_left(p) >= self.concede_below:
            raise IllegalMove(move, "a player concedes only with fewer than %d pieces "
                                    "(%s has %d)" % (self.concede_below, PLAYER_NAMES[p],
                                                     self.pieces_left(p)))
        self._finish(1 - p, "concede")

    def _act(self, origin, d, code):
        # One action: a piece leaves `origin` (-1: summoned) and arrives on d; captures,
        # then self-captures, then the end of the game, of the action, of the turn.
        g = self.grid
        p = self.active
        if self.action == 0:
            self.removed = []
        if origin >= 0:
            g[origin] = EMPTY
        g[d] = code
        victims, own = self._effects(d, p)
        removed = self.removed
        lost = False
        taken = False
        for c in victims:
            taken = taken or _KIND[g[c]] == HOST
            removed.append(c)
            removed.append(g[c])
            g[c] = EMPTY
        for c in own:
            lost = lost or _KIND[g[c]] == HOST
            removed.append(c)
            removed.append(g[c])
            g[c] = EMPTY
        if taken:
            self._finish(p, "host")
        elif lost:
            self._finish(1 - p, "host")
        elif not self.host_only and self._pylon_triangle(p):
            self._finish(p, "pylon")
        elif self.action == 0:
            self.acted = d if g[d] == code else -1
            self.action = 1
            if not self._has_action():
                self._end_turn()  # no second action exists: the turn ends
        else:
            self._end_turn()

    def _end_turn(self):
        self.turn += 1
        self.active = 1 - self.active
        self.action = 0
        self.acted = -1
        if self.turn >= self.max_turns:
            self._finish(-1, "turns", counted=True)
        elif not self._has_action() and not self._may_concede():
            # A player with no action and fewer than concede_below pieces is not in a
            # stalemate: "the player should concede", and "concede" is their one move.
            self._finish(-1, "stalemate", counted=True)

    def _finish(self, winner, reason, counted=False):
        if not counted:
            self.turn += 1  # the turn that ended the game counts
        self.phase = PHASE_OVER
        self.win = winner
        self.end = reason
        self.action = 0
        self.acted = -1


# move word -> (phase it is played in, number of arguments, handler)
_HANDLERS = {
    "pylon": (PHASE_PYLON, 1, VorceptState._do_pylon),
    "lava": (PHASE_LAVA, 1, VorceptState._do_lava),
    "host": (PHASE_HOST, 1, VorceptState._do_host),
    "move": (PHASE_PLAY, 2, VorceptState._do_move),
    "summon": (PHASE_PLAY, 2, VorceptState._do_summon),
    "concede": (PHASE_PLAY, 0, VorceptState._do_concede),
}
_PHASE_HINT = (
    "place the Pylon: 'pylon <cell>'",
    "place lava: 'lava <cell>' or 'lava done'",
    "place your Host: 'host <cell>'",
    "act: 'move <from> <to>', 'summon <drone> <cell>' or 'concede'",
    "stop: the game is over",
)


# ---------------------------------------------------------------- building states

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


def new_game(players=2, seed=0, size=DEFAULT_SIZE, pieces=None, lava_min=DEFAULT_LAVA_MIN,
             lava_max=DEFAULT_LAVA_MAX, host_only=False, edge_wall=True,
             self_capture=DEFAULT_SELF_CAPTURE, concede_below=DEFAULT_CONCEDE_BELOW,
             max_turns=DEFAULT_MAX_TURNS):
    """A new game at its first setup move: Blue places the Pylon.

    The seed is checked and kept as the PRNG state for the common interface; Vorcept has
    no chance element, so every seed starts the same game.
    """
    if players not in PLAYER_COUNTS:
        raise BadPosition("Vorcept is played by 2 players, not %r" % (players,))
    s = VorceptState()
    _configure(s, size, pieces, lava_min, lava_max, host_only, edge_wall, self_capture,
               concede_below, max_turns)
    s.rng = prng.seed_state(seed)
    return s


def _parse_board(text):
    ranks = text.split("/")
    n = len(ranks)
    if not MIN_SIZE <= n <= MAX_SIZE or any(len(r) != n for r in ranks):
        raise BadPosition("the board is %d to %d ranks of as many letters, separated by '/', "
                          "the top rank first" % (MIN_SIZE, MAX_SIZE))
    grid = [EMPTY] * (n * n)
    for k in range(n):
        for f in range(n):
            v = LETTERS.find(ranks[k][f])
            if v < 0:
                raise BadPosition("board %s%d: %r is not one of %s" % (
                    FILES[f], n - k, ranks[k][f], LETTERS))
            grid[(n - 1 - k) * n + f] = v
    return n, grid


def _check_material(s):
    # Pieces on the board and in reserve never exceed what each player started with.
    g = s.grid
    for p in (BLUE, RED):
        lo = FIRST_PIECE + 4 * p
        if g.count(lo) > 1:
            raise BadPosition("%s has more than one Host" % PLAYER_NAMES[p])
        for kind in (DRONE1, DRONE2, DRONE3):
            if g.count(lo + kind) + s.reserves[p][kind - 1] > s.pieces[kind - 1]:
                raise BadPosition("%s has more %s than the %d of the game's pieces" % (
                    PLAYER_NAMES[p], KINDS[kind], s.pieces[kind - 1]))
    if g.count(PYLON) > 1:
        raise BadPosition("the board holds more than one Pylon")


def _check_play(s):
    # A position in the play phase: the setup done, both Hosts on the board, no piece
    # enclosed (it would have been removed), no Pylon triangle (the game would be over).
    g = s.grid
    if g.count(PYLON) != 1:
        raise BadPosition("the board must hold the Pylon")
    for p in (BLUE, RED):
        if piece_code(p, HOST) not in g:
            raise BadPosition("%s's Host must be on the board" % PLAYER_NAMES[p])
        if not s.host_only and s._pylon_triangle(p):
            raise BadPosition("%s holds three sides of the Pylon: the game would be over"
                              % PLAYER_NAMES[p])
    for c in range(len(g)):
        if g[c] >= FIRST_PIECE and s._enclosed(c, ()):
            raise BadPosition("the piece on %s has no free neighbour: it would have been "
                              "removed" % s.names[c])
    if s.acted >= 0 and (s.action != 1 or _OWNER[g[s.acted]] != s.active):
        raise BadPosition("the piece that acted must be one of the player to act, in the "
                          "second action")
    if not s._has_action() and not (s.action == 0 and s._may_concede()):
        raise BadPosition("the player to act has no action: the turn or the game would "
                          "have ended")


def from_position(text, **options):
    """Set up a play-phase position (see docs/vorcept-notation.md), for tests and puzzles:
    "board to-act action acted reserves [turns]". The board gives the size; the options
    are new_game()'s; `pieces` defaults to what the position shows (board and reserve)."""
    if not isinstance(text, str):
        raise BadPosition("a position is a text, not %r" % (text,))
    fields = text.split()
    if not 5 <= len(fields) <= 6:
        raise BadPosition("a position has 5 or 6 fields separated by spaces "
                          "(board to-act action acted reserves [turns]), got %d" % len(fields))
    if len(fields) == 5:
        fields.append("0")
    board, active, action, acted, reserves, turn = fields
    size, grid = _parse_board(board)
    if options.get("size", size) != size:
        raise BadPosition("the board is %dx%d, not size %r" % (size, size, options["size"]))
    options["size"] = size
    res = []
    for part in reserves.split("/"):
        nums = part.split(",")
        if len(nums) != 3 or not all(x.isdigit() for x in nums):
            raise BadPosition("reserves are 'd1,d2,d3/d1,d2,d3' (Blue first), not %r" % reserves)
        res.append([int(x) for x in nums])
    if len(res) != 2:
        raise BadPosition("reserves are 'd1,d2,d3/d1,d2,d3' (Blue first), not %r" % reserves)
    if options.get("pieces") is None:
        most = [0, 0, 0]
        for p in (BLUE, RED):
            for kind in (DRONE1, DRONE2, DRONE3):
                most[kind - 1] = max(most[kind - 1],
                                     grid.count(piece_code(p, kind)) + res[p][kind - 1])
        options["pieces"] = {"drone1": most[0], "drone2": most[1], "drone3": most[2]}
    try:
        s = new_game(2, 0, **options)
    except TypeError as exc:
        raise BadPosition("unknown option: %s" % (exc,))
    s.grid = grid
    s.reserves = res
    if active not in ("0", "1") or action not in ("1", "2"):
        raise BadPosition("the player to act is 0 or 1 and the action 1 or 2, not %r %r"
                          % (active, action))
    s.active = int(active)
    s.action = int(action) - 1
    s.phase = PHASE_PLAY
    if acted != "-":
        if acted not in s.index:
            raise BadPosition("the piece that acted: %r is not a cell" % acted)
        s.acted = s.index[acted]
    if not turn.isdigit():
        raise BadPosition("turns completed must be a number, not %r" % turn)
    s.turn = int(turn)
    _check_material(s)
    _check_play(s)
    return s


def determinize(view, seed):
    """A state that `view` allows: the view itself (nothing is hidden), its PRNG drawn
    from `seed` (the PRNG is never used: Vorcept has no chance)."""
    d = dict(view)
    d["rng"] = prng.seed_state(seed)
    return from_json(d)


def from_json(text):
    """Rebuild a state from to_json() text (or the parsed dict), checking every field."""
    if isinstance(text, dict):
        d = text
    else:
        import json
        try:
            d = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise BadPosition("not JSON text: %s" % (exc,))
    if not isinstance(d, dict):
        raise BadPosition("a Vorcept state is a JSON object")
    if d.get("game") != NAME or d.get("format") != FORMAT_VERSION:
        raise BadPosition("not a Vorcept state of format %d (game=%r, format=%r)"
                          % (FORMAT_VERSION, d.get("game"), d.get("format")))

    def field(key, kind):
        if key not in d:
            raise BadPosition("field %r is missing" % key)
        v = d[key]
        if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
            raise BadPosition("field %r has the wrong type: %r" % (key, v))
        return v

    def ints(key, v, n, lo, hi):
        if not isinstance(v, list) or (n >= 0 and len(v) != n) or any(
                not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi for x in v):
            raise BadPosition("field %r must be %s integers from %d to %d"
                              % (key, n if n >= 0 else "a list of", lo, hi))
        return v

    s = VorceptState()
    pieces = ints("pieces", field("pieces", list), 3, 0, 999)
    _configure(s, field("size", int), {"drone1": pieces[0], "drone2": pieces[1],
                                       "drone3": pieces[2]},
               field("lava_min", int), field("lava_max", int), field("host_only", bool),
               field("edge_wall", bool), field("self_capture", str),
               field("concede_below", int), field("max_turns", int))
    size, grid = _parse_board(field("board", str))
    if size != s.size:
        raise BadPosition("field 'board' is %dx%d but 'size' is %d" % (size, size, s.size))
    s.grid = grid
    reserves = field("reserves", list)
    if len(reserves) != 2:
        raise BadPosition("field 'reserves' must hold 2 reserves")
    s.reserves = [ints("reserves", reserves[p], 3, 0, 999)[:] for p in (BLUE, RED)]
    s.phase = _count("field 'phase'", field("phase", int), PHASE_PYLON, PHASE_OVER)
    s.active = _count("field 'active'", field("active", int), 0, 1)
    s.action = _count("field 'action'", field("action", int), 0, 1)
    s.acted = _count("field 'acted'", field("acted", int), -1, size * size - 1)
    removed = ints("removed", field("removed", list), -1, 0, 999)
    for k in range(0, len(removed), 2):
        if k + 1 >= len(removed) or removed[k] >= size * size \
                or not FIRST_PIECE <= removed[k + 1] < len(LETTERS):
            raise BadPosition("field 'removed' must be pairs of a cell and a piece code")
    s.removed = removed[:]
    s.turn = _count("field 'turn'", field("turn", int), 0, 99999)
    s.win = _count("field 'win'", field("win", int), -1, 1)
    s.end = field("end", str)
    if (s.end != "") != (s.phase == PHASE_OVER) or (s.end and s.end not in END_REASONS):
        raise BadPosition("field 'end' must be one of %s exactly when the game is over"
                          % ", ".join(END_REASONS))
    if s.win >= 0 and s.end not in ("host", "pylon", "concede"):
        raise BadPosition("field 'win' names a winner only after a win (host, pylon, concede)")
    s.rng = field("rng", int)
    if not 0 < s.rng <= 0xFFFFFFFF:
        raise BadPosition("field 'rng' must be from 1 to 4294967295")
    _check_material(s)
    g = s.grid
    lava = g.count(LAVA)
    hosts = (piece_code(BLUE, HOST) in g, piece_code(RED, HOST) in g)
    setup_ok = {
        PHASE_PYLON: PYLON not in g and not lava and not any(hosts) and s.active == BLUE,
        PHASE_LAVA: PYLON in g and lava < s.lava_max and not any(hosts),
        PHASE_HOST: PYLON in g and hosts == (s.active == RED, False),
    }
    if s.phase in setup_ok:
        if not setup_ok[s.phase] or any(v >= FIRST_PIECE and _KIND[v] != HOST for v in g) \
                or s.reserves != [s.pieces, s.pieces] or s.action or s.acted >= 0 \
                or s.removed or s.turn:
            raise BadPosition("the board, reserves and turn do not fit the %s setup phase"
                              % PHASE_NAMES[s.phase])
    elif s.phase == PHASE_PLAY:
        _check_play(s)
    elif s.acted >= 0 or s.action:
        raise BadPosition("fields 'acted' and 'action' are reset once the game is over")
    return s

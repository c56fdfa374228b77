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

The rules are in several files, each importing only those below it (none imports this one):
- `vorcept` (this one): the game's interface: new_game(), from_position(), from_json(),
  determinize(), and VorceptState with the methods every game shares, what a renderer
  needs, legal_moves() and play();
- `vorcept_setup`, `vorcept_actions`, `vorcept_captures`: VorceptState's mixins: the
  setup (Pylon, lava, Hosts), the play phase's actions with the ends of a turn and of the
  game, and the captures with the Pylon triangle;
- `vorcept_check`: a state read from outside (JSON, a position), checked;
- `vorcept_options`, the lowest: the options, the cell contents, the phases and the
  board's geometry that all share; their names are this module's too.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove
from shared_rules.vorcept_actions import Actions
from shared_rules.vorcept_captures import Captures
from shared_rules.vorcept_check import _check_material, _check_play, _parse_board, read_fields
# The options and shared constants, part of this module's interface too.
from shared_rules.vorcept_options import (  # noqa: F401
    BLUE, DEFAULT_CONCEDE_BELOW, DEFAULT_LAVA_MAX, DEFAULT_LAVA_MIN, DEFAULT_MAX_TURNS,
    DEFAULT_PIECES, DEFAULT_SELF_CAPTURE, DEFAULT_SIZE, DRONE1, DRONE2, DRONE3, EMPTY,
    END_REASONS, FILES, FIRST_PIECE, HOST, HOST_PYLON_DISTANCE, KINDS, LAVA, LETTERS, MAX_SIZE,
    MIN_SIZE, OPTIONS, PHASE_HOST, PHASE_LAVA, PHASE_NAMES, PHASE_OVER, PHASE_PLAY,
    PHASE_PYLON, PLAYER_NAMES, PYLON, RANGES, RED, SELF_CAPTURE_CHOICES, _KIND, _OWNER,
    _configure, geometry, piece_code)
from shared_rules.vorcept_setup import Setup

NAME = "vorcept"
TITLE = "Vorcept"
PLAYER_COUNTS = (2,)
HIDDEN_INFORMATION = False  # everything is on the table, and nothing is left to chance
FORMAT_VERSION = const(1)

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

# The mixins share no method name with each other or with VorceptState, so their order
# is only the order a method is looked up in (MicroPython walks the bases at every call):
# the captures, called most often while the moves are listed, first.
class VorceptState(Captures, Actions, Setup):
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

    # ---- move generation (each phase's own rules are in the mixins)

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

    # ---- playing moves (each move's handler is in a mixin)

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

    s = VorceptState()
    read_fields(s, d)
    return s

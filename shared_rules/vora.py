"""Vora: the complete rules, pure and small enough for the board.

The rulebook is ../shared/rulebooks/vora.md; every choice it leaves open is listed in
docs/rules-decisions.md and lives here as a named option or constant. The notation for
moves and positions is documented in docs/vora-notation.md.

Board geometry. The meadow's 25 cells are numbered 0..24 = rank * 5 + file, where file
a..e is 0..4 from west to east and rank 1..5 is 0..4 from south to north (cell names as
in chess: a1 is the south-west corner as seen by the player seated South). Players sit
at the sides S, W, N, E. Grid values are cube type codes 0..8, or EMPTY for a gap.

The turn is a small state machine so that every choice is a move:
  ACTION  -> push / ability
  COLLECT -> "take <cell>" a line group the player made, or "pass" to leave the rest
  BONUS   -> after a line of 4 or 5+: "extra <cell>", "steal <player> <type>" or "pass"
then gaps fall towards the active player; lines that a fall makes (the chain) are collected
at once (a bonus is still the player's choice), and the meadow is refilled from the box
when nothing more can be collected.
"""

try:
    from micropython import const
    # On the board, memory is scarce: move strings are built as they are needed.
    _STRING_TABLES = False
except ImportError:  # CPython
    def const(x):
        return x
    # On the PC, speed matters (the lab plays millions of games): every move string is
    # made once, in tables, and legal_moves() copies them (the same lists, faster). They
    # live in shared_rules/vora_tables.py, which never goes on the board.
    _STRING_TABLES = True

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "vora"
TITLE = "Vora"
PLAYER_COUNTS = (2, 3, 4)
HIDDEN_INFORMATION = False  # farms are open on the table; only the box's draws are chance
FORMAT_VERSION = const(2)

# Cube types, in the fixed order used by every list of counts. Lowercase English names
# in the API; one capital letter in position texts (W is the wolf, so water is A, "aqua").
TYPES = ("pig", "crow", "wolf", "mole", "duck", "ladybug", "sheep", "water", "grass")
LETTERS = "PCWMDLSAG"
PIG = const(0)
CROW = const(1)
WOLF = const(2)
MOLE = const(3)
DUCK = const(4)
LADYBUG = const(5)
SHEEP = const(6)
WATER = const(7)
GRASS = const(8)
N_TYPES = const(9)
EMPTY = const(-1)


def is_animal(t):
    return 0 <= t <= SHEEP


# House default: the box holds 12 of each type (108 cubes). The rulebook gives no count.
DEFAULT_BOX = (12, 12, 12, 12, 12, 12, 12, 12, 12)
# House safeguard: a game ends after this many turns even if the box never runs dry
# (the rulebook has no limit; pushes alone never empty the box).
DEFAULT_MAX_TURNS = const(400)
# Where a cube goes when it is pushed out on a side where nobody sits.
PUSHED_OUT_CHOICES = ("box", "pusher")
DEFAULT_PUSHED_OUT = "pusher"
# Lines a fall makes: "collected" at once (the rulebook), or "offered" like the push's own.
CHAIN_LINES_CHOICES = ("collected", "offered")
DEFAULT_CHAIN_LINES = "collected"

# Seats, clockwise seen from above (North at the top). Player i sits at seats[i].
SIDES = "SWNE"
DEFAULT_SEATS = {2: "SN", 3: "SWN", 4: "SWNE"}
OPPOSITE = {"S": "N", "N": "S", "W": "E", "E": "W"}

# The options of new_game(): (name, house default, kind, what it decides). The kind is
# "int", "str", "dict" or a tuple of the allowed values (docs/adding-a-game.md).
OPTIONS = (
    ("box", None, "dict", "cubes in the box, {type: count} (default 12 of each type)"),
    ("seats", None, "str", "the sides the players sit at, player 0 first (default SN, SWN, SWNE)"),
    ("pushed_out", DEFAULT_PUSHED_OUT, PUSHED_OUT_CHOICES,
     "where a cube pushed out on a side where nobody sits goes"),
    ("max_turns", DEFAULT_MAX_TURNS, "int", "a safeguard: the game ends after this many turns"),
    ("chain_lines", DEFAULT_CHAIN_LINES, CHAIN_LINES_CHOICES,
     "lines made by a fall: collected at once, or offered like the push's own lines"),
    ("position", None, "str",
     "start from this position instead of a deal: teaching, puzzles"),
)

PHASE_ACTION = const(0)
PHASE_COLLECT = const(1)
PHASE_BONUS = const(2)
PHASE_OVER = const(3)

FILES = "abcde"
CELL_NAMES = tuple(FILES[i % 5] + str(i // 5 + 1) for i in range(25))
_CELL_INDEX = {name: i for i, name in enumerate(CELL_NAMES)}


def _build_edges():
    # Each edge key pushes one line; its cells run from the entry cell to the exit cell.
    names, cells, exits = [], [], []
    for f in range(5):
        names.append("S" + FILES[f])
        cells.append(tuple(r * 5 + f for r in range(5)))
        exits.append("N")
        names.append("N" + FILES[f])
        cells.append(tuple(r * 5 + f for r in range(4, -1, -1)))
        exits.append("S")
    for r in range(5):
        names.append("W" + str(r + 1))
        cells.append(tuple(r * 5 + f for f in range(5)))
        exits.append("E")
        names.append("E" + str(r + 1))
        cells.append(tuple(r * 5 + f for f in range(4, -1, -1)))
        exits.append("W")
    return tuple(names), tuple(cells), tuple(exits)


EDGE_NAMES, EDGE_CELLS, EDGE_EXIT = _build_edges()
_EDGE_INDEX = {name: i for i, name in enumerate(EDGE_NAMES)}


def _view(seat):
    # Cells in reading order for the player at `seat`: the far rank first, each rank from
    # that player's left to right. This is the refill order of the rulebook.
    out = []
    for vr in range(5):
        for vc in range(5):
            if seat == "S":
                rank, file = 4 - vr, vc
            elif seat == "N":
                rank, file = vr, 4 - vc
            elif seat == "W":
                rank, file = 4 - vc, 4 - vr
            else:
                rank, file = vc, vr
            out.append(rank * 5 + file)
    return tuple(out)


VIEW = {s: _view(s) for s in SIDES}
# For gravity: per seat, 5 lines of cells ordered from the player's side outwards.
GRAVITY = {
    s: tuple(tuple(VIEW[s][vr * 5 + vc] for vr in range(4, -1, -1)) for vc in range(5))
    for s in SIDES
}
LINES = tuple(tuple(r * 5 + f for f in range(5)) for r in range(5)) + tuple(
    tuple(r * 5 + f for r in range(5)) for f in range(5)
)


def _neighbours(i, diagonal):
    r, f = divmod(i, 5)
    out = []
    for dr in (-1, 0, 1):
        for df in (-1, 0, 1):
            if (dr or df) and (diagonal or not (dr and df)):
                rr, ff = r + dr, f + df
                if 0 <= rr < 5 and 0 <= ff < 5:
                    out.append(rr * 5 + ff)
    return tuple(out)


ORTHOGONAL = tuple(_neighbours(i, False) for i in range(25))
AROUND = tuple(_neighbours(i, True) for i in range(25))
# Cells ordered by name (a1, a2, ..., e5): a group is named by its first cell in this order.
_NAME_ORDER = tuple(sorted(range(25), key=lambda i: CELL_NAMES[i]))
# Orders that let legal_moves() build its list already sorted.
_AROUND_BY_NAME = tuple(tuple(sorted(AROUND[i], key=lambda n: CELL_NAMES[n])) for i in range(25))
_EDGES_BY_NAME = tuple(sorted(range(20), key=lambda e: EDGE_NAMES[e]))
_TYPES_BY_NAME = tuple(sorted(range(N_TYPES), key=lambda t: TYPES[t]))
_PUSH_PREFIX = tuple("push " + name + " " for name in TYPES)
_ALL_EDGES_OK = (True,) * 20


def cell_index(name):
    """Index 0..24 of a cell name such as "c3"; raises KeyError for anything else."""
    return _CELL_INDEX[name]


def first_cell(mask):
    """Index of the first cell of a mask in name order: the cell that names a group."""
    for i in _NAME_ORDER:
        if mask >> i & 1:
            return i
    return -1


def _cells_of(mask):
    return [i for i in range(25) if mask >> i & 1]


def _popcount(mask):
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


def runs(grid):
    """Masks of the maximal straight runs of 3 or more alike cubes (gaps break a run)."""
    # A line has 5 cells, so a run of 3 or more always holds its middle cell, and a line
    # holds at most one: look at the middle, then how far the run reaches each way.
    out = []
    for line in LINES:
        c0, c1, c2, c3, c4 = line
        t = grid[c2]
        if t == EMPTY:
            continue
        if grid[c1] == t:
            if grid[c3] == t:
                m = (1 << c1) | (1 << c2) | (1 << c3)
                if grid[c4] == t:
                    m |= 1 << c4
            else:
                if grid[c0] != t:
                    continue
                m = (1 << c1) | (1 << c2)
            if grid[c0] == t:
                m |= 1 << c0
        elif grid[c3] == t and grid[c4] == t:
            m = (1 << c2) | (1 << c3) | (1 << c4)
        else:
            continue
        out.append(m)
    return out


def water_groups(grid):
    """Masks of the orthogonally connected groups of 3 or more water cubes."""
    seen = 0
    out = []
    for i in range(25):
        if grid[i] != WATER or seen >> i & 1:
            continue
        mask = 0
        todo = [i]
        seen |= 1 << i
        while todo:
            c = todo.pop()
            mask |= 1 << c
            for n in ORTHOGONAL[c]:
                if grid[n] == WATER and not seen >> n & 1:
                    seen |= 1 << n
                    todo.append(n)
        if _popcount(mask) >= 3:
            out.append(mask)
    return out


# ---------------------------------------------------------------- scoring

def _type_score(n):
    # Sets count 3 cubes as 1 unit: a unit scores 1, two units (a set of 6) 3, three units
    # (a set of 9) 9. Sets of 9 are worth most per cube, so the best split of any count
    # takes as many 9s as fit, then one 6 or 3; n % 3 cubes stay loose at -1 each.
    units, loose = divmod(n, 3)
    return 9 * (units // 3) + (0, 1, 3)[units % 3] - loose


def _farm_summary(counts):
    # (score, kinds of cube with a set, loose cubes) for a farm given as 9 counts.
    score = kinds = loose = 0
    for n in counts:
        score += _type_score(n)
        if n >= 3:
            kinds += 1
        loose += n % 3
    return score, kinds, loose


def score_farm(counts):
    """Score one farm given as a dict {cube type name: count}.

    >>> score_farm({"crow": 8, "sheep": 5})
    0
    """
    total = 0
    for name in counts:
        if name not in TYPES:
            raise ValueError("unknown cube type %r (expected one of %s)" % (name, ", ".join(TYPES)))
        n = counts[name]
        if not isinstance(n, int) or n < 0:
            raise ValueError("count of %s must be a non-negative integer, not %r" % (name, n))
        total += _type_score(n)
    return total


# ---------------------------------------------------------------- the state

class VoraState:
    """One game of Vora. Build it with new_game(), from_position() or from_json()."""

    def __init__(self):
        self.players = 2
        self.seats = "SN"
        self.pushed_out = DEFAULT_PUSHED_OUT
        self.max_turns = DEFAULT_MAX_TURNS
        self.chain_lines = DEFAULT_CHAIN_LINES
        self.grid = [EMPTY] * 25
        self.farms = []
        self.box = [0] * N_TYPES
        self.eaten = [0] * N_TYPES  # animals eaten by wolves: out of the game
        self.rng = 1
        self.turn = 0  # turns completed
        self.active = 0
        self.phase = PHASE_ACTION
        # The current step's reference: the meadow before the step began, and the cells a
        # cube moved into during it. A line is the active player's when it holds a touched
        # cell or differs from every line of `before`; lines left from a refill are nobody's.
        self.before = []
        self.touched = 0
        self.bonus = 0  # 1: extra cube; 2: extra cube or steal
        # A cell that falls leave in place this turn: the wolf that has eaten, or the pig's
        # entry gap (made by a push, so nothing falls into it; the refill fills it).
        self.pinned = -1
        self.chain = 0  # 1 while the step is a fall's (a chain): its lines are collected
        self.end = ""  # why the game ended: "box" or "turns"
        # The position the game was set up from (option `position`), None for a deal. Not
        # part of to_json(): the digests of dealt games stay as they were; a record keeps it.
        self.start = None

    # ---- the interface shared by every game

    def to_act(self):
        """The player (0-based) who chooses the next move, or None when the game is over."""
        return None if self.phase == PHASE_OVER else self.active

    def is_over(self):
        return self.phase == PHASE_OVER

    def scores(self):
        """Each player's current farm score (final once the game is over)."""
        return [_farm_summary(f)[0] for f in self.farms]

    def ranking_key(self, player):
        """(score, -kinds of sets, -loose cubes): higher wins, in the rulebook's tie order."""
        s, k, l = _farm_summary(self.farms[player])
        return (s, -k, -l)

    def winner(self):
        """The winning player, or None while the game goes on or when it is a draw."""
        if self.phase != PHASE_OVER:
            return None
        keys = [self.ranking_key(p) for p in range(self.players)]
        best = max(keys)
        return keys.index(best) if keys.count(best) == 1 else None

    def options(self):
        """Every option of this game spelled out, house defaults included: new_game()
        with them deals the same game, whatever the defaults become later."""
        # Cubes are never created or lost, so the box as dealt is every cube of each type
        # wherever it is now: the box, the meadow, the farms, the wolves' bellies.
        total = self.box[:]
        for t in self.grid:
            if t != EMPTY:
                total[t] += 1
        for t in range(N_TYPES):
            total[t] += self.eaten[t]
            for farm in self.farms:
                total[t] += farm[t]
        return {"box": {TYPES[t]: total[t] for t in range(N_TYPES)},
                "seats": self.seats, "pushed_out": self.pushed_out,
                "max_turns": self.max_turns, "chain_lines": self.chain_lines,
                "position": self.start}

    def turn_count(self):
        """Turns completed, the last one included once the game is over."""
        return self.turn

    def end_reason(self):
        """Why the game ended: "box" (it could not refill the meadow: the rulebook's end)
        or "turns" (the house safeguard); "" while it goes on."""
        return self.end

    def view(self, player=None):
        """What `player` (None: a spectator) may know, as a JSON-ready dict: everything
        but the PRNG state, which would tell the cubes the box will give next (no view of
        any game holds an "rng" key)."""
        import json
        d = json.loads(self.to_json())
        del d["rng"]
        return d

    def legal_moves(self):
        """Every move the player to act may play now, as sorted notation strings."""
        if _STRING_TABLES and self.phase == PHASE_ACTION:
            return _tables.action_moves(self)
        return [move_text(c) for c in self.legal_codes()]

    def legal_codes(self, into=None):
        """legal_moves() as move codes (move_text()), in the same order: a small integer
        a move where a string takes some forty bytes. `into`: where to append them (a new
        list by default); the board gives an array('H'), 2 bytes a move in one small block,
        where a list's 4 bytes a slot grow by doubling into a block of 2 KB."""
        codes = [] if into is None else into
        phase = self.phase
        if phase == PHASE_ACTION:
            self._action_codes(codes)
        elif phase == PHASE_COLLECT:
            codes.append(MOVE_PASS << 10)
            firsts = [first_cell(m) for m in self._groups()]
            for i in _NAME_ORDER:
                if i in firsts:
                    codes.append(MOVE_TAKE << 10 | i << 5)
        elif phase == PHASE_BONUS:
            for i in _NAME_ORDER:
                if self.grid[i] != EMPTY:
                    codes.append(MOVE_EXTRA << 10 | i << 5)
            codes.append(MOVE_PASS << 10)
            if self.bonus == 2:
                for p in range(self.players):
                    farm = self.farms[p]
                    if p != self.active and sum(farm) >= 2:
                        for t in _TYPES_BY_NAME:
                            if farm[t]:
                                codes.append(MOVE_STEAL << 10 | p << 5 | t)
        return codes

    def play(self, move):
        """Apply one move in notation; raise IllegalMove (state unchanged) if it cannot be played."""
        if self.phase == PHASE_OVER:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, str):
            raise IllegalMove(move, "a move is a notation string such as 'push crow Sc'")
        words = move.split(" ")
        verb = words[0]
        handler = _HANDLERS.get(verb)
        if handler is None:
            raise IllegalMove(move, "unknown move word %r; moves start with one of: %s"
                              % (verb, ", ".join(sorted(_HANDLERS))))
        phases, arity, method = handler
        if self.phase not in phases:
            raise IllegalMove(move, "now is the time to %s" % _PHASE_HINT[self.phase])
        if len(words) != arity + 1:
            raise IllegalMove(move, "%r takes %d argument%s separated by single spaces"
                              % (verb, arity, "" if arity == 1 else "s"))
        # Each handler checks everything before it changes anything, so a refusal leaves
        # the state exactly as it was.
        method(self, move, words[1:])

    def clone(self):
        s = VoraState()
        s.players = self.players
        s.seats = self.seats
        s.pushed_out = self.pushed_out
        s.max_turns = self.max_turns
        s.chain_lines = self.chain_lines
        s.grid = self.grid[:]
        s.farms = [f[:] for f in self.farms]
        s.box = self.box[:]
        s.eaten = self.eaten[:]
        s.rng = self.rng
        s.turn = self.turn
        s.active = self.active
        s.phase = self.phase
        s.before = self.before[:]
        s.touched = self.touched
        s.bonus = self.bonus
        s.pinned = self.pinned
        s.chain = self.chain
        s.end = self.end
        s.start = self.start
        return s

    def to_json(self):
        """The whole state as canonical JSON text (fixed key order, no spaces).

        Written by hand, in one pass into one list of pieces joined once, with small
        numbers taken from a table: on the board this runs after every move (the digest,
        the save), and a generic encoder allocated 7 KB for these 460 bytes."""
        p = ['{"game":"', NAME, '","format":', _num(FORMAT_VERSION), ',"players":',
             _num(self.players), ',"seats":"', self.seats, '","pushed_out":"', self.pushed_out,
             '","max_turns":', _num(self.max_turns), ',"chain_lines":"', self.chain_lines,
             '","grid":']
        _ints(p, self.grid)
        p.append(',"farms":[')
        for i, farm in enumerate(self.farms):
            if i:
                p.append(",")
            _ints(p, farm)
        p.append('],"box":')
        _ints(p, self.box)
        p.append(',"eaten":')
        _ints(p, self.eaten)
        p += [',"rng":', _num(self.rng), ',"turn":', _num(self.turn), ',"active":',
              _num(self.active), ',"phase":', _num(self.phase), ',"before":']
        _ints(p, self.before)
        p += [',"touched":', _num(self.touched), ',"bonus":', _num(self.bonus), ',"pinned":',
              _num(self.pinned), ',"chain":', _num(self.chain), ',"end":"', self.end, '"}']
        return "".join(p)

    def digest(self):
        """16 hex digits of SHA-256 over to_json(): equal on CPython and MicroPython."""
        import hashlib
        import binascii
        h = hashlib.sha256(self.to_json().encode()).digest()
        return binascii.hexlify(h[:8]).decode()

    def __eq__(self, other):
        return isinstance(other, VoraState) and self.to_json() == other.to_json()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        if self.phase == PHASE_ACTION:
            # The position with the options that differ from the house defaults.
            opts = ""
            if self.pushed_out != DEFAULT_PUSHED_OUT:
                opts += ", pushed_out=%r" % self.pushed_out
            if self.max_turns != DEFAULT_MAX_TURNS:
                opts += ", max_turns=%r" % self.max_turns
            if self.chain_lines != DEFAULT_CHAIN_LINES:
                opts += ", chain_lines=%r" % self.chain_lines
            return "vora.from_position(%r%s)" % (self.position(), opts)
        return "vora.from_json(%r)" % self.to_json()

    # ---- notation of positions

    def position(self):
        """The position as text: meadow ranks 5..1, seats, player to act, farms, box,
        eaten cubes, turns completed, PRNG state. See docs/vora-notation.md."""
        from shared_rules import vora_position
        return vora_position.position(self)

    def farm(self, player):
        """A player's farm as a dict {type name: count} (types they have none of left out)."""
        f = self.farms[player]
        return {TYPES[t]: f[t] for t in range(N_TYPES) if f[t]}

    def meadow(self):
        """The meadow as 5 strings of letters, rank 5 (north) first; '.' is a gap."""
        return self.position().split(" ")[0].split("/")

    def group_masks(self):
        """In the COLLECT phase, the groups on offer as 25-bit cell masks (else [])."""
        return self._groups() if self.phase == PHASE_COLLECT else []

    def collectable_groups(self):
        """In the COLLECT phase, {first cell name: [cell names]} of the groups on offer."""
        if self.phase != PHASE_COLLECT:
            return {}
        out = {}
        for m in self._groups():
            out[CELL_NAMES[first_cell(m)]] = [CELL_NAMES[i] for i in _cells_of(m)]
        return out

    # ---- move generation

    def _seat_gain(self, exit_side):
        # Which player takes a cube pushed out on `exit_side` (-1: back to the box).
        p = self.seats.find(exit_side)
        if p < 0 and self.pushed_out == "pusher":
            p = self.active
        return p

    def _keeps_a_cube(self, out_count, exit_side):
        # No action may leave a player with zero cubes: pushing spends one cube of the
        # active player's farm, and the cubes pushed out may come back to them.
        gained = out_count if self._seat_gain(exit_side) == self.active else 0
        return sum(self.farms[self.active]) - 1 + gained >= 1

    def _action_codes(self, codes):
        # Appended to `codes` in sorted order of the moves' text (verbs, then names,
        # alphabetically), so no sort is needed: on the board, sorting a few hundred moves
        # costs more than making them. vora_tables.action_moves() builds the same moves
        # as strings, from tables, on the PC.
        g = self.grid
        farm = self.farms[self.active]
        # Where a push's cube goes out decides whether it leaves the pusher a cube; with
        # two cubes or more in the farm, every push does.
        roomy = sum(farm) >= 2
        ok1 = _ALL_EDGES_OK if roomy else [self._keeps_a_cube(1, EDGE_EXIT[e]) for e in range(20)]
        if farm[CROW]:
            for i in _NAME_ORDER:
                if is_animal(g[i]) and g[i] != CROW:
                    codes.append(MOVE_CROW << 10 | i << 5)
        if DUCK in g:
            for i in _NAME_ORDER:
                if g[i] == DUCK:
                    for n in _NAME_ORDER:
                        if g[n] == WATER or g[n] == GRASS:
                            codes.append(MOVE_DUCK << 10 | i << 5 | n)
        if LADYBUG in g:
            for i in _NAME_ORDER:
                if g[i] == LADYBUG:
                    codes.append(MOVE_LADYBUG << 10 | i << 5)
        if MOLE in g:
            for i in _NAME_ORDER:
                if g[i] == MOLE:
                    for n in _AROUND_BY_NAME[i]:
                        if g[n] != MOLE:
                            codes.append(MOVE_MOLE << 10 | i << 5 | n)
        if farm[PIG]:
            for e in _EDGES_BY_NAME:
                if roomy or self._keeps_a_cube(2, EDGE_EXIT[e]):
                    codes.append(MOVE_PIG << 10 | e << 5)
        for t in _TYPES_BY_NAME:
            if farm[t]:
                push = MOVE_PUSH << 10 | t << 5
                for e in _EDGES_BY_NAME:
                    if ok1[e]:
                        codes.append(push | e)
        if g.count(WATER) >= 3:
            groups = water_groups(g)
            for i in _NAME_ORDER:
                for m in groups:
                    if first_cell(m) == i:
                        codes.append(MOVE_WATER << 10 | i << 5)
        if farm[WOLF]:
            for e in _EDGES_BY_NAME:
                if ok1[e] and is_animal(g[EDGE_CELLS[e][0]]):
                    codes.append(MOVE_WOLF << 10 | e << 5)

    def _groups(self):
        # Line groups the active player may collect now: maximal runs of 3+ that this step
        # touched or reshaped, joined with every run they cross (an L or T is one group).
        all_runs = runs(self.grid)
        if not all_runs:
            return all_runs
        mine = []
        old = runs(self.before) if self.before else []
        for m in all_runs:
            if m & self.touched or m not in old:
                mine.append(m)
        groups = []
        for m in mine:
            merged = m
            changed = True
            while changed:
                changed = False
                for other in all_runs:
                    if other & merged and other | merged != merged:
                        merged |= other
                        changed = True
            if merged not in groups:
                groups.append(merged)
        return groups

    # ---- move handlers: check everything first, then change the state

    def _arg_type(self, move, word):
        if word not in TYPES:
            raise IllegalMove(move, "%r is not a cube type (one of %s)" % (word, ", ".join(TYPES)))
        return TYPES.index(word)

    def _arg_cell(self, move, word):
        i = _CELL_INDEX.get(word)
        if i is None:
            raise IllegalMove(move, "%r is not a meadow cell (a1 to e5)" % (word,))
        return i

    def _arg_edge(self, move, word):
        e = _EDGE_INDEX.get(word)
        if e is None:
            raise IllegalMove(move, "%r is not an edge (Sa..Se, Na..Ne, W1..W5, E1..E5)" % (word,))
        return e

    def _need_in_farm(self, move, t):
        if not self.farms[self.active][t]:
            raise IllegalMove(move, "player %d has no %s in their farm" % (self.active, TYPES[t]))

    def _do_push(self, move, args):
        t = self._arg_type(move, args[0])
        e = self._arg_edge(move, args[1])
        self._need_in_farm(move, t)
        self._push(move, t, e, 1)

    def _do_pig(self, move, args):
        e = self._arg_edge(move, args[0])
        self._need_in_farm(move, PIG)
        self._push(move, PIG, e, 2)

    def _do_wolf(self, move, args):
        e = self._arg_edge(move, args[0])
        self._need_in_farm(move, WOLF)
        first = self.grid[EDGE_CELLS[e][0]]
        if not is_animal(first):
            raise IllegalMove(move, "the wolf only enters where the first cube is an animal; "
                                    "%s holds %s (push it instead)" % (
                                        CELL_NAMES[EDGE_CELLS[e][0]], TYPES[first]))
        self._push(move, WOLF, e, 0)

    def _push(self, move, t, e, dist):
        # dist 1: a plain push; 2: the pig's double push; 0: the wolf, which eats the first
        # animal, stays in its place, and makes the rest of the line flee one step.
        out_count = 2 if dist == 2 else 1
        if not self._keeps_a_cube(out_count, EDGE_EXIT[e]):
            raise IllegalMove(move, "it would leave player %d with no cube" % self.active)
        self._start_step()
        g = self.grid
        cells = EDGE_CELLS[e]
        self.farms[self.active][t] -= 1
        outs = [g[cells[4]]]
        if dist == 2:
            outs.append(g[cells[3]])
            for k in (4, 3, 2):
                g[cells[k]] = g[cells[k - 2]]
            g[cells[1]] = PIG
            g[cells[0]] = EMPTY
            self.pinned = cells[0]
        else:
            for k in (4, 3, 2):
                g[cells[k]] = g[cells[k - 1]]
            if dist == 1:
                g[cells[1]] = g[cells[0]]
                g[cells[0]] = t
            else:
                self.eaten[g[cells[0]]] += 1
                g[cells[1]] = EMPTY
                g[cells[0]] = WOLF
                self.pinned = cells[0]
        for c in cells:
            if g[c] != EMPTY:
                self.touched |= 1 << c
        receiver = self._seat_gain(EDGE_EXIT[e])
        for o in outs:
            if receiver < 0:
                self.box[o] += 1
            else:
                self.farms[receiver][o] += 1
        self._settle()

    def _do_crow(self, move, args):
        i = self._arg_cell(move, args[0])
        self._need_in_farm(move, CROW)
        t = self.grid[i]
        if not is_animal(t) or t == CROW:
            raise IllegalMove(move, "the crow swaps only with an animal other than a crow; "
                                    "%s holds %s" % (args[0], TYPES[t]))
        self._start_step()
        farm = self.farms[self.active]
        farm[CROW] -= 1
        farm[t] += 1
        self.grid[i] = CROW
        self.touched |= 1 << i
        self._settle()

    def _do_mole(self, move, args):
        i = self._arg_cell(move, args[0])
        j = self._arg_cell(move, args[1])
        if self.grid[i] != MOLE:
            raise IllegalMove(move, "there is no mole on %s" % args[0])
        if j not in AROUND[i]:
            raise IllegalMove(move, "%s is not next to %s (orthogonally or diagonally)"
                              % (args[1], args[0]))
        if self.grid[j] == MOLE:
            raise IllegalMove(move, "swapping two moles changes nothing")
        self._swap(i, j)

    def _do_duck(self, move, args):
        i = self._arg_cell(move, args[0])
        j = self._arg_cell(move, args[1])
        if self.grid[i] != DUCK:
            raise IllegalMove(move, "there is no duck on %s" % args[0])
        if self.grid[j] != WATER and self.grid[j] != GRASS:
            raise IllegalMove(move, "the duck swaps only with grass or water; %s holds %s"
                              % (args[1], TYPES[self.grid[j]]))
        self._swap(i, j)

    def _swap(self, i, j):
        self._start_step()
        g = self.grid
        g[i], g[j] = g[j], g[i]
        self.touched |= (1 << i) | (1 << j)
        self._settle()

    def _do_ladybug(self, move, args):
        i = self._arg_cell(move, args[0])
        if self.grid[i] != LADYBUG:
            raise IllegalMove(move, "there is no ladybug on %s" % args[0])
        self._start_step()
        self._take_cell(i)
        # "Your turn ends": the gap falls and the meadow is refilled, but nothing is
        # collected; lines the fall made belong to nobody (docs/rules-decisions.md).
        self._fall()
        self._end_turn()

    def _do_water(self, move, args):
        i = self._arg_cell(move, args[0])
        for m in water_groups(self.grid):
            if first_cell(m) == i:
                break
        else:
            if self.grid[i] == WATER:
                raise IllegalMove(move, "the water on %s is not a group of 3 or more connected "
                                        "water cubes named by its first cell" % args[0])
            raise IllegalMove(move, "there is no water on %s" % args[0])
        self._start_step()
        for c in _cells_of(m):
            self._take_cell(c)
        self._cascade()  # a collection: the lines its fall makes are a chain

    def _do_take(self, move, args):
        i = self._arg_cell(move, args[0])
        for m in self._groups():
            if first_cell(m) == i:
                break
        else:
            raise IllegalMove(move, "no line group that you may collect starts at %s "
                                    "(groups are named by their first cell: %s)"
                              % (args[0], ", ".join(sorted(self.collectable_groups())) or "none"))
        self._collect(m)

    def _collect(self, m):
        # Take a line group (sheep bring their grass); a line of 4 or more earns a bonus,
        # chosen before anything falls.
        g = self.grid
        i = first_cell(m)
        line_type = g[i]
        cells = _cells_of(m)
        extra = []
        if line_type == SHEEP:
            # Sheep bring along every grass cube orthogonally next to them.
            for c in cells:
                for n in ORTHOGONAL[c]:
                    if g[n] == GRASS and n not in extra:
                        extra.append(n)
        for c in cells + extra:
            self._take_cell(c)
        size = len(cells)
        if size >= 5:
            self.bonus = 2
        elif size == 4:
            self.bonus = 1
        if self.bonus:
            self.phase = PHASE_BONUS
        else:
            self._after_collect()

    def _do_pass(self, move, args):
        if self.phase == PHASE_BONUS:
            self.bonus = 0
            self._after_collect()
        else:
            self._cascade()

    def _do_extra(self, move, args):
        i = self._arg_cell(move, args[0])
        if self.grid[i] == EMPTY:
            raise IllegalMove(move, "%s is empty" % args[0])
        self._take_cell(i)
        self.bonus = 0
        self._after_collect()

    def _do_steal(self, move, args):
        if self.bonus != 2:
            raise IllegalMove(move, "only a line of 5 or more lets you steal")
        word = args[0]
        p = int(word) if word.isdigit() and len(word) == 1 else -1
        if not 0 <= p < self.players:
            raise IllegalMove(move, "%r is not a player (0 to %d)" % (word, self.players - 1))
        if p == self.active:
            raise IllegalMove(move, "you cannot steal from your own farm")
        t = self._arg_type(move, args[1])
        victim = self.farms[p]
        if not victim[t]:
            raise IllegalMove(move, "player %d has no %s" % (p, args[1]))
        if sum(victim) < 2:
            raise IllegalMove(move, "it would leave player %d with no cube" % p)
        victim[t] -= 1
        self.farms[self.active][t] += 1
        self.bonus = 0
        self._after_collect()

    # ---- the flow of a turn

    def _start_step(self, chain=0):
        self.before = self.grid[:]
        self.touched = 0
        self.chain = chain

    def _take_cell(self, i):
        self.farms[self.active][self.grid[i]] += 1
        self.grid[i] = EMPTY
        if i == self.pinned:
            self.pinned = -1

    def _fall(self):
        # Gaps close towards the active player: along each line that points at them,
        # cubes slide towards their side. A wolf that has eaten stays where it is.
        g = self.grid
        if EMPTY not in g:
            return  # nothing to close (a plain push, a swap)
        pinned = self.pinned
        for line in GRAVITY[self.seats[self.active]]:
            w = 0
            for r in range(5):
                c = line[r]
                v = g[c]
                if c == pinned:
                    w = r + 1
                elif v != EMPTY:
                    if w != r:
                        d = line[w]
                        g[d] = v
                        g[c] = EMPTY
                        self.touched |= 1 << d
                    w += 1

    def _settle(self):
        # After an action: gaps fall, then any line the player made is on offer.
        self._fall()
        self._offer()

    def _offer(self):
        # The lines of a step: the action's are offered (the player may decline them);
        # a chain's are collected one by one, first cell first, unless the house option
        # offers them too. Nothing to collect ends the turn.
        groups = self._groups()
        if not groups:
            self.phase = PHASE_ACTION
            self._end_turn()
        elif self.chain and self.chain_lines == "collected":
            self._collect(_first_group(groups))
        else:
            self.phase = PHASE_COLLECT

    def _after_collect(self):
        # More groups of this step may still be collected before the fall.
        if self._groups():
            self._offer()
        else:
            self._cascade()

    def _cascade(self):
        # The player stops collecting: cubes fall into the gaps, and lines the fall makes
        # are a new step of the chain. Nothing removed means nothing falls: the turn ends.
        if EMPTY in self.grid:
            self._start_step(1)
            self._settle()
        else:
            self._end_turn()

    def _end_turn(self):
        self.pinned = -1
        self.before = []
        self.touched = 0
        self.bonus = 0
        self.chain = 0
        self.turn += 1  # the turn was played, whether or not the box can refill after it
        gaps = self.grid.count(EMPTY)
        if gaps > sum(self.box):
            self.phase = PHASE_OVER
            self.end = "box"
            return
        if gaps:
            for i in VIEW[self.seats[self.active]]:
                if self.grid[i] == EMPTY:
                    self.grid[i] = self._draw()
        self.active = (self.active + 1) % self.players
        self.phase = PHASE_ACTION
        if self.turn >= self.max_turns:
            self.phase = PHASE_OVER
            self.end = "turns"

    def _draw(self):
        k, self.rng = prng.below(self.rng, sum(self.box))
        for t in range(N_TYPES):
            k -= self.box[t]
            if k < 0:
                self.box[t] -= 1
                return t
        raise AssertionError("box count out of step")  # unreachable: k < sum(box)


def _first_group(groups):
    # The group whose first cell comes first in name order: chains collect in this order.
    best, best_key = 0, 99
    for m in groups:
        k = _NAME_ORDER.index(first_cell(m))
        if k < best_key:
            best, best_key = m, k
    return best


_ACT = (PHASE_ACTION,)
# move word -> (phases it is played in, number of arguments, handler)
_HANDLERS = {
    "push": (_ACT, 2, VoraState._do_push),
    "pig": (_ACT, 1, VoraState._do_pig),
    "wolf": (_ACT, 1, VoraState._do_wolf),
    "crow": (_ACT, 1, VoraState._do_crow),
    "mole": (_ACT, 2, VoraState._do_mole),
    "duck": (_ACT, 2, VoraState._do_duck),
    "ladybug": (_ACT, 1, VoraState._do_ladybug),
    "water": (_ACT, 1, VoraState._do_water),
    "take": ((PHASE_COLLECT,), 1, VoraState._do_take),
    "extra": ((PHASE_BONUS,), 1, VoraState._do_extra),
    "steal": ((PHASE_BONUS,), 2, VoraState._do_steal),
    "pass": ((PHASE_COLLECT, PHASE_BONUS), 0, VoraState._do_pass),
}

# Moves as codes: KIND << 10 | a << 5 | b, with a and b the move's words after the verb
# as numbers (a cell 0..24, an edge 0..19 of EDGE_NAMES, a cube type 0..8, a player 0..3).
# Kinds in the order of their verbs' names; _MOVE_WORDS says what each word is.
MOVE_CROW = const(0)
MOVE_DUCK = const(1)
MOVE_EXTRA = const(2)
MOVE_LADYBUG = const(3)
MOVE_MOLE = const(4)
MOVE_PASS = const(5)
MOVE_PIG = const(6)
MOVE_PUSH = const(7)
MOVE_STEAL = const(8)
MOVE_TAKE = const(9)
MOVE_WATER = const(10)
MOVE_WOLF = const(11)
MOVE_VERBS = ("crow", "duck", "extra", "ladybug", "mole", "pass", "pig", "push", "steal",
              "take", "water", "wolf")
# c: a cell, e: an edge, t: a cube type, p: a player
_MOVE_WORDS = ("c", "cc", "c", "c", "cc", "", "e", "te", "pt", "c", "c", "e")
_TYPE_INDEX = {name: t for t, name in enumerate(TYPES)}
_PLAYER_WORDS = ("0", "1", "2", "3")
_WORD_NAMES = {"c": CELL_NAMES, "e": EDGE_NAMES, "t": TYPES, "p": _PLAYER_WORDS}
_WORD_INDEX = {"c": _CELL_INDEX, "e": _EDGE_INDEX, "t": _TYPE_INDEX,
               "p": {w: p for p, w in enumerate(_PLAYER_WORDS)}}


def move_text(code):
    """The notation of move code `code` (legal_codes()); ValueError if it is none."""
    kind = code >> 10
    if 0 <= kind < len(MOVE_VERBS) and not code & ~0x3FFF:
        words = _MOVE_WORDS[kind]
        a = code >> 5 & 31
        b = code & 31
        if not words:
            if not a and not b:
                return MOVE_VERBS[kind]
        elif kind == MOVE_PUSH:
            if a < N_TYPES and b < 20:
                return _PUSH_PREFIX[a] + EDGE_NAMES[b]  # the most common move: one string
        else:
            names = _WORD_NAMES[words[0]]
            if a < len(names):
                if len(words) == 1:
                    if not b:
                        return MOVE_VERBS[kind] + " " + names[a]
                elif b < len(_WORD_NAMES[words[1]]):
                    return "%s %s %s" % (MOVE_VERBS[kind], names[a], _WORD_NAMES[words[1]][b])
    raise ValueError("no Vora move has code %r" % (code,))


def move_code(move):
    """The code of a move in notation (move_text() turned round), or -1 when `move` is not
    written as a Vora move. Whether it is legal now is the state's to say: legal_codes()."""
    if not isinstance(move, str):
        return -1
    words = move.split(" ")
    kind = 0
    while kind < len(MOVE_VERBS) and MOVE_VERBS[kind] != words[0]:
        kind += 1
    if kind == len(MOVE_VERBS):
        return -1
    shape = _MOVE_WORDS[kind]
    if len(words) != len(shape) + 1:
        return -1
    code = kind << 10
    shift = 5
    for k in range(len(shape)):
        v = _WORD_INDEX[shape[k]].get(words[k + 1], -1)
        if v < 0:
            return -1
        code |= v << shift
        shift = 0
    return code
_PHASE_HINT = (
    "act: push or use an ability",
    "collect: 'take <cell>' a line group or 'pass'",
    "claim the bonus: 'extra <cell>', 'steal <player> <type>' or 'pass'",
    "stop: the game is over",
)


# ---------------------------------------------------------------- building states

_NUMBERS = tuple(str(i) for i in range(-1, 32))  # the common small numbers as text, once


def _num(n):
    return _NUMBERS[n + 1] if -1 <= n <= 30 else str(n)


def _ints(parts, values):
    # A list of ints as JSON, appended to `parts` as one piece: a piece per number and comma
    # made `parts` grow by reallocation to some 230 items, and the copies left behind made
    # most of to_json's 4.7 KB of allocations on the board (32-bit).
    parts.append("[%s]" % ",".join([_num(n) for n in values]))


def _check_options(players, seats, pushed_out, max_turns, chain_lines=DEFAULT_CHAIN_LINES):
    if players not in DEFAULT_SEATS:
        raise BadPosition("Vora is played by 2, 3 or 4 players, not %r" % (players,))
    if seats is None:
        seats = DEFAULT_SEATS[players]
    if not isinstance(seats, str) or len(seats) != players:
        raise BadPosition("seats must name one side per player (e.g. %r), not %r"
                          % (DEFAULT_SEATS[players], seats))
    for s in seats:
        if s not in SIDES or seats.count(s) > 1:
            raise BadPosition("seats %r: each player sits at a different side among S, W, N, E"
                              % seats)
    if pushed_out not in PUSHED_OUT_CHOICES:
        raise BadPosition("pushed_out must be one of %s, not %r"
                          % (", ".join(PUSHED_OUT_CHOICES), pushed_out))
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or not 1 <= max_turns <= 99999:
        raise BadPosition("max_turns must be a whole number from 1 to 99999, not %r" % (max_turns,))
    if chain_lines not in CHAIN_LINES_CHOICES:
        raise BadPosition("chain_lines must be one of %s, not %r"
                          % (", ".join(CHAIN_LINES_CHOICES), chain_lines))
    return seats


def _box_counts(box):
    if box is None:
        return list(DEFAULT_BOX)
    if not isinstance(box, dict):
        raise BadPosition("box must be a dict {cube type: count}, not %r" % (box,))
    counts = [0] * N_TYPES
    for name in box:
        if name not in TYPES:
            raise BadPosition("box: unknown cube type %r (expected one of %s)"
                              % (name, ", ".join(TYPES)))
        n = box[name]
        if not isinstance(n, int) or not 0 <= n <= 999:
            raise BadPosition("box: the count of %s must be an integer from 0 to 999, not %r"
                              % (name, n))
        counts[TYPES.index(name)] = n
    return counts


def new_game(players=2, seed=0, box=None, seats=None, pushed_out=DEFAULT_PUSHED_OUT,
             max_turns=DEFAULT_MAX_TURNS, chain_lines=DEFAULT_CHAIN_LINES, position=None):
    """A new game: the meadow dealt from the box, 2 cubes to player 0, 1 to the others.

    Options: box ({type: count}, default 12 of each), seats (e.g. "SE"; default opposite
    for 2, "SWN" for 3, "SWNE" for 4), pushed_out ("box" or "pusher": where a cube goes
    when pushed out on an empty side), max_turns (safeguard against endless games),
    chain_lines ("collected" or "offered": lines made by a fall), position (a position
    text to start from instead of a deal; see vora_position.from_start).
    """
    if position is not None:
        from shared_rules import vora_position
        return vora_position.from_start(players, seed, box, seats, pushed_out, max_turns,
                                        chain_lines, position)
    s = VoraState()
    s.seats = _check_options(players, seats, pushed_out, max_turns, chain_lines)
    s.players = players
    s.pushed_out = pushed_out
    s.max_turns = max_turns
    s.chain_lines = chain_lines
    s.box = _box_counts(box)
    need = 25 + players + 1
    if sum(s.box) < need:
        raise BadPosition("the box holds %d cube%s; %d players need at least %d"
                          % (sum(s.box), "" if sum(s.box) == 1 else "s", players, need))
    s.rng = prng.seed_state(seed)
    for i in VIEW[s.seats[0]]:
        s.grid[i] = s._draw()
    s.farms = [[0] * N_TYPES for _ in range(players)]
    for p in range(players):
        for _ in range(2 if p == 0 else 1):
            s.farms[p][s._draw()] += 1
    return s


def from_position(text, pushed_out=DEFAULT_PUSHED_OUT, max_turns=DEFAULT_MAX_TURNS,
                  chain_lines=DEFAULT_CHAIN_LINES):
    """Set up any position at the start of a turn (see docs/vora-notation.md).

    The last three fields (eaten cubes, turns completed, PRNG state) may be left out.
    """
    from shared_rules import vora_position
    return vora_position.from_position(text, pushed_out, max_turns, chain_lines)


def determinize(view, seed):
    """A state that `view` (from state.view()) allows, its PRNG drawn from `seed`: what a
    bot searches, so that it never knows which cubes the box will give next."""
    d = dict(view)
    d["rng"] = prng.seed_state(seed)
    return from_json(d)


def from_json(text):
    """Rebuild a state from to_json() text (or that text already parsed into a dict),
    checking every field."""
    if isinstance(text, dict):
        d = text
    else:
        import json
        try:
            d = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise BadPosition("not JSON text: %s" % (exc,))
    if not isinstance(d, dict):
        raise BadPosition("a Vora state is a JSON object")
    if d.get("game") != NAME or d.get("format") != FORMAT_VERSION:
        raise BadPosition("not a Vora state of format %d (game=%r, format=%r)"
                          % (FORMAT_VERSION, d.get("game"), d.get("format")))

    def field(key, kind):
        if key not in d:
            raise BadPosition("field %r is missing" % key)
        v = d[key]
        if not isinstance(v, kind) or isinstance(v, bool):
            raise BadPosition("field %r has the wrong type: %r" % (key, v))
        return v

    def ints(key, n, lo, hi, v=None):
        if v is None:
            v = field(key, list)
        if not isinstance(v, list) or len(v) != n or any(not isinstance(x, int) or not lo <= x <= hi for x in v):
            raise BadPosition("field %r must be %d integers from %d to %d" % (key, n, lo, hi))
        return v[:]  # the state's own list: playing on it must not change the caller's dict

    s = VoraState()
    s.players = field("players", int)
    s.seats = _check_options(s.players, field("seats", str), field("pushed_out", str),
                             field("max_turns", int), field("chain_lines", str))
    s.pushed_out = d["pushed_out"]
    s.max_turns = d["max_turns"]
    s.chain_lines = d["chain_lines"]
    s.grid = ints("grid", 25, EMPTY, N_TYPES - 1)
    farms = field("farms", list)
    if len(farms) != s.players:
        raise BadPosition("field 'farms' must hold %d farms" % s.players)
    for p in range(s.players):
        s.farms.append(ints("farms[%d]" % p, N_TYPES, 0, 9999, farms[p]))
    s.box = ints("box", N_TYPES, 0, 9999)
    s.eaten = ints("eaten", N_TYPES, 0, 9999)
    s.rng = field("rng", int)
    if not 0 < s.rng <= 0xFFFFFFFF:
        raise BadPosition("field 'rng' must be from 1 to 4294967295")
    s.turn = field("turn", int)
    s.active = field("active", int)
    if not 0 <= s.active < s.players:
        raise BadPosition("field 'active' must be a player from 0 to %d" % (s.players - 1))
    s.phase = field("phase", int)
    if not PHASE_ACTION <= s.phase <= PHASE_OVER:
        raise BadPosition("field 'phase' must be 0 to 3")
    before = field("before", list)
    s.before = ints("before", 25, EMPTY, N_TYPES - 1) if before else []
    s.touched = field("touched", int)
    s.bonus = field("bonus", int)
    s.pinned = field("pinned", int)
    s.chain = field("chain", int)
    s.end = field("end", str)
    if not 0 <= s.touched < 1 << 25 or not 0 <= s.bonus <= 2 or not -1 <= s.pinned < 25 \
            or s.chain not in (0, 1) or s.end not in ("", "box", "turns"):
        raise BadPosition("fields 'touched', 'bonus', 'pinned', 'chain' or 'end' are out of range")
    if (s.phase in (PHASE_COLLECT, PHASE_BONUS)) != bool(s.before):
        raise BadPosition("field 'before' must be given exactly while lines are being collected")
    return s


if _STRING_TABLES:
    from shared_rules import vora_tables as _tables

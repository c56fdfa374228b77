"""Vora's meadow and the moves played on it: the part of the rules the board runs at every
move (shared_rules/vora.py, the game's module, describes the game and lists its files).

- the cube types, the seats' sides, the phases of a turn and the kinds of move codes;
- the meadow's geometry: cell and edge names, each seat's view (the refill order) and
  gravity, the lines, the neighbours, and the orders that keep legal moves sorted;
- the straight runs and water groups a grid holds;
- MeadowMoves, mixed into VoraState: the legal moves (as codes), play() and a handler per
  move word, and the flow of a turn (the fall, the chain, the refill from the box).

vora.py imports from here what it uses and gives every public name out again
(vora.CELL_NAMES, vora.PIG, vora.MOVE_PUSH, ...: read them there); this file never imports
vora.py. The constants are const() here, where the code that reads them at every move is:
MicroPython folds a const() only within its own module.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import prng
from shared_rules.errors import IllegalMove

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


# Seats, clockwise seen from above (North at the top). Player i sits at seats[i].
SIDES = "SWNE"

PHASE_ACTION = const(0)
PHASE_COLLECT = const(1)
PHASE_BONUS = const(2)
PHASE_OVER = const(3)

FILES = "abcde"
# The names are written out, and found by index() rather than through a dict: built at
# import, 45 names were 45 strings on the board's heap (32 bytes each on a Pico) and two
# dicts to find them; written out they are names interned from the .mpy file.
# tests/test_vora_rules.py derives them again from the geometry.
# Cell i is rank i // 5 + 1, file i % 5.
CELL_NAMES = ("a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2", "a3", "b3", "c3",
              "d3", "e3", "a4", "b4", "c4", "d4", "e4", "a5", "b5", "c5", "d5", "e5")
# Each file's south and north edges (Sa, Na, ...), then each rank's west and east (W1,
# E1, ...); EDGE_EXIT: the side a push from each leaves by (the opposite one).
EDGE_NAMES = ("Sa", "Na", "Sb", "Nb", "Sc", "Nc", "Sd", "Nd", "Se", "Ne",
              "W1", "E1", "W2", "E2", "W3", "E3", "W4", "E4", "W5", "E5")
EDGE_EXIT = "NSNSNSNSNSEWEWEWEWEW"


def _edge_cells(e):
    # The line an edge key pushes, its cells from the entry cell to the exit cell.
    side, line = EDGE_NAMES[e][0], EDGE_NAMES[e][1]
    steps = range(5) if side in "SW" else range(4, -1, -1)
    if side in "SN":
        f = FILES.index(line)
        return tuple(r * 5 + f for r in steps)
    r = int(line) - 1
    return tuple(r * 5 + f for f in steps)


EDGE_CELLS = tuple(_edge_cells(e) for e in range(20))


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
# Each cell's eight neighbours or fewer, diagonals too, in the order of their names (a1,
# a2, ..., e5), which lets legal_moves() build its list already sorted: one table for both
# (25 tuples of up to 8 cells, some 1 KB of a stock Pico's heap).
AROUND = tuple(tuple(sorted(_neighbours(i, True), key=lambda n: CELL_NAMES[n]))
               for i in range(25))
_AROUND_BY_NAME = AROUND
# Cells ordered by name (a1, a2, ..., e5): a group is named by its first cell in this order.
_NAME_ORDER = tuple(sorted(range(25), key=lambda i: CELL_NAMES[i]))
# Orders that let legal_moves() build its list already sorted.
_EDGES_BY_NAME = tuple(sorted(range(20), key=lambda e: EDGE_NAMES[e]))
_TYPES_BY_NAME = tuple(sorted(range(N_TYPES), key=lambda t: TYPES[t]))
_ALL_EDGES_OK = (True,) * 20
# The builders above served the import only: let their code go (on a stock Pico the code
# sits on the heap: some 0.5 KB).
del _edge_cells, _view, _neighbours


def cell_index(name):
    """Index 0..24 of a cell name such as "c3"; raises KeyError for anything else."""
    return _index(CELL_NAMES, name, KeyError)


def _index(names, name, error=None):
    # Where `name` is in `names` (a tuple of names, found by index(): cheaper on the
    # board's heap than a dict); -1 when it is not there, or `error` raised if given.
    try:
        return names.index(name)
    except ValueError:
        if error is not None:
            raise error(name)
        return -1


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


# Moves as codes: KIND << 10 | a << 5 | b, with a and b the move's words after the verb
# as numbers (a cell 0..24, an edge 0..19 of EDGE_NAMES, a cube type 0..8, a player 0..3).
# Kinds in the order of their verbs' names; vora._MOVE_WORDS says what each word is.
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


# ---------------------------------------------------------------- the moves on the meadow

class MeadowMoves:
    """VoraState's moves (mixed into it, shared_rules/vora.py): what may be played now, and
    what each move does, through the end of the turn. The methods read and change the
    fields that VoraState.__init__ sets, through `self`; a refused "take" names the groups
    on offer with VoraState.collectable_groups()."""

    # ---- move generation

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

    def _arg_type(self, move, word):
        if word not in TYPES:
            raise IllegalMove(move, "%r is not a cube type (one of %s)" % (word, ", ".join(TYPES)))
        return TYPES.index(word)

    def _arg_cell(self, move, word):
        i = _index(CELL_NAMES, word)
        if i < 0:
            raise IllegalMove(move, "%r is not a meadow cell (a1 to e5)" % (word,))
        return i

    def _arg_edge(self, move, word):
        e = _index(EDGE_NAMES, word)
        if e < 0:
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
        # The lines that point at the player are the columns of their view, read from
        # their side outwards: cell r of column vc is view[20 - 5 * r + vc] (no table of
        # them: 0.9 KB of a stock Pico's heap, for a loop run once a move).
        view = VIEW[self.seats[self.active]]
        for vc in range(5):
            w = 0
            for r in range(5):
                c = view[20 - 5 * r + vc]
                v = g[c]
                if c == pinned:
                    w = r + 1
                elif v != EMPTY:
                    if w != r:
                        d = view[20 - 5 * w + vc]
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
    "push": (_ACT, 2, MeadowMoves._do_push),
    "pig": (_ACT, 1, MeadowMoves._do_pig),
    "wolf": (_ACT, 1, MeadowMoves._do_wolf),
    "crow": (_ACT, 1, MeadowMoves._do_crow),
    "mole": (_ACT, 2, MeadowMoves._do_mole),
    "duck": (_ACT, 2, MeadowMoves._do_duck),
    "ladybug": (_ACT, 1, MeadowMoves._do_ladybug),
    "water": (_ACT, 1, MeadowMoves._do_water),
    "take": ((PHASE_COLLECT,), 1, MeadowMoves._do_take),
    "extra": ((PHASE_BONUS,), 1, MeadowMoves._do_extra),
    "steal": ((PHASE_BONUS,), 2, MeadowMoves._do_steal),
    "pass": ((PHASE_COLLECT, PHASE_BONUS), 0, MeadowMoves._do_pass),
}
# What play() says a phase is the time for, when a move of another phase comes.
_PHASE_HINT = (
    "act: push or use an ability",
    "collect: 'take <cell>' a line group or 'pass'",
    "claim the bonus: 'extra <cell>', 'steal <player> <type>' or 'pass'",
    "stop: the game is over",
)

"""Vora's legal moves on CPython, built from tables of move strings made once at import.

`action_moves(state)` returns exactly the moves whose codes `VoraState._action_codes()`
builds one by one (the same moves in the same sorted order); tests/test_vora_fast_path.py
compares the two, and the MicroPython digest tests compare the board against the PC. Only
CPython imports this module (shared_rules/vora.py does, at its end): the tables' 1,064
strings would hold about 40 KB of the board's heap, and tools/build_board.py leaves the
file off the board.
"""

from shared_rules import vora as V
from shared_rules import vora_meadow as M  # the name orders: the meadow's, not vora's names

__all__ = ["action_moves", "may_hold_water_group"]

_NAME_ORDER = M._NAME_ORDER  # cells a1, a2, ..., b1, ...
_EDGES_BY_NAME = M._EDGES_BY_NAME  # edges E1, ..., Na, ...
_TYPES_BY_NAME = M._TYPES_BY_NAME
CELL_NAMES, EDGE_NAMES = V.CELL_NAMES, V.EDGE_NAMES
PIG, CROW, WOLF, MOLE, DUCK = V.PIG, V.CROW, V.WOLF, V.MOLE, V.DUCK
LADYBUG, WATER, GRASS = V.LADYBUG, V.WATER, V.GRASS

# Indexed by position in name order (of cells, of edges), except _PUSH_MOVES: by cube type,
# then edge in name order.
_CROW_MOVES = tuple("crow " + CELL_NAMES[i] for i in _NAME_ORDER)
_LADYBUG_MOVES = tuple("ladybug " + CELL_NAMES[i] for i in _NAME_ORDER)
_WATER_MOVES = tuple("water " + CELL_NAMES[i] for i in _NAME_ORDER)
_DUCK_MOVES = tuple(tuple("duck " + CELL_NAMES[i] + " " + CELL_NAMES[n] for n in _NAME_ORDER)
                    for i in _NAME_ORDER)
_MOLE_MOVES = tuple(tuple((n, "mole " + CELL_NAMES[i] + " " + CELL_NAMES[n])
                          for n in M._AROUND_BY_NAME[i]) for i in _NAME_ORDER)
_PIG_MOVES = tuple("pig " + EDGE_NAMES[e] for e in _EDGES_BY_NAME)
_WOLF_MOVES = tuple("wolf " + EDGE_NAMES[e] for e in _EDGES_BY_NAME)
_PUSH_MOVES = tuple(tuple(V._PUSH_PREFIX[t] + EDGE_NAMES[e] for e in _EDGES_BY_NAME)
                    for t in range(V.N_TYPES))
_EDGE_ENTRY = tuple(V.EDGE_CELLS[e][0] for e in _EDGES_BY_NAME)
_EXIT_BY_NAME = tuple(V.EDGE_EXIT[e] for e in _EDGES_BY_NAME)
_NAMED_BITS = tuple(1 << i for i in _NAME_ORDER)
# By cube code, EMPTY (-1) being the last entry: is it an animal (the wolf eats it).
_ANIMAL = tuple(V.is_animal(t) for t in range(V.N_TYPES)) + (False,)
_NOT_EAST = sum(1 << i for i in range(25) if i % 5 != 4)
_NOT_WEST = sum(1 << i for i in range(25) if i % 5 != 0)
_MEADOW = (1 << 25) - 1


def may_hold_water_group(w):
    """False when the water cells of mask `w` cannot hold a group of 3: a connected group
    of 3 or more cells has a cell with 2 neighbours in it. Cheaper than water_groups()."""
    e = (w >> 1) & _NOT_EAST  # cells whose east neighbour is water
    o = (w << 1) & _NOT_WEST  # west
    n = w >> 5  # north
    s = (w << 5) & _MEADOW  # south
    return bool(w & ((e & (o | n | s)) | (o & (n | s)) | (n & s)))


def action_moves(state):
    """The action moves of `state`'s player, sorted: VoraState._action_codes() as text,
    from tables. The meadow is read once in cell-name order, the order of every list."""
    g = state.grid
    farm = state.farms[state.active]
    crow = farm[CROW]
    moves = []  # the crow's, then the rest in order
    ducks = []
    targets = []  # of the duck: water and grass
    ladybugs = []
    moles = []
    water = 0  # mask of the water cells
    k = 0
    for t in [g[i] for i in _NAME_ORDER]:
        if t == WATER:
            water |= _NAMED_BITS[k]
            targets.append(k)
        elif t == GRASS:
            targets.append(k)
        elif t > CROW or t == PIG:  # an animal the crow may take (not a gap)
            if crow:
                moves.append(_CROW_MOVES[k])
            if t == DUCK:
                ducks.append(k)
            elif t == LADYBUG:
                ladybugs.append(_LADYBUG_MOVES[k])
            elif t == MOLE:
                moles.append(k)
        k += 1
    if targets:
        for k in ducks:
            row = _DUCK_MOVES[k]
            moves += [row[n] for n in targets]
    moves += ladybugs
    for k in moles:
        moves += [m for n, m in _MOLE_MOVES[k] if g[n] != MOLE]
    roomy = sum(farm) >= 2
    if roomy:
        if farm[PIG]:
            moves += _PIG_MOVES
        for t in _TYPES_BY_NAME:
            if farm[t]:
                moves += _PUSH_MOVES[t]
    else:
        # One cube left: only pushes (the pig's too) whose cubes go out to the pusher.
        me = state.active
        back = [k for k in range(20) if state._seat_gain(_EXIT_BY_NAME[k]) == me]
        if farm[PIG]:
            moves += [_PIG_MOVES[k] for k in back]
        for t in _TYPES_BY_NAME:
            if farm[t]:
                row = _PUSH_MOVES[t]
                moves += [row[k] for k in back]
    if water and may_hold_water_group(water):
        firsts = [V.first_cell(m) for m in V.water_groups(g)]
        if firsts:
            moves += [_WATER_MOVES[k] for k in range(25) if _NAME_ORDER[k] in firsts]
    if farm[WOLF]:
        edges = range(20) if roomy else back
        moves += [_WOLF_MOVES[k] for k in edges if _ANIMAL[g[_EDGE_ENTRY[k]]]]
    return moves

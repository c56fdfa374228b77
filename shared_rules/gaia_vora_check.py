"""Gaia-Vora: checking a state read from outside.

`from_json()` and `determinize()` (in `shared_rules.gaia_vora`, the game's module) take a
state from untrusted text: once the game's module has checked the game and the format,
every field is checked here while it is copied into a fresh GaiaVoraState (its type, its
range, that no figure or tile is created or lost, that the phase fits the rest), and the
first fault found is raised as BadPosition, naming the field. The last checks ask the
state itself (where the Moon is, whether the phase has a move to make), so the state is
handed in rather than made here: this file never imports the game's module.
"""

from shared_rules.errors import BadPosition
from shared_rules.gaia_vora_options import (
    COLOURS, END_REASONS, FIGURES, GRASS, LOCATIONS, N_COLOURS, N_POSITIONS, PHASE_NAMES,
    PHASE_OVER, PHASE_RAINBOW, PHASE_ROTATE, PHASE_SKY, PHASE_SUN, POSITIONS, SETUP_TILES,
    SNOW, SPECIES, SUN_LIFEFORMS, TILES, TILE_COUNTS, _POP, _check_options, _eaten)


def read_fields(s, d):
    """Fill `s`, a GaiaVoraState just made, from `d`, a state's dict whose game and format
    are already checked; raise BadPosition at the first field that is wrong."""

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
        if not isinstance(v, list) or len(v) != n or any(
                not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi for x in v):
            raise BadPosition("field %r must be %d integers from %d to %d" % (key, n, lo, hi))
        return v[:]  # a copy: the state must not share lists with the dict it came from

    s.players = field("players", int)
    s.stars_dealt = field("stars_dealt", int)
    s.max_turns = field("max_turns", int)
    s.moon_eats = field("moon_eats", str)
    s.own_kills = field("own_kills", str)
    _check_options(s.players, s.stars_dealt, s.max_turns, s.moon_eats, s.own_kills)
    s.rot = field("rot", int)
    if not 0 <= s.rot < N_POSITIONS:
        raise BadPosition("field 'rot' must be 0 to 7")
    stacks = field("stacks", list)
    if len(stacks) != N_POSITIONS:
        raise BadPosition("field 'stacks' must hold 8 stacks, positions a to h")
    tiles = [0] * 4
    s.stacks = []
    for p in range(N_POSITIONS):
        st = stacks[p]
        if not isinstance(st, list) or len(st) > 4:
            raise BadPosition("stack %s must be a list of at most 4 tiles" % POSITIONS[p])
        ints("stacks[%d]" % p, len(st), 0, 3, st)
        for t in st:
            if st.count(t) > 1:
                raise BadPosition("stack %s holds two %s Tiles" % (POSITIONS[p], TILES[t]))
            tiles[t] += 1
        s.stacks.append(st[:])
    s.home = field("home", int)
    if not 0 <= s.home <= 0xFF:
        raise BadPosition("field 'home' must be an 8-bit mask")
    for p in range(N_POSITIONS):
        if s.home >> p & 1 and (not s.stacks[p] or s.stacks[p][0] != SETUP_TILES[p]):
            raise BadPosition("field 'home' says position %s still has its %s Tile at the "
                              "bottom, and it has not" % (POSITIONS[p], TILES[SETUP_TILES[p]]))
    s.supply = ints("supply", 4, 0, 4)
    for t in range(4):
        if tiles[t] + s.supply[t] != TILE_COUNTS[t] or (t < GRASS and s.supply[t]):
            raise BadPosition("the %s Tiles do not add up: %d on the planet, %d off it, "
                              "the box has %d" % (TILES[t], tiles[t], s.supply[t], TILE_COUNTS[t]))
    s.life = ints("life", 27, -1, N_COLOURS - 1)
    for p in range(N_POSITIONS):
        if not s.stacks[p] and max(s.life[p * 3:p * 3 + 3]) >= 0:
            raise BadPosition("position %s is uncovered (Water) but holds Life-Forms"
                              % POSITIONS[p])
    s.pools = ints("pools", 12, 0, 5)
    s.fossils = ints("fossils", 48, 0, 5)
    for c in range(N_COLOURS):
        for sp in range(3):
            n = s.pools[c * 3 + sp]
            for loc in range(9):
                if s.life[loc * 3 + sp] == c:
                    n += 1
            for owner in range(N_COLOURS):
                n += s.fossils[owner * 12 + c * 3 + sp]
            if n != FIGURES[sp]:
                raise BadPosition("%s %ss do not add up: %d in all, the box has %d"
                                  % (COLOURS[c], SPECIES[sp], n, FIGURES[sp]))
        if s.own_kills == "pool" and max(s.fossils[c * 12 + c * 3:c * 12 + c * 3 + 3]):
            raise BadPosition("the %s Fossil Card holds %s Life-Forms: with own_kills 'pool' "
                              "a Fossil Card only keeps opponents'" % (COLOURS[c], COLOURS[c]))
    s.stars = ints("stars", s.players, 0, s.stars_dealt)
    s.active = field("active", int)
    if not 0 <= s.active < s.players:
        raise BadPosition("field 'active' must be a player from 0 to %d" % (s.players - 1))
    s.phase = field("phase", int)
    if not PHASE_ROTATE <= s.phase <= PHASE_OVER:
        raise BadPosition("field 'phase' must be 0 to 5")
    s.used = field("used", int)
    s.colours_used = field("colours_used", int)
    s.turn = field("turn", int)
    s.end = field("end", str)
    if not 0 <= s.used < 1 << 9 or not 0 <= s.colours_used < 1 << N_COLOURS \
            or not 0 <= s.turn <= s.max_turns or s.end not in ("",) + END_REASONS:
        raise BadPosition("fields 'used', 'colours_used', 'turn' or 'end' are out of range")
    if (s.phase == PHASE_OVER) != (s.end != ""):
        raise BadPosition("field 'end' must name why the game ended exactly when it is over")
    used = _POP[s.used]
    if s.phase == PHASE_SUN:
        ok = 0 < used < SUN_LIFEFORMS and not s.colours_used
    elif s.phase == PHASE_RAINBOW:
        ok = 0 < used < N_COLOURS and _POP[s.colours_used] == used
    else:
        ok = not s.used and not s.colours_used
    if not ok:
        raise BadPosition("fields 'used' and 'colours_used' do not fit phase %s"
                          % PHASE_NAMES[s.phase])
    if s.phase != PHASE_OVER:
        if s.turn >= s.max_turns or not (s.supply[GRASS] or s.supply[SNOW]):
            raise BadPosition("this game should be over (turn %d, %d Snow and Grass Tiles "
                              "off the planet)" % (s.turn, s.supply[GRASS] + s.supply[SNOW]))
        if s.phase in (PHASE_ROTATE, PHASE_SKY):
            m = s._moon_loc()
            if _eaten(s.life[m * 3:m * 3 + 3]) != s.life[m * 3:m * 3 + 3]:
                raise BadPosition("the Life-Forms under the Moon (%s) have not eaten"
                                  % LOCATIONS[m])
        if s.phase != PHASE_ROTATE and not s.legal_moves():
            raise BadPosition("phase %s with no move to make" % PHASE_NAMES[s.phase])

"""Gaia-Vora: the Sky Objects.

What each Sky Object does once the planet has turned (the model and the turn's state
machine are in `shared_rules.gaia_vora`, the game's module): the Moon eats, the Sun and
the Rainbow place Life-Forms, the Storm moves them, the Meteor drops a Land Tile and kills
what stands under it. For each of the Sun, the Rainbow and the Storm: its moves, the
handler that checks and plays one, and how many Life-Forms it can still place or move
(the rulebook's "take as many steps as you can"), counted by the matchings below. A mixin
of GaiaVoraState: its methods read and change the state's fields, and call the geometry
and the end of the turn GaiaVoraState defines (`position_under`, `touching`, `_moon_loc`,
`_frees`, `clone`, `_finish`...) through `self`.
"""

from shared_rules.errors import IllegalMove
from shared_rules.gaia_vora_options import (
    CARNIVORE, COLOURS, GRASS, HERBIVORE, LOCATIONS, METEOR_SLOT, N_COLOURS, N_POSITIONS,
    PHASE_RAINBOW, PHASE_SKY, PHASE_STORM, PHASE_SUN, PLANT, POSITIONS, RAINBOW_SLOT, SNOW,
    SPECIES, STORM_SLOT, SUN_LIFEFORMS, SUN_SLOT, TILES, WATER, _LOCATION_INDEX, _POP,
    _eaten)


# ---------------------------------------------------------------- counting the steps left

def _sun_match(frees, lmask, pool, budget):
    # The most Life-Forms of one colour (pool: counts per species) that can go one per
    # location of `lmask`, each on a location free of its species: a b-matching, whose
    # size is the smallest cut min over species sets A of (figures of species outside A
    # + locations that can take a species of A) (Konig), and at most `budget`.
    best = budget
    for a in range(8):
        cut = 0
        for s in range(3):
            if not a >> s & 1:
                cut += pool[s]
        if cut >= best:
            continue
        for loc in range(9):
            if lmask >> loc & 1 and frees[loc] & a:
                cut += 1
        if cut < best:
            best = cut
    return best


def _reaches(nb):
    # For every set T of colours (a 4-bit mask), the locations some colour of T can reach.
    reach = [0] * 16
    for t in range(1, 16):
        low = t & -t
        reach[t] = reach[t ^ low] | nb[_POP[low - 1]]
    return reach


def _hall(reach, cmask, lmask):
    # The most colours of `cmask` that can go to distinct locations of `lmask`, each
    # colour c only to the locations it reaches (reach[1 << c]): a bipartite matching,
    # whose size is the smallest |cmask| - |T| + |N(T)| over the subsets T of cmask
    # (Konig).
    pop = _POP
    n = pop[cmask]
    best = n
    t = cmask
    while t:
        v = n - pop[t] + pop[reach[t] & lmask]
        if v < best:
            best = v
        t = (t - 1) & cmask
    return best


def _storm_best(pieces, mslots, nonm):
    # The most moves left to a Storm whose remaining Life-Forms are `pieces` (colour per
    # species, -1 none), when the Moon eats after each move: a piece moves to a location
    # that is not the Moon's (bit s of `nonm`: one is free of its species; those never
    # change, they only take other species) or to the Moon's location (mslots, None when
    # it is not a destination), where the Moon eats at once.
    best = 0
    for s in range(3):
        col = pieces[s]
        if col < 0:
            continue
        rest = pieces[:]
        rest[s] = -1
        if nonm >> s & 1:
            v = 1 + _storm_best(rest, mslots, nonm)
            if v > best:
                best = v
        if mslots is not None and mslots[s] < 0:
            m2 = mslots[:]
            m2[s] = col
            v = 1 + _storm_best(rest, _eaten(m2), nonm)
            if v > best:
                best = v
    return best


# ---------------------------------------------------------------- a move's words, refusals

_IDLE = ("the %s would change nothing: its one Life-Form on %s, under the Moon, is eaten "
         "back into its own pool, and a Sky Object whose activation would cause nothing to "
         "change may not be selected")
_MOST = ("you must take as many steps as you can (%d Life-Forms %s in all); "
         "this move would leave %d of them undone")


def _names(mask):
    # The locations of a mask by name, for a refusal's text.
    return ", ".join(LOCATIONS[i] for i in range(9) if mask >> i & 1)


def _arg_species(move, word):
    if word not in SPECIES:
        raise IllegalMove(move, "%r is not a species (%s)" % (word, ", ".join(SPECIES)))
    return SPECIES.index(word)


def _arg_colour(move, word):
    if word not in COLOURS:
        raise IllegalMove(move, "%r is not a colour (%s)" % (word, ", ".join(COLOURS)))
    return COLOURS.index(word)


# ---------------------------------------------------------------- the mixin

class SkyObjects:
    """The Moon, the Sun, the Rainbow, the Storm and the Meteor (mixed into GaiaVoraState)."""

    # ---- the Moon, the Meteor's victims

    def _award(self, colour, species, to):
        # An eaten Life-Form goes to the Fossil Card of the colour that ate it, or back to
        # its own pool when its own colour ate it.
        if colour == to:
            self.pools[colour * 3 + species] += 1
        else:
            self.fossils[to * 12 + colour * 3 + species] += 1

    def _eat(self, loc):
        # "The player who owns the HerbiVore (if any) awards its player with ownership of
        # the Plant (if any). Then the player who owns the CarniVore (if any) awards its
        # player with ownership of the HerbiVore (if any)."
        life = self.life
        b = loc * 3
        h = life[b + 1]
        if h >= 0 and life[b + 2] >= 0:
            self._award(life[b + 2], PLANT, h)
            life[b + 2] = -1
        c = life[b]
        h = life[b + 1]
        if c >= 0 and h >= 0:
            self._award(h, HERBIVORE, c)
            life[b + 1] = -1

    def _moon(self):
        self._eat(self._moon_loc())

    def _kill(self, colour, species):
        a = self.active
        if colour == a and self.own_kills == "pool":
            self.pools[a * 3 + species] += 1
        else:
            self.fossils[a * 12 + colour * 3 + species] += 1

    # ---- the Sun

    def _sun_max(self, lmask, pool, budget, frees):
        # The most Life-Forms the Sun can still place. When the Moon eats after each one,
        # a Life-Form placed under the Moon first may send your own figures back to your
        # pool; placing it first is never worse, so that is the order counted here.
        if budget <= 0:
            return 0
        m = self._moon_loc()
        if self.moon_eats != "each" or not lmask >> m & 1:
            return _sun_match(frees, lmask, pool, budget)
        rest = lmask & ~(1 << m)
        best = _sun_match(frees, rest, pool, budget)
        for s in range(3):
            if frees[m] >> s & 1 and pool[s]:
                v = 1 + _sun_match(frees, rest, self._pool_after(m, s, pool), budget - 1)
                if v > best:
                    best = v
        return best

    def _pool_after(self, loc, s, pool):
        # The active player's pool after placing species s at loc, the Moon eating there
        # at once when loc is under it (moon_eats "each").
        me = self.active
        out = pool[:]
        out[s] -= 1
        if self.moon_eats == "each" and loc == self._moon_loc():
            b = loc * 3
            c, h, p = self.life[b], self.life[b + 1], self.life[b + 2]
            if s == CARNIVORE:
                c = me
            elif s == HERBIVORE:
                h = me
            else:
                p = me
            if h >= 0 and p >= 0:
                if h == p == me:
                    out[PLANT] += 1
                p = -1
            if c >= 0 and h >= 0 and c == h == me:
                out[HERBIVORE] += 1
        return out

    def _sun_state(self):
        me = self.active
        lmask = self.touching(self.position_under(SUN_SLOT)) & ~self.used
        return lmask, self.pools[me * 3:me * 3 + 3], SUN_LIFEFORMS - _POP[self.used]

    def _sun_moves(self, out):
        lmask, pool, budget = self._sun_state()
        if not (pool[0] or pool[1] or pool[2]):
            return
        frees = self._frees()
        best = self._sun_max(lmask, pool, budget, frees)
        if not best:
            return
        me = self.active
        for loc in range(9):
            if lmask >> loc & 1:
                for s in range(3):
                    if frees[loc] >> s & 1 and pool[s] and self._sun_max(
                            lmask & ~(1 << loc), self._pool_after(loc, s, pool),
                            budget - 1, frees) == best - 1 \
                            and not (best == 1 and self._idle(loc, s, me)):
                        out.append("sun %s %s" % (SPECIES[s], LOCATIONS[loc]))

    def _do_sun(self, move, args):
        s = _arg_species(move, args[0])
        loc = self._arg_location(move, args[1])
        lmask, pool, budget = self._sun_state()
        frees = self._frees()
        self._check_place(move, "Sun", loc, s, lmask, frees)
        if not pool[s]:
            raise IllegalMove(move, "your Reincarnation Pool has no %s" % SPECIES[s])
        best = self._sun_max(lmask, pool, budget, frees)
        after = self._sun_max(lmask & ~(1 << loc), self._pool_after(loc, s, pool),
                              budget - 1, frees)
        if after != best - 1:
            raise IllegalMove(move, _MOST % (best, "placed", best - 1 - after))
        me = self.active
        if best == 1 and self._idle(loc, s, me):
            raise IllegalMove(move, _IDLE % ("Sun", LOCATIONS[loc]))
        self.pools[me * 3 + s] -= 1
        self._arrive(loc, s, me)
        self.used |= 1 << loc
        self.phase = PHASE_SUN
        lmask, pool, budget = self._sun_state()
        if not self._sun_max(lmask, pool, budget, self._frees()):
            self._finish()

    def _check_place(self, move, what, loc, s, lmask, frees):
        if not lmask >> loc & 1:
            if self.used >> loc & 1:
                raise IllegalMove(move, "the %s has already placed a Life-Form on %s"
                                  % (what, LOCATIONS[loc]))
            raise IllegalMove(move, "%s does not touch the tile under the %s (it places on %s)"
                              % (LOCATIONS[loc], what, _names(lmask)))
        if not frees[loc] >> s & 1:
            raise IllegalMove(move, "%s already has a %s: each tile may only have one of "
                              "each species" % (LOCATIONS[loc], SPECIES[s]))

    def _idle(self, loc, s, colour):
        # "You are not allowed to select a Sky Object whose activation would cause nothing
        # to change." Only a Sun or a Rainbow whose whole activation is this one
        # placement can: a Life-Form placed under the Moon and eaten back into its own
        # pool there, leaving the planet, the pools and the Fossil Cards as they were
        # (every other placement stays on the planet until the turn ends). The caller
        # checks that this is the activation's only step.
        if self.phase != PHASE_SKY or loc != self._moon_loc():
            return False
        t = self.clone()
        t.pools[colour * 3 + s] -= 1
        t.life[loc * 3 + s] = colour
        t._eat(loc)
        return t.life == self.life and t.pools == self.pools and t.fossils == self.fossils

    def _arrive(self, loc, s, colour):
        # A Life-Form placed or moved onto a location; the Moon eats at once there when
        # it eats after each Life-Form.
        self.life[loc * 3 + s] = colour
        if self.moon_eats == "each" and loc == self._moon_loc():
            self._eat(loc)

    # ---- the Rainbow

    def _rainbow_state(self):
        lmask = self.touching(self.position_under(RAINBOW_SLOT)) & ~self.used
        cmask = (1 << N_COLOURS) - 1 & ~self.colours_used
        frees = self._frees()
        nb = [0] * N_COLOURS
        for c in range(N_COLOURS):
            if cmask >> c & 1:
                b = c * 3
                has = (self.pools[b] > 0) | (self.pools[b + 1] > 0) << 1 \
                    | (self.pools[b + 2] > 0) << 2
                m = 0
                for loc in range(9):
                    if lmask >> loc & 1 and frees[loc] & has:
                        m |= 1 << loc
                nb[c] = m
        return lmask, cmask, frees, _reaches(nb)

    def _rainbow_moves(self, out):
        # Each colour goes to one location and each location gets one colour, so the
        # species never bind two placements together: what matters is which colour goes
        # where. The Moon's eating only ever sends figures back to the colour just
        # placed, which the Rainbow cannot use again: the order never matters.
        lmask, cmask, frees, reach = self._rainbow_state()
        best = _hall(reach, cmask, lmask)
        if not best:
            return
        for c in range(N_COLOURS):
            rest = cmask & ~(1 << c)
            for loc in range(9):
                if reach[1 << c] >> loc & 1 and _hall(reach, rest,
                                                      lmask & ~(1 << loc)) == best - 1:
                    for s in range(3):
                        if frees[loc] >> s & 1 and self.pools[c * 3 + s] \
                                and not (best == 1 and self._idle(loc, s, c)):
                            out.append("rainbow %s %s %s" % (COLOURS[c], SPECIES[s],
                                                             LOCATIONS[loc]))

    def _do_rainbow(self, move, args):
        c = _arg_colour(move, args[0])
        s = _arg_species(move, args[1])
        loc = self._arg_location(move, args[2])
        lmask, cmask, frees, reach = self._rainbow_state()
        self._check_place(move, "Rainbow", loc, s, lmask, frees)
        if not cmask >> c & 1:
            raise IllegalMove(move, "the Rainbow has already placed a %s Life-Form: its "
                              "Life-Forms must all be in different colours" % COLOURS[c])
        if not self.pools[c * 3 + s]:
            raise IllegalMove(move, "the %s Reincarnation Pool has no %s"
                              % (COLOURS[c], SPECIES[s]))
        best = _hall(reach, cmask, lmask)
        after = _hall(reach, cmask & ~(1 << c), lmask & ~(1 << loc))
        if after != best - 1:
            raise IllegalMove(move, _MOST % (best, "placed", best - 1 - after))
        if best == 1 and self._idle(loc, s, c):
            raise IllegalMove(move, _IDLE % ("Rainbow", LOCATIONS[loc]))
        self.pools[c * 3 + s] -= 1
        self._arrive(loc, s, c)
        self.used |= 1 << loc
        self.colours_used |= 1 << c
        self.phase = PHASE_RAINBOW
        lmask, cmask, frees, reach = self._rainbow_state()
        if not _hall(reach, cmask, lmask):
            self._finish()

    # ---- the Storm

    def _storm_state(self):
        p = self.position_under(STORM_SLOT)
        return self.location_of(p), self.storm_destinations(p), self._frees()

    def _storm_max(self, src, dests, frees):
        # The most Life-Forms the Storm can still move out of `src`.
        b = src * 3
        pieces = self.life[b:b + 3]
        nonm = 0
        m = self._moon_loc()
        each = self.moon_eats == "each" and dests >> m & 1
        for s in range(3):
            for loc in range(9):
                if dests >> loc & 1 and frees[loc] >> s & 1 and not (each and loc == m):
                    nonm |= 1 << s
        if not each:
            # Nothing eats before the Storm is over: every piece that has a free location
            # moves, whatever the others do (they are other species).
            n = 0
            for s in range(3):
                if pieces[s] >= 0 and (nonm >> s & 1):
                    n += 1
            return n
        return _storm_best(pieces, self.life[m * 3:m * 3 + 3], nonm)

    def _storm_after(self, src, dests, frees, s, loc):
        # The most moves left after moving species s out of src onto loc.
        t = self.clone()
        t.life[src * 3 + s] = -1
        t._arrive(loc, s, self.life[src * 3 + s])
        return t._storm_max(src, dests, t._frees())

    def _storm_moves(self, out):
        src, dests, frees = self._storm_state()
        b = src * 3
        pieces = self.life[b:b + 3]
        if pieces[0] < 0 and pieces[1] < 0 and pieces[2] < 0:
            return
        check = self.moon_eats == "each" and dests >> self._moon_loc() & 1
        best = self._storm_max(src, dests, frees) if check else 0
        for s in range(3):
            if pieces[s] >= 0:
                for loc in range(9):
                    if dests >> loc & 1 and frees[loc] >> s & 1 and (
                            not check or self._storm_after(src, dests, frees, s, loc) == best - 1):
                        out.append("storm %s %s" % (SPECIES[s], LOCATIONS[loc]))

    def _do_storm(self, move, args):
        s = _arg_species(move, args[0])
        loc = self._arg_location(move, args[1])
        src, dests, frees = self._storm_state()
        colour = self.life[src * 3 + s]
        if colour < 0:
            raise IllegalMove(move, "no %s stands on %s, the tile under the Storm"
                              % (SPECIES[s], LOCATIONS[src]))
        if not dests >> loc & 1:
            raise IllegalMove(move, "%s is not next to %s, the tile under the Storm (next to "
                              "it: %s)" % (LOCATIONS[loc], LOCATIONS[src], _names(dests)))
        if not frees[loc] >> s & 1:
            raise IllegalMove(move, "%s already has a %s: a Life-Form may not move onto a "
                              "tile which already has its species" % (LOCATIONS[loc], SPECIES[s]))
        best = self._storm_max(src, dests, frees)
        after = self._storm_after(src, dests, frees, s, loc)
        if after != best - 1:
            raise IllegalMove(move, _MOST % (best, "moved", best - 1 - after))
        self.life[src * 3 + s] = -1
        self._arrive(loc, s, colour)
        self.phase = PHASE_STORM
        if not self._storm_max(src, dests, self._frees()):
            self._finish()

    # ---- the Meteor

    def _meteor_moves(self, out):
        q = self.position_under(METEOR_SLOT)
        target = self.stacks[q]
        for t in (GRASS, SNOW):
            if self.supply[t] and t not in target:
                out.append("meteor " + TILES[t])
        for k in range(N_POSITIONS):
            st = self.stacks[k]
            if k != q and self.home >> k & 1 and len(st) == 1 and st[0] not in target:
                out.append("meteor %s %s" % (TILES[st[0]], POSITIONS[k]))

    def _do_meteor(self, move, args):
        word = args[0]
        if word not in TILES:
            raise IllegalMove(move, "%r is not a Land Tile (%s)" % (word, ", ".join(TILES)))
        t = TILES.index(word)
        q = self.position_under(METEOR_SLOT)
        target = self.stacks[q]
        k = -1
        if t in (GRASS, SNOW):
            if len(args) != 1:
                raise IllegalMove(move, "a %s Tile comes from off the board: 'meteor %s'"
                                  % (word, word))
            if not self.supply[t]:
                raise IllegalMove(move, "every %s Tile is already on the planet" % word)
        else:
            if len(args) != 2:
                raise IllegalMove(move, "name the position the %s Tile comes from: "
                                  "'meteor %s <position>'" % (word, word))
            k = POSITIONS.find(args[1]) if len(args[1]) == 1 else -1
            if k < 0:
                raise IllegalMove(move, "%r is not a position (a to h)" % args[1])
            st = self.stacks[k]
            if k == q:
                raise IllegalMove(move, "position %s is under the Meteor itself" % args[1])
            if not (self.home >> k & 1) or len(st) != 1:
                raise IllegalMove(move, "the Meteor only moves a single Sand or Stone Tile "
                                  "from its starting location, and position %s holds %s"
                                  % (args[1], "+".join(TILES[x] for x in st) or "no tile"))
            if st[0] != t:
                raise IllegalMove(move, "the tile at position %s is %s, not %s"
                                  % (args[1], TILES[st[0]], word))
        if t in target:
            raise IllegalMove(move, "the stack under the Meteor (%s) already has a %s Tile: "
                              "no stack may hold two alike" % (POSITIONS[q], word))
        self._drop(t, k)
        self._finish()

    def _drop(self, t, k):
        # The tile lands on the location under the Meteor: the Life-Forms on a stack there
        # are killed; those in the Water swim to the centre and live. A tile moved from
        # position k carries its riders; position k becomes Water.
        q = self.position_under(METEOR_SLOT)
        life = self.life
        b = q * 3
        if self.stacks[q]:
            for s in range(3):
                if life[b + s] >= 0:
                    self._kill(life[b + s], s)
                    life[b + s] = -1
        self.stacks[q].append(t)
        if k < 0:
            self.supply[t] -= 1
        else:
            self.stacks[k] = []
            self.home &= ~(1 << k)
            for s in range(3):
                life[b + s] = life[k * 3 + s]
                life[k * 3 + s] = -1

    # ---- a move's location

    def _arg_location(self, move, word):
        loc = _LOCATION_INDEX.get(word, -1)
        if loc < 0:
            raise IllegalMove(move, "%r is not a location (a position a to h, or water)" % word)
        if loc != WATER and not self.stacks[loc]:
            raise IllegalMove(move, "position %s is uncovered: it is part of the Water "
                              "('water')" % word)
        return loc

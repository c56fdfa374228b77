"""Vorcept: captures, and the Pylon triangle.

What a piece arriving on a cell takes (`_effects`): an enemy piece sandwiched between it
and another of the mover's, one held on three of its four sides (the triangle), one left
with no free neighbour (the full surround, the board's edge a wall with the edge_wall
option), and then the mover's own pieces left enclosed (a self-capture); whether an action
would leave one of the mover's pieces enclosed (`_keeps_own`, for the self_capture option
"forbid"); and the Pylon triangle that wins the game (`_pylon_triangle`, `pylon_winnable`).
A mixin of VorceptState (`shared_rules.vorcept`): its methods only read the state (the
grid, the geometry, the options), `_keeps_own` trying the action on the grid and putting
it back; the actions mixin (`shared_rules.vorcept_actions`) removes what they find.
"""

from shared_rules.vorcept_options import EMPTY, FIRST_PIECE, PYLON, _OWNER


class Captures:
    """Enclosure, captures and the Pylon triangle (mixed into VorceptState)."""

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

    # ---- the Pylon triangle

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

    def pylon_winnable(self):
        """Whether the Pylon triangle can still win this game: not with the host_only
        variant, nor with the Pylon in a corner, where it has only two sides (it may be
        placed there, "on the board"; the players are told, docs/rules-decisions.md,
        Vorcept 6). True before the Pylon is placed."""
        if self.host_only:
            return False
        g = self.grid
        return PYLON not in g or len(self.orth[g.index(PYLON)]) >= 3


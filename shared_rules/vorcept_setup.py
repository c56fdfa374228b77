"""Vorcept: the setup.

The three setup phases before play (see the model in `shared_rules.vorcept`): where the
Pylon may go, where lava may go and when "lava done" may be played, where each Host may be
set up, and the moves that place them ("pylon", "lava", "host"). Every placement leaves
room for both Hosts: two free cells, touching no lava, at least HOST_PYLON_DISTANCE steps
from the Pylon, that do not touch each other. A mixin of VorceptState: its methods read
and change the state, and call through `self` what VorceptState (`_arg_cell`) and the
actions mixin (`shared_rules.vorcept_actions`: `_host`, `_has_action`, `_may_concede`,
`_finish`) define; VorceptState's legal_moves() and play() call into it.
"""

from shared_rules.errors import IllegalMove
from shared_rules.vorcept_options import (
    BLUE, EMPTY, HOST, HOST_PYLON_DISTANCE, LAVA, PHASE_HOST, PHASE_LAVA, PHASE_PLAY, PYLON,
    RED, piece_code)


class Setup:
    """The Pylon, the lava and the Hosts placed (mixed into VorceptState)."""

    # ---- where things may be placed

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

    # ---- the setup moves

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


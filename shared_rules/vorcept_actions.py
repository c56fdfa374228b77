"""Vorcept: the play phase's actions.

Each turn of the play phase is two actions by the same player with two different pieces
(see the model in `shared_rules.vorcept`). Here: which actions the player to act has
(`_play_moves`; `_has_action` says whether there is any), the moves that carry them out
("move", "summon", "concede"), and what follows an action (`_act`): the pieces it takes
and the self-captures (found by `shared_rules.vorcept_captures`) are removed, then the
game is won (a Host taken, the Pylon triangle) or the action or the turn ends
(`_end_turn`: the turn limit, a stalemate); `_finish` ends the game (the setup's last Host
calls it too, for a stalemate). A mixin of VorceptState: its methods read and change the
state, and call through `self` what VorceptState (`_arg_cell`, `pieces_left`) and the
other mixins define.
"""

from shared_rules.errors import IllegalMove
from shared_rules.vorcept_options import (
    DRONE1, DRONE2, DRONE3, EMPTY, FIRST_PIECE, HOST, KINDS, PHASE_OVER, PLAYER_NAMES, PYLON,
    RANGES, _KIND, _OWNER, piece_code)


class Actions:
    """The play phase's actions and the ends of a turn and of the game (mixed into
    VorceptState)."""

    # ---- which actions there are

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

    # ---- the actions played

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

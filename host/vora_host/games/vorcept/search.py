"""What Vorcept's search bot knows beyond the rules: its simulations' moves
(`rollout_move`, the host package's SEARCH_ROLLOUT; docs/bots.md).

A random player misses a win in one action more often than not, and a simulation that
walks past a win it could take says little about the position it started from. So a
simulation's player takes an action that wins at once (captures the enemy Host, or
closes the Pylon triangle) whenever there is one ("decisive moves": Teytaud and Teytaud,
"On the huge benefit of decisive moves in Monte-Carlo tree search algorithms", 2010),
and otherwise plays at random.

Finding them is cheap: the rules capture only beside the cell a piece arrives on, so a
winning action arrives beside the enemy Host or the Pylon, and only the few actions that
do, in a position where they might win, are played out on a copy to check.
"""

from shared_rules import vorcept as rules

__all__ = ["rollout_move", "winning_moves"]

_EMPTY = rules.EMPTY
_FIRST = rules.FIRST_PIECE


def _owner(code):
    return (code - _FIRST) // 4 if code >= _FIRST else -1


def _candidate_cells(state):
    # Cell names an action of the player to act could win by arriving on: a superset
    # (an action's own start cell only loses it pieces, and captures only free cells).
    g = state.grid
    steps = state.steps
    p = state.active
    cells = []
    enemy_host = _FIRST + 4 * (1 - p)
    if enemy_host in g:
        h = g.index(enemy_host)
        around = steps[h]
        mine = 0
        free = 0
        for x in around:
            if x >= 0:
                v = g[x]
                if v == _EMPTY:
                    free += 1
                elif _owner(v) == p:
                    mine += 1
            elif not state.edge_wall:
                free += 1
        for k in range(4):
            d = around[k]
            if d < 0 or g[d] != _EMPTY:
                continue
            far = around[(k + 2) % 4]  # the side opposite d, for a sandwich
            sandwich = far >= 0 and _owner(g[far]) == p
            if sandwich or mine >= 2 or free == 1:
                cells.append(state.names[d])
    if state.pylon_winnable() and rules.PYLON in g:
        around = state.orth[g.index(rules.PYLON)]
        mine = 0
        for x in around:
            if _owner(g[x]) == p:
                mine += 1
        if mine >= 2:
            for x in around:
                if g[x] == _EMPTY:
                    cells.append(state.names[x])
    return cells


def winning_moves(state, moves):
    """The moves of `moves` (legal in `state`) that win the game at once for the player
    to act, in their order."""
    if state.phase != rules.PHASE_PLAY:
        return []
    cells = _candidate_cells(state)
    if not cells:
        return []
    p = state.active
    out = []
    for m in moves:
        if m.rsplit(" ", 1)[-1] in cells:
            twin = state.clone()
            twin.play(m)
            if twin.win == p:
                out.append(m)
    return out


def rollout_move(state, rng):
    """A simulation's move: one that wins at once if there is one, else a random one."""
    moves = state.legal_moves()
    wins = winning_moves(state, moves)
    return wins[0] if wins else rng.choice(moves)

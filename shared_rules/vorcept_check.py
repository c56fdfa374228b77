"""Vorcept: checking a state read from outside.

`from_json()` and `from_position()` (in `shared_rules.vorcept`, the game's module) take a
state from untrusted text. Here the board's letters are read (`_parse_board`), every field
of a JSON state is checked and set on a fresh VorceptState (`read_fields`), and the whole is
checked to be a position the game can reach: no more pieces than the game has
(`_check_material`), a board that fits its setup phase, or a play-phase position the rules
would not already have ended (`_check_play`). The first fault found is raised as
BadPosition, saying what is wrong. The checks ask the state's own rules (enclosure, the
Pylon triangle, whether an action exists) through its methods, so this file imports only
`shared_rules.vorcept_options`.
"""

from shared_rules.errors import BadPosition
from shared_rules.vorcept_options import (
    BLUE, DRONE1, DRONE2, DRONE3, EMPTY, END_REASONS, FILES, FIRST_PIECE, HOST, KINDS, LAVA,
    LETTERS, MAX_SIZE, MIN_SIZE, PHASE_HOST, PHASE_LAVA, PHASE_NAMES, PHASE_OVER, PHASE_PLAY,
    PHASE_PYLON, PLAYER_NAMES, PYLON, RED, _KIND, _OWNER, _configure, _count, piece_code)


def _parse_board(text):
    ranks = text.split("/")
    n = len(ranks)
    if not MIN_SIZE <= n <= MAX_SIZE or any(len(r) != n for r in ranks):
        raise BadPosition("the board is %d to %d ranks of as many letters, separated by '/', "
                          "the top rank first" % (MIN_SIZE, MAX_SIZE))
    grid = [EMPTY] * (n * n)
    for k in range(n):
        for f in range(n):
            v = LETTERS.find(ranks[k][f])
            if v < 0:
                raise BadPosition("board %s%d: %r is not one of %s" % (
                    FILES[f], n - k, ranks[k][f], LETTERS))
            grid[(n - 1 - k) * n + f] = v
    return n, grid


def _check_material(s):
    # Pieces on the board and in reserve never exceed what each player started with.
    g = s.grid
    for p in (BLUE, RED):
        lo = FIRST_PIECE + 4 * p
        if g.count(lo) > 1:
            raise BadPosition("%s has more than one Host" % PLAYER_NAMES[p])
        for kind in (DRONE1, DRONE2, DRONE3):
            if g.count(lo + kind) + s.reserves[p][kind - 1] > s.pieces[kind - 1]:
                raise BadPosition("%s has more %s than the %d of the game's pieces" % (
                    PLAYER_NAMES[p], KINDS[kind], s.pieces[kind - 1]))
    if g.count(PYLON) > 1:
        raise BadPosition("the board holds more than one Pylon")


def _check_play(s):
    # A position in the play phase: the setup done, both Hosts on the board, no piece
    # enclosed (it would have been removed), no Pylon triangle (the game would be over).
    g = s.grid
    if g.count(PYLON) != 1:
        raise BadPosition("the board must hold the Pylon")
    for p in (BLUE, RED):
        if piece_code(p, HOST) not in g:
            raise BadPosition("%s's Host must be on the board" % PLAYER_NAMES[p])
        if not s.host_only and s._pylon_triangle(p):
            raise BadPosition("%s holds three sides of the Pylon: the game would be over"
                              % PLAYER_NAMES[p])
    for c in range(len(g)):
        if g[c] >= FIRST_PIECE and s._enclosed(c, ()):
            raise BadPosition("the piece on %s has no free neighbour: it would have been "
                              "removed" % s.names[c])
    if s.acted >= 0 and (s.action != 1 or _OWNER[g[s.acted]] != s.active):
        raise BadPosition("the piece that acted must be one of the player to act, in the "
                          "second action")
    if not s._has_action() and not (s.action == 0 and s._may_concede()):
        raise BadPosition("the player to act has no action: the turn or the game would "
                          "have ended")


def read_fields(s, d):
    """Set the fresh state `s` from `d`, a parsed JSON state whose game and format are
    already checked, checking every field; raise BadPosition at the first fault."""

    def field(key, kind):
        if key not in d:
            raise BadPosition("field %r is missing" % key)
        v = d[key]
        if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
            raise BadPosition("field %r has the wrong type: %r" % (key, v))
        return v

    def ints(key, v, n, lo, hi):
        if not isinstance(v, list) or (n >= 0 and len(v) != n) or any(
                not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi for x in v):
            raise BadPosition("field %r must be %s integers from %d to %d"
                              % (key, n if n >= 0 else "a list of", lo, hi))
        return v

    pieces = ints("pieces", field("pieces", list), 3, 0, 999)
    _configure(s, field("size", int), {"drone1": pieces[0], "drone2": pieces[1],
                                       "drone3": pieces[2]},
               field("lava_min", int), field("lava_max", int), field("host_only", bool),
               field("edge_wall", bool), field("self_capture", str),
               field("concede_below", int), field("max_turns", int))
    size, grid = _parse_board(field("board", str))
    if size != s.size:
        raise BadPosition("field 'board' is %dx%d but 'size' is %d" % (size, size, s.size))
    s.grid = grid
    reserves = field("reserves", list)
    if len(reserves) != 2:
        raise BadPosition("field 'reserves' must hold 2 reserves")
    s.reserves = [ints("reserves", reserves[p], 3, 0, 999)[:] for p in (BLUE, RED)]
    s.phase = _count("field 'phase'", field("phase", int), PHASE_PYLON, PHASE_OVER)
    s.active = _count("field 'active'", field("active", int), 0, 1)
    s.action = _count("field 'action'", field("action", int), 0, 1)
    s.acted = _count("field 'acted'", field("acted", int), -1, size * size - 1)
    removed = ints("removed", field("removed", list), -1, 0, 999)
    for k in range(0, len(removed), 2):
        if k + 1 >= len(removed) or removed[k] >= size * size \
                or not FIRST_PIECE <= removed[k + 1] < len(LETTERS):
            raise BadPosition("field 'removed' must be pairs of a cell and a piece code")
    s.removed = removed[:]
    s.turn = _count("field 'turn'", field("turn", int), 0, 99999)
    s.win = _count("field 'win'", field("win", int), -1, 1)
    s.end = field("end", str)
    if (s.end != "") != (s.phase == PHASE_OVER) or (s.end and s.end not in END_REASONS):
        raise BadPosition("field 'end' must be one of %s exactly when the game is over"
                          % ", ".join(END_REASONS))
    if s.win >= 0 and s.end not in ("host", "pylon", "concede"):
        raise BadPosition("field 'win' names a winner only after a win (host, pylon, concede)")
    s.rng = field("rng", int)
    if not 0 < s.rng <= 0xFFFFFFFF:
        raise BadPosition("field 'rng' must be from 1 to 4294967295")
    _check_material(s)
    g = s.grid
    lava = g.count(LAVA)
    hosts = (piece_code(BLUE, HOST) in g, piece_code(RED, HOST) in g)
    setup_ok = {
        PHASE_PYLON: PYLON not in g and not lava and not any(hosts) and s.active == BLUE,
        PHASE_LAVA: PYLON in g and lava < s.lava_max and not any(hosts),
        PHASE_HOST: PYLON in g and hosts == (s.active == RED, False),
    }
    if s.phase in setup_ok:
        if not setup_ok[s.phase] or any(v >= FIRST_PIECE and _KIND[v] != HOST for v in g) \
                or s.reserves != [s.pieces, s.pieces] or s.action or s.acted >= 0 \
                or s.removed or s.turn:
            raise BadPosition("the board, reserves and turn do not fit the %s setup phase"
                              % PHASE_NAMES[s.phase])
    elif s.phase == PHASE_PLAY:
        _check_play(s)
    elif s.acted >= 0 or s.action:
        raise BadPosition("fields 'acted' and 'action' are reset once the game is over")

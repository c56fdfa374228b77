"""The games this board knows, and game records that replay.

A game record is a dict: {"game": name, "players": n, "seed": s, "options": {...},
"moves": [...]}; replaying it from new_game() gives the same state, and the same
digest(), after every move, on CPython and on MicroPython.
"""

from shared_rules.errors import BadPosition, IllegalMove

# name -> module under shared_rules. Modules are imported on first use, so the board
# only loads the games it plays.
GAME_MODULES = {"vora": "vora"}


def load(name):
    """The rules module of a game by name; BadPosition for a game this board does not know."""
    if name not in GAME_MODULES:
        raise BadPosition("unknown game %r (known: %s)" % (name, ", ".join(sorted(GAME_MODULES))))
    package = __import__("shared_rules." + GAME_MODULES[name])
    return getattr(package, GAME_MODULES[name])


def start(record):
    """The state at the start of a recorded game."""
    if not isinstance(record, dict):
        raise BadPosition("a game record is a dict with game, players, seed, options, moves")
    module = load(record.get("game"))
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise BadPosition("the record's options must be a dict, not %r" % (options,))
    try:
        return module.new_game(record.get("players", 2), record.get("seed", 0), **options)
    except BadPosition:
        raise
    except (TypeError, ValueError) as exc:  # an unknown option, a negative seed
        raise BadPosition("the record cannot start a game: %s" % (exc,))


def replay(record, digests=None):
    """Play a record's moves; returns the final state.

    With `digests` (one per move), stop at the first mismatch with BadPosition naming the
    move number; an illegal move raises IllegalMove naming its number too.
    """
    state = start(record)
    moves = record.get("moves", [])
    for k, move in enumerate(moves):
        try:
            state.play(move)
        except IllegalMove as exc:
            raise IllegalMove(move, "move %d of the record: %s" % (k + 1, exc.reason))
        if digests is not None and k < len(digests) and state.digest() != digests[k]:
            raise BadPosition("digest mismatch after move %d (%r): recorded %s, replayed %s"
                              % (k + 1, move, digests[k], state.digest()))
    return state

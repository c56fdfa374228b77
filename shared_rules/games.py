"""The games this board knows, and game records that replay.

Every game is a module of `shared_rules` with the same small interface (docs/adding-a-game.md
is the whole contract; tests/test_conformance.py checks it for every game):

    module.NAME, TITLE, PLAYER_COUNTS, OPTIONS, HIDDEN_INFORMATION
    module.SEED_MAX (optional: seeds 0 to it; default shared_rules.prng.SEED_MAX)
    module.new_game(players=2, seed=0, **options) -> state      (BadPosition if refused)
    module.from_json(text_or_dict) -> state                     (BadPosition if refused)
    module.determinize(view, seed) -> state                     (a state the view allows)
    state.legal_moves() / play(move) / to_act() / is_over() / scores() / winner()
    state.clone() / to_json() / digest() / options() / turn_count() / end_reason()
    state.view(player)                                          (what `player` may know)

A game record is a dict: {"game": name, "players": n, "seed": s, "options": {...},
"moves": [...]}; replaying it from new_game() gives the same state, and the same
digest(), after every move, on CPython and on MicroPython.
"""

from shared_rules.errors import BadPosition, IllegalMove

# name -> module under shared_rules. Modules are imported on first use, so the board
# only loads the games it plays. The name is what records, the log and the command line
# use; it never changes once games are logged under it.
GAME_MODULES = {"vora": "vora", "vorcept": "vorcept", "gaia-vora": "gaia_vora",
                "boars": "boars", "tossing-tiger": "tossing_tiger"}


def names():
    """Every game's name, sorted."""
    return sorted(GAME_MODULES)


def load(name):
    """The rules module of a game by name; BadPosition for a game this board does not know."""
    if not isinstance(name, str) or name not in GAME_MODULES:
        raise BadPosition("unknown game %r (known: %s)" % (name, ", ".join(names())))
    package = __import__("shared_rules." + GAME_MODULES[name])
    return getattr(package, GAME_MODULES[name])


def seed_max(module):
    """The largest seed of a game (its module, or its name): the hidden-information games
    take a wider range than the board's 32-bit seeds (shared_rules.secret_prng)."""
    if isinstance(module, str):
        module = load(module)
    seed_top = getattr(module, "SEED_MAX", None)
    if seed_top is None:
        from shared_rules import prng
        seed_top = prng.SEED_MAX
    return seed_top


def check_seed(module, seed):
    """`seed` if it is a seed of the game (module or name), else ValueError saying so."""
    top = seed_max(module)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= top:
        raise ValueError("a seed is a whole number from 0 to %d, not %r" % (top, seed))
    return seed


def option_spec(module, name):
    """(name, default, kind, help) of one of a game's options; BadPosition if it has none."""
    for spec in module.OPTIONS:
        if spec[0] == name:
            return spec
    raise BadPosition("unknown option %r for %s (its options: %s)" % (
        name, module.NAME, ", ".join(s[0] for s in module.OPTIONS) or "none"))


def start(record):
    """The state at the start of a recorded game."""
    if not isinstance(record, dict):
        raise BadPosition("a game record is a dict with game, players, seed, options, moves")
    module = load(record.get("game"))
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise BadPosition("the record's options must be a dict, not %r" % (options,))
    players = record.get("players", 2)
    if not isinstance(players, int) or isinstance(players, bool) \
            or players not in module.PLAYER_COUNTS:
        raise BadPosition("%s is played by %s players, not %r" % (
            module.TITLE, "/".join(str(n) for n in module.PLAYER_COUNTS), players))
    try:
        return module.new_game(players, record.get("seed", 0), **options)
    except BadPosition:
        raise
    except (TypeError, ValueError) as exc:  # an unknown option, a negative seed
        raise BadPosition("the record cannot start a game: %s" % (exc,))


def replay(record, digests=None):
    """Play a record's moves; returns the final state.

    With `digests` (one per move), stop at the first mismatch with BadPosition naming the
    move number; an illegal move raises IllegalMove naming its number too. Replay stops
    at the first failure: nothing after it is played.
    """
    state = start(record)
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise BadPosition("the record's moves must be a list of notation strings")
    for k, move in enumerate(moves):
        try:
            state.play(move)
        except IllegalMove as exc:
            raise IllegalMove(move, "move %d of the record: %s" % (k + 1, exc.reason))
        if digests is not None and k < len(digests) and state.digest() != digests[k]:
            raise BadPosition("digest mismatch after move %d (%r): recorded %s, replayed %s"
                              % (k + 1, move, digests[k], state.digest()))
    return state

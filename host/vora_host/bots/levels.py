"""Levels for people: `easy`, `normal` and `hard`, a bot kind of every game.

A level names a concrete kind per game (`LEVELS`), so `--bot 1=hard`, the lab and
`make_bot("hard", seed, game)` all make the very bot that the table names, and a game
record keeps that concrete kind (`bot.kind`), not the level: a replay still makes the
same bot if the table changes later.

The kinds were chosen by measurement (docs/bots.md, "Levels"): each level should beat
the one below in about three games of four, and `hard` is the strongest setting that
decides within one second a move on one core. Budgets are in iterations, not time, so a
level plays the same on a fast machine and a slow one.
"""

__all__ = ["LEVEL_NAMES", "LEVELS", "MEASURED", "level_kind"]

LEVEL_NAMES = ("easy", "normal", "hard")

# {game: {level: kind}}; a game missing here gets DEFAULT_LEVELS.
DEFAULT_LEVELS = {"easy": "search:20", "normal": "search:200", "hard": "search:2000"}
LEVELS = {
    # Vora: the generic search is far below Vora's own bots (search:1000 lost 6 of 6 to
    # greedy), so the levels are Vora's own: one ply over 60 moves drawn at random (greedy
    # ranks 120), the greedy collector, and the lookahead bot.
    "vora": {"easy": "lookahead:width=1:shape=0:moves=60", "normal": "greedy",
             "hard": "lookahead"},
    # hard: what decided within about a second of CPU on the loaded machine (docs/bots.md).
    # Vorcept's search plays every simulation to the end (its SEARCH horizon), ten times
    # the work of a cut one: search:200 took about a second there, 0.3 to 0.6 s since
    # its simulations take wins in one action (they end sooner). Ladder: hard beat
    # normal 9 of 12, normal beat easy 12 of 12 (docs/benchmarks.md, "Levels").
    "vorcept": {"easy": "search:10", "normal": "search:50", "hard": "search:200"},
    # Ladder: hard beat normal 10 of 12, normal beat easy 11 of 12 (docs/benchmarks.md).
    "gaia-vora": {"easy": "search:20", "normal": "search:200", "hard": "search:400"},
    "tossing-tiger": {"easy": "search:20", "normal": "search:200", "hard": "search:600"},
    # Boars' simulations are cut after a round by default; ten times the iterations alone
    # bought nothing (search:2000 won 5 of 12 against search:200 in the ladder), while
    # six turns of simulation did: search:1000:horizon=6, as long a move as search:2000,
    # scored 0.75 over 24 games against search:200 (docs/benchmarks.md, "Levels").
    "boars": {"easy": "search:20", "normal": "search:200", "hard": "search:1000:horizon=6"},
}

# What `vora rules GAME` tells a player of the levels' strength: two-player games, from
# docs/benchmarks.md ("Levels"), where the commands that measured them are.
MEASURED = {
    "vora": "hard beat normal in 164 of 200 games, normal beat easy in 28 of 40",
    "vorcept": "hard beat normal in 9 of 12 games, normal beat easy in 12 of 12",
    "gaia-vora": "hard beat normal in 10 of 12 games, normal beat easy in 11 of 12",
    "tossing-tiger": "no level was told apart from another in 20 games a pair (luck: "
                     "the best search beats even random players in only 59% of games); "
                     "the levels differ in thinking time",
    "boars": "hard beat normal in 25 of 36 games (18 of 24 head to head, 7 of 12 in a "
             "ladder), normal beat easy in 9 of 12",
}


def level_kind(game, level):
    """The kind string a level stands for in `game` (a registry name), or None when
    `level` is not a level's name."""
    level = level.strip().lower() if isinstance(level, str) else level
    if level not in LEVEL_NAMES:
        return None
    return LEVELS.get(game, DEFAULT_LEVELS)[level]

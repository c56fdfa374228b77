"""Computer players: generic bots that play any game of `shared_rules.games`, and the
bots a game brings along in its host package (`vora_host.games.<module>.BOTS`).

    bot = make_bot("random", seed=7, game="vorcept")
    move = bot.choose(state)
"""

from vora_host.bots.base import Bot, RandomBot

__all__ = ["Bot", "RandomBot", "GENERIC_BOTS", "bot_kinds", "make_bot"]

# Bots every game gets.
GENERIC_BOTS = {RandomBot.kind: RandomBot}


def bot_kinds(game="vora"):
    """{kind: class} of the bots that play `game`: the generic ones and the game's own."""
    from vora_host import games
    kinds = dict(GENERIC_BOTS)
    kinds.update(games.host_game(game).BOTS)
    return kinds


def make_bot(kind, seed=0, game="vora"):
    """A bot of the named kind for `game`, seeded with `seed`; ValueError naming the
    kinds there are for an unknown one."""
    kinds = bot_kinds(game)
    try:
        cls = kinds[kind]
    except KeyError:
        raise ValueError("unknown bot %r for %s (choose from %s)"
                         % (kind, game, ", ".join(sorted(kinds))))
    return cls(seed)

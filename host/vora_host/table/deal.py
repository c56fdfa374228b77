"""A new game's seed and its bots' seeds: the same choices wherever a table is set up
(`vora play`, a table `vora serve --tables` creates).

    seed = new_seed(module)                           # when nobody chose one
    seeds = bot_seeds(module, players, seed, chosen)  # one per player
"""

import random
import secrets

from shared_rules import games as rules_games

__all__ = ["new_seed", "bot_seeds", "BOT_SEED_BITS"]

BOT_SEED_BITS = 64  # the bots' own seeds in a hidden-information game (random.Random takes any)


def new_seed(module):
    """A seed nobody chose. In a game with hidden information the whole of the chance
    follows from the seed: a guessable one would give every secret away, so it is the OS's
    randomness over the game's full range; elsewhere a short number, easy to type again."""
    if module.HIDDEN_INFORMATION:
        return secrets.randbelow(rules_games.seed_max(module) + 1)
    return random.SystemRandom().randrange(1000000)


def bot_seeds(module, players, seed, chosen):
    """A bot's seed for each player. They derive from the game seed (seed * 10 + player)
    so that a game of bots with a given seed replays the very same game -- except in a
    game with hidden information whose seed nobody chose (`chosen` False): there a bot's
    choices would be a function of the secret seed, and watching them would narrow it
    down, so its bots draw their own seeds from the OS (kept in the record's agents). A
    seed the user gave is theirs to know already; deriving from it gives nothing away."""
    if module.HIDDEN_INFORMATION and not chosen:
        return [secrets.randbits(BOT_SEED_BITS) for _ in range(players)]
    return [seed * 10 + p for p in range(players)]

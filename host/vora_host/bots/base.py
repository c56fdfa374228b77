"""What every bot is, and the baseline every other bot must beat.

A bot is any object with a `choose(state) -> move` method (calling the bot does the same):
it looks at a state whose `to_act()` is the bot's seat and returns one of
`state.legal_moves()`, never changing the state it was given. Every bot draws its own
randomness from a private `random.Random(seed)`, so a game between bots is fully
reproducible from the game seed and the bot seeds, and the game's PRNG (which deals
cubes and cards) is never touched.
"""

import random

__all__ = ["Bot", "RandomBot"]


class Bot:
    """Base class: subclasses implement `choose`."""

    #: Short name used on the command line (`--bot`) and in game records (an instance
    #: with parameters has the whole kind string, e.g. "search:2000").
    kind = "bot"

    def __init__(self, seed=0):
        self.seed = seed
        self.rng = random.Random(seed)

    @classmethod
    def from_spec(cls, seed, game, arg):
        """The bot for a kind string's parameters `arg` (the text after "kind:"), for
        `game`; a bot without parameters refuses any."""
        if arg:
            raise ValueError("the %s bot takes no parameters, not %r" % (cls.kind, arg))
        return cls(seed)

    def choose(self, state):  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, state):
        return self.choose(state)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.seed)


class RandomBot(Bot):
    """Plays a uniformly random legal move: the baseline every other bot must beat."""

    kind = "random"

    def choose(self, state):
        return self.rng.choice(state.legal_moves())

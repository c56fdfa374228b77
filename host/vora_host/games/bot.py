"""What every bot is: the base class of the generic bots (vora_host.bots) and of the bots a
game brings in its host package (vora_host.games.<module>.BOTS).

A bot is any object with a `choose(state) -> move` method (calling the bot does the same):
it looks at a state whose `to_act()` is the bot's seat and returns one of
`state.legal_moves()`, never changing the state it was given. Every bot draws its own
randomness from a private `random.Random(seed)`, so a game between bots is fully
reproducible from the game seed and the bot seeds, and the game's PRNG (which deals
cubes and cards) is never touched.

It lives here, below vora_host.bots, because a game's package derives its own bots from
it and vora_host.bots gathers those (`bot_kinds`): the games room sits below the bots
room (tests/test_import_graph.py).
"""

import random

__all__ = ["Bot"]


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

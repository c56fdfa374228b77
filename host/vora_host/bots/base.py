"""The baseline every other bot must beat: RandomBot. What every bot is (the `Bot` base
class, named here too) lives in vora_host.games.bot, below the games that derive their
own bots from it."""

from vora_host.games.bot import Bot

__all__ = ["Bot", "RandomBot"]


class RandomBot(Bot):
    """Plays a uniformly random legal move: the baseline every other bot must beat."""

    kind = "random"

    def choose(self, state):
        return self.rng.choice(state.legal_moves())

"""The host's place for each game: its terminal view, its mapping onto the board's 7x7
keys and pixels, and any bots of its own (docs/adding-a-game.md).

`host_game(name)` gives the package `vora_host.games.<module>` of a game registered in
`shared_rules.games`; every package offers the attributes listed in `HOST_ATTRIBUTES`.
"""

import importlib

from shared_rules import games as rules_games

__all__ = ["host_game", "HOST_ATTRIBUTES"]

HOST_ATTRIBUTES = ("RULES", "BOTS", "VIEW", "RULEBOOK", "NOTATION")


def host_game(name):
    """The host package of game `name`; BadPosition (from the registry) if unknown."""
    rules = rules_games.load(name)
    module = rules_games.GAME_MODULES[name]
    package = importlib.import_module("vora_host.games." + module)
    assert package.RULES is rules, "vora_host.games.%s.RULES must be its rules module" % module
    return package

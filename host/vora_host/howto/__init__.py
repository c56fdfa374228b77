"""How to play each game, in the project's own words, shipped with the package.

One Markdown file per game, named after the game's registry name (`vora.md`,
`gaia-vora.md`, ...): the goal, the set-up, a turn, the end, the board's keys, the typed
notation and a worked example. `vora rules GAME` prints it; the worked examples are
played by tests/test_howto.py, so they stay legal.
"""

from importlib import resources

from shared_rules import games as rules_games

__all__ = ["text", "SECTIONS"]

#: The headings every game's text has, in this order.
SECTIONS = ("Goal", "Set-up", "A turn", "The end and the winner", "On the board's keys",
            "Typed moves", "A worked example")


def text(game):
    """The how-to-play of `game` (a registry name) as Markdown; BadPosition (from the
    registry, naming the known games) for an unknown game."""
    rules_games.load(game)
    path = resources.files(__name__).joinpath(game + ".md")
    if not path.is_file():
        raise LookupError("no how-to-play for %s: vora_host/howto/%s.md is missing "
                          "(docs/adding-a-game.md)" % (game, game))
    return path.read_text(encoding="utf-8")

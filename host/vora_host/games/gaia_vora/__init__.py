"""Gaia-Vora on the host: the terminal view (`ui`) and the mapping onto the board's 7x7
keys (`board`: the planet on the inner 3x3, the Sky Objects, species, colours, tiles and
rotations on the edge keys). The host runs the game; the board is screen and keypad."""

from shared_rules import gaia_vora as RULES

from vora_host.games.gaia_vora.board import GaiaBoard
from vora_host.games.gaia_vora.ui import GaiaView

RULEBOOK = "gaia-vora.md"
NOTATION = "gaia-vora-notation.md"
BOTS = {}
# The search bot looks twelve turns ahead here, not one round, and judges a cut game
# softly (a lead of 6 points, not 3, is worth 0.73 against one player): the Moon's eating,
# Storms and rotations move everyone's altitude for several turns, and at four players the
# bot needs both to see past three random opponents. Against random players at search:200,
# 200 games at 4 players: 59.5% with one round, 83.5% with six turns, 91.5% with twelve
# and temperature 6 (docs/benchmarks.md, "The bots", where 2 and 3 players are too).
SEARCH = {"horizon": 12, "temperature": 6.0}

# A Star left is worth two points to a simulation cut before the end. Its rollouts play
# at random, for the bot too, and a random player gets nothing from the choice a Star
# buys (rotate one or three steps, not only two), so with the scores alone the bot spent
# its four Stars in its first turns and then met the late game, where Meteors on the
# tallest stacks decide, able only to rotate two. At four players against random
# players, 200 games: 91.5% by the scores, 94.5% with a Star worth two points (92.5% on
# the next 200 seeds; docs/benchmarks.md, "The bots", also for a worth that shrinks as
# the end nears, which lost more). The kind's points=scores judges by the scores alone.
STAR_WORTH = 2


def search_points(state):
    """Each player's score plus STAR_WORTH for each Star they still hold: what the search
    bot judges a game cut before the end by (SEARCH_POINTS, docs/bots.md)."""
    stars = state.stars
    return [score + STAR_WORTH * stars[p] for p, score in enumerate(state.scores())]


SEARCH_POINTS = search_points

VIEW = GaiaView(RULES)
BOARD = GaiaBoard(RULES)

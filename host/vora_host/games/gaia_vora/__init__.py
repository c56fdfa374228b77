"""Gaia-Vora on the host: the terminal view (`ui`) and the mapping onto the board's 7x7
keys (`board`: the carousel on the inner 3x3, the Sky Objects, species, colours, tiles and
rotations on the edge keys). The host runs the game; the board is screen and keypad."""

from shared_rules import gaia_vora as RULES

from vora_host.games.gaia_vora.board import GaiaBoard
from vora_host.games.gaia_vora.ui import GaiaView

RULEBOOK = "gaia-vora.md"
NOTATION = "gaia-vora-notation.md"
BOTS = {}
# The search bot looks six turns ahead here, not one round: the Moon's eating, Storms and
# rotations move everyone's altitude for several turns. Against random players at
# search:200, 200 games at 2, 3 and 4 players: 90.5, 78.0, 59.5% with one round; 97.0,
# 96.5, 83.5% with six (docs/benchmarks.md, "The bots").
SEARCH = {"horizon": 6}
VIEW = GaiaView(RULES)
BOARD = GaiaBoard(RULES)

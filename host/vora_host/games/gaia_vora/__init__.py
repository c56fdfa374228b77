"""Gaia-Vora on the host: the terminal view (`ui`) and the mapping onto the board's 7x7
keys (`board`: the carousel on the inner 3x3, the Sky Objects, species, colours, tiles and
rotations on the edge keys). The host runs the game; the board is screen and keypad."""

from shared_rules import gaia_vora as RULES

from vora_host.games.gaia_vora.board import GaiaBoard
from vora_host.games.gaia_vora.ui import GaiaView

RULEBOOK = "gaia-vora.md"
NOTATION = "gaia-vora-notation.md"
BOTS = {}
VIEW = GaiaView(RULES)
BOARD = GaiaBoard(RULES)

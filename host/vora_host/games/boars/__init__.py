"""Boars on the Run! on the host: the terminal view (`ui`) and the mapping onto the
board's 7x7 keys (`board`), both drawn from each player's view only (bags are private)."""

from shared_rules import boars as RULES

from vora_host.games.boars.board import BoarsBoard
from vora_host.games.boars.ui import BoarsView

RULEBOOK = "boars-on-the-run.md"
NOTATION = "boars-notation.md"
BOTS = {}
VIEW = BoarsView(RULES)
BOARD = BoarsBoard(RULES)

"""Vorcept on the host: the terminal view (`ui`) and the mapping onto the board's 7x7
keys (`board`: one key per cell of the default 7x7 board). The host runs the game; the
board is screen and keypad (terminal mode)."""

from shared_rules import vorcept as RULES

from vora_host.games.vorcept.board import VorceptBoard
from vora_host.games.vorcept.ui import VorceptView

RULEBOOK = "vorcept.md"
NOTATION = "vorcept-notation.md"
BOTS = {}
VIEW = VorceptView(RULES)
BOARD = VorceptBoard(RULES)

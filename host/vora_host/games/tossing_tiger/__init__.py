"""Tossing Tiger, Rolling Dragon on the host: the terminal view (`ui`) and the mapping
onto the board's 7x7 keys (`board`), both drawn from each player's view only (hands and
face-down dice are private)."""

from shared_rules import tossing_tiger as RULES

from vora_host.games.tossing_tiger.board import TigerBoard
from vora_host.games.tossing_tiger.ui import TigerView

RULEBOOK = "tossing-tiger-rolling-dragon.md"
NOTATION = "tossing-tiger-notation.md"
BOTS = {}
VIEW = TigerView(RULES)
BOARD = TigerBoard(RULES)

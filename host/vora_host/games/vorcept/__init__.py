"""Vorcept on the host: the terminal view (`ui`) and the mapping onto the board's 7x7
keys (`board`: one key per cell of the default 7x7 board). The host runs the game; the
board is screen and keypad (terminal mode)."""

from shared_rules import vorcept as RULES

from vora_host.games.vorcept.board import VorceptBoard
from vora_host.games.vorcept.search import rollout_move
from vora_host.games.vorcept.ui import VorceptView

RULEBOOK = "vorcept.md"
NOTATION = "vorcept-notation.md"
BOTS = {}
# The search bot's settings (docs/bots.md): Vorcept's scores stay level until a player
# wins, so a simulation cut after one round (the default horizon) almost always came
# back a draw and the search chose nearly at random; played to the end (random games
# last about 32 moves, far inside the 200 turns), search:100 scored 0.603 against its
# one-round self (29 games), and OpenSpiel's textbook UCT no longer wins three games in
# four, though it is not beaten either (docs/benchmarks.md, "Against OpenSpiel's
# searches").
SEARCH = {"horizon": 200}
# A simulation's player takes a win in one action when there is one (search.py): random
# simulations walked past most of them, and textbook UCT, which plays the same random
# simulations, was about even with this search; with the wins taken the search beat it
# at the same number of simulations and at the same CPU time (docs/benchmarks.md,
# "Against OpenSpiel's searches"). `rollout=random` in a kind turns it off.
SEARCH_ROLLOUT = rollout_move
VIEW = VorceptView(RULES)
BOARD = VorceptBoard(RULES)

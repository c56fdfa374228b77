"""Why search bots draw Vorcept by the turn limit under self_capture="forbid": an
experiment for docs/rules-decisions.md (Vorcept, "Measured play").

The search bot judges a simulation cut at its horizon by `scores()`, and Vorcept scores
are 0 for both players until someone wins, so a bot that cannot see a win within its
horizon (two turns) has nothing to aim at. Under "remove" its random rollouts often end
at once (a player walls in their own Host), which gives it a signal; under "forbid" they
rarely do. This runs the lab's comparison with the bot judging a cut game by material
instead (each player's pieces on the board and in reserve), set for this run only:

    .venv/bin/python bench/bench_vorcept_material.py [GAMES] [BOTS]

(default 20 games per value, bots search:50). The plain bot's run to compare with:
`vora lab vorcept --games 30 --bots search:50 --compare self_capture=remove,forbid`.
"""

import sys

import vora_host.games.vorcept as vorcept_host
from vora_host.cli import main


def material(state):
    """Each player's pieces left, board and reserve, the Host included."""
    return [state.pieces_left(p) for p in (0, 1)]


if __name__ == "__main__":
    games = sys.argv[1] if len(sys.argv) > 1 else "20"
    bots = sys.argv[2] if len(sys.argv) > 2 else "search:50"
    vorcept_host.SEARCH_POINTS = material  # this process only: the lab runs with --workers 1
    sys.exit(main(["lab", "vorcept", "--games", games, "--bots", bots, "--workers", "1",
                   "--no-plots", "--compare", "self_capture=remove,forbid"]))

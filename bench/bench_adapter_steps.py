"""CPU time a step of random games through the OpenSpiel adapter (what OpenSpiel's
MCTS rollouts cost), two players, games from seeds 0..N-1, chance outcomes and moves
drawn with random.Random(0):

    .venv/bin/python bench/bench_adapter_steps.py GAME [--games 20] [--root CHECKOUT]

--root measures another checkout's adapter and rules instead (to compare versions).
"""

import argparse
import random
import sys
import time
from pathlib import Path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    args = ap.parse_args()
    sys.path[:0] = [args.root, args.root + "/host"]
    from shared_rules import games
    from vora_host import openspiel_adapter as osa
    game = osa.load(args.game, players=2)
    module = games.load(args.game)
    rnd = random.Random(0)
    steps = 0
    started = time.process_time()
    for seed in range(args.games):
        state = osa.from_native(game, module.new_game(2, seed))
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rnd.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rnd.choice(state.legal_actions()))
            steps += 1
    print("%s (%s): %.1f us of CPU a step over %d steps of %d games"
          % (args.game, args.root, 1e6 * (time.process_time() - started) / steps, steps,
             args.games))


if __name__ == "__main__":
    main()

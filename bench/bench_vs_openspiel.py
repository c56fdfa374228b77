"""The default search bot against OpenSpiel's searches, two players, every game:
MCTSBot (textbook UCT: uct_c=2, one random rollout to the end of the game a simulation)
on the games without secrets, ISMCTSBot (same settings) on Boars and Tossing Tiger, both
playing through the OpenSpiel adapter (vora_host.openspiel_adapter).

    .venv/bin/python bench/bench_vs_openspiel.py --game vorcept --games 200 --sims 200
    .venv/bin/python bench/bench_vs_openspiel.py --game vorcept --games 200 --sims 200 --time

Equal simulations (default): the search bot gets `search:N` (N iterations a move, its
kind string otherwise the game's defaults, or --kind), OpenSpiel's bot N simulations.
Equal time (--time): OpenSpiel's bot keeps its N simulations, and the search bot gets a
time budget a move equal to the CPU time OpenSpiel's bot took a move on average (measured
with time.process_time in the same run, over its first --calibrate moves), counted in
the search bot's own CPU time (`search:Tms:clock=cpu`), so other work on the machine
does not shorten its budget.

Game k starts from `new_game(2, seed=first_seed + k)`; the search bot takes seat k % 2
(seats alternate). Draws (a winner of None) count 1/2. The score is the search bot's
mean, with a Wilson 95% interval (draws counted as half a win). Chance inside a game
follows the adapter's model (a draw reseeds the PRNG from one of 16 outcomes), the same
for both bots.
"""

import argparse
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from shared_rules import games  # noqa: E402
from vora_host import openspiel_adapter as osa  # noqa: E402
from vora_host.bots import make_bot  # noqa: E402


def wilson(score, n, z=1.96):
    """Wilson 95% interval of a proportion score/n."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def openspiel_bot(game, name, sims, seed, uct_c=2.0):
    rollout = mcts.RandomRolloutEvaluator(n_rollouts=1,
                                          random_state=np.random.RandomState(seed))
    if games.load(name).HIDDEN_INFORMATION:
        return ismcts.ISMCTSBot(game, rollout, uct_c, sims,
                                random_state=np.random.RandomState(seed + 1),
                                allow_inconsistent_action_sets=True)
    return mcts.MCTSBot(game, uct_c, sims, rollout,
                        random_state=np.random.RandomState(seed + 1), solve=False)


def play_one(name, game, kind, sims, seed, ours_seat, stats):
    """One game; the search bot's score (1, 1/2, 0)."""
    module = games.load(name)
    state = osa.from_native(game, module.new_game(2, seed))
    if kind == "hand-seer":  # the ceiling of knowing the present (bench_tiger_luck.py)
        from bench_tiger_luck import HandSeer
        from vora_host.bots.search import game_settings
        ours = HandSeer(seed * 2 + 1, iterations=sims, game=name, **game_settings(name))
    else:
        ours = make_bot(kind, seed * 2 + 1, name)
    theirs = openspiel_bot(game, name, sims, seed * 2)
    chance = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(chance.choice(outcomes)[0])
            continue
        if state.current_player() == ours_seat:
            started = time.process_time()
            move = ours.choose(state.native)
            stats["ours"].append(time.process_time() - started)
            state.apply_action(game.codec.encode(move))
        else:
            started = time.process_time()
            action = theirs.step(state)
            stats["theirs"].append(time.process_time() - started)
            state.apply_action(action)
    winner = state.native.winner()
    return 0.5 if winner is None else float(winner == ours_seat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True, choices=games.names())
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--sims", type=int, default=200)
    ap.add_argument("--kind", default=None,
                    help="the search bot's kind (default search:SIMS, or "
                         "search:Tms:clock=cpu with --time); settings after it, e.g. "
                         "search:200:c=0.5; or hand-seer (Tossing Tiger): the search at SIMS "
                         "iterations seeing every hand, not the future, a ceiling of what "
                         "knowing the present buys (bench/bench_tiger_luck.py)")
    ap.add_argument("--time", action="store_true",
                    help="equal CPU time instead of equal simulations")
    ap.add_argument("--calibrate", type=int, default=20,
                    help="with --time: OpenSpiel moves timed before the games")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=230.0,
                    help="stop starting games after this long (figures say how many ran)")
    args = ap.parse_args()
    name = args.game
    game = osa.load(name, players=2)
    stats = {"ours": [], "theirs": []}
    kind = args.kind or "search:%d" % args.sims
    if args.time:
        # Time OpenSpiel's bot alone on positions of a few games first.
        calib = {"ours": [], "theirs": []}
        seed = 10 ** 6
        while len(calib["theirs"]) < args.calibrate:
            play_one(name, game, "search:10", args.sims, seed, 0, calib)
            seed += 1
        ms = 1000.0 * sum(calib["theirs"]) / len(calib["theirs"])
        kind = (args.kind or "search") + ":%.0fms:clock=cpu" % ms
        print("calibrated: OpenSpiel's bot takes %.0f ms of CPU a move at %d simulations "
              "-> %s" % (ms, args.sims, kind))
    opponent = "ISMCTSBot" if games.load(name).HIDDEN_INFORMATION else "MCTSBot"
    started = time.time()
    total = 0.0
    played = 0
    wins = draws = 0
    for k in range(args.games):
        if time.time() - started > args.max_seconds:
            break
        score = play_one(name, game, kind, args.sims, args.first_seed + k, k % 2, stats)
        # One line a game, so a run cut short still counts (bench/pool_scores.py).
        print("game seed %d seat %d score %.1f" % (args.first_seed + k, k % 2, score),
              flush=True)
        total += score
        played += 1
        wins += score == 1.0
        draws += score == 0.5
    lo, hi = wilson(total, played)
    mean = lambda xs: 1000.0 * sum(xs) / max(1, len(xs))  # noqa: E731
    print("%s: %s vs %s(uct_c=2, %d sims, 1 random rollout): %d games (seats "
          "alternating, seeds %d..%d): score %.3f [95%% %.3f, %.3f] (won %d, drew %d, "
          "lost %d); CPU a move: ours %.1f ms, theirs %.1f ms; %.0f s"
          % (name, kind, opponent, args.sims, played, args.first_seed,
             args.first_seed + played - 1, total / max(1, played), lo, hi, wins, draws,
             played - wins - draws, mean(stats["ours"]), mean(stats["theirs"]),
             time.time() - started))


if __name__ == "__main__":
    main()

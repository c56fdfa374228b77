"""The generic bots on every registered game: random playouts per second, the search
bot's simulations per second, and its results against the random bot, against itself
at a tenth of the budget and (Vora) against Vora's greedy bot.

    .venv/bin/python bench/bench_bots.py [--game NAME] [--budget KIND] [--games N]
                                         [--jobs J] [--parts playouts,sims,random,self,greedy]

--budget is the search bot's kind string (default search:200, see vora_host/bots);
"self" plays it against the same bot with a tenth of the iterations. --games is the
number of games per game and seat count (default 200); the search bot takes each seat
in turn, seeds 0 to N-1, so a run is reproducible (--first-seed S: seeds S to S+N-1, to
check a setting chosen on the first seeds against games it was not chosen on). Matches
run in --jobs processes (default 2). Each line says how it was measured.
"""

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import games  # noqa: E402
from vora_host.bots import RandomBot, make_bot  # noqa: E402


# Speeds are per second of this process's CPU time (time.process_time), so that other
# work on the machine does not halve them; a shared machine still slows caches a little.
clock = time.process_time


def random_playouts(module, players, seconds=3.0):
    """(games/s, moves/s, mean moves a game) of random play from new games."""
    done = moves = 0
    started = clock()
    while clock() - started < seconds:
        state = module.new_game(players, done)
        bot = RandomBot(done)
        while not state.is_over():
            state.play(bot.choose(state))
            moves += 1
        done += 1
    elapsed = clock() - started
    return done / elapsed, moves / elapsed, moves / done


def sample_positions(name, players, count, seed=0):
    """Positions with a choice, from games between search bots of a small budget (so
    they look like the positions the bot meets in play, not only random ones)."""
    module = games.load(name)
    out = []
    g = 0
    while len(out) < count:
        state = module.new_game(players, seed + g)
        agents = [make_bot("search:20", g * 10 + p, name) for p in range(players)]
        k = 0
        while not state.is_over() and len(out) < count:
            if k % 7 == 3 and len(state.legal_moves()) > 1:
                out.append(state.clone())
            state.play(agents[state.to_act()].choose(state))
            k += 1
        g += 1
    return out


def simulations(name, players, kind, positions):
    """Simulations per second of the search bot over `positions`."""
    bot = make_bot(kind, 1, name)
    iterations = 0
    started = clock()
    for state in positions:
        bot.choose(state)
        iterations += bot.last["iterations"]
    seconds = clock() - started
    return iterations / seconds, seconds / len(positions)


def decision_time(name, kind, positions):
    """CPU seconds a decision of bot `kind` over `positions`."""
    bot = make_bot(kind, 1, name)
    started = clock()
    for state in positions:
        bot.choose(state)
    return (clock() - started) / len(positions)


def one_game(job):
    """Play one game; returns (winner, seat of the bot measured, scores, turns, seconds,
    seed)."""
    name, kinds, seed, seat = job
    module = games.load(name)
    state = module.new_game(len(kinds), seed)
    agents = [make_bot(k, seed * 10 + p, name) for p, k in enumerate(kinds)]
    started = time.perf_counter()
    while not state.is_over():
        state.play(agents[state.to_act()].choose(state))
    return state.winner(), seat, state.scores(), state.turn_count(), \
        time.perf_counter() - started, seed


def match(pool, name, players, kind, other, count, first_seed=0):
    """`kind` at each seat in turn against `other` everywhere else, `count` games, seeds
    `first_seed` onwards."""
    jobs = []
    for g in range(first_seed, first_seed + count):
        seat = g % players
        kinds = [other] * players
        kinds[seat] = kind
        jobs.append((name, kinds, g, seat))
    wins = draws = 0
    margins = []
    turns = []
    started = time.perf_counter()
    not_won = []
    for k, (winner, seat, scores, turn, _, seed) in enumerate(
            pool.imap_unordered(one_game, jobs)):
        wins += winner == seat
        if winner != seat:
            not_won.append(seed)
        draws += winner is None
        margins.append(scores[seat] - max(s for p, s in enumerate(scores) if p != seat))
        turns.append(turn)
        if (k + 1) % 20 == 0:
            print("    ... %d/%d games, %d wins" % (k + 1, count, wins), file=sys.stderr,
                  flush=True)
    return {"wins": wins, "draws": draws, "games": count, "margin": statistics.mean(margins),
            "turns": statistics.mean(turns), "seconds": time.perf_counter() - started,
            "not_won": sorted(not_won)}


def tenth(kind):
    """The same search bot with a tenth of the iterations (or milliseconds)."""
    bot = make_bot(kind, 0)
    if bot.ms is not None:
        bot.ms = bot.ms / 10
    if bot.iterations is not None:
        bot.iterations = max(1, bot.iterations // 10)
    return bot.spec()


def report(what, r, players):
    print("  %-34s %3d wins of %d (%.1f%%), %d draws; mean margin %+.1f, %.0f turns a game; "
          "a fair share is %.0f%%  [%.0f s]" % (
              what, r["wins"], r["games"], 100.0 * r["wins"] / r["games"], r["draws"],
              r["margin"], r["turns"], 100.0 / players, r["seconds"]), flush=True)
    # The seeds of the games it did not win, to replay and read them (the bot takes
    # seat seed % players; its seed is seed * 10 + its seat, as in one_game).
    if r["not_won"]:
        print("    not won, seeds: %s" % " ".join(str(s) for s in r["not_won"]), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="a game (default: every one)")
    parser.add_argument("--players", type=int, action="append",
                        help="a seat count (default: every one the game allows)")
    parser.add_argument("--budget", default="search:200", help="the search bot's kind")
    parser.add_argument("--games", type=int, default=200, help="games per match")
    parser.add_argument("--self-games", type=int, default=None,
                        help="games against itself at a tenth of the budget (default --games)")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="the first game's seed (default 0); games use the seeds after it")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parts", default="playouts,sims,random,self,greedy")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    names = args.game or games.names()
    if args.first_seed < 0 or args.games < 1:
        parser.error("--first-seed must be 0 or more and --games at least 1")
    print("budget %s; %d games per match (against itself %d), seeds from %d; %d processes"
          % (args.budget, args.games, args.self_games or args.games, args.first_seed,
             args.jobs))
    with multiprocessing.Pool(args.jobs) as pool:
        for name in names:
            module = games.load(name)
            for players in args.players or module.PLAYER_COUNTS:
                if players not in module.PLAYER_COUNTS:
                    continue
                print("%s, %d players" % (module.TITLE, players), flush=True)
                if "playouts" in parts:
                    gps, mps, length = random_playouts(module, players)
                    print("  random playouts: %.0f games/s, %.0f moves/s, %.0f moves a game "
                          "(CPU time)" % (gps, mps, length), flush=True)
                if "sims" in parts:
                    positions = sample_positions(name, players, 30)
                    sps, per = simulations(name, players, args.budget, positions)
                    print("  %s: %.0f simulations/s, %.3f s a decision (30 positions "
                          "from play, CPU time)" % (args.budget, sps, per), flush=True)
                    for own in sorted(set(_kinds(name)) - {"random", "search"}):
                        print("  %s: %.4f s a decision on the same positions" % (
                            own, decision_time(name, own, positions)), flush=True)
                if "random" in parts:
                    r = match(pool, name, players, args.budget, "random", args.games,
                              args.first_seed)
                    report("%s vs random" % args.budget, r, players)
                if "self" in parts:
                    weak = tenth(args.budget)
                    r = match(pool, name, players, args.budget, weak,
                              args.self_games or args.games, args.first_seed)
                    report("%s vs %s" % (args.budget, weak), r, players)
                if "greedy" in parts and "greedy" in _kinds(name):
                    r = match(pool, name, players, args.budget, "greedy",
                              args.self_games or args.games, args.first_seed)
                    report("%s vs greedy" % args.budget, r, players)


def _kinds(name):
    from vora_host.bots import bot_kinds
    return bot_kinds(name)


if __name__ == "__main__":
    main()

"""Is the review's chance worth showing? (issue 41) Across many bot games, the chance a
review gives the player to act should match how often that player then won.

    .venv/bin/python bench/bench_review_calibration.py [--game NAME ...] [--players N]
        [--games N] [--first-seed S] [--positions K] [--bots random,easy,normal]
        [--budget B] [--workers W] [--json FILE]
    .venv/bin/python bench/bench_review_calibration.py --tables FILE   # a --json run again

For each game: --games games between bots (vora_host.lab.swings.play_record, the bots
seeded from the game's seed), seeds S to S+N-1. The bots: every seat list over --bots
(ordered, repeats allowed: at two players with the default three kinds, nine pairings),
game `seed` taking seat list number seed % their count, so a game is the same whatever
else was run, and consecutive seeds go through every pairing. Kinds are bot kinds or the
host's levels (vora_host.bots.levels: easy, normal, hard of each game). Mixing random,
weaker and stronger players gives decided and open positions alike.

In each finished game, K positions (plies 0 to moves-1: a move is still to be made) are
drawn by random.Random(seed), and each is evaluated as `vora games review` does
(vora_host.review.evaluate.evaluate_position, at the review's budget, DEFAULT_BUDGET, with
the secrets the review uses for that game: in Boars and Tossing Tiger it knows every
hand): the chance of the player to act. Its outcome: that player's result at the end,
the winner 1, the others 0, a draw shared among the best scores (vora_host.review.evaluate
.result_values: a two-player draw counts 0.5 each). A game cut by play_record's move
limit is left out and counted.

Printed per game: the positions binned by predicted chance (0-10%, ..., 90-100%; a chance
on a boundary goes to the bin above, 100% to the last), with each bin's count of positions and of
games, mean predicted chance, observed win rate and its Wilson 95% interval
(vora_host.lab.stats; with draws the "wins" are the summed shares); and the Brier score of
the review's chances against that of always predicting 1/players (the base rate), and the
skill 1 - their ratio (above 0: the review adds information), with a 95% interval from
resampling whole games (a game's positions share its outcome, so the Wilson intervals,
which take positions as independent, are too narrow where few games fill a bin).
Progress to stderr. Everything is seeded and the budgets are in iterations: a run gives
the same tables on any machine.
"""

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import games  # noqa: E402
from vora_host.lab.stats import wilson  # noqa: E402
from vora_host.review.evaluate import (DEFAULT_BUDGET, evaluate_position,  # noqa: E402
                                       knows_secrets, positions, result_values)

GAMES = ("vora", "vorcept", "gaia-vora", "tossing-tiger", "boars")
BINS = 10


# --- the statistics: small and pure (tests/test_bench_calibration.py) ---

def bin_of(chance, bins=BINS):
    """The bin (0 to bins-1) of a chance from 0 to 1: [k/bins, (k+1)/bins), the last bin
    closed. A chance on a boundary goes above it, also when its float lies a hair below
    (0.7 may be 0.69999...: the 1e-9 is for that)."""
    if not 0.0 <= chance <= 1.0:
        raise ValueError("a chance is from 0 to 1, not %r" % (chance,))
    return min(bins - 1, int(chance * bins + 1e-9))


def calibration_rows(pairs, bins=BINS):
    """Rows of the table for (chance, outcome) pairs: one per bin, in order, each
    {"low", "high", "n", "mean", "observed", "ci"}; mean and observed are None and ci
    (0, 1) in an empty bin. `observed` is the mean outcome (a shared win counts its
    share), `ci` its Wilson 95% interval."""
    groups = [[] for _ in range(bins)]
    for chance, outcome in pairs:
        groups[bin_of(chance, bins)].append((chance, outcome))
    rows = []
    for k, group in enumerate(groups):
        n = len(group)
        won = sum(o for _, o in group)
        rows.append({"low": k / bins, "high": (k + 1) / bins, "n": n,
                     "mean": sum(c for c, _ in group) / n if n else None,
                     "observed": won / n if n else None, "ci": wilson(won, n)})
    return rows


def brier(pairs):
    """The mean squared difference between the chance and the outcome (0 is perfect)."""
    if not pairs:
        raise ValueError("no positions to score")
    return sum((c - o) ** 2 for c, o in pairs) / len(pairs)


def base_brier(pairs, players):
    """The Brier score of always predicting the fair share, 1/players."""
    return brier([(1.0 / players, o) for _, o in pairs])


def skill(score, base):
    """1 - score/base: above 0 when the chances beat the base rate, 1 for perfect ones."""
    return 1.0 - score / base if base else float("nan")


def games_per_bin(games, bins=BINS):
    """How many games have a position in each bin; `games`: one list of (chance,
    outcome) pairs per game. A game's positions share its outcome, so a bin's n overstates
    how much it knows when few games fill it."""
    seen = [set() for _ in range(bins)]
    for g, pairs in enumerate(games):
        for chance, _ in pairs:
            seen[bin_of(chance, bins)].add(g)
    return [len(s) for s in seen]


def bootstrap_skill(games, players, rounds=2000, seed=0):
    """A 95% interval (2.5% and 97.5% points) of the skill with whole games resampled
    (with replacement, random.Random(seed)): the positions of a game are not independent
    (they share its outcome), so the game is the unit. Resamples whose base Brier is 0
    (every outcome exactly 1/players) are left out; (nan, nan) when none is left."""
    rng = random.Random(seed)
    got = []
    for _ in range(rounds):
        pairs = [p for _ in games for p in games[rng.randrange(len(games))]]
        base = base_brier(pairs, players) if pairs else 0.0
        if base:
            got.append(skill(brier(pairs), base))
    if not got:
        return float("nan"), float("nan")
    got.sort()
    return got[int(0.025 * (len(got) - 1))], got[int(0.975 * (len(got) - 1))]


# --- playing and evaluating ---

def seat_kinds(kinds, players, seed):
    """The bots of game `seed`: seat list number seed % N of the N ordered seat lists."""
    lists = list(itertools.product(kinds, repeat=players))
    return list(lists[seed % len(lists)])


def plies(moves, count, seed):
    """`count` positions (0 to moves-1, sorted) of a game of `moves` moves, drawn by
    random.Random(seed): every one when there are no more."""
    return sorted(random.Random(seed).sample(range(moves), min(count, moves)))


def game_job(job):
    """A worker's task: play one game and evaluate its drawn positions. Returns
    {"seed", "kinds", "moves", "finished", "points": [{"ply", "player", "chance",
    "outcome"}]}."""
    from vora_host.lab.swings import play_record
    game, players, seed, kinds, count, budget = job
    record = play_record(game, players, kinds, seed)
    states = positions(record)
    last = states[-1]
    out = {"seed": seed, "kinds": kinds, "moves": len(record["moves"]),
           "finished": last.is_over(), "points": []}
    if not out["finished"]:
        return out
    result = result_values(last)
    secrets = knows_secrets(game)
    for ply in plies(len(record["moves"]), count, seed):
        e = evaluate_position(game, states[ply].to_json(), ply, budget, secrets)
        p = e["player"]
        # As the review shows it (evaluate._chance): six places, inside 0..1.
        chance = min(1.0, max(0.0, round(float(e["value"][p]), 6)))
        out["points"].append({"ply": ply, "player": p, "chance": chance,
                              "outcome": result[p]})
    return out


def run_game(name, players, args, kinds):
    """Every game of one game name, in `args.workers` processes; results in seed order."""
    seeds = range(args.first_seed, args.first_seed + args.games)
    jobs = [(name, players, s, seat_kinds(kinds, players, s), args.positions, args.budget)
            for s in seeds]
    started = time.monotonic()
    done = []

    def progress(result):
        done.append(result)
        n_points = sum(len(r["points"]) for r in done)
        print("  [%s] %d/%d games, %d positions evaluated, %.0f s" % (
            name, len(done), len(jobs), n_points, time.monotonic() - started),
            file=sys.stderr, flush=True)

    if args.workers <= 1:
        for job in jobs:
            progress(game_job(job))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from vora_host.pools import stop_local_pool
        pool = ProcessPoolExecutor(args.workers,
                                   mp_context=multiprocessing.get_context("spawn"))
        finished = False
        try:
            for future in as_completed([pool.submit(game_job, job) for job in jobs]):
                progress(future.result())
            finished = True
        finally:
            stop_local_pool(pool, finished)
    done.sort(key=lambda r: r["seed"])
    return done, time.monotonic() - started


def kinds_text(game, kinds):
    """The bots as people read them: a level with the kind it stands for in `game`."""
    from vora_host.bots import LEVEL_NAMES, make_bot, short_kind
    return ", ".join("%s (%s)" % (k, short_kind(game, make_bot(k, 0, game).kind))
                     if k in LEVEL_NAMES else k for k in kinds)


def print_table(name, module, players, results, kinds, seconds):
    pairs = [(p["chance"], p["outcome"]) for r in results for p in r["points"]]
    finished = sum(r["finished"] for r in results)
    seeds = [r["seed"] for r in results]
    print("%s, %d players: %d games (seeds %d-%d), %d finished, %d positions; bots %s%s"
          % (module.TITLE, players, len(results), seeds[0], seeds[-1], finished,
             len(pairs), kinds_text(name, kinds),
             "" if seconds is None else "; %.0f s" % seconds))
    if not pairs:
        print("  no positions")
        return
    by_game = [[(p["chance"], p["outcome"]) for p in r["points"]] for r in results]
    print("  %-9s %5s %6s %8s %9s  %s" % ("chance", "n", "games", "mean", "observed",
                                         "95% interval"))
    for row, n_games in zip(calibration_rows(pairs), games_per_bin(by_game)):
        label = "%d-%d%%" % (round(100 * row["low"]), round(100 * row["high"]))
        if row["n"] == 0:
            print("  %-9s %5d %6d" % (label, 0, 0))
            continue
        print("  %-9s %5d %6d %8.3f %9.3f  %.3f-%.3f" % (
            label, row["n"], n_games, row["mean"], row["observed"], row["ci"][0],
            row["ci"][1]))
    b, base = brier(pairs), base_brier(pairs, players)
    wins = sum(o for _, o in pairs) / len(pairs)
    low, high = bootstrap_skill(by_game, players)
    print("  Brier: review %.4f, base rate (always %.3f) %.4f; skill %.3f (games "
          "resampled, 95%%: %.3f to %.3f); mean outcome %.3f, mean chance %.3f" % (
              b, 1.0 / players, base, skill(b, base), low, high, wins,
              sum(c for c, _ in pairs) / len(pairs)), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", choices=GAMES,
                    help="a game (repeat for several; default: all five)")
    ap.add_argument("--players", type=int, default=None,
                    help="seats (default: each game's smallest count, 2 in all five)")
    ap.add_argument("--games", type=int, default=20, help="games per game (default 20)")
    ap.add_argument("--first-seed", type=int, default=20000,
                    help="the first game's seed (default 20000)")
    ap.add_argument("--positions", type=int, default=6,
                    help="positions evaluated per game (default 6)")
    ap.add_argument("--bots", default="random,easy,normal",
                    help="bot kinds or levels the seats are drawn from (default "
                         "random,easy,normal)")
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                    help="iterations a position (default the review's, %d)" % DEFAULT_BUDGET)
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--json", type=Path, help="also write every game's points to this file")
    ap.add_argument("--tables", type=Path, metavar="FILE",
                    help="print the tables of a --json file again (nothing played)")
    args = ap.parse_args(argv)
    if args.tables:
        return reprint(args.tables, args.game)
    if args.games < 1 or args.positions < 1 or args.first_seed < 0 or args.workers < 1 \
            or args.budget < 1:
        ap.error("--games, --positions, --workers and --budget must be at least 1, "
                 "--first-seed at least 0")
    kinds = [k.strip() for k in args.bots.split(",") if k.strip()]
    if not kinds:
        ap.error("--bots names no bot")
    names = args.game or list(GAMES)
    plan = []
    for name in names:
        module = games.load(name)
        players = args.players or min(module.PLAYER_COUNTS)
        if players not in module.PLAYER_COUNTS:
            if args.game:
                ap.error("%s is played by %s players, not %d" % (
                    name, ", ".join(map(str, module.PLAYER_COUNTS)), players))
            print("%s skipped: it is not played by %d" % (name, players), file=sys.stderr)
            continue
        plan.append((name, module, players))
    from vora_host.bots import make_bot
    for name, _, _ in plan:
        for k in kinds:
            try:
                make_bot(k, 0, name)
            except ValueError as e:
                ap.error("--bots: %s" % e)
    print("review calibration: budget %d, %d positions a game, secrets as the review "
          "(Boars, Tossing Tiger: every hand known); %d worker(s)" % (
              args.budget, args.positions, args.workers), flush=True)
    saved = {}
    for name, module, players in plan:
        results, seconds = run_game(name, players, args, kinds)
        print_table(name, module, players, results, kinds, seconds)
        saved[name] = {"players": players, "bots": kinds, "budget": args.budget,
                       "seconds": round(seconds, 1), "games": results}
    if args.json:
        args.json.write_text(json.dumps(saved, indent=1) + "\n")
    return 0


def reprint(path, names):
    """The tables of a file --json wrote, for the games `names` (None: all in it)."""
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit("cannot read %s (%s): give a file this bench's --json wrote"
                         % (path, e))
    for name, run in saved.items():
        if names and name not in names:
            continue
        print("budget %d" % run["budget"])
        print_table(name, games.load(name), run["players"], run["games"], run["bots"],
                    run.get("seconds"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

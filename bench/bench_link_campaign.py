"""The link's fault campaign at full size: whole games (up to 400 moves) between the
board's firmware and the host's client over a line that damages 1 %, 5 % and 20 % of the
frames both ways with every fault kind (tests/link_campaign.py describes the line and the
games), the host's game log compared with the board's record after each game.

    .venv/bin/python bench/bench_link_campaign.py [GAMES_PER_RATE] [--rates 0.01,0.05,0.2]
                                                   [--jobs N] [--seed S] [--faulty SHARE]

Default: 3,000 games a rate on every core. Prints, per rate: moves lost, doubled and
reordered (all must be 0), the catch-up time percentiles (a move played on the board until
the host logged it), the frames damaged, the MOVES_REQ sent and the problems the host
reported. Exits 1 if any move was lost, doubled or reordered. The game log lives in a
temporary folder (on /dev/shm when there is one: the log syncs every move to disk).
Progress goes to stderr every 100 games.

`--postgres` logs every board's games into one PostgreSQL game log (a throwaway server
started in a temporary folder, tests/pgserver.py, fsync on), `--db URL` into the one you
name: with `--jobs 20 --chunk 2` that is 20 virtual boards at once, each with its host,
writing into one database (issue 28), every game compared with its board's record.

`--faulty SHARE` makes the board faulty (tests/link_campaign.py): that share of its moves
it reports with a wrong digest or plays on from a state gone wrong. Moves must still
not be lost, and every game it got wrong must be marked as needing attention in the log
(exit 1 otherwise); the line says how many faults, games marked and resyncs.
"""

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from link_campaign import Summary, percentile, play_game  # noqa: E402


def _work(args):
    rate, seeds, folder, faulty, db = args
    from vora_host.log.store import GameLog
    summary = Summary(rate)
    bad = []
    with GameLog(db or Path(folder) / ("log-%g-%d.sqlite3" % (rate, seeds[0]))) as log:
        for seed in seeds:
            r = play_game(seed, rate, log, faulty=faulty)
            summary.add(r)
            if r.lost or r.doubled or r.reordered or r.attention != bool(r.board_faults):
                bad.append((seed, r.lost, r.doubled, r.reordered))
    return summary, bad


def merge(into, other):
    into.games += other.games
    into.board_moves += other.board_moves
    into.lost += other.lost
    into.doubled += other.doubled
    into.reordered += other.reordered
    into.games_losing += other.games_losing
    into.catch_up_ms += other.catch_up_ms
    into.settle_ms += other.settle_ms
    into.frames += other.frames
    for k, v in other.faults.items():
        into.faults[k] += v
    for k, v in other.problems.items():
        into.problems[k] = into.problems.get(k, 0) + v
    into.asks += other.asks
    into.board_faults += other.board_faults
    into.games_faulty += other.games_faulty
    into.games_marked += other.games_marked
    into.resyncs += other.resyncs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=3000, help="games per rate")
    parser.add_argument("--rates", default="0.01,0.05,0.2")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    parser.add_argument("--faulty", type=float, default=0.0,
                        help="share of the moves a faulty board gets wrong (default 0)")
    parser.add_argument("--chunk", type=int, default=50,
                        help="games a job plays in one go (default 50)")
    parser.add_argument("--db", default=None,
                        help="one game log for every board (a postgresql:// URL or a file)")
    parser.add_argument("--postgres", action="store_true",
                        help="one game log in a throwaway PostgreSQL server for every board")
    args = parser.parse_args()
    rates = [float(r) for r in args.rates.split(",")]
    server = None
    if args.postgres:
        from pgserver import PgServer
        server = PgServer.start(fsync=True)  # every commit waits for the disk
        args.db = server.new_database()
    try:
        return _campaign(args, rates)
    finally:
        if server is not None:
            server.destroy()


def _campaign(args, rates):
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    failed = False
    print("Link fault campaign: %d games a rate, every fault kind, %d jobs%s%s" % (
        args.games, args.jobs, ", a faulty board (%g)" % args.faulty if args.faulty else "",
        ", one log in PostgreSQL" if args.db and args.db.startswith("postgres") else ""))
    with tempfile.TemporaryDirectory(dir=shm) as folder, multiprocessing.Pool(args.jobs) as pool:
        for k, rate in enumerate(rates):
            t0 = time.time()
            # One log for every rate: each rate plays other seeds, or the host would find
            # the games of the rate before already logged and resume them.
            first = args.seed + (k * args.games if args.db else 0)
            chunks = [(rate, list(range(s, min(s + args.chunk, first + args.games))),
                       folder, args.faulty, args.db)
                      for s in range(first, first + args.games, args.chunk)]
            total = Summary(rate)
            for done, (summary, bad) in enumerate(pool.imap_unordered(_work, chunks), 1):
                merge(total, summary)
                for seed, lost, doubled, reordered in bad:
                    print("  game seed %d: lost %d, doubled %d, reordered %d%s"
                          % (seed, lost, doubled, reordered,
                             "" if lost or doubled or reordered else ", its mark wrong"))
                if done % 2 == 0 or done == len(chunks):
                    sys.stderr.write("  %g: %d/%d games\n" % (rate, total.games, args.games))
            c = total.catch_up_ms
            print(total.line())
            print("       catch-up ms p50 %d, p90 %d, p99 %d, p99.9 %d, max %d; after the last "
                  "move, all logged within p50 %d, max %d ms; %.0f s"
                  % (percentile(c, 50), percentile(c, 90), percentile(c, 99),
                     percentile(c, 99.9), max(c) if c else 0, percentile(total.settle_ms, 50),
                     max(total.settle_ms) if total.settle_ms else 0, time.time() - t0))
            failed = failed or total.lost or total.doubled or total.reordered \
                or total.games_marked != total.games_faulty
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

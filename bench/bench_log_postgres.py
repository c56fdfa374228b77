"""Many hosts logging into one PostgreSQL game log at once (issue 28).

    .venv/bin/python bench/bench_log_postgres.py [--boards 20] [--games 3] [--outage 2]
                                                 [--db postgresql://...]

Each of BOARDS processes is one host with its board: it opens the log as `vora play`
does (GameLog, close_stale), and plays GAMES random-bot Vora games at full speed, every
move logged with add_move() as the host logs the moves its board reports (one committed
transaction per move), a takeback now and then, and end_game(). Without --db the script
starts a PostgreSQL server of its own in a temporary folder (tests/pgserver.py), with
fsync ON, so that every commit waits for the disk as in production.

--outage S stops the server S seconds into the run and starts it again S seconds later:
the hosts keep playing; what the log cannot take is kept in memory (NotWritten) and
written when the server is back.

At the end every game is read back and checked: as many games as were played, each
with exactly its moves, numbered 1..n, taken-back moves kept once in the history, and
every game verifies (replayed, every digest checked). The script prints the throughput
and the latency of add_move() (a committed move), and exits 1 when anything was lost or
doubled.
"""

import argparse
import multiprocessing
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from shared_rules import games  # noqa: E402
from vora_host.bots import make_bot  # noqa: E402
from vora_host.log.records import result_of  # noqa: E402
from vora_host.log.store import GameLog, GameLogError, NotWritten  # noqa: E402

TAKEBACK_CHANCE = 0.02


def host(args):
    """One host and its board: returns (games [(id, live moves, history length)],
    add_move latencies in seconds, moves kept in memory for a while)."""
    url, board, count, first_seed = args
    rng = random.Random(board)
    played, latencies, kept = [], [], 0
    log = GameLog(url, timeout=5)
    log.close_stale()
    for seed in range(first_seed, first_seed + count):
        state = games.start({"game": "vora", "players": 2, "seed": seed, "options": {}})
        bots = [make_bot("random", seed * 10 + p) for p in range(2)]
        gid = log.start_game(players=2, seed=seed, source="board /dev/ttyVORA%d" % board,
                             board_game_id=seed)
        live, history = [], 0
        while not state.is_over():
            if live and rng.random() < TAKEBACK_CHANCE:
                try:
                    log.take_back(gid, len(live))
                except NotWritten:
                    kept += 1
                live.pop()
                state = games.start({"game": "vora", "players": 2, "seed": seed,
                                     "options": {}})
                for m in live:
                    state.play(m)
                continue
            move = bots[state.to_act()](state)
            state.play(move)
            live.append(move)
            history += 1
            began = time.perf_counter()
            try:
                log.add_move(gid, len(live), move, state.digest())
            except NotWritten:
                kept += 1
            else:
                latencies.append(time.perf_counter() - began)
        log.end_game(gid, "over", result_of(state))
        played.append((gid, list(live), history))
    while log.pending:  # the server may still be away: wait for it, nothing is dropped
        try:
            log.flush()
        except GameLogError:
            time.sleep(0.2)
    played = [(log.real_id(gid), live, history) for gid, live, history in played]
    assert not log.dropped, log.dropped
    log.close()
    return played, latencies, kept


def check(url, results):
    """Problems found reading every game back (empty when nothing is lost or doubled)."""
    problems = []
    expected = [game for host_games, _, _ in results for game in host_games]
    with GameLog(url, create=False) as log:
        logged = log.games()
        if len(logged) != len(expected):
            problems.append("%d games played, %d in the log" % (len(expected), len(logged)))
        if len({g["id"] for g in logged}) != len(logged):
            problems.append("a game id appears twice")
        for gid, live, history in expected:
            info = log.game(gid)
            if [m["move"] for m in info["moves"]] != live:
                problems.append("game %d: its live moves differ from the ones played" % gid)
            if len(info["history"]) != history:
                problems.append("game %d: %d moves played, %d in its history"
                                % (gid, history, len(info["history"])))
            if info["status"] != "over":
                problems.append("game %d is %s, not over" % (gid, info["status"]))
            report = log.verify(gid)
            if not report.ok:
                problems.append("game %d does not verify: %s" % (gid, report.message))
    return problems, len(expected), sum(h for _, _, h in expected)


def outage(server, after, length, said):
    time.sleep(after)
    server.stop()
    said.append("server stopped at %.1f s" % after)
    time.sleep(length)
    server.restart()
    said.append("server started again at %.1f s" % (after + length))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=20)
    parser.add_argument("--games", type=int, default=3, help="games per board")
    parser.add_argument("--outage", type=float, default=0.0, metavar="S",
                        help="stop the server S seconds in, for S seconds")
    parser.add_argument("--db", default=None, help="an existing, empty database's URL")
    args = parser.parse_args(argv)

    server = None
    url = args.db
    if url is None:
        from pgserver import PgServer
        server = PgServer.start(fsync=True)
        url = server.new_database()
    elif args.outage:
        parser.error("--outage needs the script's own server (no --db)")
    said = []
    try:
        GameLog(url).close()  # the schema, once, before the clock starts
        jobs = [(url, b, args.games, 1000 * b + 1) for b in range(args.boards)]
        if args.outage:
            threading.Thread(target=outage, args=(server, args.outage, args.outage, said),
                             daemon=True).start()
        began = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(args.boards) as pool:
            results = pool.map(host, jobs)
        elapsed = time.perf_counter() - began
        problems, count, moves = check(url, results)
    finally:
        if server is not None:
            server.destroy()
    latencies = sorted(x for _, lat, _ in results for x in lat)
    kept = sum(k for _, _, k in results)

    def ms(q):
        return 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]

    print("PostgreSQL game log: %d boards x %d games at once, %s" % (
        args.boards, args.games, "fsync on" if server is not None else "server of --db"))
    for line in said:
        print("  " + line)
    print("  %d games, %d moves logged in %.1f s: %.0f moves/s" % (count, moves, elapsed,
                                                                 moves / elapsed))
    print("  add_move (committed) latency: median %.1f ms, p95 %.1f ms, p99 %.1f ms, "
          "max %.1f ms" % (1000 * statistics.median(latencies), ms(0.95), ms(0.99),
                           1000 * latencies[-1]))
    if kept:
        print("  %d changes kept in memory while the server was away, all written after"
              % kept)
    if problems:
        print("PROBLEMS:")
        for p in problems[:20]:
            print("  " + p)
        return 1
    print("  every game read back: nothing lost, nothing doubled, every game verifies")
    return 0


if __name__ == "__main__":
    sys.exit(main())

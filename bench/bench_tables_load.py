"""Many tables of `vora serve --tables` played at once through the HTTP API (issue 39).

    .venv/bin/python bench/bench_tables_load.py [--tables 50] [--spectators 100]
        [--game vorcept] [--think 0.25] [--postgresql | --db PATH|URL] [--workers N]
        [--client-processes N]

`vora serve --tables` runs in its own process, over an SQLite log in a temporary folder
(or PostgreSQL: --postgresql starts a server of its own, tests/pgserver.py, fsync on; or
--db). This process sets up TABLES tables through POST /api/tables, each with two browser
seats, and plays both seats of each through the seat API as a browser does: each seat
holds its event stream open, and on its turn waits THINK seconds and posts a random legal
move with the number of moves it saw. SPECTATORS more streams follow the tables' games on
/api/events?game=ID, as the game pages do.

Measured: from a move posted to the other seat's stream bringing the view with that
move (p50, p95, max), the same to a spectator's stream naming the game, the server's
memory (VmRSS) before the tables, after setting them up and at the end. At the end every
game is read back from the log: its moves are exactly the moves the seats had accepted,
in their order (nothing lost, doubled or reordered), and it verifies. Exit status 1 when
anything is wrong.
"""

import argparse
import json
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

HEADERS = {"X-Vora-Seat": "1"}
DEADLINE = 600.0


def sse(lines):
    """(event, data) of a server-sent event stream's lines."""
    kind, data = None, []
    for line in lines:
        if line == "":
            if data:
                yield kind, json.loads("\n".join(data))
            kind, data = None, []
        elif line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])


def rss_kb(pid):
    """The resident memory and its peak of the process and its children (the workers of
    --workers), in KB (Linux)."""
    rss = hwm = 0
    for p in [pid] + _children(pid):
        try:
            for line in Path("/proc/%d/status" % p).read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm += int(line.split()[1])
        except OSError:
            pass  # (a worker gone meanwhile)
    return rss, hwm


def cpu_seconds(pid):
    """CPU seconds (user and system) the process and its children (the workers of
    --workers) have used so far (Linux: /proc/PID/stat, in clock ticks)."""
    import os
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in [pid] + _children(pid):
        try:
            fields = Path("/proc/%d/stat" % p).read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # (a worker gone meanwhile)
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def _children(pid):
    out = []
    for task in Path("/proc/%d/task" % pid).glob("*"):
        try:
            kids = [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            continue
        for k in kids:
            out += [k] + _children(k)
    return out


class Seat(threading.Thread):
    """One browser seat, played as a page plays it: its stream, and a move on its turn."""

    def __init__(self, base, table, player, token, think, seed, shared):
        super().__init__(daemon=True)
        self.base, self.table, self.player, self.token = base, table, player, token
        self.think = think
        self.rng = random.Random(seed)
        self.shared = shared  # {"posted": {(table, number): time}, "arrived": [...], ...}
        self.ready = threading.Event()
        self.problems = []

    def run(self):
        try:
            self._play()
        except Exception as exc:  # named in the report
            self.problems.append("table %s P%d: %r" % (self.table, self.player, exc))
        finally:
            self.ready.set()

    def _play(self):
        shared = self.shared
        url = "/api/seat/%s" % self.token
        with httpx2.Client(base_url=self.base, timeout=60) as poster, \
                httpx2.Client(base_url=self.base, timeout=None) as reader, \
                reader.stream("GET", url + "/events") as response:
            client = None
            tried = -1
            for kind, data in sse(response.iter_lines()):
                if kind == "hello":
                    client = data["client"]
                    self.ready.set()
                    continue
                if kind != "seat":
                    continue
                now = time.perf_counter()
                with shared["lock"]:
                    shared["arrived"].append((self.table, self.player, data["number"], now))
                if data["over"] or data["stopped"]:
                    return
                if not data["your_turn"] or data["number"] == tried:
                    continue
                tried = data["number"]
                if self.think:
                    time.sleep(self.think)
                move = self.rng.choice(data["moves"])["move"]
                began = time.perf_counter()
                answer = poster.post(url + "/move", headers=HEADERS, json={
                    "move": move, "number": data["number"], "client": client})
                with shared["lock"]:
                    if answer.status_code == 200:
                        shared["posted"][(self.table, data["number"] + 1)] = (began,
                                                                              self.player)
                        shared["accepted"].setdefault(self.table, []).append(move)
                        shared["post_ms"].append(1000 * (time.perf_counter() - began))
                    else:
                        shared["refused"].append((self.table, answer.text[:200]))


class Spectator(threading.Thread):
    """A game page: /api/events?game=ID, the position of each change."""

    def __init__(self, base, gid, shared):
        super().__init__(daemon=True)
        self.base, self.gid, self.shared = base, gid, shared
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.problems = []

    def run(self):
        try:
            with httpx2.Client(base_url=self.base, timeout=None) as c, \
                    c.stream("GET", "/api/events?game=%d" % self.gid) as response:
                for kind, data in sse(response.iter_lines()):
                    if kind == "hello":
                        self.ready.set()
                    elif kind == "changed" and "position" in data:
                        now = time.perf_counter()
                        with self.shared["lock"]:
                            self.shared["seen"].append((self.gid, data["position"]["number"],
                                                        now))
                    if self.stop.is_set():
                        return
        except Exception as exc:
            if not self.stop.is_set():
                self.problems.append("spectator of game %d: %r" % (self.gid, exc))
        finally:
            self.ready.set()


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def delays(posted, arrivals):
    """Seconds from each move posted to the first arrival of a view with it, at each
    stream that was not the poster's: arrivals are (table, who, number, time)."""
    first = {}
    for table, who, number, at in arrivals:
        key = (table, who, number)
        if key not in first or at < first[key]:
            first[key] = at
    out = []
    for (table, number), (began, poster) in posted.items():
        for (t, who, n), at in first.items():
            if t == table and n == number and who != poster:
                out.append(at - began)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--game", default="vorcept")
    parser.add_argument("--think", type=float, default=0.25,
                        help="seconds a seat waits on its turn before it posts its move")
    parser.add_argument("--postgresql", action="store_true",
                        help="the log on a PostgreSQL server this script starts")
    parser.add_argument("--db", default=None, help="the log: an SQLite path or a URL")
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes (vora serve --workers; more than one needs "
                             "--postgresql or a postgresql:// --db)")
    parser.add_argument("--client-processes", type=int, default=1,
                        help="processes the seats and spectators are spread over (one: "
                             "their 300 threads share one interpreter's lock, whose waits "
                             "are counted in the delays measured)")
    args = parser.parse_args(argv)

    server = None
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "games.sqlite3")
        if args.postgresql:
            from pgserver import PgServer
            server = PgServer.start(fsync=True)
            db = server.new_database()
        proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--tables",
                                 "--max-tables", str(max(args.tables, 1)), "--max-streams",
                                 str(2 * args.tables + args.spectators + 10), "--port", "0",
                                 "--workers", str(args.workers), "--db", db],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        try:
            return run(args, proc, db, server)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                proc.wait(60)
            if server is not None:
                server.destroy()


def run(args, proc, db, server):
    first = proc.stdout.readline()
    found = re.search(r"at (http://\S+)(?: with \d+ server processes)? \(Ctrl-C stops\)",
                      first)
    if not found:
        print("vora serve did not start: %s%s" % (first, proc.stdout.read()))
        return 1
    base = found.group(1)
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # its later lines
    seats, made = [], []
    with httpx2.Client(base_url=base, timeout=60) as c:
        end = time.monotonic() + 60
        while True:  # (the workers of --workers start after the address is said)
            try:
                c.get("/api/tables")
                break
            except httpx2.TransportError:
                if time.monotonic() > end:
                    print("vora serve does not answer")
                    return 1
                time.sleep(0.1)
        before = rss_kb(proc.pid)
        for k in range(args.tables):
            answer = c.post("/api/tables", headers=HEADERS,
                            json={"game": args.game, "seats": ["browser", "browser"],
                                  "seed": 1000 + k})
            if answer.status_code != 201:
                print("table %d not set up: %s" % (k, answer.text))
                return 1
            table = answer.json()
            made.append(table["table"])
            for seat in table["seats"]:
                seats.append((table["table"], seat["player"],
                              seat["link"].rsplit("/", 1)[1], k * 10 + seat["player"]))
    watched = [made[k % len(made)] for k in range(args.spectators)]
    parts = max(1, min(args.client_processes, len(made)))
    # Each part plays whole tables (both seats) and follows some games, in its own
    # process when there are several: the delays are measured with time.perf_counter,
    # the system's monotonic clock on Linux, the same in every process.
    jobs = [(base, [s for s in seats if made.index(s[0]) % parts == i],
             watched[i::parts], args.think) for i in range(parts)]
    at = {}  # the server's memory and CPU when the seats start, and its memory's peak

    def ready():  # every part's spectators are following: the seats start
        at["set_up"] = at["peak"] = rss_kb(proc.pid)
        at["cpu"] = cpu_seconds(proc.pid)

    def sample():  # while the seats play
        at["peak"] = max(at["peak"], rss_kb(proc.pid))

    if parts == 1:
        results = [play_part(*jobs[0], on_ready=ready, on_wait=sample)]
    else:
        results = play_parts(jobs, ready, sample)
    elapsed = max(r["elapsed"] for r in results)
    server_cpu = cpu_seconds(proc.pid) - at["cpu"]
    client_cpu = sum(r["cpu"] for r in results)
    set_up, peak = at["set_up"], at["peak"]
    after = rss_kb(proc.pid)
    shared = {"posted": {}, "arrived": [], "accepted": {}, "refused": [], "seen": [],
              "post_ms": []}
    problems = []
    for r in results:
        shared["posted"].update(r["posted"])
        shared["accepted"].update(r["accepted"])
        for key in ("arrived", "refused", "seen", "post_ms"):
            shared[key] += r[key]
        problems += r["problems"]
    problems += ["table %s: a move refused: %s" % r for r in shared["refused"]]
    problems += check_log(db, made, shared["accepted"])
    to_seat = delays(shared["posted"], shared["arrived"])
    to_watcher = delays(shared["posted"], [(g, "spectator", n, at)
                                           for g, n, at in shared["seen"]])
    moves = len(shared["posted"])
    print("vora serve --tables: %d tables of %s, 2 browser seats each, %d spectators, "
          "the log on %s, %s; the clients in %s" % (
              args.tables, args.game, args.spectators,
              "PostgreSQL (fsync on)" if server else "SQLite",
              "one server process" if args.workers == 1 else
              "%d server processes" % args.workers,
              "one process" if parts == 1 else "%d processes" % parts))
    print("  %d moves in %.1f s (%.0f moves/s; each seat thinks %.2f s)"
          % (moves, elapsed, moves / elapsed, args.think))
    if moves:
        # Where the machine's CPU went while the tables played: the server's processes,
        # and this script's 2 threads a table and 1 a spectator (on the same cores).
        print("  CPU while playing: the server %.1f s (%.1f ms a move), these clients %.1f s "
              "(%.1f ms a move)" % (server_cpu, 1000 * server_cpu / moves, client_cpu,
                                    1000 * client_cpu / moves))
    if to_seat:
        print("  a move posted to the other seat's stream: p50 %.1f ms, p95 %.1f ms, max "
              "%.1f ms (%d)" % (1e3 * statistics.median(to_seat),
                                1e3 * percentile(to_seat, 0.95), 1e3 * max(to_seat),
                                len(to_seat)))
        print("  the POST itself (the move checked, logged, answered): p50 %.1f ms, p95 "
              "%.1f ms" % (statistics.median(shared["post_ms"]),
                           percentile(shared["post_ms"], 0.95)))
    if to_watcher:
        print("  a move posted to a spectator's stream: p50 %.1f ms, p95 %.1f ms (%d)"
              % (1e3 * statistics.median(to_watcher), 1e3 * percentile(to_watcher, 0.95),
                 len(to_watcher)))
    print("  server memory (VmRSS): %d MB before, %d MB with the tables set up, %d MB at "
          "the most, %d MB at the end" % (before[0] // 1024, set_up[0] // 1024,
                                          peak[0] // 1024, after[0] // 1024))
    if problems:
        print("PROBLEMS (%d):" % len(problems))
        for p in problems[:20]:
            print("  " + p)
        return 1
    print("  every game read back from the log: exactly the moves accepted, in order; "
          "each verifies")
    return 0


def play_part(base, seat_specs, watched, think, on_ready=None, on_wait=None):
    """Play these seats and follow these games until the seats' games end: what was
    posted, accepted and seen, with times (time.perf_counter), and this process's CPU."""
    import os
    shared = {"lock": threading.Lock(), "posted": {}, "arrived": [], "accepted": {},
              "refused": [], "seen": [], "post_ms": []}
    seats = [Seat(base, table, player, token, think, seed, shared)
             for table, player, token, seed in seat_specs]
    spectators = [Spectator(base, gid, shared) for gid in watched]
    for s in spectators:
        s.start()
    for s in spectators:
        s.ready.wait(60)
    if on_ready is not None:
        on_ready()
    cpu = sum(os.times()[:2])
    began = time.perf_counter()
    for s in seats:
        s.start()
    late = []
    while any(s.is_alive() for s in seats):
        if time.perf_counter() - began > DEADLINE:
            late.append("the games did not end within %d s" % DEADLINE)
            break
        if on_wait is not None:
            on_wait()
        time.sleep(0.5)
    elapsed = time.perf_counter() - began
    cpu = sum(os.times()[:2]) - cpu
    time.sleep(1.0)  # the spectators' last events
    for s in spectators:
        s.stop.set()
    del shared["lock"]
    return dict(shared, elapsed=elapsed, cpu=cpu,
                problems=late + [p for s in seats + spectators for p in s.problems])


def _part_process(job, started, go, out):
    # One part in a process of its own: its spectators follow, it says so, and its seats
    # start when every part's spectators follow (`go`).
    out.put(play_part(*job, on_ready=lambda: (started.release(), go.wait())))


def play_parts(jobs, ready, sample):
    """play_part() for each job in a process of its own (forked), all started together."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    started, go, out = ctx.Semaphore(0), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_part_process, args=(job, started, go, out), daemon=True)
             for job in jobs]
    for p in procs:
        p.start()
    for _ in procs:
        started.acquire()
    ready()
    go.set()
    results = []
    while len(results) < len(procs):
        try:
            results.append(out.get(timeout=0.5))
        except Exception:  # queue.Empty: still playing
            sample()
            if not any(p.is_alive() for p in procs) and out.empty():
                raise SystemExit("a client process ended without its results")
    for p in procs:
        p.join(10)
    return results


def check_log(db, made, accepted):
    from vora_host.log.store import GameLog
    problems = []
    glog = GameLog(db)
    try:
        for gid in made:
            info = glog.game(gid)
            moves = [m["move"] for m in info["moves"]]
            if moves != accepted.get(gid, []):
                problems.append("game %d: the log holds %d moves, the seats had %d accepted"
                                % (gid, len(moves), len(accepted.get(gid, []))))
            if info["status"] != "over":
                problems.append("game %d is %s" % (gid, info["status"]))
            if not glog.verify(gid).ok:
                problems.append("game %d does not verify" % gid)
    finally:
        glog.close()
    return problems


if __name__ == "__main__":
    sys.exit(main())

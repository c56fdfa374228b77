"""The web mirror beside live play (issue 43): `vora serve` on a game log, live event
streams open (so the log's watcher runs), other processes playing games into the same log
in a loop, and requests to the list, the games and the pages all the while. Every answer
must be right: a 200 with what the log holds, never "the game log cannot be read" of a
sound log, never "no game N" of a game the server itself announced or listed.

Used by tests/test_web_soak.py (a bounded run in the suite) and bench/bench_web_soak.py
(the five-minute run of docs/benchmarks.md).
"""

import json
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2

from vora_host.log.store import GameLog

__all__ = ["soak", "Soak"]

# One writer a game, as the issue ran it; random bots make short games (more games
# started, ended and closed a second, which is where the readers went wrong).
WRITERS = (("vora", ()), ("boars", ("--bot", "random")), ("vorcept", ("--bot", "random")))


class Soak:
    """What a soak saw: answers given, the wrong ones (with a sample), games played."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers = 0
        self.wrong = []  # (what was asked, status, the start of the answer)
        self.events = 0
        self.games_played = 0
        self.games_by = {}  # writer's game -> games it played
        self.writer_failures = []
        self.seen = set()  # game ids the server has listed or announced
        self.integrity = None

    def answered(self, what, status, text, ok):
        with self.lock:
            self.answers += 1
            if not ok:
                self.wrong.append((what, status, text[:300]))

    def summary(self):
        return ("%d answers, %d wrong; %d events on the streams; %d games played by the "
                "writers (%d failed); integrity_check %s"
                % (self.answers, len(self.wrong), self.events, self.games_played,
                   len(self.writer_failures), self.integrity))


def _serve(db):
    proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--port", "0",
                             "--db", str(db)], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"(http://\S+)", line)
    if found is None:
        proc.kill()
        raise RuntimeError("vora serve did not print its address: %r" % line)
    return proc, found.group(1)


def _check_game(soak, client, base, gid, why):
    r = client.get(base + "api/games/%d" % gid)
    ok = r.status_code == 200 and r.json().get("id") == gid
    soak.answered("%s: /api/games/%d" % (why, gid), r.status_code, r.text, ok)


def _stream(soak, base, query, stop, ready):
    """An event stream, as a page holds it: on each change, the changed games asked for."""
    with httpx2.Client(timeout=60) as client:
        while not stop.is_set():
            try:
                with client.stream("GET", base + "api/events" + query) as response:
                    kind = None
                    for line in response.iter_lines():
                        if stop.is_set():
                            return
                        if line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: "):
                            data = json.loads(line[6:])
                            if kind == "hello":
                                ready.set()
                                continue
                            with soak.lock:
                                soak.events += 1
                            if data.get("trouble"):
                                soak.answered("event " + query, 200, data["trouble"], False)
                            for gid in data.get("ids", []):
                                with soak.lock:
                                    soak.seen.add(gid)
                                _check_game(soak, client, base, gid, "announced")
            except httpx2.TransportError:
                if not stop.is_set():
                    raise


def _requests(soak, base, stop, rnd):
    with httpx2.Client(timeout=60) as client:
        while not stop.is_set():
            with soak.lock:
                seen = sorted(soak.seen)
            r = client.get(base + "api/games")
            ok = r.status_code == 200
            if ok:
                ids = set(g["id"] for g in r.json()["games"])
                # Nothing is deleted: a game once seen must be there in a later answer.
                ok = set(seen) <= ids
                with soak.lock:
                    soak.seen |= ids
            soak.answered("/api/games", r.status_code, r.text, ok)
            if seen:
                _check_game(soak, client, base, rnd.choice(seen), "listed")
                gid = rnd.choice(seen)
                r = client.get(base + "game/%d" % gid)
                soak.answered("/game/%d" % gid, r.status_code, r.text, r.status_code == 200)
                r = client.get(base + "api/games/%d/position/latest" % gid)
                soak.answered("/api/games/%d/position/latest" % gid, r.status_code, r.text,
                              r.status_code == 200)
            r = client.get(base)
            soak.answered("/", r.status_code, r.text, r.status_code == 200)


def _writer(soak, db, game, extra, deadline, done):
    while time.monotonic() < deadline and not done.is_set():
        proc = subprocess.run([sys.executable, "-m", "vora_host", "play", game, "--typed",
                               "--bots-only", "--fresh", "--quiet", "--db", str(db)]
                              + list(extra), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=600)
        with soak.lock:
            if proc.returncode == 0:
                soak.games_played += 1
                soak.games_by[game] = soak.games_by.get(game, 0) + 1
            else:
                soak.writer_failures.append((game, proc.returncode, proc.stdout[-500:]))


def soak(folder, seconds, streams=4, requesters=2, writers=WRITERS, seed=1, enough=None):
    """Run a soak for `seconds` over a new log in `folder`; returns its Soak. `enough`: a
    test of the Soak that ends it sooner (each writer then ends the game it plays): what
    a test waits for, where a campaign (bench/bench_web_soak.py) runs its time."""
    db = Path(folder) / "games.sqlite3"
    GameLog(db).close()
    result = Soak()
    proc, base = _serve(db)
    stop = threading.Event()
    threads = []
    try:
        readies = []
        for i in range(streams):
            # Half follow the whole log (the list page), half one game (a game page).
            query = "" if i % 2 == 0 else "?game=%d" % (i // 2 + 1)
            ready = threading.Event()
            readies.append(ready)
            threads.append(threading.Thread(target=_stream, args=(result, base, query, stop,
                                                                  ready), daemon=True))
        for t in threads:
            t.start()
        for ready in readies:
            if not ready.wait(60):
                raise RuntimeError("an event stream did not say hello within 60 s")
        deadline = time.monotonic() + seconds
        done = threading.Event()
        workers = [threading.Thread(target=_writer,
                                    args=(result, db, game, extra, deadline, done),
                                    daemon=True) for game, extra in writers]
        workers += [threading.Thread(target=_requests,
                                     args=(result, base, stop, random.Random(seed + i)),
                                     daemon=True) for i in range(requesters)]
        for t in workers:
            t.start()
        while time.monotonic() < deadline:
            if enough is not None:
                with result.lock:
                    if enough(result):
                        break
            time.sleep(0.2)
        done.set()
        for t in workers[:len(writers)]:
            t.join(600)  # each writer ends the game it plays
        stop.set()
        for t in workers[len(writers):]:
            t.join(60)
    finally:
        stop.set()
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    with sqlite3.connect(db) as conn:
        result.integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    return result

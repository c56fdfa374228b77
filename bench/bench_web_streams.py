"""The web mirror's live streams under load (issue 43): READERS pages that read every
event plus STALLED pages that read nothing, while MOVES changes of one game are logged;
the server's memory before, after and at its peak, and what became of each page.

    .venv/bin/python bench/bench_web_streams.py [READERS [STALLED [MOVES]]]

Defaults 200, 100, 500. `vora serve` runs in its own process over a log in a temporary
folder; the pages are sockets of this process (asyncio), half of the readers following
the game (each event carries the new position, ~8 KB), half the whole log, every stalled
page following the game (the larger events). One Boars game (kept from ending) is
logged as `vora play` logs it (LiveLog), a move every 50 ms (when no move keeps it going,
a takeback). The server's memory is its resident set (VmRSS, and VmHWM for the peak)
from /proc; the kernel's TCP buffers from /proc/net/sockstat; the connections the server
still holds from /proc/net/tcp. -v prints the server's own output.
"""

import asyncio
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shared_rules import games
from vora_host.log.live import LiveLog

PACE = 0.05  # seconds between two moves
WAIT_AFTER = 15  # seconds after the moves: app.WRITE_STALL_SECONDS and a margin
NUMBER = re.compile(rb'"number":(\d+)')


def tcp_kernel_mb():
    """What the kernel holds in TCP buffers, all sockets (/proc/net/sockstat, pages)."""
    for line in Path("/proc/net/sockstat").read_text().splitlines():
        if line.startswith("TCP:"):
            words = line.split()
            return int(words[words.index("mem") + 1]) * 4096 / 2 ** 20
    return float("nan")


def server_connections(port):
    """Connections the server holds on its port (/proc/net/tcp, any state but LISTEN)."""
    count = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(name).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1].endswith(":%04X" % port) and fields[3] != "0A":
                count += 1
    return count


def rss(pid):
    fields = {}
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024.0, int(fields["VmHWM"].split()[0]) / 1024.0


class Page:
    """An event stream on a socket: read to the end, or never read."""

    def __init__(self, port, query, reads):
        self.port, self.query, self.reads = port, query, reads
        self.hello = asyncio.Event()
        self.events = 0
        self.last = 0  # the number of the newest position read
        self.ended = False  # the server closed the stream
        self.bytes = 0

    async def run(self):
        reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write(b"GET /api/events%s HTTP/1.1\r\nHost: localhost\r\n\r\n"
                          % self.query.encode())
        await self.writer.drain()
        buf = b""
        while not self.hello.is_set():
            chunk = await reader.read(65536)
            if not chunk:
                self.ended = True
                return
            buf += chunk
            if b"event: hello" in buf:
                self.hello.set()
        if not self.reads:
            return  # never reads again
        tail = b""
        while True:
            chunk = await reader.read(262144)
            if not chunk:
                self.ended = True
                return
            self.bytes += len(chunk)
            data = tail + chunk  # an event cut between two reads is whole here
            self.events += data.count(b"event: changed") - tail.count(b"event: changed")
            numbers = NUMBER.findall(data)
            if numbers:
                self.last = int(numbers[-1])
            tail = data[-64:]

    def close(self):
        self.writer.close()


class Game:
    """A Boars game logged as `vora play` logs it; once no move keeps it going, its last
    move is taken back (a change too), so that it lasts as long as asked."""

    def __init__(self, db, seed=3):
        self.state = games.start({"game": "boars", "players": 2, "seed": seed, "options": {}})
        self.live = LiveLog(db, "boars", 2, seed, self.state.options())
        self.gid = self.live.gid
        self.moves = 0  # the live moves
        self.before = []  # the states before each live move
        self.rnd = random.Random(seed)

    def play(self):
        legal = sorted(self.state.legal_moves())
        for move in self.rnd.sample(legal, len(legal)):
            after = self.state.clone()
            after.play(move)
            if not after.is_over():
                self.before.append(self.state)
                self.state = after
                self.moves += 1
                self.live.moved(self.moves, move, after.digest())
                return
        self.live.took_back(self.moves)
        self.moves -= 1
        self.state = self.before.pop()


async def bench(port, pid, game, readers, stalled, moves):
    before = rss(pid)[0]
    pages = [Page(port, "?game=%d" % game.gid if i % 2 == 0 else "", True)
             for i in range(readers)]
    pages += [Page(port, "?game=%d" % game.gid, False) for _ in range(stalled)]
    tasks = [asyncio.ensure_future(p.run()) for p in pages]
    await asyncio.wait_for(asyncio.gather(*(p.hello.wait() for p in pages)), 120)
    opened = rss(pid)[0]
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    for _ in range(moves):
        await loop.run_in_executor(None, game.play)
        await asyncio.sleep(PACE)
    played = time.monotonic() - started
    followers = [p for p in pages[:readers] if p.query]
    end = time.monotonic() + 120
    while any(p.last != game.moves for p in followers) and time.monotonic() < end:
        await asyncio.sleep(0.1)
    await asyncio.sleep(WAIT_AFTER)  # a stalled page is dropped 10 s after its last byte
    after, peak = rss(pid)
    kernel = tcp_kernel_mb()
    held = server_connections(port)
    ended_stalled = sum(1 for p in pages[readers:] if p.ended or p.writer.transport.is_closing())
    for p in pages:
        p.close()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(3)
    closed = rss(pid)[0]
    kernel_closed = tcp_kernel_mb()
    caught_up = sum(1 for p in followers if p.last == game.moves)
    events = sorted(p.events for p in pages[:readers])
    return {"before": before, "opened": opened, "after": after, "peak": peak,
            "closed": closed, "played": played, "kernel": kernel,
            "kernel_closed": kernel_closed, "held": held, "caught_up": caught_up,
            "followers": len(followers), "events_min": events[0], "events_max": events[-1],
            "readers_ended": sum(1 for p in pages[:readers] if p.ended)}


def main():
    readers = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    stalled = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    moves = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        game = Game(db)
        game.play()
        proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--port", "0",
                                 "--db", str(db)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            port = int(re.search(r"http://[^:]+:(\d+)/", proc.stdout.readline()).group(1))
            time.sleep(1)  # settled
            r = asyncio.run(bench(port, proc.pid, game, readers, stalled, moves))
        finally:
            proc.terminate()
            proc.wait(10)
        errors = proc.stderr.read()
        dropped = errors.count("dropped a live event stream")
        if "-v" in sys.argv:
            print(errors)
    print("%d readers + %d stalled pages, %d moves in %.1f s (a move every %d ms)"
          % (readers, stalled, moves, r["played"], PACE * 1000))
    print("server memory (RSS): %.1f MB before, %.1f MB with the streams open, %.1f MB after "
          "the moves (peak %.1f MB), %.1f MB once all pages closed"
          % (r["before"], r["opened"], r["after"], r["peak"], r["closed"]))
    print("the kernel's TCP buffers (all sockets of the machine): %.1f MB after the moves, "
          "%.1f MB once all pages closed" % (r["kernel"], r["kernel_closed"]))
    print("connections the server still holds %d s after the moves: %d (the readers': %d); "
          "stalled pages dropped for a write that waited 10 s: %d (the others given up by "
          "the kernel, TCP_USER_TIMEOUT)" % (WAIT_AFTER, r["held"], readers, dropped))
    print("readers cut: %d; readers following the game at its last move: %d of %d; "
          "changes read per reader: %d to %d"
          % (r["readers_ended"], r["caught_up"], r["followers"], r["events_min"],
             r["events_max"]))


if __name__ == "__main__":
    main()

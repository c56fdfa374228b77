"""The bounds of the web mirror's live event streams (issue 43): a stream's queue is
bounded (a full one is merged into one change that loses no game id); a page that reads
nothing is dropped (the others go on; it catches up from the log when it connects
again); past --max-streams a stream is refused with a 503 that says why. The memory they
cost, measured: bench/bench_web_streams.py (docs/benchmarks.md)."""

import asyncio

import json
import random
import socket
import threading
import time

import httpx2
import pytest

from shared_rules import games
from vora_host.log.live import LiveLog
from vora_host.log.store import GameLog
from vora_host.web import app as web_app
from vora_host.web import serve

from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)


def wait_for(condition, timeout=60.0, what="the condition"):
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("%s did not come within %d s" % (what, timeout))
        time.sleep(0.02)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite3"


class Game:
    """A Boars game logged as `vora play` logs it, kept going (it is long)."""

    def __init__(self, db, seed=3):
        self.state = games.start({"game": "boars", "players": 2, "seed": seed,
                                  "options": {}})
        self.live = LiveLog(db, "boars", 2, seed, self.state.options())
        self.gid = self.live.gid
        self.moves = 0
        self.rnd = random.Random(seed)

    def play(self):
        legal = sorted(self.state.legal_moves())
        for move in self.rnd.sample(legal, len(legal)):
            after = self.state.clone()
            after.play(move)
            if not after.is_over():
                break
        assert not after.is_over(), "the game ended: use another seed"
        self.state = after
        self.moves += 1
        self.live.moved(self.moves, move, after.digest())


@pytest.fixture
def running(db, request):
    GameLog(db).close()
    options = dict(getattr(request, "param", {}))
    sock = serve.bind("127.0.0.1", 0)
    if "sndbuf" in options:  # the connections it accepts take the listener's
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, options.pop("sndbuf"))
    server = serve.start_in_thread(sock, db, **options)
    wait_for(lambda: server.started, 20, "the server")
    server.base = serve.address_of(sock)
    server.port = sock.getsockname()[1]
    server.watcher = server.config.app.state.watcher
    yield server
    server.should_exit = True
    server.thread.join(20)
    assert not server.thread.is_alive()


def raw_stream(port, query="", rcvbuf=None):
    """An event stream on a socket of its own, that reads only when told to."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # before connect
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /api/events%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % query.encode())
    return s


def read_until(s, needle, timeout=30):
    s.settimeout(timeout)
    got = b""
    while needle not in got:
        chunk = s.recv(65536)
        if not chunk:
            raise AssertionError("the stream ended before %r: %r" % (needle, got[-300:]))
        got += chunk
    return got


class Reader(threading.Thread):
    """An event stream read as a page reads it: the numbers of the positions it gets."""

    def __init__(self, base, query):
        super().__init__(daemon=True)
        self.url = base + "api/events" + query
        self.hello = threading.Event()
        self.numbers = []

    def run(self):
        with httpx2.Client(timeout=120) as c, c.stream("GET", self.url) as response:
            kind = None
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    if kind == "hello":
                        self.hello.set()
                    elif kind == "changed":
                        self.numbers.append(json.loads(line[6:])["position"]["number"])


def test_a_full_queue_becomes_one_change_that_loses_no_game():
    async def run():
        watcher = web_app.LogWatcher("unused", max_streams=3)
        follower, everything = watcher.subscribe(7), watcher.subscribe()
        positions = {}
        for k in range(1, 2 * web_app.STREAM_QUEUE + 1):
            message = {"version": k, "ids": [k % 5 + 1, 7]}
            if k == 30:
                message["trouble"] = "the log cannot be read: locked"
            elif k == 31:
                message["trouble"] = None
            positions[k] = {"number": k}
            told = dict(message, position=positions[k])
            watcher._offer(follower, (told, web_app._event("changed", told)))
            watcher._offer(everything, (message, web_app._event("changed", message)))
        for stream in (follower, everything):
            queue = [stream.queue.get_nowait() for _ in range(stream.queue.qsize())]
            assert len(queue) <= web_app.STREAM_QUEUE
            told = [json.loads(data.split(b"data: ")[1]) for _, data in queue]
            assert [m for m, _ in queue] == told  # each event is its message
            assert sorted(set(i for m in told for i in m["ids"])) == [1, 2, 3, 4, 5, 7]
            assert [m["version"] for m in told] == sorted(m["version"] for m in told)
            assert told[-1]["version"] == 2 * web_app.STREAM_QUEUE
            assert {"trouble": None}.items() <= told[0].items()  # the newest trouble said
            if stream is follower:
                assert told[-1]["position"] == {"number": 2 * web_app.STREAM_QUEUE}
        assert watcher.merged > 0 and watcher.dropped == 0
    asyncio.run(run())


def test_a_change_wakes_the_streams_event_loop_once_not_once_a_stream():
    """Issue 39, 50 tables: the watcher thread handed a change to each open stream with a
    call_soon_threadsafe of its own, a write to the event loop's wake-up socket for each
    (py-spy: 15% of a worker's busy time with 100 pages open). The streams of one loop
    are handed their changes in one call; each still gets exactly its own."""
    async def run():
        loop = asyncio.get_running_loop()
        watcher = web_app.LogWatcher("unused", max_streams=100,
                                     latest=lambda glog, gid: {"number": gid * 10})
        followers = [watcher.subscribe(1 + k % 5) for k in range(40)]
        everything = [watcher.subscribe() for _ in range(10)]
        wakes = []
        real = loop.call_soon_threadsafe

        def counted(*args):
            if getattr(args[0], "__self__", None) is watcher:  # not the executor's own
                wakes.append(args)
            return real(*args)

        loop.call_soon_threadsafe = counted
        message = {"version": 3, "ids": [2, 4]}
        await loop.run_in_executor(None, watcher._tell, message, object())
        assert len(wakes) == 1
        for _ in range(3):
            await asyncio.sleep(0)
        for stream in followers:
            queued = [stream.queue.get_nowait()[0] for _ in range(stream.queue.qsize())]
            if stream.game in (2, 4):
                assert queued == [dict(message, position={"number": stream.game * 10})]
            else:
                assert queued == []
        for stream in everything:
            assert [stream.queue.get_nowait()[0]] == [message] and stream.queue.empty()
    asyncio.run(run())


@pytest.mark.parametrize("running", [{"sndbuf": 8192}], indirect=True)
def test_a_page_that_reads_nothing_is_dropped_and_catches_up_when_it_connects_again(
        db, running, monkeypatch):
    monkeypatch.setattr(web_app, "WRITE_STALL_SECONDS", 1.0)
    game = Game(db)
    query = "?game=%d" % game.gid
    reader = Reader(running.base, query)
    reader.start()
    assert reader.hello.wait(30)
    stalled = raw_stream(running.port, query, rcvbuf=2048)
    try:
        wait_for(lambda: running.watcher.streams == 2, what="both streams")
        # Moves until the stream that reads nothing fills the sockets' buffers and the
        # server's, and a write then waits a second.
        while running.watcher.dropped == 0:
            assert game.moves < 1000, "never dropped"
            game.play()
            time.sleep(0.01)
        wait_for(lambda: running.watcher.streams == 1, what="the stream let go")
        # The page that reads goes on, up to the last move (moves logged within one
        # look at the log come as one change).
        wait_for(lambda: reader.numbers[-1:] == [game.moves], what="the last move")
        assert reader.numbers == sorted(set(reader.numbers))
        # The dropped page's connection is closed (after what was on its way).
        stalled.settimeout(60)
        got = b""
        while True:
            chunk = stalled.recv(65536)
            if not chunk:
                break
            got += chunk
        assert got.startswith(b"HTTP/1.1 200") and b"event: hello" in got
    finally:
        stalled.close()
    # Connecting again, as a page's EventSource does: hello, then the log has it all.
    again = raw_stream(running.port, query)
    try:
        read_until(again, b"event: hello")
        data = httpx2.get(running.base + "api/games/%d" % game.gid,
                          headers={"Host": "localhost"}).json()
        assert data["moves"] == game.moves == len(data["moves_list"])
    finally:
        again.close()


@pytest.mark.parametrize("running", [{"max_streams": 2}], indirect=True)
def test_streams_past_the_most_are_refused_saying_why(db, running):
    first, second = raw_stream(running.port), raw_stream(running.port, "?game=1")
    try:
        for s in (first, second):
            read_until(s, b"event: hello")
        answer = httpx2.get(running.base + "api/events", timeout=30)
        assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
        error = answer.json()["error"]
        assert error == ("the web mirror already sends live updates to 2 pages, its most "
                         "(vora serve --max-streams 2): close one of them, or start it with "
                         "a higher --max-streams; a page without them still shows the log "
                         "as it was when read")
        first.close()  # a page closed: its place is free at once
        wait_for(lambda: running.watcher.streams == 1, what="the place freed")
        third = raw_stream(running.port)
        read_until(third, b"event: hello")
        third.close()
    finally:
        first.close()
        second.close()


def test_on_postgresql_a_write_of_another_process_reaches_the_streams_at_once(pg_url):
    # Issue 39, several servers on one PostgreSQL log: a change is told to the streams by
    # the server's NOTIFY (LISTEN/NOTIFY), not found by the next look. The watcher here
    # looks only once a minute: the change must come long before.
    glog = GameLog(pg_url)  # the schema, before the watcher looks
    watcher = web_app.LogWatcher(pg_url, interval=60.0, full_interval=60.0)
    got = []

    async def follow():
        stream = watcher.subscribe()
        watcher.start()
        try:
            while watcher.polls < 1:  # its first look (which tells nothing)
                await asyncio.sleep(0.02)
            threading.Thread(target=glog.start_game, kwargs={
                "game": "vorcept", "players": 2, "seed": 4, "options": {},
                "source": "terminal"}).start()
            got.append(await asyncio.wait_for(stream.queue.get(), 30.0))
        finally:
            await asyncio.to_thread(watcher.stop)
    try:
        asyncio.run(follow())
        message, _ = got[0]
        assert message["ids"] == [glog.games()[0]["id"]]
    finally:
        glog.close()

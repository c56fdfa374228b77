"""`vora play GAME --typed --web 1`: a seat of a typed game played in a browser (issue 39):
the terminal and the browser play at one table; the log holds the game either way."""

import os
import re
import subprocess
import sys
import threading
import time

import httpx2
import pytest

from shared_rules import games as rules_games
from vora_host.log.store import GameLog

HEADERS = {"X-Vora-Seat": "1"}
DEADLINE = 60


class Typed:
    """`vora play` in a subprocess: its output read in a thread, lines typed on its stdin."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "play", "--typed"] + list(args),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env=dict(os.environ, COLUMNS="120", PYTHONUNBUFFERED="1"))
        self.out = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        # Whatever comes, as it comes: a prompt has no end of line.
        fd = self.proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 4096)
            if not chunk:
                return
            with self._lock:
                self.out.append(chunk.decode("utf-8", "replace"))

    def text(self):
        with self._lock:
            return "".join(self.out)

    def wait_for(self, pattern, after=0):
        """The first match of `pattern` in the output past character `after`."""
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            found = re.compile(pattern).search(self.text(), after)
            if found:
                return found
            if self.proc.poll() is not None:
                found = re.compile(pattern).search(self.text(), after)
                if found:
                    return found
                break
            time.sleep(0.02)
        raise AssertionError("never saw %r in:\n%s" % (pattern, self.text()[after:]))

    def type(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait(timeout=DEADLINE)
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _seat(client, url, until=lambda view: True):
    """The seat's view once `until(view)` holds (within the deadline)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        view = client.get(url).json()
        if until(view) or time.monotonic() > deadline:
            assert until(view), view
            return view
        time.sleep(0.05)


@pytest.fixture
def game(tmp_path):
    db = tmp_path / "games.sqlite3"
    play = Typed("vorcept", "--seed", "6", "--web", "1", "--serve", "0", "--db", str(db))
    try:
        link = play.wait_for(r"P1 Red plays in a browser: (http://127\.0\.0\.1:\d+/seat/(\S+))")
        url, token = link.group(1), link.group(2)
        assert len(token) >= 32
        base = url.split("/seat/")[0]
        with httpx2.Client(base_url=base, timeout=DEADLINE) as client:
            yield play, client, "/api/seat/%s" % token, db
    finally:
        play.kill()


def test_the_terminal_and_a_browser_play_one_game(game):
    play, client, seat, db = game
    state = rules_games.load("vorcept").new_game(2, 6)
    assert client.get(seat).json()["your_turn"] is False
    page = client.get(seat.replace("/api/seat/", "/seat/"))
    assert page.status_code == 200 and "seat.js" in page.text
    first = state.legal_moves()[0]
    play.wait_for(r"P0> ")
    play.type(first)
    state.play(first)
    view = _seat(client, seat, lambda v: v["your_turn"])
    assert view["number"] == 1 and any(m["move"] == state.legal_moves()[0] for m in view["moves"])
    mark = len(play.text())
    play.wait_for(r"Waiting for P1 Red \(browser\) to play in the browser", 0)
    second = state.legal_moves()[0]
    answer = client.post(seat + "/move", json={"move": second, "number": 1}, headers=HEADERS)
    assert answer.status_code == 200, answer.text
    # The terminal shows the browser's move and asks P0 again.
    play.wait_for(r"P1 Red \(browser\): %s" % re.escape(second), mark)
    play.wait_for(r"P0> ", mark)
    play.type("q")
    play.type("y")
    assert play.finish() == 0
    with GameLog(db) as log:
        info = log.games()[0]
        assert info["move_count"] == 2 and log.verify(info["id"]).ok
        assert [m["move"] for m in log.game(info["id"])["moves"]] == [first, second]


def test_a_takeback_asked_in_the_browser_is_answered_at_the_terminal(game):
    play, client, seat, db = game
    state = rules_games.load("vorcept").new_game(2, 6)
    play.wait_for(r"P0> ")
    first = state.legal_moves()[0]
    play.type(first)
    state.play(first)
    _seat(client, seat, lambda v: v["your_turn"])
    second = state.legal_moves()[0]
    mark = len(play.text())
    client.post(seat + "/move", json={"move": second, "number": 1}, headers=HEADERS)
    state.play(second)
    play.wait_for(r"P0> ", mark)
    answer = client.post(seat + "/takeback", json={}, headers=HEADERS)
    assert answer.status_code == 200 and answer.json()["takeback"]["waiting"] == [0]
    # The terminal's prompt is answered first; the table refuses a move while it waits
    # and the question comes.
    play.type(state.legal_moves()[0])
    play.wait_for(r"a takeback waits for P0 Blue's answer", mark)
    play.wait_for(r"P0 Blue, take back P1 Red's turn", mark)
    play.type("y")
    view = _seat(client, seat, lambda v: v["number"] == 1 and v["your_turn"])
    assert view["takeback"] is None
    play.wait_for(r"taken back: P1 Red's turn", mark)
    client.post(seat + "/resign", json={}, headers=HEADERS)
    play.wait_for(r"P1 Red resigns: the game stops here", mark)
    play.finish()
    with GameLog(db) as log:
        info = log.game(log.games()[0]["id"])
        assert info["move_count"] == 1 and info["taken_back"] == 1
        assert info["status"] == "abandoned" and info["result"]["end"] == "P1 Red resigned"

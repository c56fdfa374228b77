"""The web mirror in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium,
which ./dev setup installs when missing; Playwright's own browser download is not used).

`vora serve` runs as the user runs it (a subprocess on a free port over a log of the
test's own); a live game writes its moves to that log as `vora play` does (LiveLog), and
the page must show each within a bound; time travel goes back and forth with the arrow
keys, the slider and the move list; a reload mid-game keeps the position; `vora play
--serve` is watched live. Skipped, saying why, only when Chromium or Playwright is
missing."""

import os
import random
import re
import subprocess
import sys
import time

import pytest

from shared_rules import games
from vora_host.log.live import LiveLog

CHROMIUM = "/usr/bin/chromium"
# One browser a file, launched once for all its tests: run them one after another
# (tests/conftest.py, kept_together).
pytestmark = pytest.mark.kept_together
if not os.path.exists(CHROMIUM):
    pytest.skip("the browser tests need Debian's Chromium at %s (./dev setup installs it: "
                "apt-get install chromium)" % CHROMIUM, allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the browser tests need the playwright package")

# Without the background-networking flags Chromium keeps calling home on a closed network.
# rebinding.test (a reserved name) resolves to this computer, as an attacker's name does
# after DNS rebinding.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--host-resolver-rules=MAP rebinding.test 127.0.0.1"]
# ms: a move logged must be on the page by then. A deadline, not the figure (docs/web.md:
# ~50 ms): Chromium on a loaded machine may take seconds.
SHOWN_WITHIN = 30000
VORA = [sys.executable, "-m", "vora_host"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM,
            headless=True, args=CHROMIUM_ARGS, viewport={"width": 1300, "height": 950})
        yield context
        context.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert not errors, "the page's JavaScript failed: %s" % errors


def _address(stream, pattern, timeout=60):
    end = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < end:
        line = stream.readline()
        if not line:
            break
        seen += line
        found = re.search(pattern, line)
        if found:
            return found.group(1)
    raise AssertionError("no address printed: %r" % seen)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite3"


@pytest.fixture
def server(db):
    proc = subprocess.Popen(VORA + ["serve", "--port", "0", "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        yield _address(proc.stdout, r"at (http://127\.0\.0\.1:\d+/)")
    finally:
        proc.terminate()
        assert proc.wait(60) is not None


class GameOver(Exception):
    pass


class LiveGame:
    """A game played on the PC and logged as `vora play` logs it (LiveLog)."""

    def __init__(self, db, game, seed, players=2):
        self.state = games.start({"game": game, "players": players, "seed": seed,
                                  "options": {}})
        self.live = LiveLog(db, game, players, seed, self.state.options())
        self.gid = self.live.gid
        self.moves = []
        self.rnd = random.Random(seed)

    def play(self, count=1):
        for _ in range(count):
            if self.state.is_over():
                raise GameOver("the game is over after %d moves" % len(self.moves))
            # The first legal move that does not end the game: the game stays live.
            for move in self.rnd.sample(sorted(self.state.legal_moves()),
                                        len(self.state.legal_moves())):
                after = self.state.clone()
                after.play(move)
                if not after.is_over():
                    break
            self.state = after
            self.moves.append(move)
            self.live.moved(len(self.moves), move, after.digest())
        return self.moves[-1]


def shown(page, n, total):
    sync_api.expect(page.locator("#move-number")).to_have_text(
        "move %d of %d" % (n, total), timeout=SHOWN_WITHIN)


def test_a_live_game_appears_move_by_move_and_travels_in_time(db, server, page):
    game = LiveGame(db, "vorcept", 7)
    game.play(3)
    page.goto(server)
    row = page.locator("#live-games tr[data-game='%d']" % game.gid)
    sync_api.expect(row).to_contain_text("Vorcept")
    game.play()  # the list follows the log too
    sync_api.expect(row.locator("td").nth(3)).to_have_text("4")
    row.locator("a").first.click()
    shown(page, 4, 4)
    assert page.locator("#board .key").count() == 49
    sync_api.expect(page.locator("#following")).to_be_visible()

    # Live: each move on the page within the bound, drawn from the replay.
    for k in range(5, 8):
        move = game.play()
        shown(page, k, k)
        sync_api.expect(page.locator("#last-move")).to_contain_text(move)
        sync_api.expect(page.locator("#digest")).to_have_text("digest matches the replay")

    # Time travel: the arrow keys, Home, the slider, the move list.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    shown(page, 5, 7)
    sync_api.expect(page.locator("#last-move")).to_contain_text(game.moves[4])
    sync_api.expect(page.locator("#following")).to_be_hidden()
    page.keyboard.press("Home")
    shown(page, 0, 7)
    sync_api.expect(page.locator("#last-move")).to_have_text("The start of the game.")
    page.keyboard.press("ArrowRight")
    shown(page, 1, 7)
    page.locator("#slider").fill("3")
    shown(page, 3, 7)
    page.locator("#moves li[data-n='6']").click()
    shown(page, 6, 7)

    # A move logged while travelling: the slider grows, the position stays.
    game.play()
    shown(page, 6, 8)
    # A reload keeps the position (#move=6), End goes back to following the game.
    page.reload()
    shown(page, 6, 8)
    page.keyboard.press("End")
    shown(page, 8, 8)
    game.play()
    shown(page, 9, 9)
    page.reload()
    shown(page, 9, 9)
    game.play()
    shown(page, 10, 10)
    # A takeback (all humans agreed): the move leaves the page, the facts count it.
    game.live.took_back(10)
    shown(page, 9, 9)
    sync_api.expect(page.locator("#facts")).to_contain_text("1 taken back")
    assert page.locator("#moves li").count() == 10  # the start and 9 moves


def test_a_hidden_game_in_progress_shows_a_spectators_view(db, server, page):
    seed = 987654321
    game = LiveGame(db, "tossing-tiger", seed)
    game.play(6)
    page.goto(server + "game/%d" % game.gid)
    shown(page, 6, 6)
    sync_api.expect(page.locator("#secrecy")).to_be_visible()
    sync_api.expect(page.locator("#facts")).to_contain_text("seed hidden")
    sync_api.expect(page.locator("#viewer-box")).to_be_hidden()
    text = page.locator("body").inner_text()
    assert str(seed) not in text and game.state.digest() not in text


def test_bad_addresses_get_a_page_that_says_why(db, server, page):
    LiveGame(db, "gaia-vora", 2).play(1)
    answer = page.goto(server + "game/12x")
    assert answer.status == 400
    sync_api.expect(page.locator(".problem")).to_contain_text("'12x' is not a game id")
    answer = page.goto(server + "game/77")
    assert answer.status == 404
    sync_api.expect(page.locator(".problem")).to_contain_text("no game 77 in")


def test_a_game_on_the_virtual_board_is_watched_live_with_play_serve(tmp_path, page):
    """`vora play vorcept --serve`: the game runs on the virtual board (headless, its two
    seats the PC's random bots), the web mirror in a thread of the same process; the
    page follows the moves as the board plays them."""
    db = tmp_path / "games.sqlite3"
    proc = subprocess.Popen(VORA + ["play", "vorcept", "--bot", "0=random", "--bot",
                                    "1=random", "--delay", "0.4", "--seed", "3", "--db",
                                    str(db), "--save-dir", str(tmp_path / "save"),
                                    "--serve", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        address = _address(proc.stderr, r"Web mirror at (http://127\.0\.0\.1:\d+/)")
        page.goto(address)
        link = page.locator("tr[data-game='1'] a").first
        sync_api.expect(link).to_be_visible(timeout=SHOWN_WITHIN * 2)
        link.click()
        sync_api.expect(page.locator("#facts")).to_contain_text("virtual board")
        page.wait_for_selector("body[data-shown]")
        first = int(page.locator("body").get_attribute("data-shown"))
        # The bots play on, on the board: the page follows.
        page.wait_for_function("n => Number(document.body.dataset.shown) >= n + 2",
                               arg=first, timeout=SHOWN_WITHIN * 3)
    finally:
        proc.terminate()
        proc.wait(60)


def test_text_from_the_log_is_shown_as_text(db, server, page):
    """A log's texts come from boards and imported files: markup in them is shown, never
    run or drawn."""
    from vora_host.log.store import GameLog
    source = "board <img src=x id=injected onerror=document.title='owned'>"
    with GameLog(db) as log:
        gid = log.start_game(game="vorcept", players=2, seed=1, options={}, source=source)
    page.goto(server)
    sync_api.expect(page.locator("#live-games")).to_contain_text(source)
    page.goto(server + "game/%d" % gid)
    sync_api.expect(page.locator("#facts")).to_contain_text(source)
    assert page.locator("#injected").count() == 0 and page.title() != "owned"


@pytest.mark.parametrize("body", ['{"id": 1, "title": "Vor', "", "null"])
def test_an_answer_cut_short_is_said_not_a_script_error(db, server, page, body):
    """A server stopped mid-answer (Ctrl-C on `vora play --serve`) leaves a 200 whose body
    is not the game's JSON: the page says so where it says problems; its script does not
    fail on a missing game (the page fixture fails the test on any script error)."""
    game = LiveGame(db, "vorcept", 3)
    game.play(2)
    page.route("**/api/games/%d" % game.gid, lambda route: route.fulfill(
        status=200, body=body, content_type="application/json"))
    page.goto(server + "game/%d" % game.gid)
    sync_api.expect(page.locator("#problem")).to_contain_text("could not be read")
    page.unroute("**/api/games/%d" % game.gid)
    page.goto(server)
    page.route("**/api/games?*", lambda route: route.fulfill(
        status=200, body=body, content_type="application/json"))
    page.reload()
    sync_api.expect(page.locator("#problem")).to_contain_text("could not be read")


# ---------------------------------------------------------------- issue 43, issue 38.7

def test_a_64_bit_seed_is_shown_whole(db, server, page):
    """Boars' and Tossing Tiger's seeds go to 2**64 - 1: the page showed
    12424427912528688913 as 12424427912528690000 (a JSON number; issue 38.7)."""
    seed = 12424427912528688913
    game = LiveGame(db, "boars", seed)
    game.play(3)
    game.live.ended("abandoned", None)  # its secrets may be seen now
    page.goto(server + "game/%d" % game.gid)
    shown(page, 3, 3)
    sync_api.expect(page.locator("#facts")).to_contain_text("seed %d;" % seed)


def test_a_page_of_another_site_cannot_read_the_mirror_through_dns_rebinding(db, server,
                                                                           page):
    LiveGame(db, "vorcept", 3).play(1)
    port = server.rsplit(":", 1)[1].strip("/")
    answer = page.goto("http://rebinding.test:%s/" % port)  # the attacker's name, here
    assert answer.status == 421
    assert "does not answer to the name 'rebinding.test'" in page.locator("body").inner_text()
    # Its scripts, as that origin, read nothing either.
    assert page.evaluate("fetch('/api/games').then((r) => r.status)") == 421
    assert page.evaluate("fetch('/api/games/1').then((r) => r.text())").startswith(
        "this web mirror does not answer to the name 'rebinding.test'")
    answer = page.goto("http://localhost:%s/" % port)  # the name it serves under
    assert answer.status == 200
    sync_api.expect(page.locator("#live-games")).to_contain_text("Vorcept")


def test_a_page_past_the_most_streams_says_why_and_goes_live_when_there_is_room(db, page):
    import socket
    LiveGame(db, "vorcept", 3).play(1)
    proc = subprocess.Popen(VORA + ["serve", "--port", "0", "--db", str(db),
                                    "--max-streams", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    holder = None
    try:
        address = _address(proc.stdout, r"at (http://127\.0\.0\.1:\d+/)")
        port = int(address.rsplit(":", 1)[1].strip("/"))
        holder = socket.create_connection(("127.0.0.1", port), timeout=30)
        holder.sendall(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        got = b""
        while b"event: hello" not in got:
            got += holder.recv(65536)
        page.goto(address)
        sync_api.expect(page.locator("#live-games")).to_contain_text("Vorcept")  # the log
        problem = page.locator("#live-problem")
        sync_api.expect(problem).to_contain_text(
            "Live updates are off: the web mirror already sends live updates to 1 page, "
            "its most (vora serve --max-streams 1): close one of them, or start it with a "
            "higher --max-streams",
            timeout=SHOWN_WITHIN * 2)
        sync_api.expect(page.locator("#live-state")).to_have_text("not live")
        holder.close()  # another page closed: this one goes live at its next try
        sync_api.expect(page.locator("#live-state")).to_have_text("live", timeout=30000)
        sync_api.expect(problem).to_be_hidden()
    finally:
        if holder is not None:
            holder.close()
        proc.terminate()
        proc.wait(60)


def test_a_page_the_server_dropped_catches_up_when_it_connects_again(db, page):
    """A page that read nothing while its queue filled is dropped (tests/test_web_streams.py
    makes one); its EventSource connects again and the page reads the log afresh: the
    moves logged in between are on it."""
    from vora_host.web import serve
    game = LiveGame(db, "vorcept", 7)
    game.play(3)
    sock = serve.bind("127.0.0.1", 0)
    running = serve.start_in_thread(sock, db)
    try:
        page.goto(serve.address_of(sock) + "game/%d" % game.gid)
        shown(page, 3, 3)
        sync_api.expect(page.locator("#live-state")).to_have_text("live")
        watcher = running.config.app.state.watcher
        (stream,) = list(watcher._streams)
        stream.loop.call_soon_threadsafe(watcher.drop, stream)
        deadline = time.monotonic() + 30
        while watcher.streams and time.monotonic() < deadline:
            time.sleep(0.01)
        assert watcher.streams == 0  # no event reaches this page now
        game.play(2)
        shown(page, 5, 5)
        sync_api.expect(page.locator("#last-move")).to_contain_text(game.moves[-1])
        assert watcher.dropped == 1
    finally:
        running.should_exit = True
        running.thread.join(60)

"""`vora serve --tables` in Debian's Chromium (issue 39): a table set up from the /tables
page on a phone, its seat's link (and QR code) shown, the seat played against the server's
bot, the server stopped with Ctrl-C and started again: the same link plays on."""

import re
import signal
import subprocess
import sys

from vora_host.log.store import GameLog
from vora_host.play import saved

# Debian's Chromium and playwright: without them this module is skipped as that one is.
from test_web_seats_browser import CHROMIUM, CHROMIUM_ARGS, PHONE, SHOWN, sync_api


def _serve(db):
    proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--tables",
                             "--port", "0", "--db", str(db)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    seen = ""
    while True:  # what it says of its tables is said last
        line = proc.stdout.readline()
        assert line, "vora serve said no address: %r" % seen
        seen += line
        if line.startswith("Tables: "):
            base = re.search(r"at (http://127\.0\.0\.1:\d+/) \(Ctrl-C stops\)", seen)
            return proc, base.group(1), seen


def _stop(proc):
    proc.send_signal(signal.SIGINT)
    assert proc.wait(60) == 130
    rest = proc.stdout.read()
    assert "Traceback" not in rest and "ERROR" not in rest, rest


def _play_one(page):
    """Play the seat's first listed move once it is the seat's turn; the number of moves
    the table then has."""
    page.wait_for_selector(".turn.yours", timeout=SHOWN)
    before = page.evaluate("seat.number")
    page.locator("#moves button").first.click()
    page.click("#play")
    page.wait_for_function("n => seat.number > n", arg=before, timeout=SHOWN)
    return page.evaluate("seat.number")


def test_a_phone_sets_up_a_table_plays_the_server_s_bot_and_the_server_restarts(tmp_path):
    db = tmp_path / "games.sqlite3"
    proc, base, said = _serve(db)
    errors = []
    try:
        assert "%stables" % base in said
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=CHROMIUM_ARGS)
            try:
                context = browser.new_context(viewport=PHONE, has_touch=True)
                page = context.new_page()
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(base)
                page.wait_for_selector("#tables-link:not([hidden])", timeout=SHOWN)
                page.click("#tables-link a")
                page.wait_for_selector("#game option", state="attached", timeout=SHOWN)
                page.select_option("#game", "vorcept")
                page.select_option("#players", "2")
                page.select_option("#seat-kinds select[name=seat1]", "easy")
                page.click("#create")
                page.wait_for_selector("#made:not([hidden])", timeout=SHOWN)
                assert page.get_attribute("img.qr", "src").startswith("data:image/svg+xml")
                link = page.text_content("#links code.link")
                assert re.fullmatch(re.escape(base) + r"seat/[A-Za-z0-9_-]{32,}", link)
                assert page.text_content("#made-title").endswith("Vorcept")
                seat = context.new_page()
                seat.on("pageerror", lambda exc: errors.append(str(exc)))
                seat.goto(link)
                _play_one(seat)
                number = _play_one(seat)  # the bot answered the first in between
                assert number >= 3
                # The tables page lists it, the seat here.
                page.reload()
                page.wait_for_selector("#tables tbody tr", timeout=SHOWN)
                assert "away" not in page.text_content("#tables tbody tr")
            finally:
                browser.close()
        _stop(proc)
        glog = GameLog(db)
        (info,) = glog.games()
        assert info["source"] == saved.TABLE_SOURCE and info["status"] == "interrupted"
        glog.close()
        proc, base, said = _serve(db)
        assert "table %d: taken up again after %d moves" % (info["id"], info["move_count"]) \
            in said
        link = re.sub(r"http://127\.0\.0\.1:\d+/", base, link)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=CHROMIUM_ARGS)
            try:
                seat = browser.new_context(viewport=PHONE, has_touch=True).new_page()
                seat.on("pageerror", lambda exc: errors.append(str(exc)))
                seat.goto(link)
                assert _play_one(seat) > info["move_count"]
            finally:
                browser.close()
        _stop(proc)
        assert not errors, errors
        glog = GameLog(db)
        assert glog.verify(info["id"]).ok
        glog.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

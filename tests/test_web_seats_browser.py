"""Browser seats in Debian's Chromium (issue 39): `vora play GAME --typed --web ...` as a
player starts it, one browser context a seat, a phone's size (390x844) and a desktop's
(1280x800): moves chosen by tapping the 7x7's keys or from the list, the turn said, a
takeback asked on one phone and agreed on the other, the newest browser on a seat wins,
a phone that goes and comes back, a win claimed after it went for good, and whole games
of all five games with a seat in a browser."""

import os
import random
import re
import time

import httpx2
import pytest

from shared_rules import games as rules_games
from vora_host.log.store import GameLog

from test_play_web_seats import DEADLINE, Typed

CHROMIUM = "/usr/bin/chromium"
# One browser a file, launched once for all its tests: run them one after another
# (tests/conftest.py, kept_together).
pytestmark = pytest.mark.kept_together
if not os.path.exists(CHROMIUM):
    pytest.skip("the browser tests need Debian's Chromium at %s (./dev setup installs it: "
                "apt-get install chromium)" % CHROMIUM, allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the browser tests need the playwright package")

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SHOWN = DEADLINE * 1000  # ms: a deadline, not a figure


@pytest.fixture(scope="module")
def chromium():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def _page(chromium, viewport, errors):
    context = chromium.new_context(viewport=viewport, has_touch=viewport is PHONE)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def _links(play, players):
    out = {}
    for p in players:
        found = play.wait_for(r"P%d[^\n]* plays in a browser: (http://127\.0\.0\.1:\d+/seat/\S+)"
                              % p)
        out[p] = found.group(1)
    return out


def _tap_move(page, move, keys):
    """Choose `move` by its keys on the page's 7x7, then play it."""
    for k in keys:
        name = "abcdefg"[k % 7] + str(k // 7 + 1)
        page.locator('#board .key[data-name="%s"]' % name).click()
    page.wait_for_selector("#choice:not([hidden])", timeout=SHOWN)
    assert page.text_content("#chosen") == "Your move: %s" % move
    page.click("#play")


def test_two_phones_play_by_keys_and_list_take_back_and_the_newest_browser_wins(
        chromium, tmp_path):
    db = tmp_path / "games.sqlite3"
    play = Typed("vorcept", "--seed", "6", "--web", "all", "--serve", "0", "--db", str(db))
    errors = []
    try:
        links = _links(play, (0, 1))
        blue = _page(chromium, DESKTOP, errors)
        red = _page(chromium, PHONE, errors)
        blue.goto(links[0])
        red.goto(links[1])
        blue.wait_for_selector("#turn.yours", timeout=SHOWN)
        assert "Your turn" in blue.text_content("#turn")
        red.wait_for_function("document.getElementById('turn').textContent.includes('Waiting')",
                              timeout=SHOWN)
        # P0 by the keys of the 7x7 (its move's first key, as on the board).
        base = links[0].split("/seat/")[0]
        token0 = links[0].split("/seat/")[1]
        with httpx2.Client(base_url=base, timeout=DEADLINE) as api:
            view = api.get("/api/seat/%s" % token0).json()
        first = view["moves"][0]
        _tap_move(blue, first["move"], first["keys"])
        red.wait_for_selector("#turn.yours", timeout=SHOWN)
        blue.screenshot(path=str(tmp_path / "seat-desktop.png"))
        red.screenshot(path=str(tmp_path / "seat-phone.png"))
        # P1 from the list (phone size: the buttons under the board).
        button = red.locator("#moves button").first
        move = button.get_attribute("data-move")
        button.click()
        assert red.text_content("#chosen") == "Your move: %s" % move
        red.click("#play")
        blue.wait_for_selector("#turn.yours", timeout=SHOWN)
        play.wait_for(r"P1 Red \(browser\): %s" % re.escape(move))
        # P1 asks for a takeback on the phone; P0 agrees on the desktop.
        red.wait_for_selector("#takeback:not([hidden])", timeout=SHOWN)
        red.click("#takeback")
        blue.wait_for_selector("#takeback-ask:not([hidden])", timeout=SHOWN)
        assert "Take back P1 Red's turn" in blue.text_content("#takeback-what")
        blue.click("#agree")
        red.wait_for_selector("#turn.yours", timeout=SHOWN)
        # The same seat opened in another browser: the newest wins, the older is told.
        newer = _page(chromium, PHONE, errors)
        newer.goto(links[1])
        newer.wait_for_selector("#turn.yours", timeout=SHOWN)
        red.wait_for_function(
            "document.getElementById('problem').textContent.includes('another browser')",
            timeout=SHOWN)
        assert red.text_content("#live-state") == "elsewhere"
        assert not errors, errors
    finally:
        play.kill()
    with GameLog(db) as log:
        info = log.game(log.games()[0]["id"])
        assert info["move_count"] == 1 and info["taken_back"] == 1


def test_a_phone_that_goes_comes_back_and_then_the_other_claims_the_win(chromium, tmp_path):
    # Issue 39: P1's phone leaves (its page closed); P0's page says so at once and when it
    # may claim; P1 comes back with its link and plays on; it leaves again, and once its
    # time is out (--claim-after 10) P0 claims the win from its page.
    db = tmp_path / "games.sqlite3"
    play = Typed("vorcept", "--seed", "6", "--web", "all", "--serve", "0", "--db", str(db),
                 "--claim-after", "10")
    errors = []
    try:
        links = _links(play, (0, 1))
        blue = _page(chromium, DESKTOP, errors)
        blue.on("dialog", lambda dialog: dialog.accept())
        blue.goto(links[0])
        red = _page(chromium, PHONE, errors)
        red.goto(links[1])
        blue.wait_for_selector("#turn.yours", timeout=SHOWN)
        red.wait_for_selector("#live-state.live", timeout=SHOWN)
        blue.wait_for_selector("#gone", state="hidden", timeout=SHOWN)
        blue.locator("#moves button").first.click()
        blue.click("#play")
        red.wait_for_selector("#turn.yours", timeout=SHOWN)
        # P1's phone goes: P0 is told, with the time P1 has to come back.
        red.context.close()
        blue.wait_for_selector("#gone:not([hidden])", timeout=SHOWN)
        text = blue.text_content("#gone-what")
        assert text.startswith("P1 Red (browser) has left (reconnecting). If they are not "
                               "back in "), text
        assert text.endswith(", you may claim the win or abort the game."), text
        assert blue.is_hidden("#claim-win")
        play.wait_for(r"P1 Red has left \(reconnecting\): after 10 s the others may claim")
        # It comes back with its link: P0's notice goes, P1 plays on.
        red = _page(chromium, PHONE, errors)
        red.goto(links[1])
        red.wait_for_selector("#turn.yours", timeout=SHOWN)
        blue.wait_for_selector("#gone", state="hidden", timeout=SHOWN)
        play.wait_for(r"P1 Red is back \(browser\)")
        red.locator("#moves button").first.click()
        red.click("#play")
        blue.wait_for_selector("#turn.yours", timeout=SHOWN)
        # It goes for good: past its 10 s, P0's page offers the claim by itself.
        red.context.close()
        blue.wait_for_selector("#claim-win:not([hidden])", timeout=SHOWN)
        assert "They were not back in time" in blue.text_content("#gone-what")
        assert blue.is_visible("#claim-abort")
        blue.click("#claim-win")
        claimed = "P1 Red left and did not come back: P0 Blue claims the win"
        blue.wait_for_function("document.getElementById('turn').textContent.includes("
                               "'%s')" % claimed, timeout=SHOWN)
        play.wait_for(r"The game stopped \(%s\) during turn 1" % claimed)
        assert blue.is_hidden("#gone") and not errors, errors
        assert play.finish() == 0
    finally:
        play.kill()
    with GameLog(db) as log:
        info = log.game(log.games()[0]["id"])
        assert info["status"] == "abandoned" and info["move_count"] == 2
        assert info["result"]["end"] == claimed
        assert log.verify(info["id"]).ok


@pytest.mark.parametrize("game", ["vora", "vorcept", "gaia-vora", "tossing-tiger", "boars"])
def test_a_whole_game_with_a_seat_in_a_browser(chromium, tmp_path, game):
    # P0 in a browser on a phone (its moves chosen here at random, posted by its page,
    # which follows live), P1 a bot at the terminal's table: to the end of the game.
    db = tmp_path / "games.sqlite3"
    # Vora with 5 cubes of each type in the box (a house option): it ends as every game of
    # Vora does, the box unable to refill the meadow, in some 70 moves instead of 300.
    house = ("--box", "5") if game == "vora" else ()
    play = Typed(game, "--seed", "3", "--web", "0", "--bot", "1=random", "--serve", "0",
                 "--db", str(db), "--quiet", *house)
    errors = []
    try:
        link = _links(play, (0,))[0]
        phone = _page(chromium, PHONE, errors)
        phone.goto(link)
        phone.wait_for_selector("#live-state.live", timeout=SHOWN)
        rnd = random.Random(game)
        moves = 0
        # A deadline on each step, not on the whole game: a long game of random moves on a
        # loaded machine takes minutes, and a stuck one is seen within DEADLINE.
        deadline = time.monotonic() + DEADLINE
        asked = seen = None
        while True:
            # The seat's view as the page holds it (its stream's latest).
            view = phone.evaluate("seat && {over: seat.over, yours: seat.your_turn, "
                                  "number: seat.number, moves: seat.moves.map(m => m.move)}")
            if view and view["over"]:
                break
            if view and view["number"] != seen:
                seen, deadline = view["number"], time.monotonic() + DEADLINE
            assert time.monotonic() < deadline, "the game went no further: %r, %r, %r" % (
                view and dict(view, moves=len(view["moves"])), phone.text_content("#turn"),
                phone.text_content("#live-state"))
            if not view or not view["yours"] or view["number"] == asked:
                time.sleep(0.01)
                continue
            move = rnd.choice(view["moves"])
            # Posted by the page itself (its post(), as its Play button does).
            phone.evaluate("([m, n]) => post('move', {move: m, number: n})",
                           [move, view["number"]])
            problem = phone.text_content("#problem")
            assert not problem, problem
            asked = view["number"]
            moves += 1
        phone.wait_for_function("document.getElementById('turn').textContent"
                                ".includes('Game over')", timeout=SHOWN)
        assert phone.text_content("#result")
        assert moves > 0 and not errors, errors
        assert play.finish() == 0
    finally:
        play.kill()
    with GameLog(db) as log:
        info = log.game(log.games()[0]["id"])
        assert info["status"] == "over" and log.verify(info["id"]).ok
        if game == "vora":  # to the rules' own end: the box could not refill the meadow
            record, _ = log.record(info["id"])
            assert set(record["options"]["box"].values()) == {5}
            assert rules_games.replay(record).end == "box"

"""The review on a game's page in Debian's Chromium (issue 41): the graph of the chances
drawn from the review (a point for every move, the marked moves and the hints), a click
on a point or a row going to that move (the page's time travel draws the board after
it), the page on a phone, and what the page says when there is no review or the game
goes on. The review is one kept in the log as `vora games review` keeps it."""

import pytest

from vora_host.log.store import GameLog

from test_web import log_game, review_of
from test_web_browser import (SHOWN_WITHIN, LiveGame, browser, db, page, server,  # noqa: F401
                              shown, sync_api)

# One browser a file, launched once for all its tests: run them one after another
# (tests/conftest.py, kept_together).
pytestmark = pytest.mark.kept_together
MARKS = {5: "blunder", 8: "mistake", 12: "inaccuracy"}
HINTS = (7,)


@pytest.fixture
def reviewed(db):  # noqa: F811
    """(game id, its moves, the review kept): a Vorcept game of 20 moves, abandoned."""
    gid, moves, _, _ = log_game(db, "vorcept", 3, 20, status="abandoned")
    review = review_of(db, gid, marks=MARKS, hints=HINTS)
    with GameLog(db) as log:
        log.save_review(gid, review)
    return gid, moves, review


def points(page):  # noqa: F811
    """{move number: (x, y)} of the graph's points, as drawn."""
    return dict((int(n), (float(x), float(y))) for n, x, y in page.evaluate(
        "[...document.querySelectorAll('#review-graph circle.pt')].map((c) => "
        "[c.dataset.n, c.getAttribute('cx'), c.getAttribute('cy')])"))


def test_the_graph_is_drawn_and_a_click_on_a_point_goes_to_that_move(server, page,  # noqa: F811
                                                                     reviewed):
    gid, moves, review = reviewed
    page.goto(server + "game/%d" % gid)
    page.wait_for_selector("body[data-review='20']", timeout=SHOWN_WITHIN)
    drawn = points(page)
    assert sorted(drawn) == list(range(1, 21))  # a point for every move
    xs = [drawn[n][0] for n in range(1, 21)]
    assert xs == sorted(xs) and len(set(xs)) == 20  # in the order of the game
    # Higher on the graph where the mover's chance after the move is higher.
    by_chance = sorted(review["moves"], key=lambda m: m["after"])
    low, high = by_chance[0], by_chance[-1]
    assert low["after"] < high["after"]
    assert drawn[low["number"]][1] > drawn[high["number"]][1]
    assert page.locator("#review-graph polyline.chance").count() == 2  # a line per player
    for n, mark in MARKS.items():
        assert page.locator("#review-graph circle.pt.%s" % mark).get_attribute("data-n") \
            == str(n)
    assert page.locator("#review-graph circle.pt.marked").count() == len(MARKS)
    assert page.locator("#review-graph .hint-ring").get_attribute("data-n") == "7"
    legend = page.text_content("#review-legend")
    for words in ("?! inaccuracy", "? mistake", "?? blunder", "hint taken"):
        assert words in legend
    rows = page.locator("#review-moves tbody tr")
    assert rows.count() == 20
    assert "?? blunder" in rows.nth(4).text_content()
    assert "another move" in rows.nth(4).text_content()  # the best move
    assert "hint" in rows.nth(6).text_content()

    # A point: the page's time travel goes to that move.
    page.locator("#review-graph circle.pt[data-n='5']").click()
    shown(page, 5, 20)
    sync_api.expect(page.locator("#last-move")).to_contain_text("Move 5: ")
    sync_api.expect(page.locator("#last-move")).to_contain_text(moves[4])
    sync_api.expect(page.locator("#review-current")).to_contain_text(
        "Move 5, ")
    sync_api.expect(page.locator("#review-current")).to_contain_text("?? blunder")
    sync_api.expect(page.locator("#review-moves tr.current")).to_have_attribute("data-n", "5")
    sync_api.expect(page.locator("#review-graph circle.pt.current")).to_have_attribute(
        "data-n", "5")
    assert page.evaluate("location.hash") == "#move=5"
    # A row of the table, and the page's own keys: the review follows.
    rows.nth(8).click()
    shown(page, 9, 20)
    sync_api.expect(page.locator("#last-move")).to_contain_text(moves[8])
    page.keyboard.press("ArrowRight")
    shown(page, 10, 20)
    sync_api.expect(page.locator("#review-current")).to_contain_text("Move 10, ")
    sync_api.expect(page.locator("#review-graph circle.pt.current")).to_have_attribute(
        "data-n", "10")


def test_the_review_fits_a_phone_its_graph_above_the_board(server, page,  # noqa: F811
                                                           reviewed):
    gid, moves, _ = reviewed
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server + "game/%d" % gid)
    page.wait_for_selector("body[data-review='20']", timeout=SHOWN_WITHIN)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
    graph = page.locator("#review-graph svg").bounding_box()
    board = page.locator("#board").bounding_box()
    assert graph["x"] >= 0 and graph["x"] + graph["width"] <= 390
    assert board["x"] >= 0 and board["x"] + board["width"] <= 390
    assert graph["y"] + graph["height"] <= board["y"]  # a tap shows the board just below
    assert sorted(points(page)) == list(range(1, 21))
    page.locator("#review-graph circle.pt[data-n='12']").click()
    shown(page, 12, 20)
    sync_api.expect(page.locator("#last-move")).to_contain_text(moves[11])
    sync_api.expect(page.locator("#review-current")).to_contain_text("?! inaccuracy")


def test_without_a_review_the_page_says_how_to_make_one(db, server, page):  # noqa: F811
    gid = log_game(db, "vorcept", 3, 6, status="abandoned")[0]
    page.goto(server + "game/%d" % gid)
    sync_api.expect(page.locator("#review-note")).to_have_text(
        "No review of game %d yet: 'vora games review %d' computes it (then reload this "
        "page)." % (gid, gid), timeout=SHOWN_WITHIN)
    assert page.locator("#review-graph svg").count() == 0
    sync_api.expect(page.locator("#review-table-box")).to_be_hidden()


def test_a_game_being_played_has_no_review(db, server, page):  # noqa: F811
    game = LiveGame(db, "vorcept", 7)
    game.play(3)
    page.goto(server + "game/%d" % game.gid)
    shown(page, 3, 3)
    sync_api.expect(page.locator("#review-note")).to_have_text(
        "No review during a game: game %d is still playing; once it is over, 'vora games "
        "review %d' computes one." % (game.gid, game.gid), timeout=SHOWN_WITHIN)
    assert page.locator("#review-graph svg").count() == 0


def test_a_hidden_games_review_says_it_knew_every_hand(db, server, page):  # noqa: F811
    gid, moves, _, state = log_game(db, "tossing-tiger", 5, 400, status="over", players=3,
                                    to_the_end=True)
    with GameLog(db) as log:
        log.save_review(gid, review_of(db, gid))
    page.goto(server + "game/%d" % gid)
    page.wait_for_selector("body[data-review='%d']" % len(moves), timeout=SHOWN_WITHIN)
    sync_api.expect(page.locator("#review-about")).to_contain_text(
        "This review knew every hand and what was still to be drawn: it is shown only now "
        "that the game is over.")

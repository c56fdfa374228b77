"""The seat page's Hint button in Debian's Chromium (issue 41): a "thinking" notice, then
the hint chosen as a tapped move is (its keys lit, "Play it" plays it) and said with its
reason; the other seat reads only that a hint was taken."""

import re

from vora_host.log.store import GameLog

from test_play_web_seats import Typed
from test_web_seats_browser import DESKTOP, PHONE, SHOWN, _links, _page, chromium  # noqa: F401

# Records every text the hint's line shows, however briefly (the thinking notice may last
# less than a poll).
WATCH = """() => {
  window.hintTexts = [];
  const note = document.getElementById("hint-text");
  new MutationObserver(() => window.hintTexts.push(note.textContent))
    .observe(note, {childList: true, characterData: true, subtree: true});
}"""


def test_the_hint_button_thinks_then_chooses_the_move_and_play_it_plays_it(chromium,  # noqa: F811
                                                                         tmp_path):
    db = tmp_path / "games.sqlite3"
    play = Typed("vorcept", "--seed", "6", "--web", "all", "--serve", "0", "--db", str(db))
    errors = []
    try:
        links = _links(play, (0, 1))
        blue = _page(chromium, PHONE, errors)
        red = _page(chromium, DESKTOP, errors)
        blue.goto(links[0])
        red.goto(links[1])
        blue.wait_for_selector("#turn.yours", timeout=SHOWN)
        red.wait_for_function("document.getElementById('turn').textContent.includes('Waiting')",
                              timeout=SHOWN)
        assert red.locator("#hint").is_hidden()  # not their turn
        blue.evaluate(WATCH)
        blue.click("#hint")
        blue.wait_for_function(
            "document.getElementById('hint-text').textContent.startsWith('Hint: ')",
            timeout=SHOWN)
        seen = blue.evaluate("window.hintTexts")
        assert any(text.startswith("Thinking of a hint") for text in seen), seen
        said = blue.text_content("#hint-text")
        move = re.match(r"Hint: (.+?)(?: \(.*\))?$", said).group(1)
        assert blue.text_content("#chosen") == "Your move: %s" % move
        assert blue.locator("#board .key.chosen").count() >= 1  # its keys lit
        red.wait_for_function(
            "[...document.querySelectorAll('#events li')].some("
            "(li) => li.textContent === 'P0 Blue took a hint')", timeout=SHOWN)
        assert move not in red.text_content("#events")
        blue.screenshot(path=str(tmp_path / "seat-hint-phone.png"))
        blue.click("#play")
        play.wait_for(r"P0 Blue \(browser\): %s" % re.escape(move))
        assert not errors, errors
    finally:
        play.kill()
    with GameLog(db) as log:
        hints = [e["data"]["move"] for e in log.events(1) if e["kind"] == "hint"]
    assert hints == [move]

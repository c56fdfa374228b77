"""Screenshots of a game's review on the web mirror's game page (issue 41):
docs/screens/web-review.png (a desktop, 1280x900) and web-review-phone-390x844.png.

    python tools/review_screens.py             # into docs/screens
    python tools/review_screens.py --out DIR   # somewhere else

A game log in a temporary folder gets one Vorcept game (2 players, seed 3) played to its
end by the bots, P0 at the `normal` level and P1 at `easy`, P1 taking a hint (and playing
it) at its 3rd and 9th turns, as a player at a board or a page may; `vora games review`
reviews it (its default budget), then `vora serve` runs over the log and Chromium
(/usr/bin/chromium, driven by Playwright) shows the game's page at the move that cost
its mover the most, as a click on that point of the graph would.
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GAME, SEED = "vorcept", 3
LEVELS = ("normal", "easy")
HINTED_TURNS = (3, 9)  # P1's turns at which P1 takes a hint
MOST_MOVES = 300


def log_game(db):
    from shared_rules import games
    from vora_host.bots import make_bot
    from vora_host.bots.hints import compute_hint
    from vora_host.log.records import result_of
    from vora_host.log.store import GameLog
    state = games.start({"game": GAME, "players": 2, "seed": SEED, "options": {}})
    bots = [make_bot(level, SEED + p, GAME) for p, level in enumerate(LEVELS)]
    turns = [0, 0]
    with GameLog(db) as log:
        gid = log.start_game(game=GAME, players=2, seed=SEED, options=state.options(),
                             source="terminal")
        k = 0
        while not state.is_over() and k < MOST_MOVES:
            player = state.to_act()
            turns[player] += 1
            if player == 1 and turns[player] in HINTED_TURNS:
                hint = compute_hint(GAME, state, k)
                log.add_event(gid, "hint", hint.data())
                move = hint.move
            else:
                move = bots[player].choose(state)
            state.play(move)
            k += 1
            log.add_move(gid, k, move, state.digest())
        log.end_game(gid, "over" if state.is_over() else "abandoned",
                     result_of(state, None if state.is_over() else "quit"))
    return gid


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"),
                        help="folder for the pictures (default docs/screens)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    vora = [sys.executable, "-m", "vora_host"]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        gid = log_game(db)
        subprocess.run(vora + ["games", "review", str(gid), "--db", str(db)], check=True)
        from vora_host.log.store import GameLog
        with GameLog(db) as log:
            review = log.review(gid)
        worst = max(review["moves"], key=lambda m: m["before"] - m["after"])
        proc = subprocess.Popen(vora + ["serve", "--port", "0", "--db", str(db)],
                                stdout=subprocess.PIPE, text=True)
        try:
            address = re.search(r"(http://\S+)", proc.stdout.readline()).group(1)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                for name, size in (("web-review", (1280, 900)),
                                   ("web-review-phone-390x844", (390, 844))):
                    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
                    page.goto(address + "game/%d" % gid)
                    page.wait_for_selector("body[data-review='%d']" % len(review["moves"]))
                    # As a reader would: a click on the point of the move that cost the most.
                    page.click("#review-graph circle.pt[data-n='%d']" % worst["number"])
                    page.wait_for_selector("body[data-shown='%d']" % worst["number"])
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(out / ("%s.png" % name)))
                    print("wrote", out / ("%s.png" % name))
                    page.close()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()

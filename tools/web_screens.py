"""Screenshots of the web mirror's pages (`vora serve`), as a browser shows them:
docs/screens/web-<page>.png.

    python tools/web_screens.py             # every page
    python tools/web_screens.py --out DIR   # somewhere else

A game log in a temporary folder gets one game of each of the five games (2 players,
seed 3, random moves from random.Random(3), none that ends the game: 24 moves, or 12 for
Tossing Tiger, whose moves are bigger) and one Tossing Tiger game played to its end, then
`vora serve` runs over it and Chromium (/usr/bin/chromium, driven by Playwright, 1280x900)
takes the list (web-list.png), each game in progress (web-<game>.png, a spectator's view:
Boars and Tossing Tiger keep their secrets), the finished Tiger game as P0 saw it
(web-tossing-tiger-over-p0.png) and a game stepped back to move 6 (web-time-travel.png).
"""

import argparse
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GAMES = ("vora", "vorcept", "gaia-vora", "boars", "tossing-tiger")
MOVES = {"tossing-tiger": 12}
SEED = 3


def log_games(db):
    from shared_rules import games
    from vora_host.log.records import result_of
    from vora_host.log.store import GameLog
    ids = {}
    with GameLog(db) as log:
        for name in GAMES + ("tossing-tiger-over",):
            game = name.replace("-over", "")
            over = name.endswith("-over")
            state = games.start({"game": game, "players": 2, "seed": SEED, "options": {}})
            gid = log.start_game(game=game, players=2, seed=SEED, options=state.options(),
                                 source="virtual board")
            rnd = random.Random(SEED)
            k = 0
            while not state.is_over() and (over or k < MOVES.get(game, 24)):
                choices = sorted(state.legal_moves())
                rnd.shuffle(choices)
                for move in choices:
                    after = state.clone()
                    after.play(move)
                    if over or not after.is_over():
                        break
                state = after
                k += 1
                log.add_move(gid, k, move, state.digest())
            if over:
                log.end_game(gid, "over", result_of(state))
            ids[name] = gid
    return ids


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"),
                        help="folder for the pictures (default docs/screens)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        ids = log_games(db)
        proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--port", "0",
                                 "--db", str(db)], stdout=subprocess.PIPE, text=True)
        try:
            address = re.search(r"(http://\S+)", proc.stdout.readline()).group(1)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})

                def shot(name, url, ready, viewer=None):
                    page.goto(address + url)
                    page.wait_for_selector(ready)
                    if viewer is not None:
                        page.select_option("#viewer", viewer)
                        page.wait_for_function("document.body.dataset.viewer === %r"
                                               % viewer)
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(out / ("web-%s.png" % name)))
                    print("wrote", out / ("web-%s.png" % name))

                shot("list", "", "#logged-games tbody tr")
                for name in GAMES:
                    shot(name, "game/%d" % ids[name], "#board .key")
                shot("tossing-tiger-over-p0", "game/%d" % ids["tossing-tiger-over"],
                     "#board .key", viewer="0")
                shot("time-travel", "game/%d#move=6" % ids["vorcept"],
                     "body[data-shown='6']")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()

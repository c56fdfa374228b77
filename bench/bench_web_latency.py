"""The web mirror's delay: from a move written to the log (as `vora play` writes it, LiveLog)
to the game page showing it, in a real browser (Playwright driving /usr/bin/chromium).

    .venv/bin/python bench/bench_web_latency.py [GAME] [MOVES]

`vora serve` runs as a user runs it (its own process, a free port, a log in a temporary
folder). A MutationObserver in the page stamps the moment the move counter changes; the
delay is that stamp minus the moment add_move returned (both the same machine's wall
clock). Moves come every 250 ms, so each is measured on its own.
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

WATCH = """() => {
  window.__changes = [];
  new MutationObserver(() => window.__changes.push(
      [document.getElementById('move-number').textContent,
       performance.timeOrigin + performance.now()]))
    .observe(document.getElementById('move-number'), {childList: true, characterData: true,
                                                      subtree: true});
}"""


def main():
    game_name = sys.argv[1] if len(sys.argv) > 1 else "vorcept"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    if not os.path.exists(CHROMIUM):
        print("skipped: no Chromium at %s (./dev setup installs it)" % CHROMIUM)
        return
    from playwright.sync_api import sync_playwright
    from test_web_browser import GameOver, LiveGame
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        game = LiveGame(db, game_name, 7)
        game.play(2)
        proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--port", "0",
                                 "--db", str(db)], stdout=subprocess.PIPE, text=True)
        try:
            address = re.search(r"(http://\S+)", proc.stdout.readline()).group(1)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                page = browser.new_page()
                page.goto(address + "game/%d" % game.gid)
                page.wait_for_function("document.body.dataset.shown === '2'")
                page.evaluate(WATCH)
                sent = {}
                for k in range(3, count + 3):
                    try:
                        game.play()
                    except GameOver:
                        break
                    sent[k] = time.time() * 1000
                    time.sleep(0.25)
                time.sleep(1)
                changes = page.evaluate("window.__changes")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    shown = {}
    for text, at in changes:
        m = re.fullmatch(r"move (\d+) of (\d+)", text.strip())
        if m and m.group(1) == m.group(2) and int(m.group(1)) not in shown:
            shown[int(m.group(1))] = at
    delays = [shown[k] - sent[k] for k in sent if k in shown]
    missed = len(sent) - len(delays)
    delays.sort()
    print("Web mirror, %s: %d moves logged, %d shown; delay from add_move to the page, ms: "
          "median %.0f, p90 %.0f, max %.0f" % (
              game_name, len(sent), len(delays), statistics.median(delays),
              delays[int(0.9 * (len(delays) - 1))], delays[-1]))
    if missed:
        print("  %d moves never shown" % missed)


if __name__ == "__main__":
    main()

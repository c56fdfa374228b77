"""The screenshot of a seat whose opponent has gone (docs/screens/seat-claim-phone-390x844.png,
docs/web.md): `vora play vorcept --typed --web all --claim-after 10`, P0's page opened on a
phone, P1's never, until P0's page offers to claim the win.

    .venv/bin/python tools/seat_claim_screen.py [OUT.png]
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
DEADLINE = 60


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else ROOT / "docs" / "screens" / "seat-claim-phone-390x844.png"
    with tempfile.TemporaryDirectory() as tmp:
        play = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "play", "vorcept", "--typed", "--seed", "6",
             "--web", "all", "--serve", "0", "--claim-after", "10", "--db",
             str(Path(tmp) / "games.sqlite3")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env=dict(os.environ, COLUMNS="120"))
        try:
            link = None
            deadline = time.monotonic() + DEADLINE
            text = ""
            while link is None and time.monotonic() < deadline:
                text += play.stdout.readline()
                found = re.search(r"P0 Blue plays in a browser: (\S+)", text)
                link = found.group(1) if found else None
            if link is None:
                raise SystemExit("vora play printed no link:\n" + text)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                            args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_context(viewport={"width": 390, "height": 844},
                                           has_touch=True).new_page()
                page.goto(link)
                page.wait_for_selector("#claim-win:not([hidden])", timeout=DEADLINE * 1000)
                page.screenshot(path=str(out), full_page=False)
                browser.close()
        finally:
            play.kill()
            play.wait()
    print("wrote %s" % out)


if __name__ == "__main__":
    main()

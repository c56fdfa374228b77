"""The screenshots of the tables page (docs/web.md): `vora serve --tables`, a table of
Gaia-Vora set up from the page (P0 in a browser, P1 the server's normal bot), its seat's
link and QR code shown, on a phone (docs/screens/tables-phone-390x844.png) and a desktop
(docs/screens/tables-desktop-1280x800.png).

    .venv/bin/python tools/tables_screen.py [OUT_FOLDER]
"""

import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
DEADLINE = 60
SIZES = (("phone", 390, 844), ("desktop", 1280, 800))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else ROOT / "docs" / "screens"
    with tempfile.TemporaryDirectory() as tmp:
        serve = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "serve", "--tables", "--port", "0", "--db",
             str(Path(tmp) / "games.sqlite3")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            text = serve.stdout.readline()
            found = re.search(r"at (http://\S+) \(Ctrl-C stops\)", text)
            if found is None:
                raise SystemExit("vora serve printed no address:\n" + text)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                            args=["--no-sandbox", "--disable-gpu"])
                for name, width, height in SIZES:
                    page = browser.new_context(viewport={"width": width, "height": height},
                                               has_touch=name == "phone").new_page()
                    page.goto(found.group(1) + "tables")
                    page.wait_for_selector("#game option", state="attached",
                                           timeout=DEADLINE * 1000)
                    page.select_option("#game", "gaia-vora")
                    page.select_option("#seat-kinds select[name=seat1]", "normal")
                    page.click("#create")
                    page.wait_for_selector("#made:not([hidden])", timeout=DEADLINE * 1000)
                    page.wait_for_selector("#tables tbody tr", timeout=DEADLINE * 1000)
                    target = out / ("tables-%s-%dx%d.png" % (name, width, height))
                    page.screenshot(path=str(target), full_page=False)
                    print("wrote %s" % target)
                browser.close()
        finally:
            serve.send_signal(signal.SIGINT)
            serve.wait(DEADLINE)


if __name__ == "__main__":
    main()

"""Text captures of the virtual board's screen for the games the PC runs on the board,
as a newcomer sees them: docs/screens/<game>-<cols>x<rows>.txt.

    python tools/board_screens.py             # all four games at 80x24 and 120x40
    python tools/board_screens.py boars       # one game

Each capture runs `vora play GAME` on the virtual board under a pseudo-terminal of that
size (read back with pyte, a VT100 emulator: a development dependency), player 0 a person
and player 1 the random bot, seed 3; the person types a few moves in the game's notation
(the first legal move each time, as the screen's footer offers it, but `fight 1 3` to
open Tossing Tiger), then the screen is written out as plain text. The serial device's
name, different at every run, is written as /dev/pts/N.
"""

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

GAMES = ("vorcept", "gaia-vora", "tossing-tiger", "boars")
SIZES = ((80, 24), (120, 40))
MOVES = 4  # moves typed by player 0 before the capture
# A first move chosen for the capture: the first legal one of Tossing Tiger is a war of
# one die, over at once.
OPENING = {"tossing-tiger": "fight 1 3"}
SEED = 3


def _flat(text):
    return " ".join(text.split())


def _wait(term, pattern, timeout=20.0):
    end = time.monotonic() + timeout
    while True:
        found = re.search(pattern, _flat(term.text()))
        if found:
            return found
        if time.monotonic() > end:
            raise RuntimeError("%r never appeared:\n%s" % (pattern, term.text()))
        term.pump(0.1)


def capture(game, cols, rows):
    """The screen of `vora play GAME` at cols x rows after a few typed moves, as text."""
    from pty_screen import PtyScreen
    vora = str(Path(sys.executable).with_name("vora"))
    with tempfile.TemporaryDirectory() as tmp:
        args = [vora, "play", game, "--port", "sim", "--save-dir", os.path.join(tmp, "save"),
                "--db", os.path.join(tmp, "games.sqlite3"), "--seed", str(SEED), "--fresh",
                "--human", "0", "--bot", "1=random"]
        with PtyScreen(args, cols=cols, rows=rows, cwd=str(ROOT),
                       env={"VORA_SIM_DEVICE": os.path.join(tmp, "tty")}) as term:
            for i in range(MOVES):
                move = _wait(term, r"\(you\) to .*type a move \(([^)]*)\)").group(1)
                if i == 0:
                    move = OPENING.get(game, move)
                term.send(move + "\r", 0.5)
                _wait(term, re.escape("move: P0 " + move))
            _wait(term, r"\(you\) to")
            term.pump(1.5)
            lines = term.lines()
            term.send("q", 0.5)
            term.wait_exit()
    text = "\n".join(lines).rstrip("\n") + "\n"
    text = re.sub(r"/dev/pts/\d+", "/dev/pts/N", text)
    return re.sub(r"= \S*/tty\b", "= /tmp/vora-sim/ttyVORA", text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=list(GAMES), help="games to capture")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"),
                        help="folder for the text files (default docs/screens)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for game in args.games:
        for cols, rows in SIZES:
            path = out / ("%s-%dx%d.txt" % (game, cols, rows))
            path.write_text(capture(game, cols, rows), encoding="utf-8")
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

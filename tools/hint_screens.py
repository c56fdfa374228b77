"""A hint on the board, as the virtual board's screen shows it: docs/screens/hint-<game>-
<cols>x<rows>.txt (issue 41).

    python tools/hint_screens.py              # Boars and Vorcept at 120x40
    python tools/hint_screens.py vorcept      # one game

Each capture runs `vora play GAME` on the virtual board under a pseudo-terminal (read back
with pyte: a development dependency), player 0 a person and player 1 the random bot, seed
3; the person types `hint` and the screen is written out as plain text once the hint is
shown: the move previewed on the keys, the hint and its reason on the message line. A
text capture has no colours: a key lit white (the preview's keys) is written between
stars, `*f3*`. The serial device's name, different at every run, is written as
/dev/pts/N.
"""

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tools"))

from board_screens import SEED, _wait  # noqa: E402

GAMES = ("boars", "vorcept")
SIZE = (120, 40)


def capture(game, cols, rows):
    """The screen of `vora play GAME` once a hint typed at the start is shown, as text."""
    from pty_screen import PtyScreen
    vora = str(Path(sys.executable).with_name("vora"))
    with tempfile.TemporaryDirectory() as tmp:
        args = [vora, "play", game, "--port", "sim", "--save-dir", os.path.join(tmp, "save"),
                "--db", os.path.join(tmp, "games.sqlite3"), "--seed", str(SEED), "--fresh",
                "--human", "0", "--bot", "1=random"]
        with PtyScreen(args, cols=cols, rows=rows, cwd=str(ROOT),
                       env={"VORA_SIM_DEVICE": os.path.join(tmp, "tty")}) as term:
            _wait(term, r"\(you\) to")
            term.send("hint\r", 0.5)
            _wait(term, r"to play it", timeout=60.0)
            term.pump(1.0)
            lines = _starred(term.screen)
            term.send("q", 0.5)
            term.wait_exit()
    text = "\n".join(lines).rstrip("\n") + "\n"
    text = re.sub(r"/dev/pts/\d+", "/dev/pts/N", text)
    return re.sub(r"= \S*/tty\b", "= /tmp/vora-sim/ttyVORA", text)


def _starred(screen):
    # The screen's lines, a key's name whose cells are drawn on white between stars.
    out = []
    for y in range(screen.lines):
        row = screen.buffer[y]
        text = "".join(row[x].data for x in range(screen.columns))
        for found in re.finditer(r"\b[a-g][1-7]\b", text):
            start, end = found.span()
            if all(row[x].bg == "ffffff" for x in range(start, end)) and start > 0 \
                    and end < screen.columns:
                text = text[:start - 1] + "*" + text[start:end] + "*" + text[end + 1:]
        out.append(text.rstrip())
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=list(GAMES), help="games to capture")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"),
                        help="folder for the text files (default docs/screens)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cols, rows = SIZE
    for game in args.games:
        path = out / ("hint-%s-%dx%d.txt" % (game, cols, rows))
        path.write_text(capture(game, cols, rows), encoding="utf-8")
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

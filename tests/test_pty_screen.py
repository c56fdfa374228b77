"""The pty harness reads a screen only when it is drawn whole: a program that marks its
redraws as synchronized updates (the terminals' "begin/end synchronized update", private
mode 2026, as the virtual board's screen does) is never read half-way through one, however
slowly its second half comes (a loaded machine: the CI once read a footer half drawn)."""

import sys

from pty_screen import PtyScreen

# A redraw in two halves: the first written, then a pause as on a busy machine before the
# rest; then the program waits for a line, so that it is still there to be read.
SLOW_REDRAW = r"""
import sys, time
out = sys.stdout
out.write("\x1b[?2026h\x1b[2J\x1b[1;1HPress")
out.flush()
time.sleep(0.3)
out.write(" the keys | q quits\x1b[?2026l")
out.flush()
sys.stdin.readline()
"""


def test_a_screen_is_never_read_half_way_through_a_synchronized_redraw():
    with PtyScreen([sys.executable, "-c", SLOW_REDRAW], cols=40, rows=5) as term:
        # "Press" shows 0.3 s before the rest of its line: far longer than the quiet that
        # tells a screen drawn whole from a program that never marks its redraws.
        text = term.wait_until(lambda: "Press" in term.text(), "the footer", timeout=30)
        assert "Press the keys | q quits" in text, text
        term.send("\r", 0)  # the program ends


def test_a_read_comes_back_with_the_redraw_it_began_whole():
    with PtyScreen([sys.executable, "-c", SLOW_REDRAW], cols=40, rows=5) as term:
        assert term.read_some(30)  # back once something came
        assert "Press the keys | q quits" in term.text() and not term.updating, term.text()
        term.send("\r", 0)

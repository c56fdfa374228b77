"""A program run at a pseudo-terminal of a given size, its screen read back with pyte
(a VT100 emulator), for tests that look at what a person sees.

    with PtyScreen(["vora", "play", ...], cols=80, rows=24) as term:
        term.wait_for("Vora Board")
        term.send("c3\r")
        print(term.text())
"""

import fcntl
import os
import pty
import select
import signal
import struct
import termios
import time

import pyte

WAIT = 60.0  # seconds for what a program should show soon: generous, under load
QUIET = 0.03  # seconds with no output: the screen is drawn whole
# A program's redraw marked as one synchronized update (private mode 2026, as the virtual
# board's screen marks each): the screen is whole only once its end has come.
BEGIN_UPDATE, END_UPDATE = b"\x1b[?2026h", b"\x1b[?2026l"
UPDATE_WAIT = 10.0  # seconds a read waits for the end of an update it saw begin


class PtyScreen:
    def __init__(self, argv, cols=80, rows=24, env=None, cwd=None, blocked=()):
        """`blocked`: signals the program starts with blocked (it never sees them), for
        tests of what it does when another sign of the same event comes first."""
        self.cols, self.rows = cols, rows
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        pid, fd = pty.fork()
        if pid == 0:
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                if blocked:
                    signal.pthread_sigmask(signal.SIG_BLOCK, set(blocked))
                if cwd:
                    os.chdir(cwd)
                os.execvpe(argv[0], argv, dict(os.environ, **(env or {}), TERM="xterm-256color",
                                               COLUMNS=str(cols), LINES=str(rows)))
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.status = None
        self.updating = False  # a synchronized update begun and not yet ended

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read(self):
        """What the program wrote, now readable, onto the screen; False at its end."""
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            data = b""
        if not data:
            return False
        self.raw += data
        self.stream.feed(data)
        # The last mark in what came (or across the edge of the read before) says.
        since = max(0, len(self.raw) - len(data) - len(BEGIN_UPDATE))
        begin, end = self.raw.rfind(BEGIN_UPDATE, since), self.raw.rfind(END_UPDATE, since)
        if begin >= 0 or end >= 0:
            self.updating = begin > end
        return True

    def _finish_update(self):
        """Read on until an update begun is over (the screen whole), at most UPDATE_WAIT
        seconds; False once the program's side of the terminal is closed."""
        end = time.monotonic() + UPDATE_WAIT
        while self.updating:
            left = end - time.monotonic()
            if left <= 0:
                return True
            r, _, _ = select.select([self.fd], [], [], left)
            if r and not self._read():
                return False
        return True

    def pump(self, seconds=0.05):
        """Read what the program wrote for up to `seconds` (and the rest of a synchronized
        update begun by then)."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            r, _, _ = select.select([self.fd], [], [], max(0, left))
            if r:
                if not self._read():
                    return False
            elif left <= 0:
                return self._finish_update()

    def read_some(self, seconds=0.1):
        """Read what the program writes next: back as soon as something came (and what
        came with it, and the rest of a synchronized update it began), or after `seconds`
        of nothing. False once the program's side of the terminal is closed."""
        r, _, _ = select.select([self.fd], [], [], seconds)
        if not r:
            return True
        return self._read() and self.pump(0) and self._finish_update()

    def lines(self):
        return [line.rstrip() for line in self.screen.display]

    def text(self):
        return "\n".join(self.lines())

    def wait_for(self, needle, timeout=WAIT):
        return self.wait_until(lambda: needle in self.text(), "%r appeared" % needle, timeout)

    def wait_until(self, check, what="the screen changed", timeout=WAIT):
        """Read the program's output until check() is true (the screen shows what the test
        waits for) on a screen drawn whole: the screen's text. Output is looked at as it
        comes, and a true check() counts once nothing more came for QUIET seconds (a
        screen is drawn in several writes: half of one is not what the test waits for; a
        screen never quiet counts after 10 QUIET), never inside a synchronized update. A
        generous deadline, never a fixed wait: the suite runs on loaded machines too."""
        end = time.monotonic() + timeout
        held = None  # since when check() has held (a screen that never goes quiet)
        while True:
            if check():
                now = time.monotonic()
                held = now if held is None else held
                before = len(self.raw)
                alive = self.read_some(QUIET)
                whole = not alive or not self.updating and (
                    len(self.raw) == before or now - held > 10 * QUIET)
                if whole and check():
                    return self.text()
                continue
            held = None
            if time.monotonic() > end:
                raise AssertionError("never: %s, in %.0f s:\n%s" % (what, timeout, self.text()))
            if not self.read_some(0.1) and not check():
                raise AssertionError("the program ended and never: %s:\n%s" % (what,
                                                                              self.text()))

    def send(self, data, settle=0.3):
        """Type `data`, then read until the program's first answer to it comes (the
        terminal's echo of a typed line, a screen redrawn for a key), at most `settle`
        seconds: a pace between keystrokes, never what a test waits for. wait_for() and
        wait_until() wait for what the keys do."""
        before = len(self.raw)
        os.write(self.fd, data.encode() if isinstance(data, str) else data)
        end = time.monotonic() + settle
        while len(self.raw) == before:
            left = end - time.monotonic()
            if left <= 0 or not self.read_some(left):
                break

    def wait_exit(self, timeout=WAIT):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.05)
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
                self.pid = 0
                return self.status
        raise AssertionError("the program did not end:\n%s" % self.text())

    def close(self):
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = 0
        try:
            os.close(self.fd)
        except OSError:
            pass

"""`vora play GAME --port sim` driven through its typed lines, for tests: type a line, then
wait for what it makes the program say, never a fixed pause (the suite must pass on a loaded
machine, where a pause long enough on an idle one is not).

    with PlaySession(["play", "vorcept", "--port", "sim", ...]) as play:
        play.until_the_pcs_game("Vorcept")     # the board shows the PC's game: keys reach it
        play.command("press d4")
        play.expect("board preview: pylon d4")
        out = play.quit()                      # everything it printed, stdout and stderr

The virtual board answers each command line with `ok` (or `error ...`) once it is done; what
the game says (`board move: ...`) comes on the same output, in between.
"""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEADLINE = 60.0  # seconds for anything the program should do soon: generous, under load


class PlaySession:
    def __init__(self, args, env=None, cwd=ROOT):
        env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1")
        env.setdefault("COLUMNS", "200")
        env.setdefault("NO_COLOR", "1")
        self.proc = subprocess.Popen([sys.executable, "-m", "vora_host", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1,
                                     env=env, cwd=str(cwd))
        self.lines = []
        self.ended = False
        self.changed = threading.Condition()
        self.mark = 0  # where the answer to the last line typed starts
        threading.Thread(target=self._read, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    def _read(self):
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def text(self):
        with self.changed:
            return "\n".join(self.lines)

    def send(self, line):
        """Type a line; what it makes the program say is looked for from here on."""
        with self.changed:
            self.mark = len(self.lines)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _find(self, match, start, timeout, what):
        end = time.monotonic() + timeout
        with self.changed:
            while True:
                for i in range(start, len(self.lines)):
                    if match(self.lines[i]):
                        return i
                left = end - time.monotonic()
                if left <= 0 or self.ended:
                    raise AssertionError("%s %s; it said:\n%s" % (
                        what, "in %.0f s" % timeout if left <= 0 else "before it ended",
                        "\n".join(self.lines[-40:])))
                self.changed.wait(min(left, 1.0))

    def expect(self, needle, timeout=DEADLINE):
        """The first line holding `needle` since the last line typed (waited for)."""
        i = self._find(lambda line: needle in line, self.mark, timeout,
                       "vora never said %r" % needle)
        return self.lines[i]

    def command(self, line, timeout=DEADLINE):
        """Type a command and wait for its answer: the lines up to its `ok`. An `error`
        answer fails."""
        self.send(line)
        i = self._find(lambda text: text == "ok" or text.startswith("error "), self.mark,
                       timeout, "no answer to %r" % line)
        assert self.lines[i] == "ok", "%s -> %s" % (line, self.lines[i])
        return self.lines[self.mark:i]

    def until_the_pcs_game(self, title, timeout=DEADLINE):
        """Wait until the virtual board shows the game the PC runs (its keys then reach that
        game, not the board's own Vora): asked with `help`, which names the game then."""
        end = time.monotonic() + timeout
        while True:
            if any(line.startswith(title + ": the rules") for line in self.command("help")):
                return
            assert time.monotonic() < end, "the board never showed %s:\n%s" % (title,
                                                                               self.text())
            time.sleep(0.1)  # a poll, not a wait for something: the answer says

    def quit(self, timeout=DEADLINE):
        """`quit`, and everything the program said once it has ended."""
        self.command("quit", timeout)
        return self.wait(timeout)

    def wait(self, timeout=DEADLINE):
        """Wait for the program to end; everything it said."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError("vora did not end in %.0f s:\n%s" % (timeout, self.text()))
        with self.changed:
            self.changed.wait_for(lambda: self.ended, timeout=timeout)
        return self.text()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass

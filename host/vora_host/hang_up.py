"""The terminal closing (a hang-up) stops vora play and vora mirror as Ctrl-C does: the game
is saved as interrupted (a demo abandoned) and the log closed, rather than the process
killed with its game left "playing" (which the next session would resume, a demo
included), or going on with nobody at its screen.

The kernel tells a program its terminal closed in two ways, in no fixed order: SIGHUP, and
reads from the terminal that fail (EIO) or end (end of input). Under load the failed read is
often seen first, and a program that took it for a pipe run dry ended as "end of input"
(exit 1) or went on; one that only writes (a demo) died of the failed write. All ways lead to
the program's SIGHUP handling: a reader of the terminal asks `stop_if_closed()` before it
treats an end of input or a failed read as one, and sys.stdout and sys.stderr, when they
are the terminal, ask it when a write fails; when the terminal has closed, it raises the
SIGHUP itself (the kernel's may come later), so that whichever handler the program has
(this module's `hung_up()`, or an event loop's) runs.

What is printed after it goes nowhere: the terminal is gone, and a write to it would fail
before the game is written, so the standard streams are pointed at the null device.
"""

import errno
import os
import select
import signal
import sys

# The standard streams that were a terminal when install() ran: only those can hang up.
_terminals = set()


def install():
    """Stop on SIGHUP as on Ctrl-C, unless the program was started to ignore it (nohup,
    which also keeps a terminal off its standard input)."""
    if not hasattr(signal, "SIGHUP") or signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
        return
    for fd in (0, 1, 2):
        if _is_terminal(fd):
            _terminals.add(fd)
    signal.signal(signal.SIGHUP, _on_signal)
    if 1 in _terminals and not isinstance(sys.stdout, _TerminalStream):
        sys.stdout = _TerminalStream(sys.stdout, 1)
    if 2 in _terminals and not isinstance(sys.stderr, _TerminalStream):
        sys.stderr = _TerminalStream(sys.stderr, 2)


def terminal_closed(fd=0, error=None):
    """Whether `fd` was a terminal when install() ran and has closed: a read or write of
    it failed with EIO (`error`), what a terminal whose other end closed answers; poll()
    says it hung up; or it no longer passes isatty (a hung-up terminal answers every
    request with an error). The first two are the surer signs: the kernel marks the
    terminal's other end closed before it wakes the readers, and hangs it up (isatty
    fails) only after, so under load a reader can see the end of input (line editing
    turns the EIO into one) while isatty still passes (issue 43). A Ctrl-D typed at a
    terminal that is still open is an end of input with no hang-up: the game's own."""
    if fd not in _terminals:
        return False
    if isinstance(error, OSError) and error.errno == errno.EIO:
        return True
    return _polls_hung_up(fd) or not _is_terminal(fd)


def _polls_hung_up(fd):
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL)
                   for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def stop_if_closed(fd=0, error=None):
    """At an end of input or a failed read or write (`error`) on `fd`: when its terminal
    closed, stop as SIGHUP does (raises KeyboardInterrupt); otherwise return, and the
    caller treats it as the end of input or the error it is."""
    if terminal_closed(fd, error):
        _as_if_sighup()


def _as_if_sighup():
    """Act as if the SIGHUP that the closing sends had come now: the program's own way out
    runs, this module's handler (KeyboardInterrupt, at once) or an event loop's (which
    ends its loop cleanly on its next turn: an exception thrown through the loop from one
    of its callbacks or tasks could leave it waiting for its threads)."""
    if not hasattr(signal, "SIGHUP"):
        hung_up()
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})
    except (AttributeError, OSError, ValueError):
        pass
    signal.raise_signal(signal.SIGHUP)


def hung_up():
    """Leave by KeyboardInterrupt, once, with the standard streams on the null device."""
    if hasattr(signal, "SIGHUP"):
        try:
            signal.signal(signal.SIGHUP, signal.SIG_IGN)  # once: the way out is under way
        except ValueError:
            pass  # (not the main thread: its KeyboardInterrupt is the way out)
    _terminals.clear()
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass
    raise KeyboardInterrupt


class _TerminalStream:
    """sys.stdout or sys.stderr at a terminal: a write that fails because the terminal
    closed stops the program as its SIGHUP would; anything else is the stream's own."""

    def __init__(self, stream, fd):
        self._stream = stream
        self._fd = fd

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as exc:
            stop_if_closed(self._fd, exc)
            raise

    def flush(self):
        try:
            self._stream.flush()
        except OSError as exc:
            stop_if_closed(self._fd, exc)
            raise

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _on_signal(signum, frame):
    hung_up()


def _is_terminal(fd):
    try:
        return os.isatty(fd)
    except OSError:
        return False

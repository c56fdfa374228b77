"""The suite runs as from a terminal, whatever started it.

A program started in the background of a shell without job control (`cmd &` in a script,
which some CI runners do too) has SIGINT and SIGQUIT ignored, and one started by `nohup`
has SIGHUP ignored; an ignored signal stays ignored in every process it starts. The tests
that press Ctrl-C on a program (the lab, vora serve) or close its terminal (the hang-up
tests) then saw it go on, or end as if nothing happened, as a real program would if its
user had asked for that: only in the workers that had not run, by chance, an in-process
event loop, whose signal handling puts SIGINT's default back when it ends (asyncio does).
Found in whole-suite runs under load started from a script (issue 43).

A runner may ignore SIGTERM as well (some supervisors do, to outlive their own stop):
then every `terminate()` a program or a test sends does nothing, and what it stops plays
on; it is given its default back too.

`as_from_a_terminal()` gives Ctrl-C, a hang-up and SIGTERM their defaults back in this
process, before any test starts a program (tests/conftest.py calls it), and says which it
changed.
"""

import signal

__all__ = ["as_from_a_terminal"]


def as_from_a_terminal():
    """Put back the default handling of SIGINT (KeyboardInterrupt), SIGHUP and SIGTERM
    where they are ignored; returns the names of those changed."""
    changed = []
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        changed.append("SIGINT")
    if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        changed.append("SIGHUP")
    if signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        changed.append("SIGTERM")
    return changed

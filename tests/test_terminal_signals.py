"""The suite's programs get Ctrl-C and the terminal's closing as from a terminal, even
when the suite was started where those signals are ignored (tests/terminal_signals.py,
issue 43: a whole run started from a script saw Ctrl-C not take)."""

import os
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# A process started as `cmd &` from a script (SIGINT ignored) and under nohup (SIGHUP
# ignored), which starts a program and prints what that program was given.
PROBE = """
import subprocess, sys
sys.path.insert(0, %r)
if sys.argv[1] == "fixed":
    import terminal_signals
    print("changed", ",".join(terminal_signals.as_from_a_terminal()))
child = subprocess.run([sys.executable, "-c", "import signal; print(int(signal.getsignal("
                        "signal.SIGINT) is signal.default_int_handler), int(signal.getsignal("
                        "signal.SIGHUP) == signal.SIG_DFL), int(signal.getsignal(signal.SIGTERM) == "
                        "signal.SIG_DFL))"], capture_output=True, text=True)
print("child", child.stdout.strip())
""" % str(HERE)


def _run(mode):
    def ignore():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                          preexec_fn=ignore, timeout=60, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_program_started_by_the_suite_gets_ctrl_c_and_the_hang_up_as_from_a_terminal():
    # Without the fix, the program inherits both signals ignored: Ctrl-C would not take.
    assert _run("as started") == ["child 0 0 0"]
    assert _run("fixed") == ["changed SIGINT,SIGHUP,SIGTERM", "child 1 1 1"]


def test_this_suite_runs_so():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGHUP) != signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) != signal.SIG_IGN

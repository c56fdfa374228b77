"""Ending a pool of worker processes (vora_host/pools.py): whatever a worker does, none is
left running when the command that stopped its pool says it stopped (a CI run saw a
ladder's worker still alive after Ctrl-C)."""

import signal
import time

from vora_host import pools
from vora_host.lab.runners import start_local_pool


def _deaf_to_sigterm(_):
    """A worker's task that shrugs off SIGTERM, as a worker does whenever its start
    inherited SIGTERM ignored, and then plays on."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(120)


def _wait_for(predicate, seconds=60):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "not in %d s" % seconds
        time.sleep(0.02)


def test_a_worker_that_ignores_sigterm_is_ended_all_the_same(monkeypatch):
    monkeypatch.setattr(pools, "TERMINATE_GRACE_S", 0.5)
    pool = start_local_pool(1)
    pool.submit(_deaf_to_sigterm, None)
    (worker,) = list(pool._processes.values())
    # The task is under way (its handler set) once SIGTERM no longer ends the worker.
    _wait_for(lambda: _sigterm_ignored(worker.pid))
    started = time.monotonic()
    pools.stop_local_pool(pool, finished=False)
    assert not worker.is_alive()
    assert time.monotonic() - started < 30


def _sigterm_ignored(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    except OSError:
        pass
    return False

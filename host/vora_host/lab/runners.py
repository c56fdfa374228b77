"""Who plays the lab's games: this process, a pool of local processes, or a Ray cluster.

Every runner takes the same chunks of games and hands each chunk's result to `on_result`
in the main thread as it comes back, in whatever order; the report sorts games by their
index, so the numbers do not depend on the runner. Ctrl-C once: no new chunk starts and
the chunks under way are finished (and kept); twice: they are dropped. run() then
returns False (interrupted) instead of True. Killed outright (SIGKILL, the OOM killer),
the driver takes its local workers with it: each worker watches its parent (below), and
the multiprocessing resource tracker ends when the last of them is gone.
"""

import os
import signal
import sys
import threading
import time

from vora_host.lab.playing import play_chunk
from vora_host.pools import stop_local_pool

__all__ = ["InProcessRunner", "ProcessRunner", "RayRunner", "RunnerError", "make_runner",
           "start_local_pool", "stop_local_pool"]


class RunnerError(RuntimeError):
    """The runner could not start (Ray missing or unreachable), or lost a worker: the
    message says why."""


WORKER_LOST = ("a worker process ended before its games did (killed, or out of memory?); "
               "the games that ended are kept: go on with the same command, --resume and "
               "the same --out")


def _say(notice, text):
    if notice is not None:
        notice(text)


class InProcessRunner:
    """One core: the games are played here, one at a time (so Ctrl-C loses at most the
    game being played)."""

    name = "this process"
    workers = 1

    def run(self, spec_dict, chunks, on_result, notice=None):
        try:
            for chunk in chunks:
                for task in chunk:
                    on_result(play_chunk({"spec": spec_dict, "tasks": [task]}))
        except KeyboardInterrupt:
            _say(notice, "Interrupted: the game under way is dropped.")
            return False
        return True


def _ignore_sigint():
    # Ctrl-C reaches the whole process group; the workers leave it to the driver, which
    # decides what to keep.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


PARENT_CHECK_S = 0.5
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent(parent_pid):
    """Make this worker end when the driver `parent_pid` ends, however it ends: a driver
    killed outright cannot stop its workers, and orphans would play on for minutes.
    On Linux the kernel sends SIGKILL when the parent dies (prctl PR_SET_PDEATHSIG); on
    every system a daemon thread also looks at the parent every PARENT_CHECK_S seconds
    (an orphan gets another parent) and ends the process."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watching thread still does it
    if os.getppid() != parent_pid:
        os._exit(1)  # the driver died before the line above took effect

    def watch():
        while True:
            time.sleep(PARENT_CHECK_S)
            if os.getppid() != parent_pid:
                os._exit(1)
    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _start_worker(parent_pid):
    _ignore_sigint()
    _die_with_parent(parent_pid)


def start_local_pool(workers):
    """A pool of `workers` local processes that end with this one (ProcessRunner's, and
    the ladder's). spawn: the workers start clean, whatever threads this process runs
    (the progress display has one, and fork with threads can deadlock)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(os.getpid(),))


class ProcessRunner:
    """Local worker processes (default: one per core)."""

    def __init__(self, workers=None):
        self.workers = workers or os.cpu_count() or 1
        self.name = "%d local processes" % self.workers

    def run(self, spec_dict, chunks, on_result, notice=None):
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool
        pool = start_local_pool(self.workers)
        todo = iter(chunks)
        pending = set()
        stopping = False
        finished = False
        try:
            try:
                while True:
                    while not stopping and len(pending) < 2 * self.workers:
                        chunk = next(todo, None)
                        if chunk is None:
                            stopping = True
                            break
                        pending.add(pool.submit(play_chunk, {"spec": spec_dict, "tasks": chunk}))
                    if not pending:
                        break
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        on_result(future.result())
            except BrokenProcessPool:  # a worker killed outright (the OOM killer, kill -9)
                raise RunnerError(WORKER_LOST)
            except KeyboardInterrupt:
                _say(notice, "Interrupted: finishing the %d chunks of games under way "
                             "(Ctrl-C again to drop them)." % len(pending))
                try:
                    for future in pending:
                        on_result(future.result())
                except KeyboardInterrupt:
                    _say(notice, "Dropped the games under way.")
                return False
            finished = True
            return True
        finally:
            stop_local_pool(pool, finished)


class RayRunner:
    """A Ray cluster: `address` "local" starts one on this machine (and stops it after),
    anything else is the address of a running cluster (host:port, or "auto")."""

    def __init__(self, address, workers=None):
        self.address = address
        self.workers = workers
        self.name = "Ray (%s)" % ("a local cluster started here" if address == "local"
                                  else address)
        self.startup_seconds = None

    def _connect(self):
        import logging
        try:
            import ray
        except ImportError:
            raise RunnerError("--ray needs the ray package: pip install 'ray==2.60.0' "
                              "(it is in requirements.lock)")
        kwargs = {"include_dashboard": False, "log_to_driver": False,
                  "logging_level": logging.WARNING, "configure_logging": True}
        if self.address == "local":
            if self.workers:
                kwargs["num_cpus"] = self.workers
            ray.init(address="local", **kwargs)
        else:
            # The cluster's machines get this very code (the fingerprint check then proves
            # it is the code that played); they need the same Python packages installed.
            import shared_rules
            import vora_host
            runtime_env = {"py_modules": [os.path.dirname(shared_rules.__file__),
                                          os.path.dirname(vora_host.__file__)]}
            try:
                ray.init(address=self.address, runtime_env=runtime_env, **kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise RunnerError("cannot reach the Ray cluster at %s: %s" % (self.address, exc))
        return ray

    def run(self, spec_dict, chunks, on_result, notice=None):
        started = time.perf_counter()
        ray = self._connect()
        self.startup_seconds = time.perf_counter() - started  # for the benchmark
        try:
            cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
            self.workers = cpus
            task = ray.remote(num_cpus=1, max_retries=3)(play_chunk)
            todo = iter(chunks)
            pending = []
            stopping = False
            try:
                while True:
                    while not stopping and len(pending) < 2 * cpus:
                        chunk = next(todo, None)
                        if chunk is None:
                            stopping = True
                            break
                        pending.append(task.remote({"spec": spec_dict, "tasks": chunk}))
                    if not pending:
                        break
                    done, pending = ray.wait(pending, num_returns=1)
                    for ref in done:
                        on_result(ray.get(ref))
            except KeyboardInterrupt:
                _say(notice, "Interrupted: finishing the %d chunks of games under way "
                             "(Ctrl-C again to drop them)." % len(pending))
                try:
                    while pending:
                        done, pending = ray.wait(pending, num_returns=1)
                        for ref in done:
                            on_result(ray.get(ref))
                except KeyboardInterrupt:
                    for ref in pending:
                        ray.cancel(ref, force=True)
                    _say(notice, "Dropped the games under way.")
                return False
            return True
        finally:
            ray.shutdown()


def make_runner(workers=None, ray_address=None):
    """The runner the command line asks for: Ray with an address, else local processes
    (one per core by default), or this process alone with workers=1."""
    if ray_address:
        return RayRunner(ray_address, workers)
    if workers == 1:
        return InProcessRunner()
    return ProcessRunner(workers)

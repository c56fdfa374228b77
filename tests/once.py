"""A set-up made once a test run, however many pytest-xdist workers share the run.

A scope="session" fixture is made once a worker: a wheel built and installed, a firmware
tree compiled, a soak run on MicroPython's Unix port, each some seconds of CPU, were made
by two or three workers alike (issue 42: the suite's time). `made_once` makes it in the
first worker that asks, under a lock in the run's temporary folder (the folder the
workers' own are made in); the others wait for it and get the same result.

    @pytest.fixture(scope="session")
    def tree(tmp_path_factory):
        return made_once(tmp_path_factory, "board-tree", lambda folder: build(folder))

`make(folder)` gets an empty folder of its own and returns what the fixture gives (a
path, numbers, completed processes: anything pickle takes). What it returns is shared:
the tests must only read it. A make that fails leaves nothing behind for the next worker
but its folder, made again from empty.
"""

import fcntl
import os
import pickle
import shutil


def run_folder(tmp_path_factory):
    """The temporary folder of this run that every worker sees: the parent of the
    worker's own under xdist, pytest's own base folder in a run of one process."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name, make):
    shared = run_folder(tmp_path_factory)
    folder = shared / ("once-" + name)
    with open(str(shared / ("once-%s.lock" % name)), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # let go when the file is closed
        done = folder / "made.pickle"
        if done.exists():
            with open(str(done), "rb") as f:
                return pickle.load(f)
        if folder.exists():
            shutil.rmtree(str(folder))
        folder.mkdir()
        result = make(folder)
        with open(str(done) + ".part", "wb") as f:
            pickle.dump(result, f)
        os.replace(str(done) + ".part", str(done))
        return result

"""Where the test suite's time goes: CPU or waiting, test by test (issue 42).

As a pytest plugin, it writes, for each test, the CPU time of the pytest process and of
the child processes it waited for (resource.getrusage), and the test's wall time, to
SUITE_CPU_DIR/<worker>.json (default /tmp/vora-suite-cpu):

    PYTHONPATH=bench ./dev test -p suite_cpu

Run as a script, it sums them by file and names the tests that wait the most:

    .venv/bin/python bench/suite_cpu.py [DIR]

CPU of processes a test started and never waited for (a server killed and left to the
collector, a grandchild) is not counted: such a test shows as waiting.
"""

import collections
import glob
import json
import os
import resource
import sys
import time

FOLDER = os.environ.get("SUITE_CPU_DIR", "/tmp/vora-suite-cpu")
_rows = {}


def _cpu():
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


try:
    import pytest
except ImportError:  # the summary needs no pytest
    pytest = None

if pytest is not None:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        before, started = _cpu(), time.monotonic()
        yield
        after = _cpu()
        _rows[item.nodeid] = (round(after[0] - before[0], 3), round(after[1] - before[1], 3),
                              round(time.monotonic() - started, 3))

    def pytest_sessionfinish(session):
        os.makedirs(FOLDER, exist_ok=True)
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(FOLDER, name + ".json"), "w") as f:
            json.dump(_rows, f)


def main(folder=FOLDER):
    rows = {}
    for path in glob.glob(os.path.join(folder, "*.json")):
        with open(path) as f:
            rows.update(json.load(f))
    if not rows:
        sys.exit("no figures in %s: run PYTHONPATH=bench ./dev test -p suite_cpu first" % folder)
    me = sum(r[0] for r in rows.values())
    children = sum(r[1] for r in rows.values())
    wall = sum(r[2] for r in rows.values())
    print("%d tests: CPU %.0f s (pytest %.0f, its children %.0f), test time %.0f s"
          % (len(rows), me + children, me, children, wall))
    by_file = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, (a, b, w) in rows.items():
        f = by_file[nodeid.split("::")[0]]
        f[0] += a + b
        f[1] += w
        f[2] += 1
    print("\nfiles by CPU (s):")
    for name, (cpu, w, n) in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:25]:
        print("  %7.1f cpu %7.1f wall %4d tests  %s" % (cpu, w, n, name))
    print("\ntests that wait the most (wall minus CPU, s):")
    for nodeid, (a, b, w) in sorted(rows.items(), key=lambda kv: -(kv[1][2] - kv[1][0]
                                                                    - kv[1][1]))[:25]:
        print("  %6.1f wait %6.1f cpu  %s" % (w - a - b, a + b, nodeid))


if __name__ == "__main__":
    main(*sys.argv[1:])

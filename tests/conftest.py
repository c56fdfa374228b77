"""Shared test set-up: no test touches the user's own files.

- Every test gets a game log of its own in its temporary folder through $VORA_DB
  (subprocesses inherit it); `vora play` logs every game, typed ones too. A test that
  wants another log says so with --db or its own $VORA_DB.
- Every virtual board a test starts keeps its stable device name (a symbolic link,
  docs/host.md) in a folder of this run, not in the user's own runtime folder, where a
  virtual board the user is playing on may be keeping it.
- The suite runs as from a terminal: Ctrl-C, a hang-up and SIGTERM are given their defaults back
  when whatever started it ignored them (tests/terminal_signals.py), so that every
  program a test starts gets them as a user's would.
- Each test's time, as last recorded on a quiet machine, is kept in tests/durations.json:
  each worker starts with its share of the longest tests (dealt, below; with xdist's
  work stealing the workers then end together), and `--quick` leaves out every test recorded at
  QUICK_LIMIT seconds or more, and every file with a set-up that long (the inner loop,
  under a minute). `--record-durations`
  writes the file anew from the run (setup, call and teardown summed, and the CPU time of
  the worker and of the processes it waited for). A test the file does not know yet counts
  as quick and starts last: new tests are what one works on. Tests that mostly wait (a
  browser, a board's timer, a seat's time to come back) and tests that mostly compute are
  taken in turn (interleaved, below), so that the long waits at the start of a run do not
  leave the cores idle. The tests of a file marked `kept_together` (a browser launched once
  for the file) are ordered and dealt as one.
  Written here rather than taken from pytest-split, which splits a suite into groups of
  machines but neither orders one run nor picks a quick subset.
"""

import json
import os
import resource
import shutil
import tempfile

import pytest

from terminal_signals import as_from_a_terminal

as_from_a_terminal()  # at once, in the controller and in each worker, before any test

_SIM_FOLDER = None
DURATIONS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "durations.json")
QUICK_LIMIT = 0.2  # seconds recorded: a test this long or longer is not in --quick
WAITING = 0.35  # a test whose CPU time is under this share of its time mostly waits
# (recorded with four workers on two cores, a test that computes all along shows about 0.5)
_recorded = {}  # nodeid -> (seconds, of which set-up), filled as the run goes
_recorded_cpu = {}  # nodeid -> CPU seconds (the worker's and its waited-for children's)


def pytest_addoption(parser):
    group = parser.getgroup("vora", "Vora Board's suite")
    group.addoption("--quick", action="store_true",
                    help="leave out every test recorded at %.1f s or more in "
                         "tests/durations.json: the inner loop" % QUICK_LIMIT)
    group.addoption("--record-durations", action="store_true",
                    help="write tests/durations.json anew from this run (on a quiet machine, "
                         "the whole suite)")


def _durations():
    """(seconds of each test, seconds of its setup, CPU seconds of each test), as last
    recorded; {} for a file that is not there or not this shape (and for CPU, a file
    recorded before it was)."""
    try:
        with open(DURATIONS_FILE) as f:
            data = json.load(f)
        tests, setups, cpu = data["tests"], data["setups"], data.get("cpu", {})
        return ({k: float(v) for k, v in tests.items()},
                {k: float(v) for k, v in setups.items()},
                {k: float(v) for k, v in cpu.items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, {}, {}


def pytest_collection_modifyitems(session, config, items):
    known, setups, cpu = _durations()
    if config.getoption("--quick"):
        # A file whose set-up is long (a wheel built, a firmware run once for all its
        # tests) is left out whole: its set-up would land on whichever of its tests is
        # kept.
        heavy = {k.split("::")[0] for k, v in setups.items() if v >= QUICK_LIMIT}
        left = [i for i in items if known.get(i.nodeid, 0.0) >= QUICK_LIMIT
                or i.nodeid.split("::")[0] in heavy]
        if left:
            gone = set(id(i) for i in left)
            config.hook.pytest_deselected(items=left)
            items[:] = [i for i in items if id(i) not in gone]
    # Longest first; the order is the same in every xdist worker (a stable sort of the
    # same collection), as xdist requires. A file's tests are then spread over the run,
    # and pytest ends a scope="module" fixture whenever the next test is another file's:
    # the release check's wheel was built ten times a run. A fixture that a file's
    # tests share is scope="session" (made once a worker), or made once a run for all
    # the workers when it is long (tests/once.py), unless it cannot be: the browsers
    # stay scope="module" (Playwright's sync driver runs an event loop in the thread
    # while it lives: another test's asyncio.run() there fails).
    items.sort(key=lambda i: -known.get(i.nodeid, 0.0))

    def seconds(unit):
        return sum(known.get(i.nodeid, 0.0) for i in unit)

    def waits(unit):
        return sum(cpu.get(i.nodeid, known.get(i.nodeid, 0.0)) for i in unit) \
            < WAITING * seconds(unit)

    units = kept_together(items, lambda i: i.get_closest_marker(TOGETHER) is not None
                          and i.nodeid.split("::")[0])
    units.sort(key=lambda u: -seconds(u))
    workers = _workers(config)
    if workers > 1:
        units = dealt(interleaved(units, waits), workers, len)
    items[:] = [i for u in units for i in u]


TOGETHER = "kept_together"  # the mark of a file whose tests run one after another


def kept_together(items, group):
    """The tests as units to order: one a test, or all the tests of a group (`group(item)`:
    a name, or a false value for none) in one unit, in their order, where its first is.
    A file whose tests share a fixture made once a file (a browser: some 1.5 s of CPU to
    launch) marks them `kept_together`: ordered each on its own, the run took them apart
    and made the fixture again for nearly every one (docs/benchmarks.md, issue 42)."""
    units, of_group = [], {}
    for item in items:
        name = group(item)
        if not name:
            units.append([item])
        elif name in of_group:
            of_group[name].append(item)
        else:
            of_group[name] = [item]
            units.append(of_group[name])
    return units


def interleaved(items, waits):
    """The tests (longest first) with those that mostly wait (`waits(item)`) and the others
    taken in turn, each kind keeping its order. Four workers on two cores keep the cores
    busy while two of them compute; longest first alone, the run began with the longest
    tests together, most of them waiting on a browser, a board's timer or a seat's time
    to come back, and the cores were idle 9 to 10% of the first 100 s (3 to 3.5% taken in
    turn; vmstat, docs/benchmarks.md, issue 42)."""
    waiting = [i for i in items if waits(i)]
    working = [i for i in items if not waits(i)]
    out = []
    for pair in zip(waiting, working):
        out.extend(pair)
    n = min(len(waiting), len(working))
    return out + waiting[n:] + working[n:]


def _workers(config):
    """How many xdist workers share the run under --dist worksteal (1 otherwise). A
    worker's own options say no --dist: the controller's command line (mainargv) does."""
    given = getattr(config, "workerinput", None)
    if not given:
        return 1
    argv = list(given.get("mainargv", ()))
    if "--dist=worksteal" in argv or any(a == "--dist" and b == "worksteal"
                                         for a, b in zip(argv, argv[1:])):
        return int(given.get("workercount", 1))
    return 1


def dealt(items, workers, weight=lambda item: 1):
    """The tests, longest first, dealt as cards to `workers` hands laid end to end:
    xdist's worksteal gives each worker one contiguous part of the collection to start
    with (the first third, the second, the last), and an idle worker steals the end of the
    longest queue. Sorted alone, the longest tests were all the first worker's, one after
    the other to the end of the run while the others stole its short ones and then
    waited (issue 42). Dealt, each worker starts with its share of the long ones, longest
    first, and what is stolen at the end is short. `weight(item)`: how many tests an item
    is (a unit kept together: its length), which the hands' sizes count."""
    if workers <= 1:
        return list(items)
    sizes, left = [], sum(weight(item) for item in items)
    for hand in range(workers):  # the parts worksteal cuts: what is left over those left
        sizes.append(left // (workers - hand))
        left -= sizes[-1]
    hands = [[] for _ in sizes]
    filled = [0] * workers
    turn = 0
    for item in items:
        for _ in range(workers):  # the next hand with room (a unit may overfill one)
            if filled[turn % workers] < sizes[turn % workers]:
                break
            turn += 1
        hands[turn % workers].append(item)
        filled[turn % workers] += weight(item)
        turn += 1
    return [item for hand in hands for item in hand]


def _cpu_seconds():
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if item.config.getoption("--record-durations"):
        item._vora_cpu_at = _cpu_seconds()  # before its fixtures are made


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    at = getattr(item, "_vora_cpu_at", None)
    if call.when == "teardown" and at is not None:
        # On the report, which xdist carries from the worker to the controller that writes
        # the file. A process a test started and never waited for is not counted.
        outcome.get_result().user_properties.append(
            ("cpu_seconds", round(_cpu_seconds() - at, 3)))


def pytest_runtest_logreport(report):
    if getattr(report, "duration", None) is None:
        return
    for name, value in getattr(report, "user_properties", ()):
        if name == "cpu_seconds":
            _recorded_cpu[report.nodeid] = value
    total, setup = _recorded.get(report.nodeid, (0.0, 0.0))
    _recorded[report.nodeid] = (total + report.duration,
                                setup + (report.duration if report.when == "setup" else 0.0))


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if not config.getoption("--record-durations") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if exitstatus not in (0, 1):  # interrupted or broken: keep the file as it was
        return
    here = os.path.dirname(os.path.dirname(DURATIONS_FILE))
    tests, setups, cpu = _durations()
    for times in (tests, setups, cpu):  # the tests of files gone are dropped
        for k in [k for k in times if not os.path.exists(os.path.join(here, k.split("::")[0]))]:
            del times[k]
    for k, (total, setup) in _recorded.items():
        tests[k] = round(total, 3)
        setups.pop(k, None)
        if setup >= 0.05:
            setups[k] = round(setup, 3)
        cpu.pop(k, None)
        if k in _recorded_cpu:
            cpu[k] = _recorded_cpu[k]
    with open(DURATIONS_FILE, "w") as f:
        json.dump({"tests": dict(sorted(tests.items())), "setups": dict(sorted(setups.items())),
                   "cpu": dict(sorted(cpu.items()))}, f, indent=0, sort_keys=True)
        f.write("\n")


def pytest_configure(config):
    global _SIM_FOLDER
    config.addinivalue_line(
        "markers", TOGETHER + ": the file's tests run one after another in one worker "
        "(they share a fixture made once a file, such as a browser)")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and os.environ.get("VORA_TESTS_SIM_FOLDER"):
        # A worker of a parallel run (pytest -n): a stable name of its own, beside the
        # run's, so two workers' virtual boards never meet.
        os.environ["VORA_SIM_DEVICE"] = os.path.join(os.environ["VORA_TESTS_SIM_FOLDER"],
                                                     "ttyVORA-" + worker)
    elif "VORA_SIM_DEVICE" not in os.environ:
        _SIM_FOLDER = tempfile.mkdtemp(prefix="vora-tests-")
        os.environ["VORA_SIM_DEVICE"] = os.path.join(_SIM_FOLDER, "ttyVORA")
        os.environ["VORA_TESTS_SIM_FOLDER"] = _SIM_FOLDER


def pytest_unconfigure(config):
    if _SIM_FOLDER is not None:
        shutil.rmtree(_SIM_FOLDER, ignore_errors=True)


@pytest.fixture(autouse=True)
def _private_game_log(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VORA_DB", str(tmp_path_factory.mktemp("log") / "games.sqlite3"))

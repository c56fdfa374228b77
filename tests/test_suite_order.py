"""The suite's own order (tests/conftest.py): under xdist's worksteal each worker starts
with a share of the longest tests, longest first, and the tests that mostly wait are taken
in turn with those that compute (issue 42: the suite's time)."""

from xdist.scheduler.worksteal import WorkStealingScheduling

from conftest import dealt, interleaved, kept_together


class _Config:
    def __init__(self, workers):
        self.workers = workers

    def getvalue(self, name):
        assert name == "tx"
        return ["%d*popen" % self.workers]


class _Node:
    shutting_down = False

    def __init__(self, name):
        self.sent = []
        self.gateway = type("Gateway", (), {"id": name})()

    def send_runtest_some(self, indices):
        self.sent.extend(indices)


def first_shares(order, workers):
    """What xdist's worksteal gives each worker first, for a collection in `order`."""
    scheduler = WorkStealingScheduling(_Config(workers))
    nodes = [_Node("gw%d" % k) for k in range(workers)]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, order)
    scheduler.schedule()
    return [[order[i] for i in node.sent] for node in nodes]


def test_each_worker_starts_with_its_share_of_the_longest_tests_longest_first():
    seconds = {"t%03d" % k: s for k, s in enumerate([60, 55, 50, 45, 30, 20] + [0.1] * 95)}
    longest_first = sorted(seconds, key=lambda t: -seconds[t])
    for workers in (2, 3, 4):
        shares = first_shares(dealt(longest_first, workers), workers)
        assert sorted(t for share in shares for t in share) == sorted(seconds)
        for share in shares:
            assert [seconds[t] for t in share] == sorted((seconds[t] for t in share),
                                                         reverse=True)
        # The longest are spread: each worker's first test is one of the `workers` longest.
        assert sorted(share[0] for share in shares) == sorted(longest_first[:workers])
        loads = [sum(seconds[t] for t in share) for share in shares]
        assert max(loads) - min(loads) <= 60, loads
    # Sorted alone (as before), the first worker got all the long ones.
    shares = first_shares(longest_first, 3)
    assert [seconds[t] for t in shares[0][:6]] == [60, 55, 50, 45, 30, 20]


def test_one_process_keeps_the_order():
    order = ["a", "b", "c"]
    assert dealt(order, 1) == order


def test_tests_that_wait_and_tests_that_compute_are_taken_in_turn():
    # The eight longest wait (a browser, a timer); sorted alone, the four workers would all
    # start with one and the two cores idle.
    seconds = {"t%03d" % k: 100 - k for k in range(40)}
    waits = {t for t in seconds if int(t[1:]) < 8}
    longest_first = sorted(seconds, key=lambda t: -seconds[t])
    order = interleaved(longest_first, waits.__contains__)
    assert sorted(order) == sorted(seconds)
    for kind in (waits, set(seconds) - waits):  # each kind keeps its order, longest first
        assert [t for t in order if t in kind] == [t for t in longest_first if t in kind]
    assert order[:4] == ["t000", "t008", "t001", "t009"]
    shares = first_shares(dealt(order, 4), 4)
    for r in range(4):  # at any time no more than two of the four workers wait
        assert sum(share[r] in waits for share in shares) == 2, [s[r] for s in shares]
    # Without it, the first round is all waiting.
    assert all(share[0] in waits for share in first_shares(dealt(longest_first, 4), 4))


def test_a_files_tests_kept_together_run_one_after_another_in_one_worker():
    # A browser file's tests share a browser launched once a file (some 1.5 s of CPU):
    # ordered each on its own by its time, they were spread over the run and the workers,
    # and the browser was launched again for nearly every one of them.
    seconds = {"t%03d" % k: 100 - k for k in range(40)}
    browser = ["t%03d" % k for k in (2, 9, 17, 30, 39)]  # one file's tests, marked
    longest_first = sorted(seconds, key=lambda t: -seconds[t])
    for workers in (2, 3, 4):
        units = kept_together(longest_first, lambda t: t in browser and "browser file")
        assert [browser] == [u for u in units if len(u) > 1]
        units.sort(key=lambda u: -sum(seconds[t] for t in u))
        order = [t for u in dealt(interleaved(units, lambda u: u is browser), workers, len)
                 for t in u]
        assert sorted(order) == sorted(seconds)
        shares = first_shares(order, workers)
        holding = [share for share in shares if set(browser) & set(share)]
        assert len(holding) == 1, shares
        start = holding[0].index(browser[0])
        assert holding[0][start:start + len(browser)] == browser
    # Each on its own, as before, they began in every worker.
    shares = first_shares(dealt(longest_first, 4), 4)
    assert sum(1 for share in shares if set(browser) & set(share)) > 1

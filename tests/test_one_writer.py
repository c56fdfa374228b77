"""One writer per game (issue 43): the lease, its fencing number and take-over, on SQLite
and PostgreSQL; two processes racing for one game; two `vora play --resume` at once."""

import multiprocessing
import os
import random
import subprocess
import sys
import time
from datetime import timedelta

import pytest

from shared_rules import games as rules_games
from vora_host.log import leases
from vora_host.log.store import GameHeld, GameLog, LeaseLost, record_of
from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)

ROUNDS = 100


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path):
    """A game log on each backend (PostgreSQL skipped, saying why, without a server)."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return request.getfixturevalue("pg_url")


def _play_on(log, gid, rng):
    """One more legal move of game `gid`, replayed from the log, logged: its number."""
    info = log.game(gid)
    record, _ = record_of(info)
    state = rules_games.start(record)
    for move in record["moves"]:
        state.play(move)
    move = rng.choice(state.legal_moves())
    state.play(move)
    number = len(record["moves"]) + 1
    assert log.add_move(gid, number, move, state.digest())
    return number


def _start(target, seed=3):
    with GameLog(target) as log:
        return log.start_game(players=2, seed=seed, source="terminal")


# ---------------------------------------------------------------- one process, two logs

def test_the_second_writer_is_refused_with_who_holds_the_game(target):
    gid = _start(target)
    with GameLog(target) as first, GameLog(target) as second:
        first.hold(gid)
        _play_on(first, gid, random.Random(1))
        with pytest.raises(GameHeld) as refused:
            second.hold(gid)
        holder = refused.value.holder
        assert holder["pid"] == os.getpid() and holder["this_host"]
        text = str(refused.value)
        assert "game %d is being played by another vora (process %d on this computer" % (
            gid, os.getpid()) in text and "--take-over" in text and "since" in text
        # A plain write is refused the same way, and changes nothing.
        with pytest.raises(GameHeld):
            second.add_move(gid, 2, "anything", "0" * 16)
        with pytest.raises(GameHeld):
            second.end_game(gid, "abandoned")
        assert second.game(gid)["move_count"] == 1 and second.game(gid)["status"] == "playing"
        assert second.played_elsewhere(gid)["pid"] == os.getpid()
        assert first.played_elsewhere(gid) is None  # its own game


def test_a_take_over_fences_the_former_holder_off(target):
    gid = _start(target)
    rng = random.Random(2)
    with GameLog(target) as first, GameLog(target) as second:
        first.hold(gid)
        _play_on(first, gid, rng)
        fence = leases.current(first._conn, gid, first._me)["fence"]
        former = second.hold(gid, take_over=True)
        assert former is not None and former["pid"] == os.getpid()
        assert leases.current(second._conn, gid, second._me)["fence"] == fence + 1
        _play_on(second, gid, rng)
        # The former holder's next writes are refused by the fencing number, in the
        # same transaction: nothing of it reaches the log.
        state_before = second.game(gid)
        with pytest.raises(LeaseLost) as lost:
            first.add_move(gid, 3, "anything", "0" * 16)
        assert "was taken over by another vora" in str(lost.value)
        with pytest.raises(LeaseLost):
            first.take_back(gid, 2)
        with pytest.raises(LeaseLost):
            first.end_game(gid, "interrupted")
        with pytest.raises(LeaseLost):
            first.mark_attention(gid, "a note")
        assert second.game(gid) == state_before
        _play_on(second, gid, rng)
    with GameLog(target) as log:
        assert log.game(gid)["move_count"] == 3 and log.verify(gid).ok


def test_a_released_game_is_free_and_its_fencing_number_only_grows(target):
    gid = _start(target)
    fences = []
    for _ in range(3):
        with GameLog(target) as log:
            log.hold(gid)
            fences.append(leases.current(log._conn, gid, log._me)["fence"])
    assert fences == sorted(fences) and len(set(fences)) == 3
    with GameLog(target) as log:
        assert log.played_elsewhere(gid) is None
        assert leases.current(log._conn, gid, log._me)["token"] is None  # released


def test_a_lease_that_ran_out_is_taken_without_take_over(target):
    # A holder that stopped renewing (its computer crashed) loses the game once its lease
    # has run out; the clock of the taker says when.
    gid = _start(target)
    with GameLog(target) as first, GameLog(target) as second:
        first.hold(gid)
        with pytest.raises(GameHeld):
            second.hold(gid)
        expires = leases._parse(leases.current(second._conn, gid, second._me)["expires_at"])
        second.clock = lambda: expires + timedelta(seconds=1)
        assert second.played_elsewhere(gid) is None
        assert second.hold(gid) is None  # taken: no live holder was taken over
        with pytest.raises(LeaseLost):
            first.add_move(gid, 1, "anything", "0" * 16)


def test_the_holder_renews_its_lease_while_it_plays(target):
    gid = _start(target)
    with GameLog(target, lease_seconds=8) as first, GameLog(target) as second:
        first.hold(gid)
        start = leases.current(second._conn, gid, second._me)["expires_at"]
        deadline = time.monotonic() + 60
        while leases.current(second._conn, gid, second._me)["expires_at"] == start:
            assert time.monotonic() < deadline, "the lease was never renewed"
            time.sleep(0.05)
        renewed = leases._parse(leases.current(second._conn, gid, second._me)["expires_at"])
        assert renewed > leases._parse(start)
        with pytest.raises(GameHeld):
            second.hold(gid)


def test_a_game_whose_holder_was_killed_is_free_at_once(tmp_path):
    # On one computer a holder's process that is gone holds nothing (no waiting for its
    # lease to run out), and the next session marks its game interrupted.
    db = tmp_path / "games.sqlite3"
    gid = _start(str(db))
    script = ("import sys\nfrom vora_host.log.store import GameLog\n"
              "log = GameLog(sys.argv[1])\nlog.hold(int(sys.argv[2]))\n"
              "print('held', flush=True)\nsys.stdin.read()\n")
    other = subprocess.Popen([sys.executable, "-c", script, str(db), str(gid)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert other.stdout.readline().strip() == "held"
    with GameLog(db) as log:
        assert log.played_elsewhere(gid)["pid"] == other.pid
        with pytest.raises(GameHeld):
            log.hold(gid)
    other.kill()
    other.wait()
    with GameLog(db) as log:
        assert log.played_elsewhere(gid) is None
        assert log.close_stale() == [(gid, "interrupted")]
        log.hold(gid)
        _play_on(log, gid, random.Random(4))
        assert log.game(gid)["status"] == "playing"


# ---------------------------------------------------------------- two processes racing

def _racer(target, gid, rounds, barrier, results, k):
    rng = random.Random(k)
    for r in range(rounds):
        log = GameLog(target, timeout=30)
        barrier.wait(timeout=120)
        try:
            log.hold(gid)  # as `vora play --resume` does before it shows the game
            won = True
        except GameHeld:
            won = False
        barrier.wait(timeout=120)  # both have tried while the winner holds the game
        number = _play_on(log, gid, rng) if won else None
        log.close()  # the winner releases the game
        results.put((r, k, won, number))
        barrier.wait(timeout=120)


def test_two_processes_race_to_resume_one_game_a_hundred_times(target):
    gid = _start(target, seed=11)
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    results = context.Queue()
    racers = [context.Process(target=_racer, args=(target, gid, ROUNDS, barrier, results, k))
              for k in (0, 1)]
    for p in racers:
        p.start()
    got = [results.get(timeout=300) for _ in range(2 * ROUNDS)]
    for p in racers:
        p.join(timeout=60)
        assert p.exitcode == 0
    by_round = {}
    for r, k, won, number in got:
        by_round.setdefault(r, []).append((won, number))
    assert sorted(by_round) == list(range(ROUNDS))
    for r, pair in by_round.items():
        assert sorted(won for won, _ in pair) == [False, True], "round %d: %r" % (r, pair)
        assert [n for won, n in pair if won] == [r + 1]
    with GameLog(target) as log:
        info = log.game(gid)
        assert info["move_count"] == ROUNDS and info["taken_back"] == 0
        assert log.verify(gid).ok


# ---------------------------------------------------------------- two `vora play --resume`

def _vora(db, *args):
    return subprocess.Popen([sys.executable, "-m", "vora_host", "play", "--typed", "--db",
                             str(db)] + list(args), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            # a game the log refuses is saved in the temporary folder:
                            # this test's own, not the machine's /tmp
                            env=dict(os.environ, COLUMNS="200", TMPDIR=str(db.parent)))


def _read_until(proc, text, seen):
    """Lines of `proc` until one holds `text` (it exits, or 120 s pass: the test fails)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return
    raise AssertionError("never saw %r in:\n%s" % (text, "".join(seen)))


def test_a_second_vora_play_resume_is_refused_and_a_take_over_fences_the_first(tmp_path):
    from shared_rules import vorcept
    db = tmp_path / "games.sqlite3"
    state = vorcept.new_game(2, 6)
    with GameLog(db) as log:
        gid = log.start_game(game="vorcept", players=2, seed=6, source="terminal")
        move = state.legal_moves()[0]
        state.play(move)
        log.add_move(gid, 1, move, state.digest())
    first = _vora(db, "--resume", str(gid), "--human", "0,1")
    first_out = []
    try:
        _read_until(first, "Resumed your game of Vorcept", first_out)
        _read_until(first, "for help", first_out)  # the line above its prompt: it waits
        second = subprocess.run([sys.executable, "-m", "vora_host", "play", "--typed", "--db",
                                 str(db), "--resume", str(gid)], capture_output=True,
                                text=True, timeout=120, env=dict(os.environ, COLUMNS="200"))
        assert second.returncode != 0
        said = " ".join((second.stdout + second.stderr).split())
        assert "game %d is being played by another vora (process %d on this computer" % (
            gid, first.pid) in said
        assert "vora play --resume %d --take-over" % gid in said
        # Taken over: the first vora's next move is refused by the log, and said.
        third = _vora(db, "--resume", str(gid), "--take-over", "--human", "0,1")
        third_out = []
        _read_until(third, "Took game %d over from another vora (process %d" % (gid, first.pid),
                    third_out)
        _read_until(third, "for help", third_out)
        first.stdin.write("%s\n" % state.legal_moves()[0])
        first.stdin.flush()
        _read_until(first, "was taken over by another vora (process %d" % third.pid, first_out)
        first.stdin.write("q\ny\n")
        first.stdin.flush()
        rest, _ = first.communicate(timeout=120)
        said = " ".join(("".join(first_out) + rest).split())
        assert "This game is NOT in the game log" in said and "vora games import" in said
        (rescued,) = tmp_path.glob("vora-unlogged-*.json")
        assert "saved in %s" % rescued in said and rescued.stat().st_mode & 0o777 == 0o600
        third.stdin.write("q\ny\n")
        third.stdin.flush()
        third.communicate(timeout=120)
    finally:
        for p in (first,):
            if p.poll() is None:
                p.kill()
                p.wait()
    with GameLog(db) as log:
        assert log.game(gid)["move_count"] == 1 and log.verify(gid).ok


def test_a_board_plugged_into_another_computer_takes_its_game_over(tmp_path):
    # The board is the referee of its Vora game, and a port has one program: the host
    # that has the board now logs its game, even while the host it was plugged into
    # before still runs (and holds the game); that one's later writes are refused.
    from test_link_client import FaultyBoard, Wire, play_on
    db = tmp_path / "games.sqlite3"
    with GameLog(db) as first, GameLog(db) as second:
        board = FaultyBoard(wrong_after=10 ** 6)
        w = Wire(board, log=first)
        w.run(300)
        play_on(w, board, 5)
        w.run(3000)
        gid = w.client.log_id
        assert first.game(gid)["move_count"] == 5 and first.holds(gid)
        w2 = Wire(board, log=second)
        w2.run(300)
        play_on(w2, board, 5)
        w2.run(3000)
        assert w2.client.log_id == gid and second.game(gid)["move_count"] == 10
        assert not w2.client.problem_kinds.get("log")
        with pytest.raises(LeaseLost):
            first.add_move(gid, 11, board.moves[-1], "0" * 16)
        assert second.verify(gid).ok


def test_a_correction_is_fenced_and_kept_as_an_event(target):
    gid = _start(target)
    with GameLog(target) as first, GameLog(target) as second:
        _play_on(first, gid, random.Random(5))
        move = first.game(gid)["moves"][0]
        assert first.correct_move(gid, 1, move["move"], "f" * 16, "a test") is True
        assert first.correct_move(gid, 1, move["move"], "f" * 16, "a test") is False
        with pytest.raises(GameHeld):
            second.correct_move(gid, 1, move["move"], move["digest"], "not the writer")
        with pytest.raises(ValueError):
            first.correct_move(gid, 2, move["move"], move["digest"], "no such move")
        events = second.events(gid)
        assert [(e["kind"], e["number"], e["data"]["digest"]) for e in events] == [
            ("correction", 1, move["digest"])]
        assert second.game(gid)["moves"][0]["digest"] == "f" * 16


def test_an_event_such_as_a_hint_is_fenced_and_kept_in_order(target):
    gid = _start(target)
    with GameLog(target) as first, GameLog(target) as second:
        _play_on(first, gid, random.Random(7))
        first.add_event(gid, "hint", {"seat": 2, "move": "c3"})
        with pytest.raises(GameHeld):
            second.add_event(gid, "hint", {"seat": 1, "move": "d4"})
        with pytest.raises(ValueError, match="kind"):
            first.add_event(gid, "gossip", {})
        with pytest.raises(ValueError, match="2,000"):
            first.add_event(gid, "hint", {"text": "x" * 2100})
        _play_on(first, gid, random.Random(8))
        first.add_event(gid, "hint", {"seat": 1, "move": "e5"})
        assert [(e["kind"], e["number"], e["data"]) for e in second.events(gid)] == [
            ("hint", 1, {"seat": 2, "move": "c3"}), ("hint", 2, {"seat": 1, "move": "e5"})]

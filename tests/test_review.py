"""Reviews of finished games (issue 41): kept in the game log beside the game (SQLite and
PostgreSQL), computed by vora_host.review with the search at a fixed budget, shown by
`vora games review`."""

import json
import random

import pytest

from shared_rules import games as rules_games
from vora_host.log.records import result_of
from vora_host.log.reviews import GameBeingPlayed, THRESHOLDS, mark_of
from vora_host.log.store import GameLog, NoSuchGame
from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path):
    """A game log on each backend (PostgreSQL skipped, saying why, without a server)."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return request.getfixturevalue("pg_url")


def log_random_game(log, game="vora", seed=1, players=2, max_moves=None, end=True):
    """A game of random moves logged whole (over when it ended, else abandoned or left
    playing): its id and moves."""
    module = rules_games.load(game)
    state = module.new_game(players, seed)
    rng = random.Random(seed)
    gid = log.start_game(game=game, players=players, seed=seed, source="terminal",
                         options=state.options())
    moves = []
    while not state.is_over() and (max_moves is None or len(moves) < max_moves):
        move = rng.choice(state.legal_moves())
        state.play(move)
        moves.append(move)
        assert log.add_move(gid, len(moves), move, state.digest())
    if end:
        log.end_game(gid, "over" if state.is_over() else "abandoned",
                     result_of(state, None if state.is_over() else "quit"))
    return gid, moves


def fake_moves(moves):
    return [{"number": k, "player": k % 2, "move": m, "before": 0.5, "after": 0.25,
             "best": "x", "best_chance": 0.5, "mark": "mistake", "hint": False}
            for k, m in enumerate(moves, 1)]


# ---------------------------------------------------------------- the store

def test_a_review_is_kept_read_back_and_deleted_with_its_game(target):
    with GameLog(target) as log:
        gid, moves = log_random_game(log, max_moves=6)
        assert log.review(gid) is None
        log.save_review(gid, {"budget": 50, "complete": False, "knows_secrets": False,
                              "moves": fake_moves(moves[:3])})
        review = log.review(gid)
        assert review == {"format": "vora-review", "version": 1, "game_id": gid,
                          "game": "vora", "budget": 50, "complete": False,
                          "knows_secrets": False, "thresholds": THRESHOLDS,
                          "moves": fake_moves(moves[:3])}
        json.dumps(review)  # what the web page serves
        log.save_review(gid, {"budget": 80, "complete": True, "knows_secrets": False,
                              "moves": fake_moves(moves)})
        assert log.review(gid)["budget"] == 80 and log.review(gid)["complete"] is True
    with GameLog(target) as log:  # kept
        assert len(log.review(gid)["moves"]) == len(moves)
        log.delete_game(gid)
        with pytest.raises(NoSuchGame):
            log.review(gid)
        other, _ = log_random_game(log, seed=2, max_moves=4)
        assert log.review(other) is None


def test_a_game_being_played_gets_no_review_and_bad_fields_are_named(target):
    with GameLog(target) as log:
        gid, moves = log_random_game(log, max_moves=4, end=False)
        with pytest.raises(GameBeingPlayed, match="game %d has no review: it is still being "
                                                  "played" % gid):
            log.save_review(gid, {"budget": 5, "complete": True, "knows_secrets": False,
                                  "moves": fake_moves(moves)})
        with pytest.raises(NoSuchGame):
            log.save_review(gid + 100, {"budget": 5, "complete": True, "knows_secrets": False,
                                        "moves": []})
        log.end_game(gid, "abandoned")
        bad = fake_moves(moves)
        bad[1]["after"] = 1.5
        with pytest.raises(ValueError, match="chance after move 2 is a chance from 0 to 1"):
            log.save_review(gid, {"budget": 5, "complete": True, "knows_secrets": False,
                                  "moves": bad})
        with pytest.raises(ValueError, match="budget"):
            log.save_review(gid, {"budget": 0, "complete": True, "knows_secrets": False,
                                  "moves": []})
        assert log.review(gid) is None


def test_a_review_of_moves_no_longer_the_games_is_not_shown(tmp_path):
    with GameLog(tmp_path / "games.sqlite3") as log:
        gid, moves = log_random_game(log, game="vorcept", seed=3)
        assert log.game(gid)["status"] == "over"
        log.save_review(gid, {"budget": 5, "complete": True, "knows_secrets": False,
                              "moves": fake_moves(moves)})
        assert log.review(gid) is not None
        log.take_back(gid, len(moves))  # the game is playing again, then ends otherwise
        log.end_game(gid, "abandoned")
        assert log.review(gid) is None


def test_marks_follow_the_thresholds():
    assert THRESHOLDS == {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3}
    assert mark_of(0.5, 0.41) is None
    assert mark_of(0.5, 0.4) == "inaccuracy"  # 0.1 exactly, whatever the float rounding
    assert mark_of(0.5, 0.31) == "inaccuracy"
    assert mark_of(0.7, 0.5) == "mistake"
    assert mark_of(0.9, 0.6) == "blunder"
    assert mark_of(0.3, 0.9) is None  # a gain is never marked


# ---------------------------------------------------------------- the evaluation

from vora_host.bots.search import SearchBot  # noqa: E402
from vora_host.review import evaluate, run as review_run  # noqa: E402
from vora_host.review.run import ReviewStopped, review_game  # noqa: E402


def test_the_search_tells_its_values_and_still_chooses_the_same_move():
    state = rules_games.load("vorcept").new_game(2, 4)
    rng = random.Random(4)
    for _ in range(12):
        state.play(rng.choice(state.legal_moves()))
    seen = SearchBot(9, iterations=60, game="vorcept").evaluate(state)
    chosen = SearchBot(9, iterations=60, game="vorcept").choose(state)
    assert seen["best"] == chosen and seen["player"] == state.to_act()
    assert len(seen["value"]) == 2 and abs(sum(seen["value"]) - 1) < 1e-9
    assert set(seen["values"]) <= set(state.legal_moves()) and chosen in seen["values"]
    assert all(0 <= v <= 1 for v in seen["values"].values())


def test_marks_follow_the_thresholds_on_a_constructed_game():
    record = {"moves": ["a", "b", "c", "d", "e"]}

    def at(player, value, best, values=None):
        return {"player": player, "value": value, "best": best,
                "values": values or {best: 0.9}}
    evaluations = [at(0, [0.6, 0.4], "x"),   # a: 0.6 -> 0.45, x was better: inaccuracy
                   at(1, [0.45, 0.55], "b"),  # b: 0.55 -> 0.2, its own move: unmarked
                   at(0, [0.7, 0.2], "y"),   # c: 0.7 -> 0.45: mistake
                   at(1, [0.45, 0.55], "z"),  # d: 0.55 -> 0.25: blunder
                   at(0, [0.75, 0.25], "e"),  # e: 0.75 -> 0.0 (the result), but its own move
                   {"player": None, "value": [0.0, 1.0], "best": None, "values": {}}]
    moves = evaluate.review_moves(record, evaluations, hints=[3])
    assert [m["mark"] for m in moves] == ["inaccuracy", None, "mistake", "blunder", None]
    assert [(m["before"], m["after"]) for m in moves] == [
        (0.6, 0.45), (0.55, 0.2), (0.7, 0.45), (0.55, 0.25), (0.75, 0.0)]
    assert [m["best"] for m in moves] == ["x", None, "y", "z", None]
    assert [m["hint"] for m in moves] == [False, False, True, False, False]


def test_a_review_is_deterministic_and_the_same_from_two_processes(tmp_path, monkeypatch):
    with GameLog(tmp_path / "a.sqlite3") as log:
        gid, moves = log_random_game(log, game="vorcept", seed=5)
        first = review_game(log, gid, budget=20, workers=1)
        again = review_game(log, gid, budget=20, again=True, workers=1)
    assert first == again and first["complete"] and len(first["moves"]) == len(moves)
    assert first["moves"][-1]["after"] in (0.0, 1.0, 0.5)  # the real result
    monkeypatch.setattr(review_run, "PARALLEL_FROM", 1)
    with GameLog(tmp_path / "b.sqlite3") as log:
        gid, _ = log_random_game(log, game="vorcept", seed=5)
        parallel = review_game(log, gid, budget=20, workers=2)
    assert parallel["moves"] == first["moves"]
    assert any(m["best"] for m in first["moves"])  # the search disagreed somewhere


def test_a_hidden_information_review_knows_every_hand_and_a_live_game_has_none(target):
    with GameLog(target) as log:
        gid, moves = log_random_game(log, game="tossing-tiger", seed=2)
        review = review_game(log, gid, budget=10, workers=1)
        assert review["knows_secrets"] is True and review["complete"]
        assert log.review(gid) == review  # kept, on either backend
        live, _ = log_random_game(log, game="tossing-tiger", seed=3, max_moves=3, end=False)
        with pytest.raises(GameBeingPlayed, match="game %d has no review: it is still being "
                                                  "played" % live):
            review_game(log, live, budget=10, workers=1)
        assert log.review(live) is None


def test_a_stopped_review_keeps_its_moves_and_goes_on_from_there(tmp_path):
    with GameLog(tmp_path / "whole.sqlite3") as log:
        gid, moves = log_random_game(log, game="vorcept", seed=6)
        whole = review_game(log, gid, budget=15, workers=1)
    calls = []

    def stop_at_7(done, total):
        calls.append(done)
        if done == 7:
            raise KeyboardInterrupt
    with GameLog(tmp_path / "stopped.sqlite3") as log:
        gid, _ = log_random_game(log, game="vorcept", seed=6)
        with pytest.raises(ReviewStopped, match="stopped at move 7 of %d" % len(moves)):
            review_game(log, gid, budget=15, workers=1, on_progress=stop_at_7)
        kept = log.review(gid)
        assert kept["complete"] is False and len(kept["moves"]) == 7
        assert kept["moves"] == whole["moves"][:7]
        calls.clear()
        resumed = review_game(log, gid, workers=1, on_progress=lambda d, t: calls.append(d))
    assert calls[0] == 8  # went on from move 8, with the stored budget
    assert resumed == whole


def test_a_bigger_budget_redoes_the_review_and_a_smaller_one_keeps_it(tmp_path):
    with GameLog(tmp_path / "games.sqlite3") as log:
        gid, _ = log_random_game(log, game="vorcept", seed=7)
        small = review_game(log, gid, budget=10, workers=1)
        big = review_game(log, gid, budget=40, workers=1)
        assert big["budget"] == 40 and big["moves"] != small["moves"]
        assert review_game(log, gid, budget=20, workers=1) == big  # computed once
        assert review_game(log, gid, workers=1) == big
        with pytest.raises(ValueError, match="budget"):
            review_game(log, gid, budget=0)


def test_hints_taken_are_marked_on_their_moves(tmp_path):
    with GameLog(tmp_path / "games.sqlite3") as log:
        state = rules_games.load("vorcept").new_game(2, 8)
        gid = log.start_game(game="vorcept", players=2, seed=8, source="terminal")
        rng = random.Random(8)
        number = 0
        while not state.is_over():
            if number == 4:
                log.add_event(gid, "hint", {"seat": state.to_act(), "move": "x"})
            move = rng.choice(state.legal_moves())
            state.play(move)
            number += 1
            log.add_move(gid, number, move, state.digest())
        log.end_game(gid, "over", result_of(state))
        review = review_game(log, gid, budget=5, workers=1)
    assert [m["number"] for m in review["moves"] if m["hint"]] == [5]


# ---------------------------------------------------------------- vora games review

from vora_host.cli import main  # noqa: E402


@pytest.fixture
def narrow(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")


def test_the_command_shows_the_moves_and_marks_at_80_columns(tmp_path, narrow, capsys):
    db = tmp_path / "games.sqlite3"
    with GameLog(db) as log:
        gid, moves = log_random_game(log, game="vora", seed=3)
    assert main(["games", "--db", str(db), "review", str(gid), "--budget", "8"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert "Review of game %d (Vora): 8 iterations a position" % gid in out
    assert "Reviewing game %d: %d moves, 8 iterations a position" % (gid, len(moves)) in err
    kept = GameLog(db).review(gid)
    for m in kept["moves"][:5]:
        row = next(line for line in lines if line.split()[:3] == [str(m["number"]),
                                                                 "P%d" % m["player"],
                                                                 m["move"].split()[0]])
        assert "%.2f -> %.2f" % (m["before"], m["after"]) in row
    assert "Marks per player" in out and "inaccuracies" in out and "blunders" in out
    assert "knows every hand" not in out
    for p in (0, 1):
        row = next(line for line in lines if line.startswith("P%d " % p))
        mine = [m for m in kept["moves"] if m["player"] == p]
        assert row.split()[1:4] == [str(sum(m["mark"] == k for m in mine))
                                    for k in ("inaccuracy", "mistake", "blunder")]
    assert "a blunder from 0.3" in " ".join(out.split())


def test_the_command_says_it_knows_every_hand_and_draws_a_png(tmp_path, narrow, capsys):
    db = tmp_path / "games.sqlite3"
    with GameLog(db) as log:
        gid, _ = log_random_game(log, game="tossing-tiger", seed=4)
    plot = tmp_path / "chances.png"
    assert main(["games", "--db", str(db), "review", str(gid), "--budget", "5",
                 "--plot", str(plot)]) == 0
    out, _ = capsys.readouterr()
    assert "This review knows every hand" in " ".join(out.split())
    data = plot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000


def test_the_command_names_what_is_wrong(tmp_path, narrow, capsys):
    db = tmp_path / "games.sqlite3"
    with GameLog(db) as log:
        over, _ = log_random_game(log, game="vorcept", seed=3)
        live, _ = log_random_game(log, game="vorcept", seed=4, max_moves=2, end=False)

    def error(*args):
        assert main(["games", "--db", str(db), "review", *args]) == 1
        return " ".join(capsys.readouterr().err.split())
    assert "no game 99 in" in error("99")
    assert ("game %d has no review: it is still being played (status playing); a game is "
            "reviewed once it is over" % live) in error(str(live))
    assert "no folder" in error(str(over), "--plot", str(tmp_path / "nowhere" / "x.png"))
    assert "give a name ending in .png" in error(str(over), "--plot", str(tmp_path / "x.pdf"))
    with pytest.raises(SystemExit) as exc:
        main(["games", "--db", str(db), "review", str(over), "--budget", "0"])
    assert exc.value.code == 2
    assert "the budget is a whole number of iterations from 1" in capsys.readouterr().err
    assert GameLog(db).review(over) is None  # nothing computed for a refused command


def a_review_broken_by(tmp_path, monkeypatch, name, breaking, extra, **settings):
    """A logged Vorcept game, review_run's `name` replaced by breaking(the real one), and
    the command that reviews the game (its options after `extra`): (db, game id, moves,
    the real function, the command)."""
    db = tmp_path / "games.sqlite3"
    with GameLog(db) as log:
        gid, moves = log_random_game(log, game="vorcept", seed=3)
    real = getattr(review_run, name)
    monkeypatch.setattr(review_run, name, breaking(real))
    for setting, value in settings.items():
        monkeypatch.setattr(review_run, setting, value)
    return db, gid, moves, real, ["games", "--db", str(db), "review", str(gid), *extra]


def test_ctrl_c_stops_the_command_saying_how_to_go_on(tmp_path, narrow, capsys,
                                                      monkeypatch):
    calls = []

    def interrupted(real):
        def evaluate(*args):
            calls.append(args)
            if len(calls) == 5:
                raise KeyboardInterrupt
            return real(*args)
        return evaluate
    # One worker: the interruption comes from this process.
    db, gid, moves, real, command = a_review_broken_by(
        tmp_path, monkeypatch, "evaluate_position", interrupted, ["--budget", "5", "--again"],
        WORKERS=1)
    assert main(command) == 130
    err = " ".join(capsys.readouterr().err.split())
    assert ("game %d: stopped at move 3 of %d; run the same command to go on"
            % (gid, len(moves))) in err
    monkeypatch.setattr(review_run, "evaluate_position", real)
    assert main(command) == 0  # the same command, --again included, goes on
    assert "going on from move 4" in capsys.readouterr().err
    assert GameLog(db).review(gid)["complete"] is True


def test_a_worker_killed_is_said_and_the_same_command_goes_on(tmp_path, narrow, capsys,
                                                              monkeypatch):
    # A worker of the review's pool killed outright (the OOM killer, kill -9) while moves
    # are left: said in a line, not a traceback; the moves reviewed are kept and the same
    # command goes on from there.
    import multiprocessing
    import os
    import signal
    killed = []

    def a_worker_killed_after_the_second(real):
        def evaluations(*args):
            for k, evaluation in enumerate(real(*args)):
                if k == 2:  # two positions in: a move reviewed, the others under way
                    workers = [p for p in multiprocessing.active_children()
                               if p.name.startswith("SpawnProcess")]
                    os.kill(workers[0].pid, signal.SIGKILL)
                    killed.append(workers[0].pid)
                yield evaluation
        return evaluations
    db, gid, moves, real, command = a_review_broken_by(
        tmp_path, monkeypatch, "evaluations", a_worker_killed_after_the_second,
        ["--budget", "20"], WORKERS=2, PARALLEL_FROM=1)
    assert main(command) == 1 and killed
    err = " ".join(capsys.readouterr().err.split())
    assert ("game %d: a worker process ended before its work was done (killed, or out of "
            "memory?); the moves reviewed so far are kept: run the same command to go on"
            % gid) in err and "Traceback" not in err, err
    kept = GameLog(db).review(gid)
    assert kept["complete"] is False and 1 <= len(kept["moves"]) < len(moves), kept
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
    monkeypatch.setattr(review_run, "evaluations", real)
    assert main(command) == 0
    assert "going on from move %d" % (len(kept["moves"]) + 1) in capsys.readouterr().err
    assert GameLog(db).review(gid)["complete"] is True


# ---------------------------------------------------------------- the lab's swings

def test_the_kinds_of_moves_and_their_swings():
    from vora_host.lab.swings import move_kind, swing_table
    assert [move_kind(m) for m in ("push water Sb", "duck a4 b3", "keep crane", "fight 1 1",
                                   "buy gatherer-yellow bb", "summon drone2 f7", "end",
                                   "rainbow green carnivore d")] == [
        "push water", "duck", "keep crane", "fight", "buy gatherer-yellow", "summon", "end",
        "rainbow green carnivore"]

    def moved(move, before, after, mark=None):
        return {"move": move, "before": before, "after": after, "mark": mark}
    rows = swing_table([moved("push water Sb", 0.5, 0.2, "blunder"),
                        moved("push water Na", 0.4, 0.5),
                        moved("duck a4 b3", 0.5, 0.45)])
    assert rows == [{"kind": "push water", "count": 2, "mean": -0.1, "mean_abs": 0.2,
                     "marked": 1},
                    {"kind": "duck", "count": 1, "mean": -0.05, "mean_abs": 0.05,
                     "marked": 0}]


def test_the_lab_tells_which_moves_decide_games(narrow, capsys):
    from vora_host.lab.swings import game_swings, play_record
    assert main(["lab", "vorcept", "--swings", "2", "--bots", "random", "--swing-budget",
                 "5", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "Which moves decide vorcept: 2 games, 5 iterations a position" in " ".join(
        out.split())
    reviewed = []
    for seed in (0, 1):
        reviewed += game_swings(play_record("vorcept", 2, ["random"], seed), 5, workers=1)
    for kind in {"move", "lava", "pylon"} & {r["move"].split()[0] for r in reviewed}:
        count = sum(r["move"].split()[0] == kind for r in reviewed)
        row = next(line for line in out.splitlines() if line.split()[:1] == [kind])
        assert row.split()[1] == str(count)


def test_ctrl_c_at_the_terminal_ends_the_workers_and_keeps_the_moves(tmp_path):
    # A real Ctrl-C: SIGINT to the foreground process group (vora and its two workers),
    # with the progress bar on a terminal; the workers are gone when vora has exited.
    import os
    import re
    import signal
    import sys
    from pty_screen import PtyScreen
    db = tmp_path / "games.sqlite3"
    with GameLog(db) as log:
        gid, moves = log_random_game(log, game="vora", seed=2)
    assert len(moves) >= 300

    def workers_of(pid):
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open("/proc/%s/stat" % entry) as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == pid:
                    found.append(int(entry))
        return found

    def moves_done(text):
        seen = re.findall(r"(\d+)/%d moves" % len(moves), text)
        return seen and int(seen[-1]) >= 3
    with PtyScreen([sys.executable, "-m", "vora_host", "games", "--db", str(db), "review",
                    str(gid)], cols=80, rows=24) as term:
        term.wait_until(lambda: moves_done(term.text()), "three moves reviewed")
        children = workers_of(term.pid)
        assert len(children) >= 2  # the two workers (and spawn's resource tracker)
        os.killpg(term.pid, signal.SIGINT)
        status = term.wait_exit()
        text = " ".join(term.text().split())
    assert status == 130, text
    done = int(re.search(r"stopped at move (\d+) of %d; run the same command to go on"
                         % len(moves), text).group(1))
    assert "Traceback" not in text
    # Gone, or going: spawn's resource tracker leaves once vora's end closes its pipe, a
    # moment later on a loaded machine; a worker left behind would run on past the deadline.
    import time

    def running(pid):
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    deadline = time.monotonic() + 60
    while any(running(pid) for pid in children):
        assert time.monotonic() < deadline, "a worker of the review ran on after vora ended"
        time.sleep(0.05)
    kept = GameLog(db).review(gid)
    assert kept["complete"] is False and len(kept["moves"]) == done >= 3


def test_a_log_of_schema_5_that_cannot_be_written_is_still_read(tmp_path):
    # A log from before reviews, opened where it cannot be written (a full disk, a
    # read-only file): read as it is, no review; the first write upgrades it.
    import sqlite3
    db = tmp_path / "games.sqlite3"
    with GameLog(db) as log:
        gid, moves = log_random_game(log, game="vorcept", seed=3)
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("DROP TABLE reviews")
    conn.execute("PRAGMA user_version = 5")
    conn.close()
    real = GameLog._migrate

    def refuse(self):
        self._conn.execute("PRAGMA query_only = 1")
        try:
            real(self)
        finally:
            self._conn.execute("PRAGMA query_only = 0")
    log = GameLog.__new__(GameLog)
    GameLog._migrate = refuse
    try:
        log.__init__(db)
    finally:
        GameLog._migrate = real
    try:
        assert log._version == 5 and log.game(gid)["move_count"] == len(moves)
        assert log.review(gid) is None and log.events(gid) == []
        log.save_review(gid, {"budget": 3, "complete": True, "knows_secrets": False,
                              "moves": fake_moves(moves)})
        assert log.schema_version == 6 and log.review(gid)["budget"] == 3
    finally:
        log.close()

"""The game log when the disk refuses to write (issue 8, item 3-PC): play goes on, the
players are told, nothing is lost, and everything is written once, in order, as soon as
writing works again.

Failures are real SQLite failures injected at the SQLite level: `PRAGMA query_only` makes
every write fail with SQLITE_READONLY (as a read-only file does), `PRAGMA max_page_count`
makes the file full (SQLITE_FULL, as a full disk does)."""

import json
import sqlite3
import tempfile
from pathlib import Path

import pytest

from shared_rules import vora
from vora_host.cli import main
from vora_host.log import formats, readers
from vora_host.log import database, schema, writes
from vora_host.log import store as gamelog
from vora_host.log.live import LiveLog
from vora_host.log.records import result_of
from vora_host.log.store import (CannotWrite, DatabaseLocked, GameLog, MoveConflict, MoveGap,
                                 NotLastMove, NotWritten)

from link_harness import Rig, random_moves


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def read_only(log, on=True):
    log._conn.execute("PRAGMA query_only = %d" % on)


def moves_of(seed, count, players=2):
    state = vora.new_game(players, seed)
    out = []
    for k in range(count):
        move = state.legal_moves()[(seed + k) % len(state.legal_moves())]
        state.play(move)
        out.append((move, state.digest()))
    return out, state


def file_rows(path):
    with sqlite3.connect(str(path)) as conn:
        return conn.execute("SELECT game_id, number, move, digest, taken_back_at FROM moves "
                            "ORDER BY id").fetchall()


def test_a_refused_move_is_kept_said_clearly_and_written_in_order_once(tmp_path):
    path = tmp_path / "g.sqlite3"
    said = []
    log = GameLog(path)
    log.on_trouble = said.append
    moves, _ = moves_of(3, 8)
    gid = log.start_game(players=2, seed=3, source="terminal")
    log.add_move(gid, 1, *moves[0])
    read_only(log)
    for k in (2, 3, 4):
        with pytest.raises(NotWritten) as info:
            log.add_move(gid, k, *moves[k - 1])
        assert "move %d of game %d kept in memory" % (k, gid) in str(info.value)
        assert "read-only" in str(info.value) and "corrupt" not in str(info.value)
        assert info.value.pending == k - 1
    assert log.add_move(gid, 3, *moves[2]) is False  # a repeat of a kept move: nothing kept
    with pytest.raises(MoveConflict):
        log.add_move(gid, 3, *moves[5])  # checked against what is kept, too
    with pytest.raises(MoveGap):
        log.add_move(gid, 9, *moves[7])
    # Reads include what waits; the file does not have it yet.
    assert [m["move"] for m in log.game(gid)["moves"]] == [m for m, _ in moves[:4]]
    assert [r[2] for r in file_rows(path)] == [moves[0][0]]
    assert log.pending == 3 and log.trouble == "the file or its folder is read-only"
    assert len(said) == 1 and "every change is kept in memory" in said[0]  # said once
    # Writing works again: the next move writes everything before it, then itself.
    read_only(log, False)
    assert log.add_move(gid, 5, *moves[4]) is True
    assert [(r[1], r[2], r[3]) for r in file_rows(path)] == \
        [(k, m, d) for k, (m, d) in enumerate(moves[:5], 1)]
    assert log.pending == 0 and log.trouble is None and "written again" in said[-1]
    assert log.verify(gid).ok
    log.close()


def test_a_start_and_an_end_are_kept_too_and_the_provisional_id_keeps_working(tmp_path):
    path = tmp_path / "g.sqlite3"
    log = GameLog(path)
    GameLog(path).close()
    read_only(log)
    moves, state = moves_of(5, 6)
    gid = log.start_game(players=2, seed=5, source="board usb", board_game_id=77)
    assert gid < 0 and log.real_id(gid) is None  # no exception: the mirror goes on
    for k, (m, d) in enumerate(moves, 1):
        with pytest.raises(NotWritten):
            log.add_move(gid, k, m, d)
    assert log.find_game(77, 5)["id"] == gid and log.find_game(77, 5)["move_count"] == 6
    assert log.end_game(gid, "abandoned", result_of(state, "quit")) is True  # kept, no raise
    assert log.game(gid)["status"] == "abandoned"
    with pytest.raises(NotWritten):
        log.flush()
    read_only(log, False)
    assert log.flush() == 8  # start, six moves, end
    real = log.real_id(gid)
    assert real >= 1 and log.game(gid)["id"] == real and log.game(real)["status"] == "abandoned"
    assert [r[2] for r in file_rows(path)] == [m for m, _ in moves]
    assert log.find_game(77, 5)["id"] == real
    log.close()


def test_a_full_disk_sqlite_full_mid_game(tmp_path):
    # A real SQLITE_FULL: the file may not grow past its size now.
    path = tmp_path / "g.sqlite3"
    log = GameLog(path)
    said = []
    log.on_trouble = said.append
    gid = log.start_game(players=2, seed=1, source="terminal")
    pages = log._conn.execute("PRAGMA page_count").fetchone()[0]
    log._conn.execute("PRAGMA max_page_count = %d" % pages)
    state = vora.new_game(2, 1)
    played, refused = [], 0
    choose = random_moves(1)
    while not state.is_over() and len(played) < 300:
        move = choose(state)
        state.play(move)
        played.append((move, state.digest()))
        try:
            log.add_move(gid, len(played), move, state.digest())
        except NotWritten as exc:
            refused += 1
            assert "the disk is full" in str(exc)
    assert refused > 0 and "the disk is full" in said[0]
    assert len(file_rows(path)) < len(played)
    log._conn.execute("PRAGMA max_page_count = 1000000")  # space is back
    log.end_game(gid, "over" if state.is_over() else "abandoned", result_of(state, "quit"))
    assert log.pending == 0
    assert [(r[1], r[2], r[3]) for r in file_rows(path)] == \
        [(k, m, d) for k, (m, d) in enumerate(played, 1)]
    assert log.verify(gid).ok
    log.close()


def test_a_lock_held_too_long_keeps_the_move_and_still_says_locked(tmp_path):
    path = tmp_path / "g.sqlite3"
    with GameLog(path) as log:
        gid = log.start_game(players=2, seed=1, source="terminal")
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    log = GameLog(path, timeout=0.05)
    try:
        with pytest.raises(DatabaseLocked) as info:
            log.add_move(gid, 1, "pass", "0123456789abcdef")
        assert isinstance(info.value, NotWritten) and "locked" in str(info.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    log.add_move(gid, 2, "pass", "fedcba9876543210")
    assert [r[1] for r in file_rows(path)] == [1, 2]
    log.close()


def test_takebacks_are_kept_and_checked_in_memory(tmp_path):
    path = tmp_path / "g.sqlite3"
    log = GameLog(path)
    moves, _ = moves_of(2, 4)
    gid = log.start_game(players=2, seed=2, source="terminal")
    log.add_move(gid, 1, *moves[0])
    read_only(log)
    with pytest.raises(NotWritten):
        log.add_move(gid, 2, *moves[1])
    with pytest.raises(NotWritten, match="takeback of move 2"):
        log.take_back(gid, 2)
    with pytest.raises(NotLastMove):
        log.take_back(gid, 2)  # move 2 is no longer live, even in memory
    with pytest.raises(NotWritten):
        log.add_move(gid, 2, *moves[2])  # a new move 2
    read_only(log, False)
    log.flush()
    assert [(r[1], r[2], r[4] is not None) for r in file_rows(path)] == \
        [(1, moves[0][0], False), (2, moves[1][0], True), (2, moves[2][0], False)]
    log.close()


@pytest.fixture
def short_folder():
    """A folder with a short path (a parallel run's tmp_path is long), removed after."""
    import shutil
    folder = Path(tempfile.mkdtemp(prefix="v"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_the_mirror_goes_on_through_a_read_only_log_and_loses_nothing(short_folder):
    # The board side of `vora play`: the link's BoardClient logs through GameLog, from the
    # deal (start_game) to the end (end_game), while the file refuses every write. (A
    # short path: a problem's text is cut at a fixed length, and its reason comes after
    # the log's path, which a parallel run makes longer.)
    path = short_folder / "g.sqlite3"
    log = GameLog(path)
    read_only(log)
    rig = Rig(log=log, game_seed=3)
    rig.run(300)
    rig.deal()
    rig.run(100)
    choose = random_moves(3)
    for _ in range(1000):
        if rig.app.ui.state.is_over():
            break
        rig.play(choose(rig.app.ui.state))
    rig.run(500)
    ui = rig.app.ui
    assert ui.state.is_over() and rig.client.moves == ui.moves  # the mirror kept up
    # Not a problem of the game: a note that says why and which moves wait (issue 38.13).
    assert not rig.client.problems
    note = rig.client.log_note()
    assert "cannot be written" in note and "read-only" in note, note
    assert "moves 1 to %d are kept here" % len(ui.moves) in note, note
    assert file_rows(path) == []
    read_only(log, False)
    log.flush()
    gid = log.real_id(rig.client.log_id)
    info = log.game(gid)
    assert [m["move"] for m in info["moves"]] == ui.moves and info["status"] == "over"
    assert [(r[1], r[2]) for r in file_rows(path)] == list(enumerate(ui.moves, 1))
    assert log.verify(gid).ok
    log.close()


# ---------------------------------------------------------------- vora play --typed

class Faults:
    """Every GameLog opened while `on` refuses writes (a read-only file)."""

    def __init__(self, monkeypatch):
        self.on = True
        self.logs = []
        real = GameLog._prepare
        faults = self

        def prepare(log):
            real(log)
            faults.logs.append(log)
            if faults.on:
                log._conn.execute("PRAGMA query_only = 1")
        monkeypatch.setattr(GameLog, "_prepare", prepare)

    def lift(self):
        self.on = False
        for log in self.logs:
            if log._conn is not None:
                log._conn.execute("PRAGMA query_only = 0")


def test_vora_play_keeps_playing_says_so_and_logs_everything_once_space_is_back(
        tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    GameLog(db).close()
    faults = Faults(monkeypatch)
    real_moved = LiveLog.moved

    def moved(self, number, move, digest):
        real_moved(self, number, move, digest)
        if number == 20:
            faults.lift()  # space is back after move 20
    monkeypatch.setattr(LiveLog, "moved", moved)
    record = tmp_path / "r.json"
    assert main(["play", "--bots-only", "--quiet", "--seed", "4", "--db", str(db),
                 "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "Game log: cannot write the game log" in out and "read-only" in out
    assert "kept in memory" in out and "written again" in out
    assert "Logged as game 1 in %s" % db in out
    moves = json.loads(record.read_text())["moves"]
    with GameLog(db) as log:
        info = log.game(1)
        assert [m["move"] for m in info["moves"]] == moves and info["status"] == "over"
        assert log.verify(1).ok
    assert [(r[1], r[2]) for r in file_rows(db)] == list(enumerate(moves, 1))


def test_a_log_that_never_comes_back_leaves_the_game_saved_for_an_import(
        tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    GameLog(db).close()
    Faults(monkeypatch)
    rescue = tmp_path / "rescue"
    rescue.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(rescue))
    assert main(["play", "--bots-only", "--quiet", "--seed", "6", "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert "This game is NOT in the game log" in out and "read-only" in out
    (saved,) = rescue.glob("vora-unlogged-*.json")
    assert str(saved) in out and "vora games import %s" % saved in out
    monkeypatch.undo()  # the file is writable again
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["games", "--db", str(db), "import", str(saved)]) == 0
    with GameLog(db) as log:
        (info,) = log.games()
        assert info["status"] == "over" and log.verify(info["id"]).ok


def test_a_log_that_cannot_be_opened_at_first_gets_the_game_later(tmp_path, monkeypatch):
    db = tmp_path / "g.sqlite3"
    said = []
    tries = []
    real_open = GameLog._open

    def flaky_open(log, create, timeout):
        tries.append(1)
        if len(tries) < 4:
            raise CannotWrite("cannot write the game log %s: the disk is full" % log.path,
                              "the disk is full")
        real_open(log, create, timeout)
    monkeypatch.setattr(GameLog, "_open", flaky_open)
    moves, state = moves_of(8, 6)
    live = LiveLog(db, "vora", 2, 8, vora.new_game(2, 8).options(), say=said.append)
    live.moved(1, *moves[0])
    live.moved(2, *moves[1])
    live.took_back(2)
    live.moved(2, *moves[2])  # the fourth try opens the log: everything so far goes in
    live.moved(3, *moves[3])
    live.ended("abandoned", result_of(vora.new_game(2, 8), "quit"))
    message, logged = live.finish()
    assert logged and message.startswith("Logged as game 1")
    assert "cannot open the game log" in said[0] and "can be opened again" in said[1]
    assert [(r[1], r[2], r[4] is not None) for r in file_rows(db)] == [
        (1, moves[0][0], False), (2, moves[1][0], True), (2, moves[2][0], False),
        (3, moves[3][0], False)]


def test_a_read_only_or_full_log_is_not_called_corrupt(tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    record = tmp_path / "r.json"
    assert main(["play", "--bots-only", "--quiet", "--seed", "2", "--no-log",
                 "--record", str(record)]) == 0
    capsys.readouterr()
    GameLog(db).close()
    Faults(monkeypatch)
    assert main(["games", "--db", str(db), "import", str(record)]) == 1
    err = capsys.readouterr().err
    assert "read-only" in err and "corrupt" not in err and "Traceback" not in err
    assert main(["games", "--db", str(db), "list"]) == 0  # reading still works
    # A full disk says so in the same way.
    err_text = str(database._translate(sqlite3.OperationalError("database or disk is full"), db))
    assert "the disk is full" in err_text and "corrupt" not in err_text


def test_a_schema_1_log_on_a_read_only_file_is_still_read(tmp_path):
    db = tmp_path / "old.sqlite3"
    make_schema_1(db, moves=[("pass", "0123456789abcdef")])
    log = GameLog.__new__(GameLog)
    # Opened read-only: the upgrade cannot be written, the games are read all the same.
    real = GameLog._migrate

    def refuse(self):
        self._conn.execute("PRAGMA query_only = 1")
        try:
            real(self)
        finally:
            self._conn.execute("PRAGMA query_only = 0")
    GameLog._migrate = refuse
    try:
        log.__init__(db)
    finally:
        GameLog._migrate = real
    assert log._version == 1
    assert [m["move"] for m in log.game(1)["moves"]] == ["pass"]
    log.add_move(1, 2, "pass", "fedcba9876543210")  # the first write upgrades the file
    assert log.schema_version == gamelog.SCHEMA_VERSION
    assert [m["number"] for m in log.game(1)["moves"]] == [1, 2]
    log.close()


def make_schema_1(path, moves=()):
    """A game log as vora wrote it before takebacks (schema 1), with one game."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    for statement in schema._SCHEMA_1:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("PRAGMA application_id = %d" % gamelog.APPLICATION_ID)
    conn.execute("PRAGMA journal_mode = WAL")
    options = json.dumps(vora.new_game(2, 1).options())
    conn.execute("INSERT INTO games (game, players, seed, options, source, started_at) "
                 "VALUES ('vora', 2, 1, ?, 'terminal', '2025-01-01T00:00:00+00:00')",
                 (options,))
    for k, (m, d) in enumerate(moves, 1):
        conn.execute("INSERT INTO moves (game_id, number, move, digest, logged_at) VALUES "
                     "(1, ?, ?, ?, '2025-01-01T00:00:01+00:00')", (k, m, d))
    conn.close()


def test_the_rescue_export_of_a_kept_game_imports(tmp_path):
    log = GameLog(tmp_path / "g.sqlite3")
    read_only(log)
    moves, state = moves_of(9, 5)
    gid = log.start_game(players=2, seed=9, source="terminal")
    for k, (m, d) in enumerate(moves, 1):
        with pytest.raises(NotWritten):
            log.add_move(gid, k, m, d)
    text = formats.export_json(log, gid)  # what `vora play` saves when the log never returns
    other = GameLog(tmp_path / "other.sqlite3")
    new, report = readers.import_json(other, text)
    assert report.ok and [m["move"] for m in other.game(new)["moves"]] == [m for m, _ in moves]
    other.close()
    log.close()


def test_closing_with_changes_still_waiting_keeps_them_for_the_caller(tmp_path):
    path = tmp_path / "g.sqlite3"
    log = GameLog(path)
    gid = log.start_game(players=2, seed=1, source="terminal")
    read_only(log)
    with pytest.raises(NotWritten):
        log.add_move(gid, 1, "pass", "0123456789abcdef")
    log.close()  # no exception: the caller rescues what unwritten() lists
    assert [op["kind"] for op in log.unwritten()] == ["move"]
    assert Path(path).exists() and file_rows(path) == []


def test_leaving_the_board_says_where_each_game_went(tmp_path, monkeypatch, capsys):
    # `vora play` on the board, or `vora mirror`, when it quits: "Logged as game N", or
    # where a game the log would not take was saved.
    from vora_host.log.session import _close_log
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    log = GameLog(tmp_path / "g.sqlite3")
    moves, _ = moves_of(4, 3)
    done = log.start_game(players=2, seed=4, source="virtual board")
    log.add_move(done, 1, *moves[0])
    half = log.start_game(players=2, seed=5, source="virtual board")
    log.add_move(half, 1, *moves_of(5, 1)[0][0])
    read_only(log)
    with pytest.raises(NotWritten):
        log.add_move(half, 2, *moves_of(5, 2)[0][1])
    _close_log(log)
    err = capsys.readouterr().err
    assert "Logged as game %d in %s" % (done, log.path) in err
    assert "This game is NOT in the game log" in err and "read-only" in err
    assert "The log's game %d holds only its first 1 move:" % half in err
    (saved,) = tmp_path.glob("vora-unlogged-*.json")
    assert len(json.loads(saved.read_text())["moves"]) == 2


def test_memory_kept_for_a_refusing_file_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(writes, "MAX_PENDING", 3)
    log = GameLog(tmp_path / "g.sqlite3")
    gid = log.start_game(players=2, seed=1, source="terminal")
    read_only(log)
    moves, _ = moves_of(1, 4)
    for k in (1, 2, 3):
        with pytest.raises(NotWritten):
            log.add_move(gid, k, *moves[k - 1])
    with pytest.raises(CannotWrite) as info:
        log.add_move(gid, 4, *moves[3])
    assert not isinstance(info.value, NotWritten) and "3 changes already wait" in str(info.value)
    assert log.pending == 3
    read_only(log, False)
    assert log.flush() == 3
    log.close()


# ---- issue 23, finding 6: a game needing attention -------------------------------------

def test_a_game_marked_as_needing_attention_says_why_in_list_and_show(tmp_path, capsys):
    db = tmp_path / "g.sqlite3"
    with GameLog(db) as log:
        moves, _ = moves_of(3, 4)
        gid = log.start_game(players=2, seed=3, source="virtual board", board_game_id=9)
        fine = log.start_game(players=2, seed=4, source="virtual board")
        for k, (m, d) in enumerate(moves, 1):
            log.add_move(gid, k, m, d)
        assert log.game(gid)["attention"] is None
        log.mark_attention(gid, "move 3: the board's digest 0123456789abcdef, replayed "
                                "here fedcba9876543210")
        log.mark_attention(gid, "from move 3 on, the host follows the board's state")
        with pytest.raises(gamelog.NoSuchGame):
            log.mark_attention(999, "nothing")
        with pytest.raises(ValueError):
            log.mark_attention(gid, "  ")
    with GameLog(db) as log:  # durable, moves untouched
        info = log.game(gid)
        assert info["attention"].split("\n") == [
            "move 3: the board's digest 0123456789abcdef, replayed here fedcba9876543210",
            "from move 3 on, the host follows the board's state"]
        assert info["move_count"] == 4
        assert [g["attention"] is not None for g in log.games()] == [False, True]
        assert log.game(fine)["attention"] is None
    assert main(["games", "--db", str(db), "list"]) == 0
    out = capsys.readouterr().out
    assert out.count("needs attention") == 1 + 1  # the game's row, and the line saying what
    assert main(["games", "--db", str(db), "show", str(gid)]) == 0
    out = capsys.readouterr().out
    assert "needs attention" in out and "replayed here fedcba9876543210" in out
    assert main(["games", "--db", str(db), "show", str(fine)]) == 0
    assert "needs attention" not in capsys.readouterr().out


def test_attention_notes_are_bounded_and_kept_in_memory_while_the_file_refuses(tmp_path):
    with GameLog(tmp_path / "g.sqlite3") as log:
        gid = log.start_game(players=2, seed=3, source="virtual board")
        read_only(log)
        assert log.mark_attention(gid, "note 0") is True  # kept, said through trouble
        assert log.pending == 1 and log.game(gid)["attention"] == "note 0"
        read_only(log, False)
        for k in range(1, 30):
            log.mark_attention(gid, "note %d" % k)
        notes = log.game(gid)["attention"].split("\n")
        assert notes[:gamelog.ATTENTION_NOTES] == ["note %d" % k
                                                   for k in range(gamelog.ATTENTION_NOTES)]
        assert notes[-1] == "%d more notes" % (30 - gamelog.ATTENTION_NOTES)


def test_a_schema_2_log_gains_the_attention_column_and_is_read_when_read_only(tmp_path):
    db = tmp_path / "old.sqlite3"
    make_schema_1(db, moves=[("pass", "0123456789abcdef")])
    conn = sqlite3.connect(str(db), isolation_level=None)
    for statement in schema._SCHEMA_2:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    conn.close()
    log = GameLog.__new__(GameLog)
    real = GameLog._migrate

    def refuse(self):
        self._conn.execute("PRAGMA query_only = 1")
        try:
            real(self)
        finally:
            self._conn.execute("PRAGMA query_only = 0")
    GameLog._migrate = refuse
    try:
        log.__init__(db)
    finally:
        GameLog._migrate = real
    assert log._version == 2
    assert log.game(1)["attention"] is None and log.games()[0]["move_count"] == 1
    log.mark_attention(1, "checked")  # the first write upgrades the file
    assert log.schema_version == gamelog.SCHEMA_VERSION == 6
    assert log.game(1)["attention"] == "checked"
    log.close()


def test_programs_opening_a_new_log_at_once_all_open_it(tmp_path):
    # Switching a new file to WAL takes a lock SQLite does not wait for, and the tables
    # being made by another showed tables without a schema version: of four opening a new
    # log at once, one was told it "is locked by another program" or "not a Vora game
    # log" about one time in twenty (two tables set up at once on a server's new log).
    import threading
    from vora_host.log.store import GameLog
    for round_ in range(60):
        path = tmp_path / ("log%d.db" % round_)
        failed = []

        def open_it():
            try:
                GameLog(path, timeout=5.0).close()
            except Exception as exc:  # what a program opening it would have been told
                failed.append(repr(exc))
        threads = [threading.Thread(target=open_it) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not failed and not any(t.is_alive() for t in threads), failed

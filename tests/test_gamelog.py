"""vora_host.log.store and `vora games`: the SQLite game log.

Every move is durable once add_move() returns (a second connection sees it), repeats are
no-ops, conflicts and gaps raise, verify() finds the first bad digest or illegal move,
both export formats round-trip through import, the CLI reports bad ids and bad files
clearly without touching them, and a process killed while writing leaves every logged
move whole.
"""

import hashlib
import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from shared_rules import games, vora
from shared_rules.errors import BadPosition, IllegalMove
from vora_host.log import cli as games_cli
from vora_host.log import schema
from vora_host.log import store as gamelog
from vora_host.bots import make_bot
from vora_host.cli import main
from vora_host.log import formats, readers
from vora_host.log.store import (BadImport, DatabaseError, DatabaseLocked, GameClosed, GameLog,
                               MoveConflict, MoveGap, NoSuchGame)
from vora_host.log.records import load_record, result_of
from vora_host.log.postgres import PgConnection
from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    # rich wraps at the terminal width (80 when captured): keep each message on one line.
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """The log's database on either backend: an SQLite file's path, or the URL of a fresh
    PostgreSQL database (tests/pgserver.py)."""
    if request.param == "postgresql":
        return request.getfixturevalue("pg_url")
    return tmp_path / "games.sqlite3"


@pytest.fixture
def sqlite_db(tmp_path):
    """For what only an SQLite file has (PRAGMAs, sidecar files, file locks)."""
    return tmp_path / "games.sqlite3"


@pytest.fixture
def sqlite_log(sqlite_db):
    with GameLog(sqlite_db) as the_log:
        yield the_log


@pytest.fixture
def log(db):
    with GameLog(db) as the_log:
        yield the_log


def play(seed, players=2, max_moves=None, bot="random", **options):
    """A bot game: (moves, digests, final state)."""
    state = vora.new_game(players, seed, **options)
    bots = [make_bot(bot, seed * 10 + p) for p in range(players)]
    moves, digests = [], []
    while not state.is_over() and (max_moves is None or len(moves) < max_moves):
        move = bots[state.to_act()](state)
        state.play(move)
        moves.append(move)
        digests.append(state.digest())
    return moves, digests, state


def log_game(log, seed, players=2, max_moves=None, end=True, **start):
    moves, digests, state = play(seed, players, max_moves)
    start.setdefault("source", "terminal")
    gid = log.start_game(players=players, seed=seed, **start)
    for k, (m, d) in enumerate(zip(moves, digests), 1):
        assert log.add_move(gid, k, m, d) is True
    if end:
        if state.is_over():
            log.end_game(gid, "over", result_of(state))
        else:
            log.end_game(gid, "abandoned", result_of(state, "quit"))
    return gid, moves, digests, state


def raw(db):
    """A connection of its own, as another program would open the database (SQLite's
    spelling of SQL on either backend)."""
    if gamelog.is_db_url(db):
        return PgConnection(db)
    return sqlite3.connect(str(db), isolation_level=None)


def corrupt_digest(db, gid, number):
    with raw(db) as conn:
        conn.execute("UPDATE moves SET digest = '00000000deadbeef' WHERE game_id = ? AND "
                     "number = ?", (gid, number))


def sidecars(path):
    return [p for p in (Path(str(path) + "-wal"), Path(str(path) + "-shm"),
                        Path(str(path) + "-journal")) if p.exists()]


# ---------------------------------------------------------------- where the file is

def test_db_path_option_then_env_then_user_data_folder(monkeypatch, tmp_path):
    import platformdirs
    assert gamelog.resolve_db_path("x.sqlite3", env={"VORA_DB": "/e.sqlite3"}) == \
        Path("x.sqlite3")
    assert gamelog.resolve_db_path(None, env={"VORA_DB": "/e.sqlite3"}) == Path("/e.sqlite3")
    assert gamelog.resolve_db_path(None, env={}) == \
        Path(platformdirs.user_data_dir("vora", appauthor=False)) / "games.sqlite3"
    # Without platformdirs: the XDG rule itself.
    monkeypatch.setitem(sys.modules, "platformdirs", None)
    assert gamelog.default_db_path({"XDG_DATA_HOME": str(tmp_path)}) == \
        tmp_path / "vora" / "games.sqlite3"
    assert gamelog.default_db_path({}) == \
        Path(os.path.expanduser("~")) / ".local" / "share" / "vora" / "games.sqlite3"


def test_schema_version_wal_full_sync_and_unique_moves(sqlite_log, sqlite_db):
    log = sqlite_log
    gid = log.start_game(players=2, seed=1, source="virtual board")
    log.add_move(gid, 1, "pass", "0123456789abcdef")
    conn = log._conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == gamelog.SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == gamelog.APPLICATION_ID
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with raw(sqlite_db) as other, pytest.raises(sqlite3.IntegrityError):
        other.execute("INSERT INTO moves (game_id, number, move, digest, logged_at) "
                      "VALUES (?, 1, 'pass', '0123456789abcdef', 'now')", (gid,))
    columns = {r[1] for r in conn.execute("PRAGMA table_info(games)")}
    assert columns == {"id", "board_game_id", "game", "players", "seed", "options", "source",
                       "started_at", "ended_at", "result", "status", "imported_at", "attention",
                       "seed_high"}


def test_migration_hook_runs_missing_steps_and_refuses_newer_files(db, monkeypatch):
    calls = []
    now = gamelog.SCHEMA_VERSION

    def step(conn):
        calls.append(now + 1)
        conn.execute("ALTER TABLE games ADD COLUMN note TEXT")

    GameLog(db).close()
    monkeypatch.setattr(schema, "SCHEMA_VERSION", now + 1)
    monkeypatch.setitem(gamelog.MIGRATIONS, now + 1, step)
    with GameLog(db) as log:
        assert log.schema_version == now + 1 and calls == [now + 1]
    with GameLog(db):
        assert calls == [now + 1]  # nothing left to migrate
    monkeypatch.setattr(schema, "SCHEMA_VERSION", now)
    with pytest.raises(DatabaseError, match="newer vora"):
        GameLog(db)


def test_failed_migration_leaves_the_file_at_its_version(sqlite_db, monkeypatch):
    GameLog(sqlite_db).close()
    now = gamelog.SCHEMA_VERSION

    def broken(conn):
        conn.execute("ALTER TABLE games ADD COLUMN note TEXT")
        raise RuntimeError("boom")

    monkeypatch.setattr(schema, "SCHEMA_VERSION", now + 1)
    monkeypatch.setitem(gamelog.MIGRATIONS, now + 1, broken)
    with pytest.raises(RuntimeError):
        GameLog(sqlite_db)
    with raw(sqlite_db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == now
        assert "note" not in {r[1] for r in conn.execute("PRAGMA table_info(games)")}


# ---------------------------------------------------------------- writing moves

def test_every_move_is_durable_when_add_move_returns(log, db):
    moves, digests, _ = play(3, max_moves=25)
    gid = log.start_game(players=2, seed=3, source="board /dev/ttyACM0", board_game_id=77)
    for k, (m, d) in enumerate(zip(moves, digests), 1):
        assert log.add_move(gid, k, m, d) is True
        # Another connection, opened afresh, already sees the move: it is committed.
        with raw(db) as other:
            rows = other.execute("SELECT number, move, digest FROM moves WHERE game_id = ? "
                                 "ORDER BY number", (gid,)).fetchall()
        assert rows == [(i, mm, dd) for i, (mm, dd) in enumerate(zip(moves[:k], digests[:k]), 1)]
        with GameLog(db, create=False) as second:
            assert second.game(gid)["move_count"] == k


def test_a_repeated_move_is_logged_once(log):
    gid = log.start_game(players=2, seed=1, source="terminal")
    moves, digests, _ = play(1, max_moves=3)
    for k in range(3):
        assert log.add_move(gid, k + 1, moves[k], digests[k])
    # A reconnect re-sends moves 2 and 3: nothing changes.
    assert log.add_move(gid, 2, moves[1], digests[1]) is False
    assert log.add_move(gid, 3, moves[2], digests[2]) is False
    assert [m["move"] for m in log.game(gid)["moves"]] == moves[:3]


def test_conflicting_move_or_digest_raises_naming_both(log):
    gid = log.start_game(players=2, seed=1, source="terminal")
    log.add_move(gid, 1, "push crow Sc", "0123456789abcdef")
    with pytest.raises(MoveConflict) as info:
        log.add_move(gid, 1, "push pig Sc", "0123456789abcdef")
    exc = info.value
    assert (exc.number, exc.logged_move, exc.move) == (1, "push crow Sc", "push pig Sc")
    assert "push crow Sc" in str(exc) and "push pig Sc" in str(exc)
    with pytest.raises(MoveConflict) as info:
        log.add_move(gid, 1, "push crow Sc", "fedcba9876543210")
    assert "0123456789abcdef" in str(info.value) and "fedcba9876543210" in str(info.value)
    assert log.game(gid)["moves"][0]["move"] == "push crow Sc"


def test_a_gap_raises_with_the_number_needed_next(log):
    gid = log.start_game(players=2, seed=1, source="terminal")
    log.add_move(gid, 1, "pass", "0123456789abcdef")
    with pytest.raises(MoveGap) as info:
        log.add_move(gid, 4, "pass", "0123456789abcdef")
    assert info.value.expected == 2 and info.value.number == 4
    assert "2 to 3 are missing" in str(info.value)
    with pytest.raises(MoveGap):
        log.add_move(log.start_game(players=2, seed=2, source="terminal"), 2, "pass",
                     "0123456789abcdef")
    assert log.game(gid)["move_count"] == 1


def test_bad_arguments_and_unknown_games(log):
    gid = log.start_game(players=2, seed=1, source="terminal")
    for number, move, digest in ((0, "pass", "0123456789abcdef"),
                                 (True, "pass", "0123456789abcdef"),
                                 (1, "", "0123456789abcdef"), (1, "pass; drop", "0" * 16),
                                 (1, "pass\n", "0" * 16), (1, "pass", "0123"),
                                 (1, "pass", "0123456789ABCDEF")):
        with pytest.raises(ValueError):
            log.add_move(gid, number, move, digest)
    with pytest.raises(NoSuchGame):
        log.add_move(gid + 1, 1, "pass", "0123456789abcdef")
    with pytest.raises(NoSuchGame):
        log.game(99)
    with pytest.raises(ValueError, match="cannot be set up"):
        log.start_game(players=5, seed=1, source="terminal")
    with pytest.raises(ValueError, match="unknown option"):
        log.start_game(players=2, seed=1, source="terminal", options={"colour": "red"})
    with pytest.raises(ValueError, match="source"):
        log.start_game(players=2, seed=1, source="my laptop")
    with pytest.raises(ValueError, match="u32"):
        log.start_game(players=2, seed=1, source="board x", board_game_id=1 << 32)
    with pytest.raises(ValueError):
        log.end_game(gid, "over", {"over": True})
    with pytest.raises(ValueError):
        log.end_game(gid, "playing")


def test_options_are_stored_with_every_default(log):
    gid = log.start_game(players=3, seed=4, source="terminal", options={"box": {"water": 20,
                                                                                "grass": 20}})
    options = log.game(gid)["options"]
    assert options["seats"] == "SWN" and options["pushed_out"] == vora.DEFAULT_PUSHED_OUT
    assert options["max_turns"] == vora.DEFAULT_MAX_TURNS
    assert options["box"]["water"] == 20 and options["box"]["pig"] == 0
    record, digests = log.record(gid)
    assert games.start(record) == vora.new_game(3, 4, box={"water": 20, "grass": 20})


def test_end_resume_and_find_after_reconnect(log):
    moves, digests, state = play(5, max_moves=6)
    gid = log.start_game(players=2, seed=5, source="board /dev/ttyACM0", board_game_id=4242)
    for k in range(4):
        log.add_move(gid, k + 1, moves[k], digests[k])
    assert log.end_game(gid, "interrupted") is True
    assert log.end_game(gid, "interrupted") is False  # the same end again: nothing changes
    found = log.find_game(4242, 5)
    assert found["id"] == gid and found["move_count"] == 4 and found["status"] == "interrupted"
    assert log.find_game(4242, 6) is None and log.find_game(1, 5) is None
    # The board is back: the next move continues the game.
    assert log.add_move(gid, 5, moves[4], digests[4])
    assert log.game(gid)["status"] == "playing" and log.game(gid)["ended_at"] is None
    log.end_game(gid, "abandoned", result_of(state, "quit"))
    with pytest.raises(GameClosed):
        log.add_move(gid, 6, moves[5], digests[5])
    assert log.add_move(gid, 5, moves[4], digests[4]) is False  # a repeat is still fine
    assert [g["id"] for g in log.games(status="abandoned")] == [gid]
    assert log.games(status="over") == []


def test_an_imported_copy_is_never_continued_by_a_reconnect(log):
    gid, moves, digests, _ = log_game(log, 6, max_moves=4, end=False,
                                      source="board /dev/ttyACM0", board_game_id=5)
    copy, _ = readers.import_json(log, formats.export_json(log, gid), force=True)
    assert log.game(copy)["imported_at"] is not None and log.game(gid)["imported_at"] is None
    assert log.find_game(5, 6)["id"] == gid


def test_games_lists_newest_first_with_limit(log):
    ids = [log.start_game(players=2, seed=s, source="terminal") for s in range(5)]
    assert [g["id"] for g in log.games()] == ids[::-1]
    assert [g["id"] for g in log.games(limit=2)] == ids[:-3:-1]
    with pytest.raises(ValueError):
        log.games(status="won")


# ---------------------------------------------------------------- replay and verify

def test_record_replays_with_shared_rules_and_verifies(log):
    gid, moves, digests, state = log_game(log, 11)
    record, logged = log.record(gid)
    assert record["moves"] == moves and logged == digests
    assert games.replay(record, logged) == state
    report = log.verify(gid)
    assert report.ok and report.moves == len(moves) and report.state == state
    assert "every digest matches" in report.message


@pytest.mark.parametrize("number", [1, 7, 30])
def test_verify_reports_the_first_corrupted_digest(log, db, number):
    gid, moves, digests, _ = log_game(log, 12, max_moves=40)
    corrupt_digest(db, gid, number)
    corrupt_digest(db, gid, number + 3)  # only the first one is reported
    report = log.verify(gid)
    assert not report.ok and report.problem == "mismatch" and report.number == number
    assert report.logged_digest == "00000000deadbeef"
    assert report.replayed_digest == digests[number - 1]
    assert "move %d" % number in report.message
    # shared_rules.games.replay agrees on the move number.
    record, logged = log.record(gid)
    with pytest.raises(BadPosition, match="after move %d " % number):
        games.replay(record, logged)


def test_verify_reports_an_illegal_logged_move(log):
    moves, digests, _ = play(13, max_moves=12)
    moves[8] = "push pig Zz"  # well-formed text, no such edge
    gid = log.start_game(players=2, seed=13, source="terminal")
    for k, (m, d) in enumerate(zip(moves, digests), 1):
        log.add_move(gid, k, m, d)
    report = log.verify(gid)
    assert report.problem == "illegal" and report.number == 9 and report.move == "push pig Zz"
    assert "illegal" in report.message and "move 9" in report.message
    record, logged = log.record(gid)
    with pytest.raises(IllegalMove, match="move 9 of the record"):
        games.replay(record, logged)


def test_verify_reports_a_result_the_replay_disagrees_with(log):
    gid, _, _, state = log_game(log, 14, end=False)
    wrong = result_of(state)
    wrong["scores"] = [s + 1 for s in wrong["scores"]]
    log.end_game(gid, "over", wrong)
    report = log.verify(gid)
    assert report.problem == "result" and "scores" in report.message


# ---------------------------------------------------------------- export and import

def comparable(info, times=True):
    out = dict(info)
    out.pop("id")
    out.pop("imported_at")
    out["moves"] = [dict(m) for m in info["moves"]]
    out["history"] = [dict(m) for m in info["history"]]
    if not times:
        out.pop("started_at")
        out.pop("ended_at")
        for m in out["moves"] + out["history"]:
            m.pop("logged_at")
        for m in out["history"]:  # the text format says that a move was taken back, not when
            m["taken_back_at"] = m["taken_back_at"] is not None
    return out


def test_json_export_round_trips_and_is_a_record_vora_replay_reads(log, tmp_path):
    gid, moves, digests, _ = log_game(log, 21, board_game_id=99, source="board usb-1")
    text = formats.export_json(log, gid)
    new, report = readers.import_json(log, text, force=True)  # a copy in the same log
    assert report.ok and new != gid
    assert comparable(log.game(new)) == comparable(log.game(gid))
    path = tmp_path / "game.json"
    path.write_text(text)
    record = load_record(str(path))  # what `vora replay` reads
    assert record["moves"] == moves and record["digests"] == digests


def test_text_export_looks_like_tag_pairs_and_round_trips(log):
    gid, moves, digests, state = log_game(log, 22, players=3)
    text = formats.export_text(log, gid)
    assert '[Game "vora"]' in text and '[Seed "22"]' in text and '[Players "3"]' in text
    assert '[Seats "SWN"]' in text
    assert ('[Result "P%d wins"]' % state.winner() if state.winner() is not None
            else '[Result "draw"]') in text
    assert "\n1. P0 %s ; %s\n" % (moves[0], digests[0]) in text
    new, report = readers.import_text(log, text, force=True)
    assert report.ok
    # Text keeps the start and end times, not the time of each move.
    assert comparable(log.game(new), times=False) == comparable(log.game(gid), times=False)
    assert log.game(new)["started_at"] == log.game(gid)["started_at"]


sources = st.one_of(
    st.sampled_from(["terminal", "virtual board"]),
    st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_characters="\x7f"),
            min_size=1, max_size=20).filter(str.strip).map(lambda s: "board " + s))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# A source holding \x85 (a line break to str.splitlines) once broke the text format.
@example(seed=0, players=2, max_moves=None, source="board 0\x85", board_game_id=None,
         ending="end", pushed_out="box")
@given(seed=st.integers(0, 2 ** 32), players=st.sampled_from([2, 3, 4]),
       max_moves=st.one_of(st.none(), st.integers(0, 30)), source=sources,
       board_game_id=st.one_of(st.none(), st.integers(0, 2 ** 32 - 1)),
       ending=st.sampled_from(["end", "interrupted", "playing"]),
       pushed_out=st.sampled_from(vora.PUSHED_OUT_CHOICES))
def test_both_formats_round_trip_any_game(seed, players, max_moves, source, board_game_id,
                                          ending, pushed_out):
    seed %= 1000
    with tempfile.TemporaryDirectory() as folder, GameLog(Path(folder) / "g.sqlite3") as log:
        moves, digests, state = play(seed, players, max_moves, pushed_out=pushed_out)
        gid = log.start_game(players=players, seed=seed, source=source,
                             board_game_id=board_game_id, options={"pushed_out": pushed_out})
        for k, (m, d) in enumerate(zip(moves, digests), 1):
            log.add_move(gid, k, m, d)
        if ending == "end":
            log.end_game(gid, "over" if state.is_over() else "abandoned",
                         result_of(state, "quit"))
        elif ending == "interrupted" and not state.is_over():
            log.end_game(gid, "interrupted",
                         result_of(state, "link lost") if len(moves) % 2 else None)
        original = log.game(gid)
        via_json, report = readers.import_json(log, formats.export_json(log, gid), force=True)
        assert report.ok
        assert comparable(log.game(via_json)) == comparable(original)
        via_text, report = readers.import_text(log, formats.export_text(log, gid), force=True)
        assert report.ok
        assert comparable(log.game(via_text), times=False) == comparable(original, times=False)
        # And the text of the copy is the text of the original (but for the header comment).
        assert formats.export_text(log, via_text).split("\n", 1)[1] == \
            formats.export_text(log, gid).split("\n", 1)[1]


def test_a_vora_play_record_imports(tmp_path, db):
    path = tmp_path / "game.json"
    assert main(["play", "--bots-only", "--quiet", "--seed", "8", "--record", str(path)]) == 0
    assert main(["games", "--db", str(db), "import", str(path)]) == 0
    with GameLog(db) as log:
        (info,) = log.games()
        assert info["status"] == "over" and info["source"] == "terminal"
        assert info["move_count"] == len(json.loads(path.read_text())["moves"])
        assert log.verify(info["id"]).ok


TEXT = """\
# a hand-written game
[Game "vora"]
[Seed "7"]
[Players "2"]
[Seats "SN"]
[Result "*"]

1. P0 {m1} ; {d1}
2. P0 {m2} ; {d2}
"""


def sample_text():
    """TEXT with two moves that player 0 plays (an action, then a take)."""
    for seed in range(7, 200):
        state = vora.new_game(2, seed)
        moves, digests = [], []
        bot = make_bot("greedy", seed)
        for _ in range(2):
            if state.to_act() != 0:
                break
            move = bot(state)
            state.play(move)
            moves.append(move)
            digests.append(state.digest())
        if len(moves) == 2:
            text = TEXT.replace('[Seed "7"]', '[Seed "%d"]' % seed)
            return (text.format(m1=moves[0], d1=digests[0], m2=moves[1], d2=digests[1]),
                    moves, digests)
    raise AssertionError("no seed gives player 0 two moves")


def test_text_import_accepts_a_minimal_file(log):
    text, moves, digests = sample_text()
    gid, report = readers.import_text(log, text)
    info = log.game(gid)
    assert report.ok and info["status"] == "abandoned" and info["result"] is None
    assert [m["move"] for m in info["moves"]] == moves
    # Without digests, the replay's are logged.
    stripped = "\n".join(line.split(" ;")[0] for line in text.splitlines())
    gid, report = readers.import_text(log, stripped, force=True)  # the same game again
    assert [m["digest"] for m in log.game(gid)["moves"]] == digests


@pytest.mark.parametrize("edit, line, words", [
    (lambda t: re.sub(r'\[Seed "\d+"\]', '[Seed "seven"]', t), 3, "Seed"),
    (lambda t: re.sub(r'\[Seed "\d+"\]', "[Seed 7]", t), 3, "tag is written"),
    (lambda t: t.replace('[Players "2"]', '[Players "5"]'), 4, "Players"),
    (lambda t: t.replace('[Seats "SN"]', '[Seats "SS"]'), 5, "Seats"),
    (lambda t: t.replace('[Result "*"]', '[Colour "red"]'), 6, "unknown tag"),
    (lambda t: t.replace('[Result "*"]', '[Result "P0 rules"]'), 6, "Result"),
    (lambda t: t.replace("2. P0", "3. P0"), 9, "move 3 where move 2 was expected"),
    (lambda t: t.replace("2. P0", "2. P1"), 9, "marked P1 but P0 was to act"),
    (lambda t: t.replace("2. P0", "2.P0"), 9, "a move line"),
    (lambda t: t.replace("1. P0 ", "1. P0 __import__('os').system('x') #"), 8, "illegal"),
    (lambda t: t.rstrip("\n")[:-3] + "zzz\n", 9, "digest"),
    (lambda t: t + '[Seed "7"]\n', 10, "after the moves"),
])
def test_a_bad_text_file_names_its_line(log, edit, line, words):
    text, _, _ = sample_text()
    with pytest.raises(BadImport) as info:
        readers.import_text(log, edit(text))
    assert info.value.line == line and "line %d" % line in str(info.value)
    assert words in str(info.value)
    assert log.games() == []  # nothing half imported


def test_a_digest_that_differs_from_the_replay_is_refused_unless_forced(log):
    text, _, digests = sample_text()
    bad = text.replace(digests[1], "00000000deadbeef")
    with pytest.raises(BadImport, match="line 9: move 2 .*digest mismatch.*--force"):
        readers.import_text(log, bad)
    gid, report = readers.import_text(log, bad, force=True)
    assert report.problem == "mismatch" and report.number == 2
    assert log.verify(gid).number == 2  # the log keeps it, and verify still reports it


@pytest.mark.parametrize("edit, words", [
    (lambda r: r.update(players=9), "players"),
    (lambda r: r.update(seed=-1), "seed"),
    (lambda r: r.update(moves=["pass", 3]), "moves"),
    (lambda r: r.update(digests=r["digests"][:-1]), "digest"),
    (lambda r: r.update(colour="red"), "unknown field"),
    (lambda r: r["log"].update(status="won"), "status"),
    (lambda r: r["log"].update(source="my laptop"), "source"),
    (lambda r: r["log"].update(board_game_id=-1), "u32"),
    (lambda r: r["log"].update(logged_at=["yesterday"]), "logged_at"),
    (lambda r: r.update(result={"over": "yes"}), "result"),
])
def test_a_bad_json_file_is_refused_clearly(log, edit, words):
    gid, _, _, _ = log_game(log, 31, max_moves=5)
    record = json.loads(formats.export_json(log, gid))
    edit(record)
    with pytest.raises(BadImport, match=words):
        readers.import_json(log, json.dumps(record))
    assert len(log.games()) == 1


def test_json_import_parses_json_only(log):
    for text in ('{"game": "vora", "seed": NaN}', '{"a": 1, "a": 2}', "[1, 2]",
                 "__import__('os')", '{"game": "vora",\n "seed": }'):
        with pytest.raises(BadImport):
            readers.import_json(log, text)
    with pytest.raises(BadImport) as info:
        readers.import_json(log, '{"game": "vora",\n "seed": }')
    assert info.value.line == 2


# ---------------------------------------------------------------- the command line

def vora_games(db, *args):
    return main(["games", "--db", str(db), *args])


def test_games_list_piped_to_a_file_is_not_cut_at_80_columns(db, tmp_path):
    """Issue 22: `vora games list > file` (or | grep) cut the table at 80 columns."""
    with GameLog(db) as log:
        log_game(log, 41, board_game_id=7, source="board /dev/serial/by-id/usb-Vora_Board-if00")
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    done = subprocess.run([sys.executable, "-m", "vora_host", "games", "--db", str(db), "list"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    row = [line for line in done.stdout.splitlines() if "Vora" in line][0]
    assert row.rstrip().endswith("board /dev/serial/by-id/usb-Vora_Board-if00") and len(row) > 80
    assert "\u2026" not in done.stdout


def test_cli_list_show_replay_export_import(db, tmp_path, capsys):
    with GameLog(db) as log:
        gid, moves, digests, state = log_game(log, 41, board_game_id=7,
                                              source="board /dev/ttyACM0")
        other, _, _, _ = log_game(log, 42, max_moves=6)
    assert vora_games(db, "list") == 0
    out = capsys.readouterr().out
    assert "ID" in out and "Started" in out and "board /dev/ttyACM0" in out
    assert "Vora" in out and str(len(moves)) in out and "abandoned" in out
    assert vora_games(db, "list", "--status", "abandoned", "--limit", "5") == 0
    out = capsys.readouterr().out
    assert "ttyACM0" not in out and "abandoned" in out

    assert vora_games(db, "show", str(gid)) == 0
    out = capsys.readouterr().out
    assert "%5d. P0 %s" % (1, moves[0]) in out and "%d. " % len(moves) in out
    assert "Scores: " + ", ".join("P%d %+d" % (p, s) for p, s in enumerate(state.scores())) in out
    assert "Final position" in out and "Every digest matches" in out
    if state.winner() is not None:
        assert "P%d wins" % state.winner() in out

    assert vora_games(db, "replay", str(gid)) == 0
    out = capsys.readouterr().out
    assert out.count("matches the log") == len(moves) + 1  # each move, and the summary

    for fmt in ("json", "text"):
        path = tmp_path / ("game." + fmt)
        assert vora_games(db, "export", str(gid), "--format", fmt, "-o", str(path)) == 0
        # The same game again: refused, naming the game the log holds, unless --force.
        assert vora_games(db, "import", str(path)) == 1
        assert "already in the log as game %d" % gid in capsys.readouterr().err
        assert vora_games(db, "import", str(path), "--force") == 0
        captured = capsys.readouterr()
        assert "as game" in captured.out and "already held this game" in captured.err
    assert vora_games(db, "export", str(gid), "--format", "text") == 0
    assert capsys.readouterr().out == (tmp_path / "game.text").read_text()
    with GameLog(db) as log:
        copies = log.games(limit=2)
        assert all(log.verify(g["id"]).ok for g in copies)
        assert [g["move_count"] for g in copies] == [len(moves)] * 2


def test_cli_db_from_the_environment_and_after_the_action(db, monkeypatch, capsys):
    with GameLog(db) as log:
        log_game(log, 43, max_moves=3)
    monkeypatch.setenv("VORA_DB", str(db))
    assert main(["games", "list"]) == 0
    assert "1 game shown from %s" % db in capsys.readouterr().out
    monkeypatch.delenv("VORA_DB")
    assert main(["games", "list", "--db", str(db)]) == 0
    assert "1 game shown" in capsys.readouterr().out


def test_cli_no_such_game(db, capsys):
    with GameLog(db) as log:
        log_game(log, 44, max_moves=3)
    for action in (["show", "9"], ["replay", "9"], ["export", "9", "--format", "text"]):
        assert vora_games(db, *action) == 1
        err = capsys.readouterr().err
        assert "no game 9 in %s (the log has games 1 to 1)" % db in err
    with pytest.raises(SystemExit) as exit_info:
        vora_games(db, "show", "x")
    assert exit_info.value.code == 2
    assert "not a game id" in capsys.readouterr().err


def test_cli_missing_database_is_not_created_by_reading(tmp_path, capsys):
    db = tmp_path / "none" / "games.sqlite3"
    assert vora_games(db, "list") == 0
    assert "No games logged yet" in capsys.readouterr().out
    assert vora_games(db, "show", "1") == 1
    assert "no game log at" in capsys.readouterr().err
    assert not db.exists() and not db.parent.exists()


@pytest.mark.parametrize("content", [
    os.urandom(4096),
    b"this is not a database\n" * 100,
    b"SQLite format 3\x00" + bytes(range(256)) * 16,
])
def test_cli_corrupt_database_is_reported_and_left_untouched(tmp_path, capsys, content):
    db = tmp_path / "games.sqlite3"
    db.write_bytes(content)
    before = db.stat().st_mtime_ns
    for action in (["list"], ["show", "1"], ["replay", "1"], ["export", "1"]):
        assert vora_games(db, *action) == 1
        err = capsys.readouterr().err
        assert str(db) in err and "Traceback" not in err
        assert "not a Vora game log" in err or "cannot be used as a game log" in err
    json_file = tmp_path / "g.json"
    json_file.write_text('{"game": "vora", "players": 2, "seed": 1, "moves": []}')
    assert vora_games(db, "import", str(json_file)) == 1
    assert db.read_bytes() == content and db.stat().st_mtime_ns == before
    assert sidecars(db) == []


def test_cli_another_sqlite_database_is_not_taken_over(tmp_path, capsys):
    db = tmp_path / "other.sqlite3"
    with raw(db) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    content = db.read_bytes()
    assert vora_games(db, "list") == 1
    assert "an SQLite database but not a Vora game log" in capsys.readouterr().err
    assert db.read_bytes() == content


def test_cli_locked_database(sqlite_db, monkeypatch, capsys):
    with GameLog(sqlite_db) as log:
        log_game(log, 45, max_moves=3)
    monkeypatch.setattr(games_cli, "LOCK_TIMEOUT", 0.1)
    holder = raw(sqlite_db)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert vora_games(sqlite_db, "list") == 1
        err = capsys.readouterr().err
        assert "locked by another program" in err and str(sqlite_db) in err
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert vora_games(sqlite_db, "list") == 0


def test_api_write_while_locked_raises_locked(sqlite_db):
    with GameLog(sqlite_db) as log:
        gid = log.start_game(players=2, seed=1, source="terminal")
    holder = raw(sqlite_db)
    holder.execute("BEGIN IMMEDIATE")  # another writer
    try:
        with GameLog(sqlite_db, timeout=0.1) as log:
            assert log.games()  # readers still read in WAL mode
            with pytest.raises(DatabaseLocked):
                log.add_move(gid, 1, "pass", "0123456789abcdef")
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_cli_replay_stops_at_a_corrupted_digest(db, capsys):
    with GameLog(db) as log:
        gid, moves, digests, _ = log_game(log, 46, max_moves=20)
    corrupt_digest(db, gid, 13)
    assert vora_games(db, "replay", str(gid)) == 1
    captured = capsys.readouterr()
    assert "move 13 (P" in captured.err and "digest mismatch" in captured.err
    assert "00000000deadbeef" in captured.err and digests[12] in captured.err
    assert captured.out.count("matches the log") == 12
    assert vora_games(db, "show", str(gid)) == 1
    assert "move 13" in capsys.readouterr().err
    assert vora_games(db, "export", str(gid)) == 0  # exported as logged, with a warning
    assert "does not replay cleanly" in capsys.readouterr().err


def test_cli_replay_reports_an_illegal_move(db, capsys):
    moves, digests, _ = play(47, max_moves=6)
    moves[3] = "wolf Q9"
    with GameLog(db) as log:
        gid = log.start_game(players=2, seed=47, source="terminal")
        for k, (m, d) in enumerate(zip(moves, digests), 1):
            log.add_move(gid, k, m, d)
    assert vora_games(db, "replay", str(gid)) == 1
    assert "move 4" in capsys.readouterr().err


def test_cli_replay_step_waits_for_enter(db, monkeypatch, capsys):
    with GameLog(db) as log:
        gid, moves, _, _ = log_game(log, 48, max_moves=10)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n\n\nq\n"))
    assert vora_games(db, "replay", str(gid), "--step") == 0
    out = capsys.readouterr().out
    assert "Stopped before move 4" in out and out.count("matches the log") == 3
    # At the end of the input, the rest plays without waiting.
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    assert vora_games(db, "replay", str(gid), "--step", "--delay", "0") == 0
    assert "All 10 moves replayed" in capsys.readouterr().out


def test_cli_import_errors(db, tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text('[Game "vora"]\n[Seed "1"]\n[Players "2"]\n\n'
                    '1. P0 fly away ; 0123456789abcdef\n')
    assert vora_games(db, "import", str(path)) == 1
    err = capsys.readouterr().err
    assert "bad.txt: line 5: move 1" in err and "illegal" in err
    assert vora_games(db, "import", str(tmp_path / "none.txt")) == 1
    assert "no such file" in capsys.readouterr().err
    path.write_bytes(b'[Game "vora"]\n\xff\xfe\n')
    assert vora_games(db, "import", str(path)) == 1
    assert "line 2: not UTF-8" in capsys.readouterr().err


def test_games_without_an_action_prints_help(capsys):
    assert main(["games"]) == 2
    assert "list" in capsys.readouterr().out


# ---------------------------------------------------------------- crashes

WRITER = r"""
import hashlib, sys
from vora_host.log.store import GameLog

def move(n):
    return "m%d x%s" % (n, "x" * (n % 97))

def digest(n):
    return hashlib.sha256(str(n).encode()).hexdigest()[:16]

log = GameLog(sys.argv[1])
found = log.find_game(7, 7)
gid = found["id"] if found else log.start_game(players=2, seed=7, source="board crash",
                                              board_game_id=7)
n = found["move_count"] if found else 0
while True:
    n += 1
    log.add_move(gid, n, move(n), digest(n))
    print(n, flush=True)  # only once committed
"""


def expected_move(n):
    return "m%d x%s" % (n, "x" * (n % 97)), hashlib.sha256(str(n).encode()).hexdigest()[:16]


def test_a_writer_killed_at_any_instant_leaves_every_move_whole(sqlite_db):
    acknowledged = 0
    for round_ in range(5):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(sqlite_db)], stdout=subprocess.PIPE,
                                text=True, cwd=ROOT)
        try:
            target = acknowledged + 15
            while True:
                line = proc.stdout.readline()
                assert line, "the writer stopped by itself"
                acknowledged = int(line)
                if acknowledged >= target:
                    break
            time.sleep(0.003 * round_)  # land the kill at different points of a write
            proc.send_signal(signal.SIGKILL)
            rest = proc.stdout.read()
            acknowledged = max([acknowledged] + [int(x) for x in rest.split()])
        finally:
            proc.kill()
            proc.wait()
        assert proc.returncode == -signal.SIGKILL
        # The file opens, is intact, and holds every acknowledged move, each whole.
        with raw(sqlite_db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with GameLog(sqlite_db) as log:
            (info,) = log.games()
            moves = log.game(info["id"])["moves"]
        assert len(moves) >= acknowledged
        for k, m in enumerate(moves, 1):
            assert m["number"] == k
            assert (m["move"], m["digest"]) == expected_move(k)
    assert acknowledged >= 75


HALF = r"""
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA synchronous = FULL")
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO moves (game_id, number, move, digest, logged_at) "
             "VALUES (1, 2, 'half written', '0123456789abcdef', 'now')")
print("inserted", flush=True)
time.sleep(60)
"""


def test_a_transaction_killed_before_its_commit_leaves_nothing(sqlite_db):
    with GameLog(sqlite_db) as log:
        gid = log.start_game(players=2, seed=1, source="terminal")
        log.add_move(gid, 1, "pass", "0123456789abcdef")
    proc = subprocess.Popen([sys.executable, "-c", HALF, str(sqlite_db)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "inserted"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    with GameLog(sqlite_db, timeout=1) as log:
        assert [m["move"] for m in log.game(gid)["moves"]] == ["pass"]
        assert log.add_move(gid, 2, "pass", "fedcba9876543210")  # the lock died with it


# ---------------------------------------------------------------- the Vora issue's findings

TOP = 2 ** 32 - 1  # shared_rules.prng.SEED_MAX


@pytest.mark.parametrize("command", [["play", "--typed"], ["play"], ["sim", "--headless"]])
@pytest.mark.parametrize("seed", [str(TOP + 1), str(2 ** 63), "-1", "7x"])
def test_a_seed_outside_the_one_range_is_refused_at_the_command_line(command, seed, capsys):
    # 2**63 was accepted by `vora play --seed`, then crashed the mirror (SQLite overflow).
    with pytest.raises(SystemExit) as info:
        main(command + ["--seed", seed])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--seed" in err and "0 to %d" % TOP in err


def test_the_largest_seed_goes_through_record_import_and_both_exports(tmp_path, db, capsys):
    # `vora games import` refused the seed that `--record` wrote.
    path = tmp_path / "r.json"
    assert main(["play", "--bots-only", "--quiet", "--seed", str(TOP), "--no-log",
                 "--record", str(path)]) == 0
    assert json.loads(path.read_text())["seed"] == TOP
    assert vora_games(db, "import", str(path)) == 0
    with GameLog(db) as log, GameLog(tmp_path / "other.sqlite3") as other:
        (info,) = log.games()
        assert info["seed"] == TOP and log.verify(info["id"]).ok
        gid, report = readers.import_text(other, formats.export_text(log, info["id"]))
        assert report.ok and other.game(gid)["seed"] == TOP
    with GameLog(db) as log, pytest.raises(ValueError, match="seed"):
        log.start_game(players=2, seed=TOP + 1, source="terminal")


def test_a_typed_game_goes_into_the_log_and_quitting_says_where(tmp_path, db, capsys):
    done = subprocess.run([sys.executable, "-m", "vora_host", "play", "--typed", "--seed",
                           "5", "--db", str(db)], input="1\n1\nq\ny\n", capture_output=True,
                          text=True, timeout=120, cwd=ROOT,
                          env=dict(os.environ, COLUMNS="200"))
    assert done.returncode == 0, done.stderr
    assert "Logged as game 1 in %s ('vora games show 1')." % db in done.stdout
    with GameLog(db) as log:
        info = log.game(1)
        assert info["source"] == "terminal" and info["status"] == "interrupted"  # resumed by the next play
        assert info["move_count"] >= 2 and info["result"]["end"] == "quit"
        assert log.verify(1).ok
    # A bots-only demo is logged too, as over; --no-log keeps a game out.
    assert main(["play", "--bots-only", "--quiet", "--seed", "6", "--db", str(db)]) == 0
    assert "Logged as game 2" in capsys.readouterr().out
    assert main(["play", "--bots-only", "--quiet", "--seed", "6", "--db", str(db),
                 "--no-log"]) == 0
    assert "Logged" not in capsys.readouterr().out
    with GameLog(db) as log:
        assert [g["status"] for g in log.games()] == ["over", "interrupted"]


def test_vora_replay_reads_the_text_export_that_import_accepts(log, tmp_path, capsys):
    gid, moves, digests, state = log_game(log, 51)
    path = tmp_path / "game.txt"
    path.write_text(formats.export_text(log, gid))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "All %d moves replayed; every digest matches." % len(moves) in out
    assert load_record(str(path))["moves"] == moves


def test_importing_a_game_twice_is_refused_naming_the_game(log, tmp_path):
    gid, moves, _, _ = log_game(log, 52, max_moves=8)
    text = formats.export_json(log, gid)
    with pytest.raises(BadImport) as info:
        readers.import_json(log, text)
    assert info.value.duplicate_of == [gid] and "already in the log as game %d" % gid \
        in str(info.value) and "--force" in str(info.value)
    copy, _ = readers.import_json(log, text, force=True)
    with pytest.raises(BadImport, match="as game %d, %d" % (gid, copy)):
        readers.import_text(log, formats.export_text(log, gid))
    # A record without times (vora play --record) is the same game by its moves alone.
    record = json.loads(text)
    del record["log"]
    with pytest.raises(BadImport, match="already in the log"):
        readers.import_json(log, json.dumps(record))
    assert len(log.games()) == 2


_LOGGER = """
import sys, time
from shared_rules import games
from vora_host.log.store import GameLog
state = games.start({"game": "vora", "players": 2, "seed": 5, "options": {}, "moves": []})
move = state.legal_moves()[0]
state.play(move)
with GameLog(sys.argv[1]) as log:
    gid = log.start_game(players=2, seed=5, source="terminal")
    log.add_move(gid, 1, move, state.digest())
print(gid, flush=True)
sys.stdin.read()  # logs nothing more; lives until its input ends (or it is killed)
"""


def test_a_game_left_playing_by_a_killed_program_is_interrupted_by_the_next_session(db):
    """Issue 22: a game whose program was killed stayed "playing" for ever. Each start and
    move leases the game to its process; the next session's close_stale() marks the
    games of processes that are gone "interrupted", and those it abandons "abandoned"."""
    logger = subprocess.Popen([sys.executable, "-c", _LOGGER, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        killed = int(logger.stdout.readline())
        with GameLog(db) as log:
            mine, _, _, _ = log_game(log, 7, max_moves=3, end=False)  # this process: alive
            assert log.close_stale() == []  # the other program still runs
            assert log.game(killed)["status"] == "playing"
        logger.kill()
        logger.wait(timeout=30)
        with GameLog(db) as log:
            assert log.close_stale() == [(killed, "interrupted")]
            assert log.game(killed)["status"] == "interrupted"
            assert log.game(mine)["status"] == "playing"
            assert log.close_stale() == []  # once
            assert log.close_stale(abandon=[mine, killed]) == [(mine, "abandoned"),
                                                                (killed, "abandoned")]
            over, _, _, _ = log_game(log, 9)  # ended: never abandoned
            status = log.game(over)["status"]
            assert log.close_stale(abandon=[over]) == [] and log.game(over)["status"] == status
    finally:
        if logger.poll() is None:
            logger.kill()
        logger.stdout.close()
        logger.stdin.close()


def _killed_logger(db):
    """The id of a game a program logged and then was killed in (left "playing")."""
    logger = subprocess.Popen([sys.executable, "-c", _LOGGER, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        gid = int(logger.stdout.readline())
    finally:
        logger.kill()
        logger.wait(timeout=30)
        logger.stdout.close()
        logger.stdin.close()
    return gid


def test_sessions_interrupt_the_games_of_killed_programs_when_they_open_the_log(db):
    """vora play on a board (and the mirror) and the typed game close stale games first."""
    from rich.console import Console
    from vora_host.log.session import _open_log
    from vora_host.log.live import LiveLog
    first, second = _killed_logger(db), _killed_logger(db)
    log = _open_log(Console(file=io.StringIO()), str(db))
    try:
        assert log.game(first)["status"] == "interrupted"
    finally:
        log.close()
    with GameLog(db) as log:  # interrupted by that session already
        assert log.game(second)["status"] == "interrupted"
    third = _killed_logger(db)
    live = LiveLog(db, "vora", 2, 1, {})
    live.finish()
    with GameLog(db) as log:
        assert log.game(third)["status"] == "interrupted"


def test_fresh_abandons_the_boards_saved_game_in_the_log(db, tmp_path):
    """vora play --fresh throws away the virtual board's saved game: the log says so."""
    from vora_fw.store import Store
    from vora_fw.vora_ui import VoraUI
    from vora_host.cli.play import _abandon_saved_game
    from vora_host.virtual import sim
    folder = tmp_path / "save"
    ui = VoraUI(store=Store(str(folder)), id_fn=lambda: 77)
    ui.new_game("SN", 5)
    ui.play(ui.legal[0], 0)
    with GameLog(db) as log:
        gid = log.start_game(players=2, seed=5, source="virtual board", board_game_id=77)
        other = log.start_game(players=2, seed=5, source="virtual board", board_game_id=78)
    script = tmp_path / "quit.txt"
    script.write_text("quit\n")
    dropped = []
    assert sim.run(save_dir=folder, fresh=True, headless=True, script=script,
                   stdout=io.StringIO(), stderr=io.StringIO(), on_fresh=dropped.append) == 0
    assert len(dropped) == 1 and Store(str(folder)).load() is None
    with GameLog(db) as log:
        _abandon_saved_game(log, dropped[0])
        assert log.game(gid)["status"] == "abandoned"
        assert log.game(other)["status"] == "playing"


def test_a_game_of_one_move_says_1_move(db, capsys):
    """Issue 22: "(1 moves)"."""
    with GameLog(db) as log:
        gid, _, _, _ = log_game(log, 53, max_moves=1, end=False)
    assert vora_games(db, "end", str(gid)) == 0
    assert "Game %d is now abandoned (1 move)." % gid in capsys.readouterr().out


def test_games_end_closes_a_stale_game_and_delete_removes_games(db, capsys, monkeypatch):
    with GameLog(db) as log:
        stale, moves, _, state = log_game(log, 53, max_moves=9, end=False)
        over, _, _, final = log_game(log, 54, end=False)  # every move logged, never ended
        kept, _, _, _ = log_game(log, 55, max_moves=3)
    assert vora_games(db, "list") == 0
    assert vora_games(db, "end", str(stale)) == 0
    assert "Game %d is now abandoned (9 moves)" % stale in capsys.readouterr().out
    assert vora_games(db, "end", str(over)) == 0
    assert vora_games(db, "end", str(stale)) == 0
    assert "already abandoned" in capsys.readouterr().out
    with GameLog(db) as log:
        assert log.game(stale)["result"] == result_of(state, "ended by hand")
        assert log.game(over)["status"] == ("over" if final.is_over() else "abandoned")
        assert log.verify(stale).ok and log.verify(over).ok
    # delete: asks unless --yes, and refuses without a terminal to ask at.
    assert vora_games(db, "delete", str(stale)) == 1
    assert "add --yes" in capsys.readouterr().err
    assert vora_games(db, "delete", str(stale), str(over), "--yes") == 0
    assert "Deleted games %d, %d" % (stale, over) in capsys.readouterr().out
    assert vora_games(db, "delete", "99", "--yes") == 1
    assert "no game 99" in capsys.readouterr().err
    with GameLog(db) as log:
        assert [g["id"] for g in log.games()] == [kept]
        with raw(db) as conn:
            assert conn.execute("SELECT count(*) FROM moves WHERE game_id IN (?, ?)",
                                (stale, over)).fetchone()[0] == 0


def test_list_points_at_games_left_playing(db, capsys):
    with GameLog(db) as log:
        old = log.start_game(players=2, seed=1, source="virtual board",
                             started_at="2020-01-01T00:00:00+00:00")
        log.start_game(players=2, seed=2, source="virtual board")  # playing now
    assert vora_games(db, "list") == 0
    out = capsys.readouterr().out
    assert "Still 'playing' after more than" in out and ": %d. If nobody" % old in out
    assert "vora games end ID" in out


def test_a_game_from_a_position_keeps_it_in_both_formats(log, tmp_path):
    position = "PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 CP/D G30"
    state = vora.new_game(2, 5, position=position)
    gid = log.start_game(players=2, seed=5, source="terminal", options={"position": position})
    move = state.legal_moves()[0]
    state.play(move)
    log.add_move(gid, 1, move, state.digest())
    text = formats.export_text(log, gid)
    assert '[Position "%s"]' % log.game(gid)["options"]["position"] in text
    other_gid = None
    with GameLog(tmp_path / "other.sqlite3") as other:
        other_gid, report = readers.import_text(other, text)
        assert report.ok and other.game(other_gid)["options"] == log.game(gid)["options"]
    # A dealt game has no position: no tag, and its JSON's null reads back.
    dealt, _, _, _ = log_game(log, 56, max_moves=3)
    assert "[Position" not in formats.export_text(log, dealt)
    assert json.loads(formats.export_json(log, dealt))["options"]["position"] is None
    with GameLog(tmp_path / "third.sqlite3") as third:
        assert readers.import_json(third, formats.export_json(log, dealt))[1].ok


def test_find_game_takes_a_64_bit_seed(log):
    # Boars and Tossing Tiger seeds take 64 bits (schema 4 keeps the top bit apart):
    # a reconnect's lookup must find such a game, not overflow or miss it.
    seed = (1 << 64) - 1
    gid = log.start_game(game="boars", players=2, seed=seed, source="virtual board",
                         board_game_id=gamelog.U32_MAX)
    found = log.find_game(gamelog.U32_MAX, seed)
    assert found is not None and found["id"] == gid and found["seed"] == seed
    assert log.find_game(gamelog.U32_MAX, seed >> 1) is None


def test_a_game_id_past_64_bits_is_no_such_game(log):
    # Ids come from outside (a web address, a script): one past what the database's
    # integers hold is an unknown game, not an OverflowError from the driver.
    log.start_game(players=2, seed=1, source="terminal")
    huge = 1 << 70
    for call in (lambda: log.game(huge), lambda: log.record(huge), lambda: log.verify(huge),
                 lambda: log.add_move(huge, 1, "pass", "0123456789abcdef"),
                 lambda: log.take_back(huge, 1), lambda: log.end_game(huge, "abandoned"),
                 lambda: log.mark_attention(huge, "x"), lambda: log.delete_game(huge),
                 lambda: log.close_stale([huge])):
        with pytest.raises(NoSuchGame):
            call()
    assert log.played_elsewhere(huge) is None
    assert len(log.games()) == 1


def test_cli_verify_checks_every_game_or_the_given_ones(db, capsys):
    with GameLog(db) as log:
        first, moves, _, _ = log_game(log, 47, max_moves=12)
        second, _, _, _ = log_game(log, 48, max_moves=8)
    assert vora_games(db, "verify") == 0
    out = capsys.readouterr().out
    assert "game %d (Vora): all 12 moves replay" % first in out and "2 of 2 games" in out
    corrupt_digest(db, second, 5)
    assert vora_games(db, "verify", str(first)) == 0
    capsys.readouterr()
    assert vora_games(db, "verify") == 1
    captured = capsys.readouterr()
    assert "game %d (Vora): move 5" % second in captured.err
    assert "digest mismatch" in captured.err and "1 of 2 games verified" in captured.out
    assert vora_games(db, "verify", "99") == 1
    assert "no game 99 in %s" % db in capsys.readouterr().err


def test_cli_verify_keeps_a_hidden_games_secrets(db, capsys):
    # A Tossing Tiger game still playing, with a digest gone wrong: the message names the move
    # as a spectator saw it, never the secret move or the digests.
    seed = 12345
    state = games.start({"game": "tossing-tiger", "players": 2, "seed": seed})
    bots = [make_bot("random", p) for p in range(2)]
    with GameLog(db) as log:
        gid = log.start_game(game="tossing-tiger", players=2, seed=seed, source="terminal")
        for n in range(1, 7):
            move = bots[state.to_act()](state)
            state.play(move)
            log.add_move(gid, n, move, state.digest() if n != 4 else "00000000deadbeef")
        info = log.game(gid)
    record, _ = gamelog.record_of(info)
    _, public_texts = formats.public_history(record, info["history"])
    secret = info["moves"][3]["move"]
    assert secret != public_texts[3]  # a secret move (seed chosen so)
    assert vora_games(db, "verify", str(gid)) == 1
    err = capsys.readouterr().err
    assert "move 4" in err and public_texts[3] in err and "another digest than the log" in err
    assert secret not in err and "deadbeef" not in err and state.digest() not in err


def test_a_tables_long_words_for_why_a_game_stopped_are_logged_short_and_safe(tmp_path):
    # A table's reason ("this copy parted from the table: after move 2 ...") is free text:
    # result_of keeps it within what the log takes (a short line, no quotes).
    from vora_host.log.checks import END_MAX
    from vora_host.log.records import result_of
    state = vora.new_game(2, 3)
    words = 'P0 said "enough" and left\n' + "x" * 100
    result = result_of(state, words)
    assert len(result["end"]) == END_MAX and result["end"].endswith("...")
    assert result["end"].startswith("P0 said 'enough' and left") and '"' not in result["end"]
    with GameLog(tmp_path / "g.sqlite3") as log:
        gid = log.start_game(players=2, seed=3, source="terminal")
        log.end_game(gid, "abandoned", result)
        assert log.game(gid)["result"]["end"] == result["end"]

"""Undo (the Vora issue): the last move can be taken back when every human agrees, and the
log records the takeback rather than rewriting history.

GameLog.take_back(game_id, number) marks the last live move taken back; the live moves
(record, verify, replay, the export's moves) leave it out, the history (show, both export
formats) keeps it visibly, and the next move takes its number again. Schema 1 files are
migrated. `undo` in the terminal game takes back the last human turn."""

import io
import json
import sqlite3

import pytest
from rich.console import Console

from shared_rules import games, vora
from vora_host.bots import RandomBot
from vora_host.cli import main
from vora_host.log import formats, readers
from vora_host.log import store as gamelog
from vora_host.log.records import load_record, result_of
from vora_host.log.store import (BadImport, GameClosed, GameLog, GameLogError, NotLastMove)
from vora_host.play.terminal import Human, TerminalGame

from test_gamelog_robust import make_schema_1
from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(params=["sqlite", "postgresql"])
def log(request, tmp_path):
    """The log on either backend (tests/pgserver.py for PostgreSQL)."""
    where = request.getfixturevalue("pg_url") if request.param == "postgresql" \
        else tmp_path / "g.sqlite3"
    with GameLog(where) as the_log:
        yield the_log


def branch(seed, count, pick=0):
    """`count` moves from the start, each the `pick`-th legal move: [(move, digest)]."""
    state = vora.new_game(2, seed)
    out = []
    for _ in range(count):
        legal = state.legal_moves()
        state.play(legal[pick % len(legal)])
        out.append((legal[pick % len(legal)], state.digest()))
    return out


def test_take_back_the_last_live_move_then_play_another(log):
    a = branch(1, 3)
    gid = log.start_game(players=2, seed=1, source="terminal")
    for k, (m, d) in enumerate(a, 1):
        log.add_move(gid, k, m, d)
    assert log.take_back(gid, 3) is None
    info = log.game(gid)
    assert [m["move"] for m in info["moves"]] == [a[0][0], a[1][0]]
    assert info["move_count"] == 2 and info["taken_back"] == 1
    assert [h["taken_back_at"] is not None for h in info["history"]] == [False, False, True]
    # Move 3 is free again: a different third move is a new move, not a conflict.
    state = vora.new_game(2, 1)
    state.play(a[0][0])
    state.play(a[1][0])
    other = [m for m in state.legal_moves() if m != a[2][0]][0]
    state.play(other)
    assert log.add_move(gid, 3, other, state.digest()) is True
    assert log.add_move(gid, 3, other, state.digest()) is False  # a repeat
    record, digests = log.record(gid)
    assert record["moves"] == [a[0][0], a[1][0], other]
    assert games.replay(record, digests) == state and log.verify(gid).ok
    assert [h["move"] for h in log.game(gid)["history"]] == [a[0][0], a[1][0], a[2][0], other]


def test_only_the_last_live_move_can_be_taken_back(log):
    a = branch(2, 3)
    gid = log.start_game(players=2, seed=2, source="terminal")
    with pytest.raises(NotLastMove, match="no live move to take back"):
        log.take_back(gid, 1)
    for k, (m, d) in enumerate(a, 1):
        log.add_move(gid, k, m, d)
    for number in (2, 4, 0, "3"):
        with pytest.raises(NotLastMove) as info:
            log.take_back(gid, number)
        assert "only the last live move, 3, can be taken back" in str(info.value)
        assert isinstance(info.value, GameLogError) and info.value.last == 3
    log.take_back(gid, 3)
    with pytest.raises(NotLastMove, match="last live move, 2"):
        log.take_back(gid, 3)  # a repeat is not taken back twice
    log.take_back(gid, 2)
    log.take_back(gid, 1)
    assert log.game(gid)["moves"] == [] and log.game(gid)["taken_back"] == 3
    with pytest.raises(gamelog.NoSuchGame):
        log.take_back(gid + 1, 1)
    log.end_game(gid, "abandoned")
    with pytest.raises(GameClosed):
        log.take_back(gid, 1)


def test_taking_back_the_move_that_ended_the_game_reopens_it(log):
    state = vora.new_game(2, 3)
    bot = RandomBot(3)
    moves = []
    while not state.is_over():
        move = bot.choose(state)
        state.play(move)
        moves.append((move, state.digest()))
    gid = log.start_game(players=2, seed=3, source="terminal")
    for k, (m, d) in enumerate(moves, 1):
        log.add_move(gid, k, m, d)
    log.end_game(gid, "over", result_of(state))
    log.take_back(gid, len(moves))
    info = log.game(gid)
    assert info["status"] == "playing" and info["result"] is None and info["ended_at"] is None
    assert log.verify(gid).ok


def test_a_schema_1_log_is_migrated_and_its_moves_can_be_taken_back(tmp_path):
    db = tmp_path / "old.sqlite3"
    a = branch(1, 2)
    make_schema_1(db, moves=a)
    with GameLog(db) as log:
        assert log.schema_version == gamelog.SCHEMA_VERSION
        assert [m["move"] for m in log.game(1)["moves"]] == [m for m, _ in a]
        log.take_back(1, 2)
        assert log.game(1)["taken_back"] == 1
        log.add_move(1, 2, *a[1])  # the same move played again after its takeback
        assert [h["number"] for h in log.game(1)["history"]] == [1, 2, 2]
    with sqlite3.connect(str(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        columns = {r[1] for r in conn.execute("PRAGMA table_info(moves)")}
        assert "taken_back_at" in columns
        # Only live moves are unique by number now.
        indexes = {r[1]: r[2] for r in conn.execute("PRAGMA index_list(moves)")}
        assert indexes.get("moves_live") == 1


def game_with_takebacks(log, seed=4):
    """A game whose history has a takeback in the middle and one at the end."""
    a = branch(seed, 4)
    gid = log.start_game(players=2, seed=seed, source="board usb", board_game_id=9)
    for k, (m, d) in enumerate(a[:3], 1):
        log.add_move(gid, k, m, d)
    log.take_back(gid, 3)
    log.take_back(gid, 2)
    state = vora.new_game(2, seed)
    state.play(a[0][0])
    alt = [m for m in state.legal_moves() if m != a[1][0]][-1]
    state.play(alt)
    log.add_move(gid, 2, alt, state.digest())
    nxt = state.legal_moves()[0]
    state.play(nxt)
    log.add_move(gid, 3, nxt, state.digest())
    log.take_back(gid, 3)
    return gid


def test_both_formats_carry_takebacks_and_round_trip(log, tmp_path):
    gid = game_with_takebacks(log)
    original = log.game(gid)
    assert [(h["number"], h["taken_back_at"] is not None) for h in original["history"]] == \
        [(1, False), (2, True), (3, True), (2, False), (3, True)]
    data = json.loads(formats.export_json(log, gid))
    assert len(data["moves"]) == 2 and [t["at"] for t in data["log"]["takebacks"]] == [1, 2, 4]
    text = formats.export_text(log, gid)
    assert '[Format "2"]' in text
    lines = [line for line in text.splitlines() if line[:1].isdigit()]
    # The history in order: moves with their player, takebacks where they happened.
    assert [line.split(" ")[0] + (" takeback" if "takeback" in line else "")
            for line in lines] == ["1.", "2.", "3.", "3. takeback", "2. takeback", "2.", "3.",
                                   "3. takeback"]
    assert all(" P0 " in line or " P1 " in line for line in lines if "takeback" not in line)
    other = GameLog(tmp_path / "other.sqlite3")
    via_json, report = readers.import_json(other, formats.export_json(log, gid))
    assert report.ok
    copy = other.game(via_json)
    for key in ("moves", "history", "status", "options", "started_at"):
        assert copy[key] == original[key], key
    via_text, report = readers.import_text(other, text, force=True)
    assert report.ok
    copy = other.game(via_text)
    assert [(h["number"], h["move"], h["digest"], h["taken_back_at"] is not None)
            for h in copy["history"]] == [(h["number"], h["move"], h["digest"],
                                           h["taken_back_at"] is not None)
                                          for h in original["history"]]
    assert formats.export_text(other, via_text).split("\n", 1)[1] == text.split("\n", 1)[1]
    other.close()


def test_vora_replay_and_show_read_a_game_with_takebacks(log, tmp_path, capsys):
    gid = game_with_takebacks(log)
    path = tmp_path / "game.txt"
    path.write_text(formats.export_text(log, gid))
    record = load_record(str(path))
    assert record["moves"] == [m["move"] for m in log.game(gid)["moves"]]
    assert main(["replay", str(path)]) == 0
    assert "All 2 moves replayed; every digest matches" in capsys.readouterr().out
    assert main(["games", "--db", str(log.path), "show", str(gid)]) == 0
    out = capsys.readouterr().out
    assert "Moves (2, 3 taken back)" in out and out.count("(taken back)") == 3
    assert out.count("taken back") >= 6 and "Every digest matches" in out


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace("3. takeback", "4. takeback", 1), "takeback of move 4, but the last"),
    (lambda t: t.replace("2. takeback\n", "", 1), "move 2 where move 3 was expected"),
    (lambda t: t.replace('[Format "2"]', '[Format "1"]'), 'says [Format "2"]'),
])
def test_a_bad_takeback_line_names_its_line(log, edit, words):
    text = formats.export_text(log, game_with_takebacks(log))
    with pytest.raises(BadImport) as info:
        readers.import_text(log, edit(text), force=True)
    assert words in str(info.value)
    assert info.value.line is not None


@pytest.mark.parametrize("edit, words", [
    (lambda t: t[1].update(at=t[0]["at"]), "distinct place"),
    (lambda t: t[0].update(at=99), "distinct place"),
    (lambda t: t[0].update(number=3), "numbered one after the other"),
    (lambda t: t[2].update(number=2), "played again but the move"),
    (lambda t: t[0].update(digest="xyz"), "digest"),
    (lambda t: t[0].pop("move"), "must be an object with"),
    (lambda t: t[0].update(taken_back_at="soon"), "taken_back_at"),
])
def test_bad_json_takebacks_are_refused(log, edit, words):
    data = json.loads(formats.export_json(log, game_with_takebacks(log)))
    edit(data["log"]["takebacks"])
    with pytest.raises(BadImport, match=words):
        readers.import_json(log, json.dumps(data), force=True)


# ---------------------------------------------------------------- undo at the terminal

class Journal:
    """A stand-in for LiveLog that writes straight into a GameLog."""

    def __init__(self, log, gid):
        self.log, self.gid = log, gid

    def moved(self, number, move, digest):
        self.log.add_move(self.gid, number, move, digest)

    def took_back(self, number):
        self.log.take_back(self.gid, number)


def scripted(lines, con):
    def read(prompt):
        con.print(prompt)
        if not lines:
            raise EOFError
        return lines.pop(0)
    return read


def two_move_turn_seed():
    """A seed where P0's first turn is two moves when P0 plays the first legal move twice."""
    for seed in range(200):
        s = vora.new_game(2, seed)
        s.play(s.legal_moves()[0])
        if s.to_act() == 0 and s.legal_moves() != ["pass"]:
            return seed
    raise AssertionError("no such seed")


def test_undo_with_one_human_takes_back_their_turn_and_the_bots_moves(log):
    seed = two_move_turn_seed()
    state = vora.new_game(2, seed)
    start = state.clone()
    gid = log.start_game(players=2, seed=seed, source="terminal")
    con = Console(file=io.StringIO(), width=120, color_system=None)
    record = {"moves": [], "digests": []}
    # P0 plays its first turn (two moves), the bot its turn, then P0 asks to undo.
    lines = ["1", "1", "undo", "q", "y"]
    game = TerminalGame(state, [Human(), RandomBot(5)], con, record=record,
                        read=scripted(lines, con), echo=False, log=Journal(log, gid))
    game.run()
    out = con.file.getvalue()
    assert "Taken back" in out and "P0 South's turn 1" in out
    assert game.state == start and game.history == [] and record["moves"] == []
    info = log.game(gid)
    assert info["moves"] == [] and info["taken_back"] >= 3
    assert all(h["taken_back_at"] is not None for h in info["history"])


def test_undo_with_two_humans_needs_the_other_to_agree(log):
    seed = two_move_turn_seed()
    state = vora.new_game(2, seed)
    gid = log.start_game(players=2, seed=seed, source="terminal")
    con = Console(file=io.StringIO(), width=120, color_system=None)
    # P0 plays a whole turn; P1 asks for undo; P0 refuses; P1 asks again, P0 agrees.
    lines = ["1"]
    probe = vora.new_game(2, seed)
    probe.play(probe.legal_moves()[0])
    while probe.to_act() == 0:
        probe.play(probe.legal_moves()[0])
        lines.append("1")
    turn = len(lines)
    lines += ["undo", "n", "undo", "y", "q", "y"]
    game = TerminalGame(state, [Human(), Human()], con, read=scripted(lines, con),
                        echo=False, log=Journal(log, gid))
    game.run()
    out = con.file.getvalue()
    assert "P0 South, take back P0 South's turn 1" in out
    assert "P0 South does not agree: nothing is taken back" in out
    assert out.count("Taken back") == 1
    assert game.state == vora.new_game(2, seed) and log.game(gid)["moves"] == []
    assert log.game(gid)["taken_back"] == turn


def test_undo_before_any_human_move_says_so():
    state = vora.new_game(2, 1)
    con = Console(file=io.StringIO(), width=120, color_system=None)
    game = TerminalGame(state, [Human(), RandomBot(1)], con,
                        read=scripted(["undo", "q", "y"], con), echo=False)
    game.run()
    assert "Nothing to take back" in con.file.getvalue()


def test_a_typed_game_with_an_undo_is_logged_with_its_takeback(tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    seed = two_move_turn_seed()
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\nundo\n1\nq\ny\n"))
    assert main(["play", "--typed", "--seed", str(seed), "--db", str(db), "--delay", "0"]) == 0
    out = capsys.readouterr().out
    assert "Taken back" in out and "Logged as game 1" in out
    with GameLog(db) as log:
        info = log.game(1)
        assert info["taken_back"] >= 1 and info["status"] == "interrupted"
        assert log.verify(1).ok

"""Games the PC runs are saved in the game log after every move and resumed from it
(issue #22): `vora play GAME` resumes the newest unfinished one and says which, `--fresh`
abandons it, `--resume ID` continues any unfinished game the PC ran; `undo` takes back a
human's turn in every game when the other humans agree, and the log records it."""

import io

import pytest

from shared_rules import games as rules_games
from vora_host.cli import main
from vora_host.log.store import GameLog

GAMES = ["vorcept", "gaia-vora", "tossing-tiger", "boars"]
HIDDEN = {"tossing-tiger", "boars"}


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def typed(monkeypatch, capsys, db, game, lines, *options):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    try:
        status = main(["play", game, "--typed", "--db", str(db), "--delay", "0"]
                      + list(options))
    except SystemExit as exc:  # a usage error
        status = exc.code
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def first_move_inputs(game):
    # A human plays the first legal move (its number; with seed 8 no game ends on it);
    # a hand-over waits for Enter first
    # in a game with secrets (an empty line is nothing at a prompt).
    return ["", "1", "q", "y"]


@pytest.mark.parametrize("game", GAMES + ["vora"])
def test_quit_then_the_next_play_resumes_with_the_right_message(game, tmp_path, monkeypatch,
                                                                 capsys):
    db = tmp_path / "g.sqlite3"
    status, out = typed(monkeypatch, capsys, db, game, first_move_inputs(game),
                        "--seed", "8", "--bot", "random")
    assert status == 0, out
    assert "Logged as game 1" in out and "resumes it" in out
    with GameLog(db) as log:
        info = log.game(1)
    assert info["status"] == "interrupted" and info["move_count"] >= 1
    moves = info["move_count"]

    status, out = typed(monkeypatch, capsys, db, game, ["", "q", "y"], "--bot", "random")
    assert status == 0, out
    title = rules_games.load(game).TITLE
    assert "Resumed your game of %s from " % title in out
    assert "(%d move%s; game 1 in the log)" % (moves, "" if moves == 1 else "s") in out
    assert "Resumed the saved game" not in out
    if game in HIDDEN:
        assert "seed" not in out.split("Resumed")[1].split("\n")[0]
    with GameLog(db) as log:
        assert [g["id"] for g in log.games()] == [1]  # the same game, no new one
        assert log.game(1)["move_count"] == moves and log.verify(1).ok


@pytest.mark.parametrize("game", GAMES)
def test_fresh_abandons_the_saved_game_and_resume_id_continues_or_refuses(
        game, tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    typed(monkeypatch, capsys, db, game, first_move_inputs(game), "--seed", "8",
          "--bot", "random")
    status, out = typed(monkeypatch, capsys, db, game, ["", "1", "q", "y"], "--fresh",
                        "--seed", "8", "--bot", "random")
    assert status == 0, out
    assert "is abandoned" in out and "Logged as game 2" in out
    with GameLog(db) as log:
        assert log.game(1)["status"] == "abandoned"
        assert log.game(2)["status"] == "interrupted"

    status, out = typed(monkeypatch, capsys, db, game, ["q", "y"], "--resume", "1")
    assert status == 2 and "game 1 is abandoned: it cannot be continued" in out
    status, out = typed(monkeypatch, capsys, db, game, ["q", "y"], "--resume", "99")
    assert status == 2 and "there is no game 99" in out
    status, out = typed(monkeypatch, capsys, db, game, ["", "q", "y"], "--resume", "2",
                        "--bot", "random")
    assert status == 0, out
    assert "game 2 in the log" in out


def test_resume_id_of_another_game_is_refused(tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    typed(monkeypatch, capsys, db, "vorcept", ["1", "q", "y"], "--seed", "2", "--bot", "random")
    status, out = typed(monkeypatch, capsys, db, "boars", ["q", "y"], "--resume", "1")
    assert status == 2 and "game 1 is vorcept, not boars" in out


def test_options_that_set_up_a_game_do_not_pass_over_a_saved_one(tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    typed(monkeypatch, capsys, db, "vorcept", ["1", "q", "y"], "--seed", "2", "--bot", "random")
    status, out = typed(monkeypatch, capsys, db, "vorcept", ["q", "y"], "--seed", "9")
    assert status == 2
    assert "unfinished game (game 1, Vorcept" in out and "--fresh" in out


def test_a_finished_game_is_not_resumed(tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    status, out = typed(monkeypatch, capsys, db, "vorcept", [], "--bots-only", "--seed", "4",
                        "--bot", "random")
    assert status == 0 and "Game over" in out
    status, out = typed(monkeypatch, capsys, db, "vorcept", ["q", "y"], "--bot", "random")
    assert "Resumed" not in out and "Logged as game 2" in out
    status, out = typed(monkeypatch, capsys, db, "vorcept", ["q", "y"], "--resume", "1")
    assert status == 2 and "game 1 is over" in out


def test_a_game_left_playing_by_a_kill_is_resumed(tmp_path, monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    from shared_rules import vorcept
    # Two moves logged and no end, as a killed `vora play` leaves its game.
    state = vorcept.new_game(2, 6)
    with GameLog(db) as log:
        gid = log.start_game(game="vorcept", players=2, seed=6, source="terminal")
        for n in (1, 2):
            move = state.legal_moves()[0]
            state.play(move)
            log.add_move(gid, n, move, state.digest())
        assert log.game(gid)["status"] == "playing"
    status, out = typed(monkeypatch, capsys, db, "vorcept", ["q", "y"], "--bot", "random")
    assert "Resumed your game of Vorcept" in out and "(2 moves; game 1 in the log)" in out
    with GameLog(db) as log:
        assert log.game(gid)["status"] == "interrupted"


HOLDER = """
import sys
from vora_host.log.store import GameLog
log = GameLog(sys.argv[1])
log.hold(int(sys.argv[2]))
print("held", flush=True)
sys.stdin.read()  # until the test closes it, or kills this process
"""


def hold_in_another_process(db, gid):
    """A live program that holds game `gid` (as a vora playing it in another terminal)."""
    import subprocess
    import sys
    other = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), str(gid)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert other.stdout.readline().strip() == "held"  # waits for it, however slow
    return other


def test_a_game_being_played_by_another_live_vora_is_not_resumed(tmp_path, monkeypatch,
                                                                  capsys):
    # A game another live program holds is someone's game in another terminal: neither
    # `vora play GAME` nor --resume takes it over; both say who plays it and how to take
    # it over.
    from shared_rules import vorcept
    db = tmp_path / "g.sqlite3"
    state = vorcept.new_game(2, 6)
    with GameLog(db) as log:
        gid = log.start_game(game="vorcept", players=2, seed=6, source="terminal")
        move = state.legal_moves()[0]
        state.play(move)
        log.add_move(gid, 1, move, state.digest())
    other = hold_in_another_process(db, gid)
    try:
        status, out = typed(monkeypatch, capsys, db, "vorcept", ["q", "y"], "--bot", "random")
        assert "Resumed your game" not in out and "Logged as game 2" in out
        assert "is being played by another vora (process %d on this computer" % other.pid in out
        assert "vora play --resume %d --take-over" % gid in out
        status, out = typed(monkeypatch, capsys, db, "vorcept", [], "--resume", str(gid))
        assert status != 0
        assert "game %d is being played by another vora (process %d" % (gid, other.pid) in out
        assert "--take-over" in out
        with GameLog(db) as log:
            assert log.game(gid)["status"] == "playing"
    finally:
        other.kill()
        other.wait()
    # Its process gone, the game can be continued again.
    status, out = typed(monkeypatch, capsys, db, "vorcept", ["q", "y"], "--resume", str(gid))
    assert "Resumed your game of Vorcept" in out and "game %d in the log" % gid in out


@pytest.mark.parametrize("game", GAMES)
def test_undo_needs_the_other_humans_agreement_and_is_logged(game, tmp_path, monkeypatch,
                                                             capsys):
    db = tmp_path / "g.sqlite3"
    # P0 plays; whoever is asked next (P0 again, or P1 after the hand-over) asks for an
    # undo; the other human refuses, then agrees. (An empty line is Enter at a hand-over
    # of a game with secrets, and nothing at a prompt.)
    lines = ["", "1", "", "undo", "n", "", "undo", "y", "", "q", "y"]
    status, out = typed(monkeypatch, capsys, db, game, lines, "--seed", "7", "--human", "all")
    assert status == 0, out
    assert "does not agree: nothing is taken back" in out
    assert out.count("Taken back") == 1
    with GameLog(db) as log:
        info = log.game(1)
    assert info["taken_back"] >= 1 and info["move_count"] == 0
    assert all(h["taken_back_at"] is not None for h in info["history"])


def test_a_resume_seats_the_players_as_last_seated_unless_told_otherwise(tmp_path, monkeypatch,
                                                                      capsys):
    db = tmp_path / "g.sqlite3"
    typed(monkeypatch, capsys, db, "gaia-vora", ["1", "q", "y"], "--seed", "5",
          "--human", "all")
    status, out = typed(monkeypatch, capsys, db, "gaia-vora", ["q", "y"])
    assert "Resumed" in out and "P0 yellow (human); P1 green (human)" in out
    status, out = typed(monkeypatch, capsys, db, "gaia-vora", ["q", "y"], "--bot", "1=random")
    assert "Resumed" in out and "P1 green (random)" in out
    status, out = typed(monkeypatch, capsys, db, "gaia-vora", ["q", "y"])
    assert "Resumed" in out and "P0 yellow (you); P1 green (random)" in out  # as last seated


def test_the_saved_game_is_the_newest_unfinished_one_the_pc_ran_of_that_game(tmp_path):
    from shared_rules import vorcept
    from vora_host.log.records import result_of
    from vora_host.play import saved
    with GameLog(tmp_path / "g.sqlite3") as log:
        older = log.start_game(game="vorcept", players=2, seed=1, source="terminal")
        log.end_game(older, "interrupted", result_of(vorcept.new_game(2, 1), "quit"))
        newer = log.start_game(game="vorcept", players=2, seed=2, source="virtual board")
        boars = log.start_game(game="boars", players=2, seed=3, source="terminal")
        done = log.start_game(game="vorcept", players=2, seed=4, source="terminal")
        log.end_game(done, "abandoned")
        log.start_game(game="vora", players=2, seed=5, source="board /dev/ttyACM0",
                       board_game_id=77)  # the board's own: never resumed from here
        assert saved.saved_game(log, "vorcept")["id"] == newer
        assert saved.saved_game(log, "boars")["id"] == boars
        assert saved.saved_game(log, "gaia-vora") is None
        assert saved.saved_game(log, "vora") is None
        with pytest.raises(saved.ResumeError, match="played on a board"):
            saved.resumable(log, 5)


@pytest.mark.parametrize("game", ["vorcept", "boars"])
def test_undo_after_a_resume_takes_back_moves_of_the_earlier_session(game, tmp_path,
                                                                     monkeypatch, capsys):
    db = tmp_path / "g.sqlite3"
    typed(monkeypatch, capsys, db, game, first_move_inputs(game), "--seed", "8",
          "--bot", "random")
    with GameLog(db) as log:
        moves = log.game(1)["move_count"]
    status, out = typed(monkeypatch, capsys, db, game, ["", "undo", "q", "y"])
    assert status == 0, out
    assert "Taken back" in out and "P0" in out.split("Taken back")[1]
    with GameLog(db) as log:
        info = log.game(1)
        assert info["move_count"] == 0 and info["taken_back"] == moves
        assert log.verify(1).ok

"""Vora on the (virtual) board with a bot of the PC, quit, `vora play` again (issue 38.2):
the board resumes its saved game and the PC's bot sits where it sat, saying so; `--bot`
given then seats those instead and says what changed. The seats are noted beside the game
log (play/saved.py's seat notes) under the log's id of the board's game."""

import json
import sys
import time
from pathlib import Path

import pytest

from vora_host.play.board_play import PERSON, parse_bot_seats

from pty_screen import PtyScreen

ROOT = Path(__file__).resolve().parents[1]
VORA = str(Path(sys.executable).with_name("vora"))
DEADLINE = 60


def _flat(term):
    return " ".join(term.text().split())


def _wait(term, needle, timeout=DEADLINE):
    end = time.monotonic() + timeout
    while needle not in _flat(term):
        if time.monotonic() > end:
            raise AssertionError("%r never appeared:\n%s" % (needle, term.text()))
        if not term.read_some(0.1) and needle not in _flat(term):
            raise AssertionError("the program ended without %r:\n%s" % (needle, term.text()))
    return _flat(term)


def _play(tmp_path, *extra):
    return PtyScreen([VORA, "play", "--port", "sim", "--save-dir", str(tmp_path / "save"),
                      "--db", str(tmp_path / "games.sqlite3"), *extra], cols=80, rows=24,
                     cwd=str(ROOT), env={"VORA_SIM_DEVICE": str(tmp_path / "tty")})


def _left_with_a_bot_at_north(tmp_path):
    with _play(tmp_path, "--seed", "3", "--fresh", "--bot", "N=hard") as term:
        _wait(term, "PC mirror")
        term.send("c3\r", 0)  # deal: South and North (the seats the board starts with)
        _wait(term, "North -1 hard (PC)")
        term.send("q", 0)
        assert term.wait_exit(DEADLINE) == 0


def _notes(tmp_path):
    return json.loads((tmp_path / "games.sqlite3.seats.json").read_text())


def test_a_resumed_board_game_keeps_the_pcs_bot_and_says_so(tmp_path):
    _left_with_a_bot_at_north(tmp_path)
    assert _notes(tmp_path) == {"1": ["human", "hard"]}
    with _play(tmp_path) as term:
        _wait(term, "North hard on the PC again, as when this game was left")
        _wait(term, "North -1 hard (PC)")
        # South moves; North's bot answers (it used to wait for a person).
        term.send("push pig Sa\r", 0)
        _wait(term, "South to act (turn 3)")
        term.send("q", 0)
        assert term.wait_exit(DEADLINE) == 0


def test_bot_given_on_a_resume_seats_that_and_says_what_changed(tmp_path):
    _left_with_a_bot_at_north(tmp_path)
    with _play(tmp_path, "--bot", "N=person") as term:
        text = _wait(term, "Since this game was left: North hard on the PC -> a person")
        assert "hard (PC)" not in text and "N bot" not in text
        term.send("q", 0)
        assert term.wait_exit(DEADLINE) == 0
    assert _notes(tmp_path) == {"1": ["human", "human"]}


def test_person_is_a_seat_given_back_on_a_board_only():
    assert parse_bot_seats(["N=person", "W=easy"]) == {"N": PERSON, "W": "easy"}
    with pytest.raises(ValueError):
        parse_bot_seats(["1=person"], "boars", seats="", players=2)


def test_a_quit_between_two_polls_still_notes_the_games_seats(tmp_path):
    # The play beside the board notes a game's seats at its next poll (every 50 ms): a
    # `q` in between (on a loaded machine: after the screen showed the PC's bot at North)
    # left no note, and the resume gave North to a person.
    import asyncio
    from collections import deque
    from types import SimpleNamespace

    from shared_rules import vora
    from vora_host.link.mirror import _play_loop
    from vora_host.play import saved
    from vora_host.play.board_play import BoardPlay
    notes = tmp_path / "games.sqlite3"
    client = SimpleNamespace(refused=deque(), connected=False, state=None, log_id=None)
    play = BoardPlay(client, bots={"N": "hard"}, notes=notes)

    async def quit_just_after_the_deal():
        loop = asyncio.create_task(_play_loop(play))
        await asyncio.sleep(0)  # it polled: no game yet
        client.state, client.log_id = vora.new_game(2, seed=3), 7  # the deal, logged
        loop.cancel()  # q, before the next poll
        with pytest.raises(asyncio.CancelledError):
            await loop

    asyncio.run(quit_just_after_the_deal())
    assert saved.seats_noted(notes, 7, 2) == ["human", "hard"]

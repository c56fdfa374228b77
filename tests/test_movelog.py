"""vora_fw.movelog.MoveLog reads like the list of moves it replaced (the link, the save and
the takeback use it so); tests/test_micropython_unix.py shows why it exists."""

import json

import pytest

from vora_fw.movelog import MoveLog

MOVES = ["push pig Na", "take c3", "pass", "steal 1 wolf", "extra a1", "mole b2 c2"]


def test_a_move_log_reads_like_a_list():
    log = MoveLog(MOVES[:2])
    for m in MOVES[2:]:
        log.append(m)
    assert len(log) == len(MOVES) and log == MOVES and not (log != MOVES)
    assert list(log) == MOVES and [log[i] for i in range(-6, 6)] == MOVES + MOVES
    for a in (None, -3, 0, 2, 6, 9):
        for b in (None, -1, 0, 3, 6, 10):
            assert log[a:b] == MOVES[a:b], (a, b)
    assert json.dumps(log[1:3]) == json.dumps(MOVES[1:3])
    assert log != MOVES[:-1] and log != MOVES[:-1] + ["pass"]
    with pytest.raises(IndexError):
        log[6]
    with pytest.raises(IndexError):
        log[-7]


def test_a_takeback_cuts_the_end():
    log = MoveLog(MOVES)
    del log[4:]
    assert log == MOVES[:4]
    log.append("pass")
    assert log == MOVES[:4] + ["pass"]
    del log[0:]
    assert len(log) == 0 and log == [] and log[:] == []
    with pytest.raises(TypeError):
        del log[1]


def test_non_ascii_text_keeps_its_characters():
    log = MoveLog(["a\u00e9b", "c"])
    assert log[0] == "a\u00e9b" and log[1] == "c"

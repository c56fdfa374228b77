"""`vora games list` at a terminal of 80 columns or fewer keeps its ID column whole (issue
38.6): `show`, `replay`, `export` and `end` take that ID; the other columns give way."""

import re
import sys
from pathlib import Path

import pytest

from shared_rules import games
from vora_host.log.records import result_of
from vora_host.log.store import GameLog

from pty_screen import PtyScreen

ROOT = Path(__file__).resolve().parents[1]


def _log_games(db):
    """Twelve games of every kind of length: long titles, long sources, results, statuses."""
    ids = []
    with GameLog(db) as log:
        for n in range(12):
            name = ("tossing-tiger", "boars", "gaia-vora", "vorcept")[n % 4]
            state = games.load(name).new_game(2, n)
            gid = log.start_game(game=name, players=2, seed=n,
                                 source="board /dev/serial/by-id/usb-Vora_Board_E6614C311B-if00"
                                 if n % 2 else "terminal")
            for k in range(1, 4):
                move = state.legal_moves()[0]
                state.play(move)
                log.add_move(gid, k, move, state.digest())
            if n % 3 == 0:
                log.end_game(gid, "interrupted", result_of(state, "quit"))
            elif n % 3 == 1:
                log.end_game(gid, "abandoned", result_of(state, "abandoned"))
            ids.append(gid)
    return ids


@pytest.mark.parametrize("cols", [80, 60, 40])
def test_the_id_column_is_always_shown_whole(tmp_path, cols):
    db = tmp_path / "games.sqlite3"
    ids = _log_games(db)
    vora = str(Path(sys.executable).with_name("vora"))
    with PtyScreen([vora, "games", "--db", str(db), "list"], cols=cols, rows=24,
                   cwd=str(ROOT)) as term:
        term.wait_for("games shown from")
        assert term.wait_exit() == 0
        lines = term.lines()
    assert lines[0].split()[0] == "ID", lines
    rows = [line for line in lines[1:1 + len(ids)]]
    # Newest first, each row opening with its game's whole ID, right under the header's.
    assert [int(re.match(r"\s*(\d+)\s", row).group(1)) for row in rows] == sorted(ids)[::-1]
    assert all(len(line) <= cols for line in lines)
    text = "\n".join(lines)
    assert "Status" in text and "interrupted" in text and "abandoned" in text
    if cols >= 80:
        assert "Started" in text and "Result" in text  # only the Source and Players go

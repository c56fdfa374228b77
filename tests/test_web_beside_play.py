"""The web mirror beside live play (issue 43): other processes writing the log while
`vora serve` follows it.

- A connection kept open (the watcher's) keeps seeing the log, whatever else this
  process opens and closes on the same file: closing any descriptor of a file drops every
  POSIX lock the process holds on it, and the watcher's reads then went stale, then
  "database disk image is malformed" of a sound log.
- The soak of the issue, bounded: `vora serve`, live streams open, three processes
  playing games into the same log in a loop, requests all the while, until each process
  has logged a whole game (the writers of the two quick games several) and the pages
  have had a few hundred answers (25 s at the most): no wrong answer (tests/web_soak.py;
  five minutes of it in bench/bench_web_soak.py).

The bounds of the live streams: tests/test_web_streams.py.
"""

import subprocess
import sys

import pytest

from vora_host.log.store import GameLog

from web_soak import soak

SOAK_SECONDS = 25  # at the most: the soak ends once it has seen ENOUGH
GAMES_EACH = 1  # whole games each writing process logs beside the server, at least
ANSWERS = 300  # answers the pages and the streams' readers get meanwhile, at least


def enough(result):
    return (len(result.games_by) == 3 and min(result.games_by.values()) >= GAMES_EACH
            and result.answers >= ANSWERS and result.events > 0)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite3"


# ---------------------------------------------------------------- one process, two connections

WRITER = """
import sys
from vora_host.log.store import GameLog
with GameLog(sys.argv[1]) as log:
    gid = log.start_game(game="vora", players=2, seed=int(sys.argv[2]), source="terminal")
    for n in range(1, 6):
        log.add_move(gid, n, "m%d" % n, "0123456789abcdef")
"""


def test_a_connection_kept_open_sees_every_game_while_the_process_opens_the_log_again(db):
    """As `vora serve` does: the watcher's connection stays open, each request opens and
    closes its own, and other programs write games and close the log (the last to close
    checkpoints the -wal, and deletes it when it thinks no one else has the file)."""
    GameLog(db).close()
    watcher = GameLog(db, create=False)  # the watcher's connection
    try:
        assert watcher.games() == []
        for k in range(1, 6):
            GameLog(db, create=False).close()  # a request
            subprocess.run([sys.executable, "-c", WRITER, str(db), str(k)], check=True,
                           timeout=120)
            seen = watcher.games()  # stale (then "malformed") before the fix
            assert [g["seed"] for g in seen] == list(range(k, 0, -1)), \
                "after %d games the kept connection sees %s" % (k, [g["id"] for g in seen])
    finally:
        watcher.close()


# ---------------------------------------------------------------- the soak

def test_the_mirror_answers_right_while_other_processes_play_into_its_log(tmp_path):
    result = soak(tmp_path, SOAK_SECONDS, enough=enough)
    print(result.summary())
    assert not result.writer_failures, result.writer_failures[:3]
    assert enough(result), result.summary()
    assert result.wrong == [], "%s; for example %s" % (result.summary(), result.wrong[:5])
    assert result.integrity == "ok"

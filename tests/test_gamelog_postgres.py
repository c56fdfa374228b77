"""The game log in PostgreSQL: what SQLite does not have to face. Many hosts writing one
database at once, a server that goes away mid-game and comes back, a URL that names a
password, a server that is not there. (The log's behaviour on both backends is tested
by tests/test_gamelog.py, whose `db` fixture takes both.)"""

import multiprocessing
import threading

import pytest

from shared_rules import games
from vora_host.cli import main
from vora_host.bots import make_bot
from vora_host.log import postgres, schema
from vora_host.log import store as gamelog
from vora_host.log.postgres import PgConnection
from vora_host.log.records import result_of
from vora_host.log.store import (CannotWrite, DatabaseError, DatabaseLocked, GameHeld, GameLog,
                               MoveConflict, NoLog, NotWritten)
from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)

try:
    import psycopg
except ImportError:  # the tests that need it take pg_url, which then skips saying why
    psycopg = None


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    # rich wraps at the terminal width (80 when captured): keep each message on one line.
    monkeypatch.setenv("COLUMNS", "200")


def bot_game(seed, max_moves=None):
    """(moves, digests, final state) of a random bots' Vora game."""
    state = games.start({"game": "vora", "players": 2, "seed": seed, "options": {}})
    bots = [make_bot("random", seed * 10 + p) for p in range(2)]
    moves, digests = [], []
    while not state.is_over() and (max_moves is None or len(moves) < max_moves):
        move = bots[state.to_act()](state)
        state.play(move)
        moves.append(move)
        digests.append(state.digest())
    return moves, digests, state


# ---------------------------------------------------------------- naming the database

def test_a_url_is_kept_as_text_and_its_password_never_shown(monkeypatch):
    url = "postgresql://vora:s3cret@db.example:5432/games?sslmode=require"
    assert gamelog.resolve_db_path(url) == url
    assert gamelog.resolve_db_path(None, env={"VORA_DB": url}) == url
    assert gamelog.db_label(url) == "postgresql://vora:***@db.example:5432/games?sslmode=require"
    assert "hush" not in gamelog.db_label("postgres://h/db?user=u&password=hush")
    assert gamelog.db_label("postgresql:///vora?host=/run/pg") == "postgresql:///vora?host=/run/pg"


def test_an_unreachable_server_is_a_clear_error_without_the_password(tmp_path, capsys):
    # Nothing listens on a socket in an empty folder.
    url = "postgresql://vora:s3cret@/vora?host=%s" % tmp_path
    with pytest.raises(CannotWrite) as info:
        GameLog(url, timeout=1)
    assert info.value.reason == postgres.UNREACHABLE
    assert "s3cret" not in str(info.value) and "vora:***@" in str(info.value)
    for action in (["list"], ["show", "1"], ["replay", "1"], ["export", "1"]):
        assert main(["games", "--db", url] + action) == 1
        err = capsys.readouterr().err
        assert "cannot be reached" in err and "s3cret" not in err and "Traceback" not in err


def test_without_psycopg_the_message_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(postgres, "_psycopg", lambda: None)
    url = "postgresql://vora:s3cret@localhost/vora"
    with pytest.raises(DatabaseError, match=r"needs psycopg 3.*pip install") as info:
        GameLog(url)
    assert "s3cret" not in str(info.value)
    assert main(["games", "--db", url, "list"]) == 1
    assert "psycopg" in capsys.readouterr().err


# ---------------------------------------------------------------- a database of its own

def test_a_sqlite_log_never_loads_psycopg_and_its_errors_are_still_caught_after(tmp_path):
    # psycopg's binary library takes some 0.1 s to load at every start of `vora` (half its
    # start-up): only a PostgreSQL log loads it, and its errors are still translated once it
    # is loaded on the way (a fresh interpreter: this one has psycopg loaded already).
    script = "\n".join([
        "import sys",
        "from vora_host.cli import main",
        "from vora_host.log.store import CannotWrite, GameLog",
        "assert main(['games', '--db', sys.argv[1], 'list']) == 0",
        "with GameLog(sys.argv[1]) as log:",
        "    log.start_game(players=2, seed=1, source='terminal')",
        "assert 'psycopg' not in sys.modules, 'a SQLite log loaded psycopg'",
        "try:",
        "    GameLog('postgresql://vora:s3cret@/vora?host=' + sys.argv[2], timeout=1)",
        "except CannotWrite as exc:",
        "    assert 's3cret' not in str(exc) and 'psycopg' in sys.modules, exc",
        "    print('translated:', exc)",
    ])
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "games.sqlite"),
                           str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "translated:" in done.stdout and "cannot be reached" in done.stdout


def test_reading_an_empty_database_creates_nothing(pg_url, capsys):
    assert main(["games", "--db", pg_url, "list"]) == 0
    assert "No games logged yet" in capsys.readouterr().out
    assert main(["games", "--db", pg_url, "show", "1"]) == 1
    assert "no game log in" in capsys.readouterr().err
    with pytest.raises(NoLog):
        GameLog(pg_url, create=False)
    with PgConnection(pg_url) as conn:
        assert not conn.has_table("games") and not conn.has_table(postgres.SCHEMA_TABLE)


def test_tables_of_another_application_are_not_taken_over(pg_url, capsys):
    with PgConnection(pg_url) as conn:
        conn.execute("CREATE TABLE games (name TEXT)")
        conn.execute("INSERT INTO games VALUES ('chess')")
    assert main(["games", "--db", pg_url, "list"]) == 1
    assert "not a Vora game log" in capsys.readouterr().err
    with PgConnection(pg_url) as conn:
        assert conn.execute("SELECT name FROM games").fetchall() == [("chess",)]
        assert not conn.has_table("moves")


def test_the_schema_is_the_sqlite_one_at_the_same_version(pg_url):
    with GameLog(pg_url) as log:
        assert log.backend == "postgresql" and log.schema_version == gamelog.SCHEMA_VERSION
        # The largest seed (64 bits, split in two columns) and a u32 board id go through.
        seed = (1 << 64) - 1
        gid = log.start_game(game="boars", players=2, seed=seed, source="virtual board",
                             board_game_id=gamelog.U32_MAX)
        assert log.game(gid)["seed"] == seed and log.find_game(gamelog.U32_MAX, seed)
    with PgConnection(pg_url) as conn:
        columns = {r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'games' "
            "AND table_schema = current_schema()")}
    assert columns == {"id", "board_game_id", "game", "players", "seed", "options", "source",
                       "started_at", "ended_at", "result", "status", "imported_at", "attention",
                       "seed_high"}


def test_a_game_row_locked_by_another_writer_is_a_lock_and_the_move_is_kept(pg_url):
    with GameLog(pg_url) as log:
        gid = log.start_game(players=2, seed=1, source="terminal")
    holder = PgConnection(pg_url)
    holder.execute("BEGIN")
    holder.execute("SELECT id FROM games WHERE id = ? FOR UPDATE", (gid,))
    try:
        with GameLog(pg_url, timeout=1) as log:
            assert log.games()  # readers still read
            with pytest.raises(DatabaseLocked):
                log.add_move(gid, 1, "pass", "0123456789abcdef")
            holder.execute("ROLLBACK")
            assert log.flush() == 1
            assert [m["move"] for m in log.game(gid)["moves"]] == ["pass"]
    finally:
        holder.close()


# ---------------------------------------------------------------- many hosts at once

def _host(args):
    """One host (a process of its own): opens the log as the host does, plays `count`
    bot games into it, a move at a time; returns [(game id, moves)]."""
    url, first_seed, count = args
    played = []
    with GameLog(url) as log:
        log.close_stale()
        for seed in range(first_seed, first_seed + count):
            moves, digests, state = bot_game(seed, max_moves=40)
            gid = log.start_game(players=2, seed=seed, source="board host-%d" % first_seed,
                                 board_game_id=seed)
            for k, (m, d) in enumerate(zip(moves, digests), 1):
                assert log.add_move(gid, k, m, d) is True
            log.end_game(gid, "over" if state.is_over() else "abandoned",
                         result_of(state, None if state.is_over() else "quit"))
            played.append((gid, moves))
    return played


def test_many_hosts_log_into_one_database_at_once(pg_url):
    # Six processes open a log nobody has made yet (one migrates, under the lock) and
    # write their games at the same time: every game has its own id, every move is
    # there once, numbered 1..n, and every game verifies.
    hosts = [(pg_url, 100 * h, 3) for h in range(1, 7)]
    with multiprocessing.get_context("fork").Pool(len(hosts)) as pool:
        results = pool.map(_host, hosts)
    played = [game for host in results for game in host]
    ids = [gid for gid, _ in played]
    assert len(set(ids)) == len(ids) == 18
    with GameLog(pg_url, create=False) as log:
        assert sorted(g["id"] for g in log.games()) == sorted(ids)
        for gid, moves in played:
            info = log.game(gid)
            assert [m["move"] for m in info["moves"]] == moves
            assert [m["number"] for m in info["history"]] == list(range(1, len(moves) + 1))
            assert log.verify(gid).ok


def test_two_writers_of_one_game_never_number_a_move_twice(pg_url):
    # Two connections race to log the same moves of one game (two hosts on one game):
    # one game has one writer. The game row's lock makes them take turns at the first
    # write; one becomes the writer and logs every move once, the other is refused at
    # once (GameHeld) and writes nothing; a different move under a taken number is refused.
    moves, digests, _ = bot_game(5, max_moves=30)
    with GameLog(pg_url) as log:
        gid = log.start_game(players=2, seed=5, source="terminal")
    logged = [[], []]
    refused = [None, None]
    barrier = threading.Barrier(2)

    def writer(k):
        with GameLog(pg_url) as log:
            barrier.wait()
            try:
                for n, (m, d) in enumerate(zip(moves, digests), 1):
                    logged[k].append(log.add_move(gid, n, m, d))
            except GameHeld as exc:
                refused[k] = exc
            except Exception as exc:  # said below: a thread's traceback goes unseen
                unexpected[k] = exc

    unexpected = [None, None]
    threads = [threading.Thread(target=writer, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # (Once in a whole quiet run neither was refused: the writers' other errors are named.)
    assert unexpected == [None, None], unexpected
    winner = 0 if refused[1] is not None else 1
    assert refused[winner] is None and refused[1 - winner] is not None
    assert logged[winner] == [True] * len(moves) and logged[1 - winner] == []
    assert "one writer at a time" in str(refused[1 - winner])
    with GameLog(pg_url) as log:
        info = log.game(gid)
        assert [m["move"] for m in info["history"]] == moves
        with pytest.raises(MoveConflict):
            log.add_move(gid, 1, moves[0], "0123456789abcdef")


# ---------------------------------------------------------------- the server goes away

def test_a_server_gone_mid_game_loses_nothing_and_gets_every_move_when_back(pg_server):
    url = pg_server.new_database()
    moves, digests, state = bot_game(9)
    told = []
    log = GameLog(url, timeout=1)
    log.on_trouble = told.append
    gid = log.start_game(players=2, seed=9, source="board /dev/ttyACM0", board_game_id=9)
    half = len(moves) // 2
    for n in range(1, half + 1):
        assert log.add_move(gid, n, moves[n - 1], digests[n - 1]) is True
    pg_server.stop()
    try:
        for n in range(half + 1, len(moves) + 1):
            with pytest.raises(NotWritten) as info:
                log.add_move(gid, n, moves[n - 1], digests[n - 1])
            assert info.value.reason == postgres.UNREACHABLE
        # A repeat of a kept move (a board that reconnects) is kept and written once.
        with pytest.raises(NotWritten):
            log.add_move(gid, len(moves), moves[-1], digests[-1])
        assert log.end_game(gid, "over", result_of(state)) is True
        # Another game starts while the server is away: a provisional id.
        other = log.start_game(players=2, seed=10, source="terminal")
        assert other < 0
        assert log.pending == len(moves) - half + 3
        assert log.trouble == postgres.UNREACHABLE and "cannot be reached" in told[0]
        # Reading needs the server: a clear error, nothing lost.
        with pytest.raises(CannotWrite, match="cannot be reached"):
            log.game(gid)
    finally:
        pg_server.restart()
    assert log.flush() == len(moves) - half + 3 and log.pending == 0
    assert "written again" in told[-1]
    assert log.real_id(other) > gid
    log.close()
    with GameLog(url, create=False) as fresh:
        info = fresh.game(gid)
        assert [m["move"] for m in info["history"]] == moves  # all, once, in order
        assert info["status"] == "over" and fresh.verify(gid).ok
        assert len(fresh.games()) == 2


def test_the_next_move_after_a_restart_writes_what_waited(pg_server):
    # The host does not have to call flush(): the next move, once the server is back,
    # writes what waits first (the old connection, dropped by the restart, is replaced).
    url = pg_server.new_database()
    moves, digests, _ = bot_game(11, max_moves=6)
    with GameLog(url, timeout=1) as log:
        gid = log.start_game(players=2, seed=11, source="virtual board")
        log.add_move(gid, 1, moves[0], digests[0])
        pg_server.stop()
        try:
            with pytest.raises(NotWritten):
                log.add_move(gid, 2, moves[1], digests[1])
        finally:
            pg_server.restart()
        assert log.add_move(gid, 3, moves[2], digests[2]) is True
        assert log.pending == 0
    with GameLog(url) as log:
        assert [m["move"] for m in log.game(gid)["moves"]] == moves[:3]


@pytest.mark.parametrize("reachable_after", [True, False])
def test_a_start_committed_but_not_acknowledged_is_not_logged_twice(pg_url, monkeypatch,
                                                                     reachable_after):
    # The connection drops after the server committed a game's start but before its
    # answer came. The log looks for the game: found at once when the server still
    # answers; else the start is kept, and looked for again when it is written, instead
    # of making a second game.
    with GameLog(pg_url) as log:
        real = log._conn.execute
        lost = []

        def commit_then_lose(statement, params=()):
            result = real(statement, params)
            if statement == "COMMIT" and not lost:
                lost.append(True)
                log._conn.close()
                if not reachable_after:
                    monkeypatch.setattr(PgConnection, "_connect", unreachable)
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return result

        def unreachable(self):
            raise psycopg.OperationalError("connection refused")

        monkeypatch.setattr(log._conn, "execute", commit_then_lose)
        gid = log.start_game(players=2, seed=21, source="board /dev/ttyACM0",
                             board_game_id=21)
        monkeypatch.undo()
        if reachable_after:
            assert gid > 0 and log.pending == 0
        else:
            assert gid < 0 and log.pending == 1
            assert log.flush() == 1
        assert [g["id"] for g in log.games()] == [log.real_id(gid)]
        # A second game with the very same start (time, seed, board), its answer lost
        # too, is a second game: the first is one this GameLog knows it made.
        at = log.game(log.real_id(gid))["started_at"]
        lost.clear()
        monkeypatch.setattr(log._conn, "execute", commit_then_lose)
        again = log.start_game(players=2, seed=21, source="board /dev/ttyACM0",
                               board_game_id=21, started_at=at)
        monkeypatch.undo()
        log.flush()
        assert len(log.games()) == 2 and log.real_id(again) != log.real_id(gid)


@pytest.mark.parametrize("url", [
    "postgresql://vora:s3cret@[bad/x",                  # cannot be parsed
    "postgresql://vora:s3cret@localhost/db?nosuch=1",    # an option libpq does not know
    "postgresql://vora:s3cret@localhost:notaport/db",
])
def test_a_malformed_url_is_a_clear_error_that_hides_the_password(url, capsys):
    with pytest.raises(DatabaseError) as info:
        GameLog(url, timeout=1)
    assert "s3cret" not in str(info.value)
    assert main(["games", "--db", url, "list"]) == 1
    err = capsys.readouterr().err
    assert "s3cret" not in err and "Traceback" not in err and "game log" in err


def test_the_mirror_follows_a_board_through_a_server_restart(pg_server):
    # The board side of `vora play`: the link's BoardClient logs a board's game into
    # PostgreSQL; the server stops after move 10 and is back after move 40. The mirror
    # keeps up, says why the log is failing, and the log ends up with every move once.
    from link_harness import Rig, random_moves
    url = pg_server.new_database()
    log = GameLog(url, timeout=1)
    rig = Rig(log=log, game_seed=3)
    rig.run(300)
    rig.deal()
    rig.run(100)
    choose = random_moves(3)
    ui = rig.app.ui
    during = None
    try:
        for played in range(1000):
            if ui.state.is_over():
                break
            if played == 10:
                pg_server.stop()
            elif played == 40:
                during = rig.client.log_note()
                pg_server.restart()
            rig.play(choose(ui.state))
            rig.run(20)
    finally:
        if played < 40:
            pg_server.restart()
    rig.run(500)
    assert played > 40 and ui.state.is_over() and rig.client.moves == ui.moves
    # Not a problem of the game: a note while it lasts, gone once written (issue 38.13).
    assert not rig.client.problems and rig.client.log_note() is None
    assert "the database server cannot be reached" in during and "11 to 40" in during
    assert log.pending == 0
    log.close()
    with GameLog(url, create=False) as fresh:
        (info,) = fresh.games()
        full = fresh.game(info["id"])
        assert [m["move"] for m in full["history"]] == ui.moves and info["status"] == "over"
        assert fresh.verify(info["id"]).ok


# ---------------------------------------------------------------- migrations

def test_a_failed_migration_leaves_the_database_at_its_version(pg_url, monkeypatch):
    GameLog(pg_url).close()
    now = gamelog.SCHEMA_VERSION

    def broken(conn):
        conn.execute("ALTER TABLE games ADD COLUMN note TEXT")
        raise RuntimeError("boom")

    monkeypatch.setattr(schema, "SCHEMA_VERSION", now + 1)
    monkeypatch.setitem(gamelog.MIGRATIONS, now + 1, broken)
    with pytest.raises(RuntimeError):
        GameLog(pg_url)
    with PgConnection(pg_url) as conn:
        assert conn.schema_version() == now
        assert conn.execute("SELECT count(*) FROM information_schema.columns WHERE "
                            "table_name = 'games' AND column_name = 'note' AND "
                            "table_schema = current_schema()").fetchone()[0] == 0


def test_hosts_opening_at_once_run_a_new_migration_once(pg_url, monkeypatch):
    GameLog(pg_url).close()
    now = gamelog.SCHEMA_VERSION

    def step(conn):
        conn.execute("CREATE TABLE migrated (at TEXT)")  # fails if run twice
        conn.execute("INSERT INTO migrated VALUES ('once')")

    monkeypatch.setattr(schema, "SCHEMA_VERSION", now + 1)
    monkeypatch.setitem(gamelog.MIGRATIONS, now + 1, step)
    barrier = threading.Barrier(6)
    errors, versions = [], []

    def open_log():
        barrier.wait()
        try:
            with GameLog(pg_url) as log:
                versions.append(log.schema_version)
        except Exception as exc:  # collected: an error in a thread would pass unseen
            errors.append(exc)

    threads = [threading.Thread(target=open_log) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and versions == [now + 1] * 6
    with PgConnection(pg_url) as conn:
        assert conn.execute("SELECT at FROM migrated").fetchall() == [("once",)]


def test_a_vanished_server_is_noticed_in_seconds_and_the_urls_settings_win(pg_server):
    # Keepalives and a TCP send timeout unless the URL sets its own; the URL's options
    # (here the test's search_path) are kept beside the log's lock timeout.
    url = pg_server.new_database() + "&keepalives_idle=30"
    with GameLog(url, timeout=2) as log:
        given = log._conn._conn.info.get_parameters()
    assert given["keepalives_idle"] == "30" and given["tcp_user_timeout"] == "10000"
    assert given["keepalives"] == "1" and given["connect_timeout"] == "2"
    assert "search_path" in given["options"] and "lock_timeout=2000" in given["options"]
    assert "synchronous_commit=on" in given["options"]


def test_a_game_moves_from_an_sqlite_log_to_postgresql_and_back(pg_url, tmp_path, capsys):
    sqlite_db = tmp_path / "g.sqlite3"
    moves, digests, _ = bot_game(31, max_moves=25)
    with GameLog(sqlite_db) as log:
        gid = log.start_game(players=2, seed=31, source="terminal")
        for n, (m, d) in enumerate(zip(moves, digests), 1):
            log.add_move(gid, n, m, d)
        log.take_back(gid, 25)
        log.end_game(gid, "abandoned", result_of(bot_game(31, max_moves=24)[2], "quit"))
    for fmt in ("json", "text"):
        out = tmp_path / ("g." + fmt)
        assert main(["games", "--db", str(sqlite_db), "export", str(gid), "--format", fmt,
                     "-o", str(out)]) == 0
        assert main(["games", "--db", pg_url, "import", str(out), "--force"]) == 0
    assert main(["games", "--db", pg_url, "verify"]) == 0
    capsys.readouterr()
    with GameLog(pg_url) as log, GameLog(sqlite_db) as original:
        want = original.game(gid)
        for info in log.games():
            got = log.game(info["id"])
            assert [(m["number"], m["move"], m["digest"]) for m in got["moves"]] == \
                [(m["number"], m["move"], m["digest"]) for m in want["moves"]]
            assert [(h["number"], h["move"], h["taken_back_at"] is None)
                    for h in got["history"]] == [(h["number"], h["move"],
                                                  h["taken_back_at"] is None)
                                                 for h in want["history"]]
    back = tmp_path / "back.json"
    assert main(["games", "--db", pg_url, "export", "1", "-o", str(back)]) == 0
    assert main(["games", "--db", str(sqlite_db), "import", str(back), "--force"]) == 0


def test_a_takeback_committed_but_not_acknowledged_is_not_refused_later(pg_url, monkeypatch):
    # As a start above: the takeback is in the database, its answer lost; written again,
    # it is found done (not refused as "not the last move" and dropped).
    moves, digests, _ = bot_game(23, max_moves=3)
    with GameLog(pg_url) as log:
        gid = log.start_game(players=2, seed=23, source="terminal")
        for n, (m, d) in enumerate(zip(moves, digests), 1):
            log.add_move(gid, n, m, d)
        real = log._conn.execute

        def commit_then_lose(statement, params=()):
            result = real(statement, params)
            if statement == "COMMIT":
                log._conn.close()
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return result

        monkeypatch.setattr(log._conn, "execute", commit_then_lose)
        log.take_back(gid, 3)  # found done: no error
        monkeypatch.undo()
        assert log.pending == 0 and log.dropped == []
        info = log.game(gid)
        assert len(info["moves"]) == 2 and info["taken_back"] == 1


def test_vora_play_on_an_unreachable_database_says_what_to_do(tmp_path):
    import io
    from rich.console import Console
    from vora_host.log.session import _open_log
    out = io.StringIO()
    url = "postgresql://vora:s3cret@/vora?host=%s" % tmp_path
    assert _open_log(Console(file=out, width=300), url) is None
    text = out.getvalue()
    assert "cannot be reached" in text and "Start the database server or check the URL" in text
    assert "s3cret" not in text and "Free some space" not in text

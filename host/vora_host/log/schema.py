"""The game log's schema: its tables at each version, and the migrations that bring a log
written by an older vora up to this one. PostgreSQL runs the same statements
(vora_host.log.postgres spells them its way).

Apart from the store (vora_host.log.store) because what the database holds, and how an
older log becomes this vora's, is read and changed as one piece: a later schema adds its
statements and its step to MIGRATIONS here and raises SCHEMA_VERSION. The seed's two
columns (schema 4) are here too, with the functions that split and join them.
"""

from vora_host.log import leases

__all__ = ["SCHEMA_VERSION", "APPLICATION_ID", "MIGRATIONS"]

SCHEMA_VERSION = 6

# PRAGMA application_id: "Vora" in ASCII, so that `file` and this module can tell a game
# log from any other SQLite database.
APPLICATION_ID = 0x566F7261

# Ids are 64-bit signed integers in both databases.
_ID_LIMIT = 1 << 63


_GAMES_1 = """CREATE TABLE games (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        board_game_id INTEGER CHECK (board_game_id BETWEEN 0 AND 4294967295),
        game          TEXT    NOT NULL,
        players       INTEGER NOT NULL CHECK (players >= 1),
        seed          INTEGER NOT NULL CHECK (seed >= 0),
        options       TEXT    NOT NULL,
        source        TEXT    NOT NULL,
        started_at    TEXT    NOT NULL,
        ended_at      TEXT,
        result        TEXT,
        status        TEXT    NOT NULL DEFAULT 'playing'
                      CHECK (status IN ('playing', 'over', 'abandoned', 'interrupted')),
        imported_at   TEXT
    )"""


_SCHEMA_1 = (
    _GAMES_1,
    "CREATE INDEX games_by_board_game ON games (board_game_id, seed)",
    "CREATE INDEX games_by_status ON games (status, id)",
    """CREATE TABLE moves (
        id        INTEGER PRIMARY KEY,
        game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number    INTEGER NOT NULL CHECK (number >= 1),
        move      TEXT    NOT NULL,
        digest    TEXT    NOT NULL,
        logged_at TEXT    NOT NULL,
        UNIQUE (game_id, number)
    )""",
)


# Version 2: takebacks. A move taken back keeps its row (taken_back_at set), and a later
# move may take its number, so (game_id, number) is unique among live moves only. The
# history of a game is its rows in id order. SQLite cannot drop a table constraint: the
# table is rebuilt and its rows copied, ids kept.
_SCHEMA_2 = (
    """CREATE TABLE moves_2 (
        id            INTEGER PRIMARY KEY,
        game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number        INTEGER NOT NULL CHECK (number >= 1),
        move          TEXT    NOT NULL,
        digest        TEXT    NOT NULL,
        logged_at     TEXT    NOT NULL,
        taken_back_at TEXT
    )""",
    "INSERT INTO moves_2 (id, game_id, number, move, digest, logged_at) "
    "SELECT id, game_id, number, move, digest, logged_at FROM moves",
    "DROP TABLE moves",
    "ALTER TABLE moves_2 RENAME TO moves",
    "CREATE UNIQUE INDEX moves_live ON moves (game_id, number) WHERE taken_back_at IS NULL",
    "CREATE INDEX moves_by_game ON moves (game_id, id)",
    "CREATE INDEX games_by_seed ON games (game, seed)",
)


# Version 3: a game may need attention (`attention`: notes, one a line, None when all is
# well): the board and the host disagreed about it (a digest that differs, a move the
# rules refused) and the host followed the board's own state from then on, so the game
# does not replay cleanly from its seed. Nothing is taken out of the log for it.
_SCHEMA_3 = (
    "ALTER TABLE games ADD COLUMN attention TEXT",
)


def _migrate_to_1(conn):
    for statement in _SCHEMA_1:
        conn.execute(statement)


def _migrate_to_2(conn):
    for statement in _SCHEMA_2:
        conn.execute(statement)


# The migration hook: MIGRATIONS[v](conn) brings a database at user_version v - 1 to
# version v, with conn.execute() only (executescript would commit). A later schema adds
# its function here and raises SCHEMA_VERSION; opening an older file runs the missing
# steps in one transaction, all or nothing, and sets user_version in it.
def _migrate_to_3(conn):
    for statement in _SCHEMA_3:
        conn.execute(statement)


# Version 4: 64-bit seeds. The seeds of the hidden-information games take 64 bits of the
# OS's randomness (shared_rules.secret_prng), one more than SQLite's signed INTEGER holds,
# and `seed` keeps its CHECK (seed >= 0) (SQLite cannot drop it without rebuilding the
# table that moves and leases refer to). So a seed is kept in two columns: its low 63
# bits in `seed`, its top bit in `seed_high` (0 for every seed below 2**63, so every
# older row reads as it did). _seed_columns() splits, _seed_of() joins.
_SCHEMA_4 = (
    "ALTER TABLE games ADD COLUMN seed_high INTEGER NOT NULL DEFAULT 0 "
    "CHECK (seed_high IN (0, 1))",
)


def _migrate_to_4(conn):
    for statement in _SCHEMA_4:
        conn.execute(statement)


_SEED_LOW_BITS = 63


_SEED_LOW = (1 << _SEED_LOW_BITS) - 1


def _seed_columns(seed):
    """(seed, seed_high): a seed of up to 64 bits as the games table keeps it."""
    return seed & _SEED_LOW, seed >> _SEED_LOW_BITS


def _seed_of(low, high):
    """The seed kept as (seed, seed_high) in the games table."""
    return low | (high << _SEED_LOW_BITS)


# Version 5: one writer per game. The leases get their fencing number, the holder's token
# and an end (vora_host.log.leases); older vora, which would write without them, refuse a
# log of this version. And `events`: what happened to a game beside its moves, in order
# (`number`: its live moves then; `kind`; `data`, JSON): a digest the board reported wrong
# and corrected ("correction"), the board's own state taken after a mismatch ("resync").
_SCHEMA_5 = (
    """CREATE TABLE events (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number    INTEGER NOT NULL CHECK (number >= 0),
        kind      TEXT    NOT NULL,
        data      TEXT    NOT NULL,
        at        TEXT    NOT NULL
    )""",
    "CREATE INDEX events_by_game ON events (game_id, id)",
)


def _migrate_to_5(conn):
    leases.migrate_leases(conn)
    for statement in _SCHEMA_5:
        conn.execute(statement)


# Version 6: reviews (`vora games review`, vora_host.review): one per game, kept beside it
# and deleted with it. `budget`: the search's iterations per position; `complete`: 0 while
# a review stopped part way (it resumes from its moves); `moves`: the per-move results as
# JSON (the review dict's "moves", vora_host.log.reviews); `knows_secrets`: 1 when it was
# computed from the true state of a hidden-information game.
_SCHEMA_6 = (
    """CREATE TABLE reviews (
        game_id       INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        budget        INTEGER NOT NULL CHECK (budget >= 1),
        complete      INTEGER NOT NULL CHECK (complete IN (0, 1)),
        knows_secrets INTEGER NOT NULL CHECK (knows_secrets IN (0, 1)),
        moves         TEXT    NOT NULL,
        updated_at    TEXT    NOT NULL
    )""",
)


def _migrate_to_6(conn):
    for statement in _SCHEMA_6:
        conn.execute(statement)


MIGRATIONS = {1: _migrate_to_1, 2: _migrate_to_2, 3: _migrate_to_3, 4: _migrate_to_4,
              5: _migrate_to_5, 6: _migrate_to_6}

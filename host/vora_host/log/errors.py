"""The game log's errors: every exception the log raises for a reason people can act on
(vora_host.log.store re-exports them). The message of each is meant for people."""

class GameLogError(Exception):
    """Base class of the game log's errors; the message is meant for people."""


class DatabaseError(GameLogError):
    """The file cannot be used as a game log: unreadable, corrupt, not SQLite, not ours,
    or written by a newer version. The file is left untouched."""


class NoLog(DatabaseError):
    """Reading a log that does not exist yet (no file, or a PostgreSQL database without
    the log's tables), with create=False: nothing was created."""


class DatabaseLocked(DatabaseError):
    """Another program holds the database locked for longer than the timeout."""


class CannotWrite(DatabaseError):
    """The file cannot be written now: `reason` says why in words ("the disk is full",
    "the file or its folder is read-only", ...)."""

    def __init__(self, message, reason=None):
        self.reason = reason
        super().__init__(message)


class NotWritten(CannotWrite):
    """A change the file could not take now, kept in memory: it is written, in order and
    once, as soon as writing works again (any later write, or `flush()`). `pending` is the
    number of changes waiting."""

    def __init__(self, message, reason=None, pending=0):
        self.pending = pending
        super().__init__(message, reason)


class _NotWrittenLocked(NotWritten, DatabaseLocked):
    """NotWritten because another program holds the lock (still a DatabaseLocked)."""


class NoSuchGame(GameLogError):
    def __init__(self, game_id, path=None):
        self.game_id = game_id
        super().__init__("no game %s in the log%s" % (game_id, " %s" % path if path else ""))


class MoveConflict(GameLogError):
    """The log already has another move, or another digest, under this number."""

    def __init__(self, game_id, number, logged_move, logged_digest, move, digest):
        self.game_id, self.number = game_id, number
        self.logged_move, self.logged_digest = logged_move, logged_digest
        self.move, self.digest = move, digest
        super().__init__(
            "game %d, move %d: the log has %r (digest %s), now reported as %r (digest %s)"
            % (game_id, number, logged_move, logged_digest, move, digest))


class MoveGap(GameLogError):
    """A move number past the next one: moves `expected` .. `number - 1` are missing."""

    def __init__(self, game_id, number, expected):
        self.game_id, self.number, self.expected = game_id, number, expected
        super().__init__("game %d: move %d reported but the log needs move %d next "
                         "(moves %d to %d are missing)"
                         % (game_id, number, expected, expected, number - 1))


class GameClosed(GameLogError):
    """A new move, or a takeback, for a game that is over or abandoned."""

    def __init__(self, game_id, status, what="it takes no more moves"):
        self.game_id, self.status = game_id, status
        super().__init__("game %d is %s: %s" % (game_id, status, what))


class NotLastMove(GameLogError):
    """take_back(number) where `number` is not the game's last live move (`last`, 0 when
    no move is live)."""

    def __init__(self, game_id, number, last):
        self.game_id, self.number, self.last = game_id, number, last
        if last == 0:
            why = "the game has no live move to take back"
        else:
            why = "only the last live move, %d, can be taken back" % last
        super().__init__("game %d: move %s cannot be taken back: %s" % (game_id, number, why))


class BadImport(GameLogError):
    """A file that cannot be imported or replayed. `line` is the 1-based line of a text
    file where the problem is (None when not tied to a line); `report` the failed
    replay, if any; `duplicate_of` the ids of games of the log it repeats, if that is
    the problem."""

    def __init__(self, message, line=None, report=None, duplicate_of=None):
        self.line, self.report, self.duplicate_of = line, report, duplicate_of
        self.bare = message
        super().__init__(("line %d: %s" % (line, message)) if line else message)


class GameHeld(GameLogError):
    """Another program is the game's one writer now (see vora_host.log.leases): `holder`
    says who (host, pid, since, expires_at, this_host: whether it runs on this computer)."""

    def __init__(self, game_id, holder, message):
        self.game_id, self.holder = game_id, holder
        super().__init__(message)


class LeaseLost(GameLogError):
    """This program was the game's writer, and another took the game over since (`holder`
    says who): its later changes to the game are refused (the fencing number of
    vora_host.log.leases changed)."""

    def __init__(self, game_id, holder, message):
        self.game_id, self.holder = game_id, holder
        super().__init__(message)

"""The game log of a command-line session (vora play on the board, vora mirror): opened
saying what to do when it cannot be (and the games a killed program left "playing" marked
interrupted), and closed saying, on stderr, where each game of the session went: "Logged
as game 7", or the file a game the log could not take was saved to.

Apart from the log's store (vora_host.log.store) because this is what a person at the
terminal is told about it, and apart from the commands because both `vora play` and
`vora mirror` (vora_host.link.cli) use it.
"""

from rich.console import Console
from rich.markup import escape

__all__ = ["_open_log", "_close_log"]


def _open_log(console, db):
    from vora_host.log.database import resolve_db_path
    from vora_host.log.errors import GameLogError
    from vora_host.log.postgres import is_db_url
    from vora_host.log.store import GameLog
    path = resolve_db_path(db)
    try:
        log = GameLog(path)
    except GameLogError as exc:
        console.print("[red]Cannot open the game log: %s[/red]" % escape(str(exc)))
        console.print("%s, choose another log with --db PATH (or a postgresql:// URL), or "
                      "play without the log with --no-log." % ("Start the database server or check the URL"
                                     if is_db_url(path) else "Free some space or fix the file"))
        return None
    try:  # games left "playing" by a program that was killed: interrupted
        log.close_stale()
    except GameLogError:
        pass  # the file cannot be written now: they stay as they are
    return log


def _close_log(log, announce=True):
    """Write what waits, close the log and say (on stderr) where each game of this session
    went: "Logged as game 7" (unless `announce` is false: the caller said it), or where a
    game the log could not take was saved."""
    from vora_host.log import formats
    from vora_host.log.errors import GameLogError
    from vora_host.log.live import save_rescue
    err = Console(stderr=True, highlight=False)
    try:
        log.flush()
    except GameLogError:
        pass
    waiting = set(log.real_id(op["gid"]) if op["gid"] is not None else None
                  for op in log.unwritten())
    seen = []
    for gid in log.touched:
        real = log.real_id(gid)
        if real in seen and real is not None:
            continue
        seen.append(real)
        if real is not None and real not in waiting:
            if announce:
                err.print("Logged as game %d in %s ('vora games show %d')."
                          % (real, escape(str(log.path)), real), soft_wrap=True)
            continue
        try:
            text = formats.export_json(log, gid)
            partial = [g for g in log.games() if g["id"] == real] if real is not None else []
        except GameLogError as exc:
            err.print("[red]A game of this session could not be logged or saved: %s[/red]"
                      % escape(str(exc)))
            continue
        message = save_rescue(text, log.path, log.trouble)
        if partial:
            count = partial[0]["move_count"]
            message += (" The log's game %d holds only its first %d move%s: delete it after "
                        "the import ('vora games delete %d')."
                        % (real, count, "" if count == 1 else "s", real))
        err.print("[red]%s[/red]" % escape(message), soft_wrap=True)
    log.close()

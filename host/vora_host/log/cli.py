"""`vora games`: the game log on the command line, for every game of the registry.

    vora games list [--status S] [--limit N]     the logged games, newest first
    vora games show ID [--full]                  history, final position, scores, winner
    vora games replay ID [--full] [--step] [--delay S]   move by move, every digest checked
    vora games export ID [--full] [--format json|text] [-o FILE]
    vora games import FILE [--force]             a JSON or text export, as a new game
    vora games end ID [--status S]               close a game left "playing"
    vora games delete ID... [--yes]              remove games for good
    vora games verify [ID...]                    replay games, every digest checked

The database is --db PATH (an SQLite file) or --db postgresql://... (PostgreSQL, see
vora_host.log.postgres), else $VORA_DB, else games.sqlite3 in the user's data folder (see
vora_host.log.database.default_db_path). Every action works the same on both.

Hidden-information games (Boars, Tossing Tiger): show, replay and export give the public
record by default, what a spectator may know: no seed, no digests, every move as the
rules revealed it to the others, the positions as a spectator sees them, scores once the
game is over. --full gives the whole record (seed, every move, digests), and only for a
game that can no longer continue (over or abandoned): a game "playing" or "interrupted"
may be taken up again, so its secrets are still secrets (formats.full_record_allowed).
Other games hide nothing: their output is the whole record, with or without --full.

The actions live by concern (issue 42): how a game and its record are said on the
command line in vora_host.log.cli_views, the actions that read the log (list, show,
replay, verify) in vora_host.log.cli_show, those that write a file or the log (export,
import, end, delete) in vora_host.log.cli_records; this file holds the parser and the
runner that dispatches to them.

`add_parser(sub)` registers the group on the
`vora` parser; `run(args, console)` runs it and returns the exit status: 0 done, 1 a
failure reported on stderr (no such game, a database that cannot be used, a game that does
not replay, a file that cannot be read or written), 2 a usage error.
"""

import argparse
import re

from rich.console import Console
from rich.markup import escape

from vora_host.argtypes import positive_int, seconds
from vora_host.log.checks import STATUSES
from vora_host.log.cli_records import MAX_IMPORT_BYTES, cmd_delete, cmd_end, cmd_export, \
    cmd_import
from vora_host.log.cli_show import cmd_list, cmd_replay, cmd_show, cmd_verify
from vora_host.log.database import DB_ENV, db_label, default_db_path, resolve_db_path
from vora_host.log.errors import GameLogError, NoSuchGame
from vora_host.log.store import GameLog

__all__ = ["add_parser", "run", "LOCK_TIMEOUT", "MAX_IMPORT_BYTES"]

# Seconds to wait for another program's lock on the database before giving up.
LOCK_TIMEOUT = 5.0


def _game_id(text):
    # Plain ASCII digits: int() would also take "+5", "1_0", " 7" and other scripts' digits.
    if not re.fullmatch(r"[0-9]{1,18}", text):
        raise argparse.ArgumentTypeError("%r is not a game id (a whole number, see "
                                         "'vora games list')" % text[:40])
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("game ids start at 1")
    return n


FULL_HELP = ("the whole record of a hidden-information game (Boars, Tossing Tiger): the "
             "seed and every move; only once the game is over or abandoned (by default "
             "such a game is shown as a spectator sees it). Other games are always shown "
             "whole")
PUBLIC_EPILOG = ("Boars and Tossing Tiger hide information: by default their games are "
                 "shown as a spectator sees them (no seed, secret moves as the other "
                 "players saw them, no digests); --full shows the whole record once the "
                 "game is over or abandoned, never while it may still go on.")

DB_HELP = ("the game log to use: an SQLite file, or a PostgreSQL database as a "
           "postgresql://user:password@host/dbname URL (default: $%s if set, else %s)"
           % (DB_ENV, "games.sqlite3 in the user's data folder"))


def add_parser(sub):
    """Register `vora games` and its actions on the `vora` subparsers `sub`."""
    group = sub.add_parser(
        "games", help="the game log: list, show, replay, verify, export, import, end, "
                      "delete, review games",
        description="The games the host has logged, every game of every kind, in an SQLite "
                    "file: %s. Choose another with --db PATH, a PostgreSQL database with "
                    "--db postgresql://..., or either in the environment variable %s."
                    % (default_db_path(), DB_ENV),
        epilog="Run 'vora games ACTION --help' for the options of an action. " + PUBLIC_EPILOG)
    group.add_argument("--db", metavar="PATH|URL", default=None, help=DB_HELP)
    group.set_defaults(games_parser=group)
    # --db is accepted after the action too ('vora games list --db x'); SUPPRESS keeps an
    # action without it from hiding the one given before the action.
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", metavar="PATH|URL", default=argparse.SUPPRESS, help=DB_HELP)
    actions = group.add_subparsers(dest="games_command", metavar="ACTION")

    ls = actions.add_parser("list", parents=[db], help="list the logged games, newest first",
                            description="List the logged games, newest first: id, game, "
                                        "start, players, moves, status, result, source.")
    ls.add_argument("--status", choices=STATUSES, default=None,
                    help="only the games with this status")
    ls.add_argument("--limit", type=positive_int, default=None, metavar="N",
                    help="only the N newest games")

    show = actions.add_parser("show", parents=[db], help="the moves and the end of one game",
                              description="Show a logged game: its history (every move with "
                                          "its number and player, takebacks included), the "
                                          "final position, the scores and the winner. The "
                                          "game is replayed and every digest checked; a "
                                          "mismatch is shown and exits with 1.",
                              epilog=PUBLIC_EPILOG)
    show.add_argument("id", type=_game_id, metavar="ID", help="the game's id (see list)")
    show.add_argument("--full", action="store_true", help=FULL_HELP)

    rep = actions.add_parser("replay", parents=[db], help="replay a game move by move, "
                                                          "checking every digest",
                             description="Replay a logged game, drawing it after every move "
                                         "and checking each digest against the log. Exits "
                                         "with 1, naming the move, at the first mismatch or "
                                         "illegal move.",
                             epilog=PUBLIC_EPILOG)
    rep.add_argument("id", type=_game_id, metavar="ID", help="the game's id (see list)")
    rep.add_argument("--full", action="store_true", help=FULL_HELP)
    rep.add_argument("--step", action="store_true",
                     help="wait for Enter before each move (q and Enter stops)")
    rep.add_argument("--delay", type=seconds, default=0.0, metavar="SECONDS",
                     help="pause between moves (default 0)")

    exp = actions.add_parser("export", parents=[db], help="write a game as JSON or text",
                             description="Write a logged game: JSON (the game record with "
                                         "its digests and the log's metadata, which 'vora "
                                         "replay' also reads) or text (tag pairs, then one "
                                         "line per move with its number, player and digest, "
                                         "and one per takeback). 'vora games import' and "
                                         "'vora replay' read both back.",
                             epilog=PUBLIC_EPILOG + " A public export says so in the file; "
                                    "it cannot be imported or replayed.")
    exp.add_argument("id", type=_game_id, metavar="ID", help="the game's id (see list)")
    exp.add_argument("--full", action="store_true", help=FULL_HELP)
    exp.add_argument("--format", choices=("json", "text"), default="json",
                     help="json (default) or text")
    exp.add_argument("-o", "--output", metavar="FILE", default=None,
                     help="write to FILE (replaced atomically) instead of the standard output")

    imp = actions.add_parser("import", parents=[db], help="add a game from a JSON or text file",
                             epilog="A public export (of a Boars or Tossing Tiger game shown "
                                    "as a spectator sees it) has no seed: it is refused.",
                             description="Read a game written by 'vora games export' (JSON or "
                                         "text, told apart by the content) or by 'vora play "
                                         "--record' and add it to the log as a new game. The "
                                         "file is checked field by field and replayed; a game "
                                         "that does not replay cleanly, or that the log "
                                         "already holds, is refused unless --force.")
    imp.add_argument("file", metavar="FILE", help="the file to read ('-' for the standard input)")
    imp.add_argument("--force", action="store_true",
                     help="import a game even if a move is illegal, a digest differs from the "
                          "replay, the result disagrees (the problem is still reported) or "
                          "the log already holds it")

    end = actions.add_parser("end", parents=[db], help="close a game left 'playing'",
                             description="Close a game that is still 'playing' although "
                                         "nobody plays it any more (a program that was "
                                         "killed, a board that never came back). The game is "
                                         "replayed: one that is over is marked over with its "
                                         "result, any other abandoned (or --status).")
    end.add_argument("id", type=_game_id, metavar="ID", help="the game's id (see list)")
    end.add_argument("--status", choices=("abandoned", "interrupted"), default=None,
                     help="how an unfinished game ends (default abandoned; interrupted lets "
                          "its board continue it)")

    verify = actions.add_parser("verify", parents=[db],
                                help="replay games and check every digest",
                                description="Replay logged games (the given ones, else every "
                                            "game of the log) and check the digest after "
                                            "every move and the result: one line a game, "
                                            "exit 1 when any does not replay.",
                                epilog=PUBLIC_EPILOG)
    verify.add_argument("ids", type=_game_id, nargs="*", metavar="ID",
                        help="the games' ids (default: every game)")

    delete = actions.add_parser("delete", parents=[db], help="remove games from the log",
                                description="Remove games and their moves from the log for "
                                            "good (export them first to keep a copy). Asks "
                                            "to confirm unless --yes.")
    delete.add_argument("ids", type=_game_id, nargs="+", metavar="ID",
                        help="the games' ids (see list)")
    delete.add_argument("--yes", action="store_true", help="do not ask to confirm")
    # Where rooms above the log add their own actions (`review`: vora_host.review.cli,
    # registered by vora_host.cli), each naming its runner with set_defaults(games_run=...).
    group.actions = actions
    return group


def run(args, console):
    """Run `vora games ...`; returns the exit status."""
    action = args.games_command
    if action is None:
        args.games_parser.print_help()
        return 2
    if action not in ACTIONS and getattr(args, "games_run", None) is not None:
        return args.games_run(args, console)  # an action of a room above (review)
    err = Console(stderr=True, highlight=False)
    path = resolve_db_path(getattr(args, "db", None))
    context = _Context(console, err, path, "vora games %s" % action)
    try:
        return ACTIONS[action](args, context)
    except NoSuchGame as exc:
        return context.fail(_no_such_game(exc, context))
    except (GameLogError, ValueError) as exc:
        return context.fail(str(exc))
    finally:
        if context.log is not None:
            context.log.close()


class _Context:
    def __init__(self, out, err, path, name):
        self.out, self.err, self.path, self.name = out, err, path, name
        self.log = None

    def open(self, create=False):
        self.log = GameLog(self.path, create=create, timeout=LOCK_TIMEOUT)
        return self.log

    def fail(self, message):
        self.err.print("[red]%s: %s[/red]" % (self.name, escape(message)))
        return 1

    def warn(self, message):
        self.err.print("[yellow]%s: %s[/yellow]" % (self.name, escape(message)))


def _no_such_game(exc, context):
    try:
        span = context.log.id_range() if context.log is not None else None
    except GameLogError:
        span = None
    where = "(the log is empty)" if span is None else "(the log has games %d to %d)" % span
    return "no game %s in %s %s" % (exc.game_id, db_label(context.path), where)


ACTIONS = {
    "list": cmd_list,
    "show": cmd_show,
    "replay": cmd_replay,
    "export": cmd_export,
    "import": cmd_import,
    "end": cmd_end,
    "delete": cmd_delete,
    "verify": cmd_verify,
}

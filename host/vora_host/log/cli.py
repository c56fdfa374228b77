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

`add_parser(sub)` registers the group on the
`vora` parser; `run(args, console)` runs it and returns the exit status: 0 done, 1 a
failure reported on stderr (no such game, a database that cannot be used, a game that does
not replay, a file that cannot be read or written), 2 a usage error.
"""

import argparse
import json
import os
import re
import sys
import time
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from shared_rules import games
from shared_rules.errors import BadPosition

from vora_host import games as host_games
from vora_host.argtypes import positive_int, seconds
from vora_host.games.base import TerminalView
from vora_host.log import formats, readers
from vora_host.words import plural, print_table
from vora_host.log.checks import STATUSES
from vora_host.log.database import DB_ENV, db_label, default_db_path, resolve_db_path
from vora_host.log.errors import BadImport, DatabaseError, GameLogError, NoLog, NoSuchGame
from vora_host.log.records import game_title, result_of
from vora_host.log.store import GameLog
from vora_host.log.verify import (history_events, player_label, record_of, replay_steps,
                                  result_difference)

__all__ = ["add_parser", "run", "LOCK_TIMEOUT", "MAX_IMPORT_BYTES", "game_view"]

# Seconds to wait for another program's lock on the database before giving up.
LOCK_TIMEOUT = 5.0
# The readers' own bound: a game record is a few hundred kilobytes at most.
MAX_IMPORT_BYTES = readers.MAX_RECORD_CHARS
# A game still "playing" after this long, and not imported, is probably stale.
STALE_HOURS = 12


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


# ---------------------------------------------------------------- how a game is drawn

class _PlainView(TerminalView):
    """For a game whose host package is not written yet: its public view as text."""

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        text = json.dumps(state.view(viewer), sort_keys=True, separators=(",", ":"))
        return Text(text if len(text) <= 2000 else text[:2000] + "...")


def game_view(name):
    """The terminal view of a game of the registry (its host package's VIEW), or a plain
    one when the game has no host package yet."""
    try:
        return host_games.host_game(name).VIEW
    except ImportError:
        return _PlainView(games.load(name))


# ---------------------------------------------------------------- helpers

def _when(stamp, short=False):
    """An ISO time as local 'YYYY-MM-DD HH:MM' ('28 Nov 06:12' when `short`), or the text
    as it is if it is not one."""
    if not stamp:
        return "-"
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%d %b %H:%M" if short else "%Y-%m-%d %H:%M")


def _shown(text):
    """A text from the log (an imported file may have put anything a check lets through
    there) as it may reach a terminal: every character that is not printable (C1
    controls such as the CSI U+009B, line breaks, bidirectional overrides) written as an
    escape (\\x9b)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _age_hours(stamp):
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return 0
    if moment.tzinfo is None:
        return 0
    return (datetime.now(moment.tzinfo) - moment).total_seconds() / 3600


def _result_text(result, public=False):
    if not result:
        return "-"
    scores = " ".join("%+d" % s for s in result["scores"])
    if not result["over"]:
        # The scores of a hidden-information game in progress may count secret cards.
        return "not over (%s)%s" % (result["end"], "" if public else ": " + scores)
    if result["winner"] is None:
        return "draw: %s" % scores
    return "P%d wins: %s" % (result["winner"], scores)


def _option_texts(info):
    """The game's options as 'name value' texts, in the game's text-format spelling."""
    try:
        return ["%s %s" % pair for pair in formats.option_texts(info["game"], info["options"])]
    except (BadPosition, GameLogError, ValueError, TypeError):
        return ["%s %s" % (k, json.dumps(v)) for k, v in sorted(info["options"].items())]


def _public_mode(args, info):
    """(public, refusal) for show, replay and export: whether the game is shown as a
    spectator sees it (a hidden-information game, unless --full), and why --full is
    refused (None when it is not)."""
    if not formats.hides_information(info["game"]):
        return False, None
    if not getattr(args, "full", False):
        return True, None
    if not formats.full_record_allowed(info):
        return True, ("game %d is still %s and may go on: the full record of a %s game "
                      "(its seed, every secret move) is shown only once it is over or "
                      "abandoned (without --full: what a spectator may know; 'vora games "
                      "end %d' closes a game nobody plays any more)"
                      % (info["id"], info["status"], game_title(info["game"]), info["id"]))
    return False, None


def _public_problem(report, live_texts):
    """A replay problem in words that tell nothing secret (no move text beyond what the
    rules revealed, no digest)."""
    if report.problem in ("illegal", "mismatch"):
        text = live_texts[report.number - 1] if report.number <= len(live_texts) \
            else formats.PUBLIC_UNKNOWN_MOVE
        return "move %d (%s %s) %s" % (report.number, player_label(report.player),
                                      text, "is illegal" if report.problem == "illegal"
                                      else "gives another digest than the log")
    if report.problem == "result":
        return "the logged result differs from the replay"
    return report.message


# ---------------------------------------------------------------- list

LIST_COLUMNS = (("ID", "right"), ("Game", "left"), ("Started", "left"), ("Players", "right"),
                ("Moves", "right"), ("Status", "left"), ("Result", "left"), ("Source", "left"))
# What goes first when `vora games list` is wider than the terminal, in turn: the ID stays
# whatever the width (show, replay, export and end need it), and so do the game, its
# moves and its status; the others give way.
LIST_NARROWING = ("drop Source", "drop Players", "short Started", "short Game",
                  "drop Started", "drop Result")


def _list_width(console):
    """The columns `vora games list` may take: the terminal's (or $COLUMNS), else None
    (a file or a pipe gets the whole table, see print_table)."""
    if console.is_terminal or os.environ.get("COLUMNS"):
        return console.width
    return None


def _cell_len(markup):
    return max((Text.from_markup(line).cell_len for line in markup.split("\n")), default=0)


def _list_table(cells, width=None):
    """The table of `vora games list` for rows of `cells` (column -> markup; "short" and
    "name" the Started and Game columns' shorter forms) in `width` columns: the columns
    of LIST_NARROWING give way first, so the ID column is always there, whole."""
    shown = [name for name, _ in LIST_COLUMNS]
    forms = {"Started": "Started", "Game": "Game"}

    def natural(name):
        key = forms.get(name, name)
        return max([len(name)] + [_cell_len(row[key]) for row in cells])

    def total():
        return sum(natural(name) for name in shown) + 2 * (len(shown) - 1)

    for step in LIST_NARROWING:
        if width is None or total() <= width:
            break
        what, name = step.split(" ")
        if what == "drop":
            shown.remove(name)
        else:
            forms[name] = {"Started": "short", "Game": "name"}[name]
    table = Table(title=None, box=None, header_style="bold", pad_edge=False)
    for name, justify in LIST_COLUMNS:
        if name not in shown:
            continue
        # Those kept whole are never shrunk by rich (it would take the ID to nothing):
        # the result and the game's title are cut with an ellipsis instead, and a
        # status's "needs attention" goes on a line of its own.
        whole = {"ID": natural("ID"), "Moves": natural("Moves"),
                 "Status": max([len("Status")] + [len(row["Status"].split(" ")[0])
                                                  for row in cells])}
        table.add_column(name, justify=justify, no_wrap=name not in ("Source", "Status"),
                         min_width=whole.get(name), overflow="ellipsis")
    for row in cells:
        table.add_row(*[row[forms.get(name, name)] for name in shown])
    return table


def cmd_list(args, ctx):
    try:
        log = ctx.open()
    except DatabaseError as exc:
        if isinstance(exc, NoLog):
            ctx.out.print("No games logged yet (there is no game log at %s)."
                          % escape(db_label(ctx.path)))
            return 0
        raise
    rows = log.games(limit=args.limit, status=args.status)
    if not rows:
        ctx.out.print("No %sgames in %s." % ("%s " % args.status if args.status else "",
                                             escape(db_label(ctx.path))))
        return 0
    stale = []
    cells = []
    for info in rows:
        moves = str(info["move_count"])
        if info["taken_back"]:
            moves += " (%d back)" % info["taken_back"]
        if info["status"] == "playing" and info["imported_at"] is None \
                and _age_hours(info["started_at"]) > STALE_HOURS:
            stale.append(info["id"])
        status = info["status"]
        if info.get("attention"):
            status += " [bold yellow]needs attention[/bold yellow]"
        cells.append({
            "ID": str(info["id"]), "Game": escape(game_title(info["game"])),
            "name": escape(_shown(info["game"])), "Started": _when(info["started_at"]),
            "short": _when(info["started_at"], short=True), "Players": str(info["players"]),
            "Moves": moves, "Status": status,
            "Result": escape(_shown(_result_text(info["result"],
                                                 formats.hides_information(info["game"])))),
            "Source": escape(_shown(info["source"])) + (
                " (imported)" if info["imported_at"] else "")})
    print_table(ctx.out, _list_table(cells, _list_width(ctx.out)))
    ctx.out.print("[dim]%d game%s shown from %s[/dim]"
                  % (len(rows), "" if len(rows) == 1 else "s",
                     escape(db_label(ctx.path))))
    if any(info.get("attention") for info in rows):
        ctx.out.print("[dim]'needs attention': the board and this host disagreed about the "
                      "game; 'vora games show ID' says how.[/dim]")
    if stale:
        ids = " ".join(str(g) for g in stale)
        ctx.out.print("[dim]Still 'playing' after more than %d hours: %s. If nobody plays "
                      "them any more: 'vora games end ID' (or 'vora games delete ID').[/dim]"
                      % (STALE_HOURS, ids))
    return 0


# ---------------------------------------------------------------- show

def _header(ctx, info, view, state, public=False):
    out = ctx.out
    labels = []
    if state is not None:
        for p in range(info["players"]):
            labels.append(view.seat_label(state, p))
    out.print("[bold]Game %d[/bold]: %s, %d players%s, %s"
              % (info["id"], escape(game_title(info["game"])), info["players"],
                 " (%s)" % escape(", ".join(labels)) if labels else "",
                 "seed hidden" if public else "seed %d" % info["seed"]))
    if public:
        out.print("  [dim]as a spectator sees it: the seed, the digests and the secret "
                  "moves are hidden%s[/dim]" % (
                      "; --full shows them" if formats.full_record_allowed(info)
                      else " while the game may go on"))
    source = info["source"]
    if info["board_game_id"] is not None:
        source += " (board game id %d)" % info["board_game_id"]
    out.print("  source %s; started %s; ended %s; status [bold]%s[/bold]"
              % (escape(_shown(source)), _when(info["started_at"]), _when(info["ended_at"]),
                 info["status"]))
    if info["imported_at"]:
        out.print("  imported into this log %s" % _when(info["imported_at"]))
    if info.get("attention"):
        out.print("  [bold yellow]needs attention[/bold yellow]: the board and this host "
                  "disagreed; every move the board reported is logged")
        for note in info["attention"].split("\n"):
            out.print("    - %s" % escape(_shown(note)))
    texts = _option_texts(info)
    if texts:
        out.print("  options: %s" % escape(_shown("; ".join(texts))))


def _start_state(record):
    try:
        return games.start(record)
    except BadPosition:
        return None


def _print_end(ctx, view, state, info, upto=None, public=False):
    out = ctx.out
    if public and not state.is_over():
        # The scores of a hidden-information game in progress may count secret cards.
        out.print("The game is not over (status %s)%s." % (
            info["status"], "" if upto is None else "; stopped after move %d" % upto))
        return
    scores = ", ".join("P%d %+d" % (p, s) for p, s in enumerate(state.scores()))
    if upto is not None:
        out.print("Scores after move %d: %s" % (upto, scores))
        return
    out.print("Scores: %s" % scores)
    if state.is_over():
        out.print("Game over: %s." % view.end_reason(state))
        for line in view.result_lines(state):
            out.print(line, style="bold")
    else:
        out.print("The game is not over (status %s)." % info["status"])


def cmd_show(args, ctx):
    log = ctx.open()
    info = log.game(args.id)
    public, refusal = _public_mode(args, info)
    if refusal:
        return ctx.fail(refusal)
    record, digests = record_of(info)
    view = game_view(info["game"])
    report = log.verify(args.id)
    _header(ctx, info, view, _start_state(record), public)
    if not public:  # a correction names digests, which a spectator's view hides
        for event in log.events(args.id):
            if event["kind"] == "correction":
                data = event["data"]
                ctx.out.print("  corrected %s: move %s was first logged as %s with digest %s "
                              "(%s)" % (_when(event["at"]), event["number"],
                                        escape(_shown(str(data.get("move")))),
                                        escape(_shown(str(data.get("digest")))),
                                        escape(_shown(str(data.get("reason"))))))
    _print_hints(ctx, log.events(args.id), public)
    ctx.out.print()
    history = info["history"]
    back = len(history) - len(info["moves"])
    ctx.out.print("[bold]Moves[/bold] (%d%s)" % (len(info["moves"]), ", %d taken back" % back
                                                 if back else ""))
    if public:
        players, texts = formats.public_history(record, history)
    else:
        players, _ = formats.replay_history(record, history)
        texts = [h["move"] for h in history]
    live_texts = [t for t, h in zip(texts, history) if h["taken_back_at"] is None]
    index = dict((id(r), k) for k, r in enumerate(history))
    for kind, item in history_events(history):
        if kind == "takeback":
            ctx.out.print("%5d. [yellow]taken back[/yellow]" % item)
            continue
        mark = "   [dim](taken back)[/dim]" if item["taken_back_at"] is not None else ""
        k = index[id(item)]
        ctx.out.print("%5d. %s %s%s" % (item["number"], player_label(players[k]),
                                        escape(texts[k]), mark))
    if report.state is not None:
        # (player, move) as the view shows them: the moves replayed up to the problem.
        shown = [(p, m) for p, m in zip(report.players, live_texts) if p is not None]
        ctx.out.print()
        ctx.out.print("[bold]%s[/bold]" % ("Final position" if report.number is None else
                                           "Position after move %d" % report.number))
        ctx.out.print(view.render(report.state, None, {}, shown, width=ctx.out.width,
                                  palette=view.palette_for(ctx.out)))
        ctx.out.print()
        _print_end(ctx, view, report.state, info, report.number, public)
    if not report.ok:
        return ctx.fail("game %d does not replay: %s" % (
            args.id, _public_problem(report, live_texts) if public else report.message))
    ctx.out.print("[green]Every digest matches the replay (%s).[/green]"
                  % plural(len(info["moves"]), "move"))
    return 0


def _print_hints(ctx, events, public):
    """The hints taken (the log's "hint" events), each with the move it came before: the
    move hinted and why; as a spectator sees a game with secrets, only who took one
    (a hint names a move its player could make, which may tell their hand)."""
    for event in events:
        if event["kind"] != "hint":
            continue
        data = event["data"]
        seat = data.get("seat")
        who = "P%d" % seat if isinstance(seat, int) and not isinstance(seat, bool) \
            else "a player"
        before = "before move %d" % (event["number"] + 1)
        if public:
            ctx.out.print("  %s took a hint %s (%s)" % (who, before, _when(event["at"])))
            continue
        reason = data.get("reason")
        ctx.out.print("  hint for %s %s: %s%s (%s)" % (
            who, before, escape(_shown(str(data.get("move")))),
            " (%s)" % escape(_shown(str(reason))) if reason else "", _when(event["at"])))


# ---------------------------------------------------------------- replay

def cmd_replay(args, ctx):
    log = ctx.open()
    info = log.game(args.id)
    public, refusal = _public_mode(args, info)
    if refusal:
        return ctx.fail(refusal)
    record, digests = log.record(args.id)
    view = game_view(info["game"])
    palette = view.palette_for(ctx.out)
    try:
        state = games.start(record)
    except BadPosition as exc:
        _header(ctx, info, view, None, public)
        return ctx.fail("game %d cannot be set up: %s" % (args.id, exc))
    _header(ctx, info, view, state, public)
    module = games.load(info["game"])
    out = ctx.out
    out.print()
    out.print(view.render(state, None, {}, [], width=out.width, palette=palette))
    stepping = args.step
    history = []
    steps = replay_steps(record, digests)
    for k in range(1, len(record["moves"]) + 1):
        if stepping:
            try:
                answer = out.input("[dim]Enter: move %d of %d; q: stop[/dim] "
                                   % (k, len(record["moves"])))
            except EOFError:
                stepping = False  # no more input: play the rest without waiting
                answer = ""
            if answer.strip().lower() in ("q", "quit"):
                out.print("Stopped before move %d; the moves so far match the log." % k)
                return 0
        elif args.delay and k > 1:
            time.sleep(args.delay)
        # The public text needs the position before the move: the steps share one state.
        before = state.clone() if public else None
        step = next(steps)
        text = step.move
        if public:
            text = formats.PUBLIC_UNKNOWN_MOVE if step.illegal is not None \
                else formats.public_move_text(module, before, step.move)
        if step.player is not None:
            history.append((step.player, text))
        out.print()
        out.print("[bold]%d. %s %s[/bold]" % (step.number, player_label(step.player),
                                              escape(text)))
        if step.illegal is not None:
            if public:
                return ctx.fail("move %d (%s): the logged move is illegal"
                                % (step.number, player_label(step.player)))
            return ctx.fail("move %d (%s): the logged move %r is illegal: %s"
                            % (step.number, player_label(step.player), step.move,
                               step.illegal))
        state = step.state
        out.print(view.render(state, None, {}, history, width=out.width, palette=palette))
        if step.logged_digest != step.replayed_digest:
            if public:
                return ctx.fail("move %d (%s %s): the replay gives another digest than the "
                                "log" % (step.number, player_label(step.player),
                                         text))
            return ctx.fail("move %d (%s %s): digest mismatch: the log has %s, the replay gives "
                            "%s" % (step.number, player_label(step.player), step.move,
                                    step.logged_digest, step.replayed_digest))
        if public:
            out.print("[green]digest matches the log[/green]")
        else:
            out.print("[green]digest %s matches the log[/green]" % step.replayed_digest)
    out.print()
    diff = result_difference(info["result"], state)
    out.print("[green]All %s replayed; every digest matches the log.[/green]"
              % plural(len(record["moves"]), "move"))
    _print_end(ctx, view, state, info, public=public)
    if diff:
        return ctx.fail("game %d: the logged result differs from the replay%s"
                        % (args.id, "" if public else ": " + diff))
    return 0


# ---------------------------------------------------------------- export and import

def _write_atomically(path, text):
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def cmd_export(args, ctx):
    log = ctx.open()
    info = log.game(args.id)
    public, refusal = _public_mode(args, info)
    if refusal:
        return ctx.fail(refusal)
    report = log.verify(args.id)
    if public:
        writer = formats.export_public_json if args.format == "json" \
            else formats.export_public_text
    else:
        writer = formats.export_json if args.format == "json" else formats.export_text
    text = writer(log, args.id)
    if not report.ok:
        if public:
            _, texts = formats.public_history(record_of(info)[0], info["history"])
            live_texts = [t for t, h in zip(texts, info["history"])
                          if h["taken_back_at"] is None]
            message = _public_problem(report, live_texts)
        else:
            message = report.message
        ctx.warn("game %d does not replay cleanly (exported as logged): %s"
                 % (args.id, message))
    if args.output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    target = Path(args.output)
    if target.is_dir():
        return ctx.fail("%s is a folder" % args.output)
    try:
        _write_atomically(target, text)
    except OSError as exc:
        return ctx.fail("cannot write %s: %s" % (args.output, exc.strerror or exc))
    ctx.err.print("Game %d written to %s (%s%s, %s)."
                  % (args.id, escape(args.output), args.format,
                     ", public: it cannot be imported" if public else "",
                     plural(report.moves, "move")))
    return 0


def _read_import(name):
    if name == "-":
        data = sys.stdin.buffer.read(MAX_IMPORT_BYTES + 1) if hasattr(sys.stdin, "buffer") \
            else sys.stdin.read(MAX_IMPORT_BYTES + 1).encode("utf-8")
    else:
        path = Path(name)
        if path.is_dir():
            raise GameLogError("%s is a folder, not a game file" % name)
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_IMPORT_BYTES + 1)
        except FileNotFoundError:
            raise GameLogError("no such file: %s" % name)
        except OSError as exc:
            raise GameLogError("cannot read %s: %s" % (name, exc.strerror or exc))
    if len(data) > MAX_IMPORT_BYTES:
        raise GameLogError("%s is larger than %d MB: not a game record"
                           % (name, MAX_IMPORT_BYTES // (1024 * 1024)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise GameLogError("%s line %d: not UTF-8 text" % (name, line))


def cmd_import(args, ctx):
    text = _read_import(args.file)
    try:
        parsed = readers.parse(text)
    except BadImport as exc:
        return ctx.fail("%s: %s" % (args.file, exc))
    log = ctx.open(create=True)
    try:
        gid, report = readers.import_parsed(log, parsed, force=args.force)
    except BadImport as exc:
        return ctx.fail("%s: %s" % (args.file, exc))
    info = log.game(gid)
    if not report.ok:
        ctx.warn("imported although it does not replay cleanly (--force): %s" % report.message)
    same = [g for g in log.same_games(parsed.record, parsed.meta.get("started_at")) if g != gid]
    if same:
        ctx.warn("the log already held this game as game %s; imported again (--force)"
                 % ", ".join(str(g) for g in same))
    ctx.out.print("Imported %s (%s, %s) as game [bold]%d[/bold]: %s%s, status %s."
                  % (escape(args.file), escape(game_title(info["game"])), parsed.kind, gid,
                     plural(info["move_count"], "move"), " (%d taken back)" % info["taken_back"]
                     if info["taken_back"] else "", info["status"]))
    return 0


# ---------------------------------------------------------------- end and delete

def cmd_end(args, ctx):
    log = ctx.open()
    info = log.game(args.id)
    if info["status"] in ("over", "abandoned"):
        ctx.out.print("Game %d is already %s: nothing to do." % (args.id, info["status"]))
        return 0
    report = log.verify(args.id)
    if report.state is None or report.problem in ("setup", "illegal", "mismatch"):
        status, result = args.status or "abandoned", None
        ctx.warn("game %d does not replay (%s): it ends without a result"
                 % (args.id, report.message))
    elif report.state.is_over():
        status, result = "over", result_of(report.state)
    else:
        status = args.status or "abandoned"
        result = result_of(report.state, "ended by hand")
    log.end_game(args.id, status, result)
    log.flush()  # the file must take it now: say so otherwise
    ctx.out.print("Game %d is now %s (%s)." % (args.id, status, plural(info["move_count"], "move")))
    return 0


def cmd_delete(args, ctx):
    log = ctx.open()
    infos = [log.game(gid) for gid in args.ids]  # NoSuchGame before anything is removed
    if not args.yes:
        listing = ", ".join("%d (%s, %s, %s)" % (i["id"], game_title(i["game"]),
                                                 plural(i["move_count"], "move"), i["status"])
                            for i in infos)
        if not sys.stdin.isatty():
            return ctx.fail("delete game%s %s for good? Run it at a terminal to confirm, "
                            "or add --yes" % ("s" if len(infos) > 1 else "", listing))
        answer = ctx.out.input("Delete game%s %s for good? [y/N] "
                               % ("s" if len(infos) > 1 else "", escape(listing)))
        if answer.strip().lower() not in ("y", "yes"):
            ctx.out.print("Nothing deleted.")
            return 0
    for info in infos:
        log.delete_game(info["id"])
    ctx.out.print("Deleted game%s %s." % ("s" if len(infos) > 1 else "",
                                          ", ".join(str(i["id"]) for i in infos)))
    return 0


def cmd_verify(args, ctx):
    log = ctx.open()
    ids = args.ids or sorted(g["id"] for g in log.games())
    if not ids:
        ctx.out.print("No games in %s." % escape(db_label(ctx.path)))
        return 0
    failed = 0
    for gid in ids:
        info = log.game(gid)
        report = log.verify(gid)
        if report.ok:
            ctx.out.print("game %d (%s): %s" % (gid, escape(game_title(info["game"])),
                                                report.message))
            continue
        failed += 1
        if formats.hides_information(info["game"]):
            record, _ = record_of(info)
            history = info["history"]
            _, texts = formats.public_history(record, history)
            live = [t for t, h in zip(texts, history) if h["taken_back_at"] is None]
            problem = _public_problem(report, live)
        else:
            problem = report.message
        ctx.err.print("[red]game %d (%s): %s[/red]" % (gid, escape(game_title(info["game"])),
                                                       escape(problem)))
    ctx.out.print("[dim]%d of %d game%s verified[/dim]"
                  % (len(ids) - failed, len(ids), "" if len(ids) == 1 else "s"))
    return 1 if failed else 0


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

"""`vora games review ID [--budget N] [--plot FILE.png] [--again]`: the review of a finished
game, computed once with a progress bar and kept in the log, then shown as a table of the
moves and the marks summed per player (docs/host.md, "Reviewing a game").

Registered among the actions of `vora games` (vora_host.log.cli) by the command line
(vora_host.cli), since the log room cannot import this one."""

import argparse
import os
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from vora_host.log.database import db_label, resolve_db_path
from vora_host.log.errors import GameLogError, NoSuchGame
from vora_host.log.records import game_title
from vora_host.log.reviews import MARKS, THRESHOLDS, GameBeingPlayed
from vora_host.log.store import GameLog
from vora_host.review.evaluate import DEFAULT_BUDGET, MAX_BUDGET

__all__ = ["add_parser", "run", "HOW_MARKED", "KNOWS_SECRETS"]

LOCK_TIMEOUT = 5.0

HOW_MARKED = ("A move is marked when it cost its mover at least %g of their chance to win "
              "(before it minus after it) and the search would have played another move: "
              "an inaccuracy from %g, a mistake from %g, a blunder from %g."
              % (THRESHOLDS["inaccuracy"], THRESHOLDS["inaccuracy"], THRESHOLDS["mistake"],
                 THRESHOLDS["blunder"]))
KNOWS_SECRETS = ("This review knows every hand: it was made after the game from the true "
                 "state, which no player saw while playing.")


def _budget(text):
    if not text.isdigit() or not 1 <= int(text) <= MAX_BUDGET:
        raise argparse.ArgumentTypeError("the budget is a whole number of iterations from 1 "
                                         "to %d, not %r" % (MAX_BUDGET, text[:40]))
    return int(text)


def _game_id(text):
    if not text.isdigit() or len(text) > 18 or int(text) < 1:
        raise argparse.ArgumentTypeError("%r is not a game id (a whole number, see "
                                         "'vora games list')" % text[:40])
    return int(text)


def add_parser(actions, db_help):
    """Register `review` among `vora games`'s `actions` (argparse subparsers)."""
    review = actions.add_parser(
        "review", help="review a finished game: each mover's chance before and after each "
                       "move, the best move, the moves that cost the most",
        description="Review a finished game with the bots' search: for each move, the "
                    "mover's chance to win before and after it, the move the search would "
                    "have played where it differs, and a mark on the moves that lost the "
                    "most. " + HOW_MARKED + " Computed once and kept in the log (Ctrl-C "
                    "keeps what was done; the same command goes on from there); a bigger "
                    "--budget, or --again, computes it afresh. A game still being played "
                    "gets none. In Boars and Tossing Tiger the review knows every hand "
                    "(the true state, after the game) and says so.")
    review.add_argument("id", type=_game_id, metavar="ID", help="the game's id (see list)")
    review.add_argument("--budget", type=_budget, default=None, metavar="N",
                        help="the search's iterations per position (default: the stored "
                             "review's, else %d: a 300-move Vora game in under a minute "
                             "on two cores); the same budget gives the same review on "
                             "every run" % DEFAULT_BUDGET)
    review.add_argument("--plot", metavar="FILE.png", default=None,
                        help="also draw the chances over the game, marks shown, as a PNG")
    review.add_argument("--again", action="store_true",
                        help="compute the review afresh even if the log keeps a complete "
                             "one (one stopped part way goes on)")
    review.add_argument("--db", metavar="PATH|URL", default=argparse.SUPPRESS, help=db_help)
    review.set_defaults(games_run=run)
    return review


def _check_plot_path(path):
    """A message saying why `path` cannot take the plot, or None."""
    p = Path(path)
    if p.suffix.lower() != ".png":
        return "the plot is a PNG file: give a name ending in .png, not %s" % path
    if p.is_dir():
        return "%s is a folder; give a file name ending in .png" % path
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        return "cannot write the plot %s: there is no folder %s" % (path, folder)
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        return "cannot write the plot %s: permission denied" % path
    return None


def run(args, console):
    """Run `vora games review`; returns the exit status."""
    # Here, not at the top: the process pool's module is 10 ms of every `vora` command's
    # start, and multiprocessing (vora_host.review.run) some 3 ms more; only a review uses
    # them.
    from concurrent.futures.process import BrokenProcessPool

    from vora_host.review.run import GameDoesNotReplay
    err = Console(stderr=True, highlight=False)
    path = resolve_db_path(getattr(args, "db", None))

    def fail(message):
        err.print("[red]vora games review: %s[/red]" % escape(message))
        return 1

    if args.plot is not None:
        problem = _check_plot_path(args.plot)
        if problem:
            return fail(problem)
        try:
            import matplotlib  # noqa: F401 (a dependency; checked before the work)
        except ImportError:
            return fail("the plot needs matplotlib (pip install matplotlib, as in "
                        "requirements.lock); or leave out --plot")
    log = None
    try:
        log = GameLog(path, create=False, timeout=LOCK_TIMEOUT)
        review = _compute(log, args, console, err)
        if review is None:
            return 130
        info = log.game(args.id)
    except BrokenProcessPool:
        return fail("game %d: a worker process ended before its work was done (killed, or "
                    "out of memory?); the moves reviewed so far are kept: run the same "
                    "command to go on" % args.id)
    except NoSuchGame as exc:
        return fail("no game %s in %s (see 'vora games list')" % (exc.game_id, db_label(path)))
    except (GameBeingPlayed, GameDoesNotReplay, ValueError) as exc:
        return fail(str(exc))
    except GameLogError as exc:
        return fail(str(exc))
    finally:
        if log is not None:
            log.close()
    show(review, info["players"], console)
    if args.plot is not None:
        from vora_host.review.plot import write_plot
        try:
            write_plot(review, args.plot, info["players"])
        except OSError as exc:
            return fail("cannot write the plot %s: %s" % (args.plot, exc.strerror or exc))
        console.print("The chances over the game: %s" % escape(str(args.plot)))
    return 0


def _compute(log, args, console, err):
    """The review, computed with a progress bar on the terminal; None when stopped."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    from vora_host.review.run import ReviewStopped, review_game
    progress = Progress(TextColumn("{task.description}"), BarColumn(),
                        TextColumn("{task.completed}/{task.total} moves"),
                        TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                        console=err, disable=not err.is_terminal, transient=True)
    task = []

    def on_start(total, done, budget):
        err.print("Reviewing game %d: %d moves, %d iterations a position%s"
                  % (args.id, total, budget,
                     "" if not done else " (going on from move %d)" % (done + 1)))
        progress.start()
        task.append(progress.add_task("reviewing", total=total, completed=done))

    def on_progress(done, total):
        progress.update(task[0], completed=done)

    try:
        return review_game(log, args.id, budget=args.budget, again=args.again,
                           on_progress=on_progress, on_start=on_start)
    except ReviewStopped as stop:
        progress.stop()
        err.print("[yellow]vora games review: game %d: %s[/yellow]" % (args.id, stop))
        return None
    finally:
        progress.stop()


def show(review, players, console):
    """The review as a table of its moves and the marks summed per player."""
    console.print("[bold]Review of game %d (%s)[/bold]: %d iterations a position%s"
                  % (review["game_id"], escape(game_title(review["game"])), review["budget"],
                     "" if review["complete"] else " [yellow](partial: run the same "
                                                   "command to go on)[/yellow]"))
    if review["knows_secrets"]:
        console.print("[yellow]%s[/yellow]" % KNOWS_SECRETS)
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("P")
    table.add_column("move", overflow="fold")
    table.add_column("chance", no_wrap=True)
    table.add_column("best (chance)", overflow="fold")
    table.add_column("mark", no_wrap=True)
    table.add_column("H", no_wrap=True)
    colours = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "red"}
    for m in review["moves"]:
        best = "" if m["best"] is None else "%s (%.2f)" % (escape(m["best"]), m["best_chance"])
        mark = "" if m["mark"] is None else "[%s]%s[/]" % (colours[m["mark"]], m["mark"])
        table.add_row(str(m["number"]), "P%d" % m["player"], escape(m["move"]),
                      "%.2f -> %.2f" % (m["before"], m["after"]), best, mark,
                      "H" if m["hint"] else "")
    console.print(table)
    summary = Table(title="Marks per player", box=None, pad_edge=False, header_style="bold",
                    title_justify="left")
    summary.add_column("player")
    for name in MARKS:
        summary.add_column(name[:-1] + "ies" if name.endswith("y") else name + "s",
                           justify="right")
    summary.add_column("hints", justify="right")
    for p in range(players):
        mine = [m for m in review["moves"] if m["player"] == p]
        summary.add_row("P%d" % p, *[str(sum(m["mark"] == name for m in mine))
                                     for name in MARKS]
                        + [str(sum(m["hint"] for m in mine))])
    console.print(summary)
    console.print("[dim]%s H: a hint was taken before the move.[/dim]" % HOW_MARKED)

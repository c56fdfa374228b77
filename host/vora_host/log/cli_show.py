"""`vora games list`, `show`, `replay` and `verify`: the actions that read the game log.

Each takes the parsed arguments and the command's context (vora_host.log.cli: the
output, the errors, the log opened) and returns the exit status. Split from
vora_host.log.cli (issue 42): reading and drawing the logged games is one concern, the
command's parser another, and the actions that write (vora_host.log.cli_records) a
third.
"""

import os
import time

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from shared_rules import games
from shared_rules.errors import BadPosition

from vora_host.log import formats
from vora_host.log.cli_views import (_age_hours, _option_texts, _public_mode,
                                     _public_problem, _result_text, _shown, _when,
                                     game_view)
from vora_host.log.database import db_label
from vora_host.log.errors import DatabaseError, NoLog
from vora_host.log.records import game_title
from vora_host.log.verify import (history_events, player_label, record_of, replay_steps,
                                  result_difference)
from vora_host.words import plural, print_table

__all__ = ["cmd_list", "cmd_show", "cmd_replay", "cmd_verify"]

# A game still "playing" after this long, and not imported, is probably stale.
STALE_HOURS = 12


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

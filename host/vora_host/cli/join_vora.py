"""`vora play --join LINK --port DEVICE|sim` at a Vora table: this PC's board plays the
seat with its own Vora (its keys, lights and previews), the table on the other computer
is the referee, and a copy of it here keeps the board in step
(vora_host.remote.remote_vora) and is logged here."""

import sys

from rich.console import Console
from rich.markup import escape

__all__ = ["cmd_join_vora_board", "cmd_vora_board_table", "open_copy_table"]


def open_copy_table(args, console, client, view, say):
    """(the copy of the table there, RemoteTable, its LiveLog in this computer's log or
    None, None) for `vora play --join LINK --port ...`; or (None, None, exit status) when
    the copy cannot be made or logged (said). `say(text)`: the log's words."""
    from vora_host.remote.remote_table import CannotCopy, RemoteTable
    live, logged = None, []
    if not args.no_log and view.get("record") is not None:
        from vora_host.cli.resume import _refuse_held
        from vora_host.log.database import resolve_db_path
        from vora_host.log.errors import GameHeld
        from vora_host.remote.join import open_copy
        try:
            live, logged = open_copy(resolve_db_path(args.db), "remote %s" % client.host,
                                     view["record"], view["record"]["options"], say)
        except GameHeld as exc:
            return None, None, _refuse_held(console, exc)
    try:
        return RemoteTable(client, view, log=live, logged=logged), live, None
    except CannotCopy as exc:
        console.print("[red]%s[/red]" % escape(str(exc)))
        if live is not None:
            live.finish()
        return None, None, 1


def cmd_join_vora_board(args, console, client, view, device, played=None):
    """The seat `client` opened (its first `view`) played on the board at `device` (a
    path; None: the virtual board). `played`: {player: how each other seat is played} when
    the table is this PC's own (cmd_vora_board_table); None for a table elsewhere. Returns
    the exit status."""
    from vora_host.link.mirror import VirtualCompanion, run_mirror
    from vora_host.log.records import result_of
    from vora_host.remote.remote_table import start_following
    from vora_host.remote.remote_vora import RemoteVoraPlay
    from vora_host.virtual import sim
    plain = not (sys.stdout.isatty() and sys.stdin.isatty())
    table, live, status = open_copy_table(args, console, client, view, console.print)
    if table is None:
        return status
    if played is None:
        console.print("[bold]%s[/bold] at %s on this board: you play %s; the others play "
                      "there. The board keeps its own keys and lights; the table there "
                      "decides. Typed beside it: hint, undo, yes/no (to a takeback), resign, "
                      "q." % (escape(view["title"]), escape(client.host),
                              escape(table.labels[table.you])), soft_wrap=True)
    else:
        label = lambda p: table.view.seat_label(table.state, p)  # noqa: E731
        console.print("[bold]%s[/bold] on this board: you play %s; %s. The board keeps its "
                      "own keys and lights; this PC's table decides. Typed beside it: hint, "
                      "undo, yes/no (to a takeback), resign, q." % (
                          escape(view["title"]), escape(label(table.you)),
                          escape("; ".join("%s: %s" % (label(p), shown[0])
                                           for p, shown in sorted(played.items())))),
                      soft_wrap=True)
    plays = []

    def make_play(board_client):
        plays.append(RemoteVoraPlay(board_client, table, played=played))
        return plays[-1]
    stop = start_following(table, client, lambda text: plays and plays[-1].say(
        "the table's stream: %s; connecting again" % text))
    try:
        if device is not None:
            status = run_mirror(device, None, play=make_play)
        else:
            status = sim.run(save_dir=args.save_dir, fresh=False, seed=None, headless=plain,
                             companion=VirtualCompanion(None, sys.stdout, plain,
                                                        play=make_play))
    finally:
        stop.set()
        table.leave()
    logged_ok = True
    if live is not None:
        if not table.is_over():
            live.ended("interrupted", result_of(table.state, "left the remote table"))
        message, logged_ok = live.finish()
        console.print(escape(message), style=None if logged_ok else "bold red",
                      soft_wrap=True)
    if not table.is_over() and played is None:
        console.print("You left the table; it goes on at %s. The same command joins again."
                      % escape(client.host))
    return status if logged_ok else (status or 1)


def cmd_vora_board_table(args, console, parser, device):
    """`vora play vora --port DEVICE|sim --web SEATS`: Vora on this PC's board (at
    `device`; None: the virtual board) with browser seats, and bots for the rest. The board
    plays one seat with its own keys, lights and previews; a table on this PC is the
    referee and logs the game, and the board joins it as `vora play --join` joins a table
    elsewhere: through the table's own web server, on this computer only (so the board's
    seat is kept in step, set again from the table when the two part, exactly as at a
    remote table). Returns the exit status."""
    from vora_host.cli.play_args import _prepare_game
    from vora_host.games.vora import view as vora_view
    from vora_host.log.database import resolve_db_path
    from vora_host.log.records import result_of
    from vora_host.play.saved import end_status
    from vora_host.remote.remote_vora import IN_A_BROWSER
    from vora_host.remote.seat_client import RemoteError, SeatClient
    from vora_host.table import Human, Table
    from vora_host.web import seating
    from vora_host.web.cli import WEB_PORT, _close_web_seats, _web_server
    from vora_host.web.seats import BrowserSeat
    if args.resume is not None:
        parser.error("--resume with --web: Vora on the board resumes the board's own saved "
                     "game (leave out --web); a table's game starts anew")
    module, state, seed, agents = _prepare_game(args, parser)
    board = [p for p, a in enumerate(agents) if type(a) is Human]
    if len(board) != 1:
        parser.error("--web with Vora on the board: the board plays one seat, the one no "
                     "browser (--web) and no bot (--bot) plays; here %s" % (
                         "every seat is a browser's or a bot's" if not board else
                         "%d seats are left to it" % len(board)))
    you = board[0]
    err = Console(stderr=True, highlight=False)  # stdout's first line: the virtual board's
    if _web_server(err, "vora play --web") is None:
        return 1
    from vora_host.web import serve
    live = None
    if not args.no_log:
        from vora_host.cli.resume import _refuse_held
        from vora_host.log.errors import GameHeld
        from vora_host.log.live import LiveLog
        try:
            live = LiveLog(resolve_db_path(args.db), "vora", len(agents), seed,
                           state.options(), source="virtual board" if device is None
                           else "board %s" % device,
                           say=lambda text: err.print("[yellow]Game log: %s[/yellow]"
                                                      % escape(text)))
        except GameHeld as exc:
            return _refuse_held(console, exc)
    table = Table("vora", state, agents, log=live, label=lambda p: vora_view.seat_label(
        table.state, p), claim_after=args.claim_after, seed=seed)
    web = [p for p, a in enumerate(agents) if isinstance(a, BrowserSeat)]
    try:
        server, registry, links = seating.open_seats(
            table, web + [you], args.host, WEB_PORT if args.serve is None else args.serve,
            resolve_db_path(args.db))
    except serve.PortBusy as exc:
        err.print("[red]vora play --web: %s[/red]" % escape(str(exc)), soft_wrap=True)
        if live is not None:
            live.ended("abandoned", result_of(state, "the web seats could not start"))
            live.finish()
        return 1
    status = 1
    try:
        seating.print_links(err, table, dict((p, links[p]) for p in web), args.host,
                            qr=err.is_terminal)
        client = SeatClient(links[you])
        try:
            view = client.view()
        except RemoteError as exc:  # this computer's own server: not expected
            err.print("[red]vora play --web: the board cannot reach this PC's table: %s"
                      "[/red]" % escape(str(exc)), soft_wrap=True)
            return 1
        played = dict((p, IN_A_BROWSER if p in web else
                       ("%s (PC)" % agents[p].kind, agents[p].kind))
                      for p in range(len(agents)) if p != you)
        args.no_log = True  # the table logs the game: the board's copy is not logged again
        status = cmd_join_vora_board(args, console, client, view, device, played=played)
    finally:
        _close_web_seats((server, registry), table)
        if live is not None:
            if table.stopped is None:  # (a resignation was logged by the table)
                live.ended(end_status(table.state), result_of(
                    table.state, None if table.is_over() else "the board left the table"))
            message, logged = live.finish()
            console.print(escape(message), style=None if logged else "bold red",
                          soft_wrap=True)
            if not logged:
                status = status or 1
    return status

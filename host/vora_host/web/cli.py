"""The web server on the command line: `vora serve` (the web mirror in the foreground), and
what `vora play` starts beside a game: the web mirror in a thread (--serve) and the seats
played in browsers (--web: the server, each seat's link and QR code).

Apart from the top command line (vora_host.cli) as the log's, the lab's and the makers'
commands are: each room registers its own commands (add_parser) and runs them.
"""

import argparse
import sys

from rich.console import Console
from rich.markup import escape

from vora_host.web import DEFAULT_PORT as DEFAULT_WEB_PORT
from vora_host.web import MAX_TABLES


def display_path(text):
    """A log's path or URL as it may be shown (a URL's password hidden)."""
    from vora_host.log.postgres import hide_passwords
    return hide_passwords(str(text))

__all__ = ["add_parser", "cmd_serve", "WEB_PORT", "port_number", "stream_count"]

WEB_PORT = DEFAULT_WEB_PORT  # vora serve, vora play --serve


def add_parser(sub):
    """vora serve's arguments."""
    serve = sub.add_parser(
        "serve", help="the web mirror: every board and game of the log in a browser",
        description="Start a local web server that shows every game of the game log in a "
                    "browser: the boards being played, live (within a poll of the log), and "
                    "any logged game move by move (a slider, the arrow keys), each move's "
                    "digest checked. Boars and Tossing Tiger are shown as a spectator sees "
                    "them until the game is over. Prints its address; Ctrl-C stops. "
                    "docs/web.md says more.")
    serve.add_argument("--port", type=port_number, default=None, metavar="PORT",
                       help="the TCP port (default %d; 0: any free port)" % WEB_PORT)
    serve.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                       help="the address to listen on (default 127.0.0.1: this computer "
                            "only; 0.0.0.0 lets the network watch)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="a name this computer is reached by (repeat for several): "
                            "pages are served only to requests naming localhost, an IP "
                            "address, the --host name or one of these (against DNS "
                            "rebinding)")
    serve.add_argument("--max-streams", type=stream_count, default=500, metavar="N",
                       help="live-update streams (open pages) at once at most, default "
                            "500; past that a page is told why it gets no live updates")
    serve.add_argument("--db", "--log", dest="db", metavar="PATH|URL", default=None,
                       help="the game log to show (as vora games): an SQLite file or a "
                            "postgresql:// URL")
    serve.add_argument("--tables", action="store_true",
                       help="also play tables here: anyone who reaches the server sets up a "
                            "game at /tables with browser seats (a link each, for phones or "
                            "'vora play --join') and the server's bots; logged in this log, "
                            "and taken up again when the server starts again")
    serve.add_argument("--max-tables", type=table_count, default=None, metavar="N",
                       help="with --tables: tables played at once at most (default %d, "
                            "each worker)" % MAX_TABLES)
    serve.add_argument("--workers", type=worker_count, default=1, metavar="N",
                       help="server processes answering on the port (default 1). With "
                            "--tables each plays its own tables, and a seat's request "
                            "reaching another is relayed to it through the log's "
                            "database: a PostgreSQL log (--db postgresql://...)")


def port_number(text):
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError("%r is not a TCP port (0 to 65535)" % text[:40])
    return int(text)


def table_count(text):
    if not (text.isdigit() and text.isascii()) or not 1 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError("%r is not a number of tables (1 to 1000)"
                                         % text[:40])
    return int(text)


def worker_count(text):
    from vora_host.web.workers import MAX_WORKERS
    if not (text.isdigit() and text.isascii()) or not 1 <= int(text) <= MAX_WORKERS:
        raise argparse.ArgumentTypeError("%r is not a number of server processes (1 to %d)"
                                         % (text[:40], MAX_WORKERS))
    return int(text)


def stream_count(text):
    if not (text.isdigit() and text.isascii()) or not 1 <= int(text) <= 100000:
        raise argparse.ArgumentTypeError("%r is not a number of streams (1 to 100000)"
                                         % text[:40])
    return int(text)


def _web_server(err, who):
    """vora_host.web.serve, or None after saying what is missing."""
    try:
        from vora_host.web import serve
    except ImportError as exc:
        err.print("[red]%s: the web mirror needs starlette and uvicorn, which are not "
                  "installed (%s): pip install starlette uvicorn[/red]"
                  % (who, escape(str(exc))), soft_wrap=True)
        return None
    return serve


def cmd_serve(args, console):
    """vora serve: the web mirror in the foreground until Ctrl-C."""
    from vora_host.log.database import resolve_db_path
    serve = _web_server(Console(stderr=True, highlight=False), "vora serve")
    if serve is None:
        return 1
    path = resolve_db_path(args.db)
    err = Console(stderr=True, highlight=False)
    if args.max_tables is not None and not args.tables:
        err.print("[red]vora serve: --max-tables goes with --tables[/red]")
        return 2
    from vora_host.log.postgres import is_db_url
    if args.workers > 1 and args.tables and not is_db_url(str(path)):
        err.print("[red]vora serve: --tables with --workers needs a PostgreSQL log (--db "
                  "postgresql://...): a seat's request reaching another worker is relayed "
                  "through the database; with an SQLite log, serve the tables with one "
                  "worker[/red]", soft_wrap=True)
        return 2
    try:
        sock = serve.bind(args.host, WEB_PORT if args.port is None else args.port)
    except serve.PortBusy as exc:
        err.print("[red]vora serve: %s[/red]" % escape(str(exc)), soft_wrap=True)
        return 1
    tables = None
    if args.tables and args.workers == 1:
        tables = _table_host(path, args, console)
        if tables is None:
            return 1
    most = tables.max_tables if tables is not None else (
        MAX_TABLES if args.max_tables is None else args.max_tables)
    console.print("Serving the game log %s at %s%s (Ctrl-C stops)"
                  % (escape(display_path(path)), serve.address_of(sock),
                     " with %d server processes" % args.workers if args.workers > 1
                     else ""), soft_wrap=True)
    if args.tables:
        console.print("Tables: %stables sets one up (at most %d at once%s)%s."
                      % (serve.address_of(sock), most,
                         " in each process" if args.workers > 1 else "",
                         "; anyone on the network who reaches this server may"
                         if args.host not in ("127.0.0.1", "localhost", "::1") else ""),
                      soft_wrap=True)
    sys.stdout.flush()
    if args.workers > 1:
        from vora_host.web.hosts import served_names
        from vora_host.web.workers import run
        return run(sock, path, served_names(args.host, args.allow_host), args.max_streams,
                   args.workers, {"max_tables": most} if args.tables else None,
                   grace=serve.GRACE_SECONDS)
    return serve.serve(sock, path, listen=args.host, allow=args.allow_host,
                       max_streams=args.max_streams, tables=tables)


def _table_host(path, args, console):
    """vora serve --tables: the tables, those the log left unfinished taken up again."""
    from vora_host.web.seats import SeatRegistry
    from vora_host.web.tables import TableHost

    def say(text):
        console.print("[yellow]%s[/yellow]" % escape(text), soft_wrap=True)
    registry = SeatRegistry()
    from vora_host.log.postgres import is_db_url
    if is_db_url(str(path)):
        # Other servers on the same database (several hosts behind a proxy) may be
        # asked for this server's seats, and this one for theirs: vora_host.web.relay.
        from vora_host.web.relay import Relay
        try:
            registry.attach(Relay(str(path)).start())
        except Exception as exc:  # the database cannot be reached
            console.print("[red]vora serve: the tables cannot start: %s[/red]"
                          % escape(display_path(str(exc))), soft_wrap=True)
            return None
    tables = TableHost(path, registry, MAX_TABLES if args.max_tables is None
                       else args.max_tables, say=say)
    tables.resume()
    return tables


def _start_web(port, db, host=None):
    """vora play --serve: the web mirror in a thread; None (said why) if it cannot start.
    Its address goes to stderr: the virtual board's first stdout line is its device."""
    from vora_host.log.database import resolve_db_path
    err = Console(stderr=True, highlight=False)
    serve = _web_server(err, "vora play --serve")
    if serve is None:
        return None
    try:
        sock = serve.bind(host or "127.0.0.1", port)
    except serve.PortBusy as exc:
        err.print("[red]vora play --serve: %s[/red]" % escape(str(exc)), soft_wrap=True)
        return None
    server = serve.start_in_thread(sock, resolve_db_path(db), listen=host)
    err.print("Web mirror at %s" % serve.address_of(sock), style="dim", soft_wrap=True)
    return server


def _open_web_seats(args, console, table):
    """vora play --web: the web server with the browser seats of `table`, their links
    printed (and their QR codes at a terminal): (server, registry), or None after saying
    why not."""
    from vora_host.log.database import resolve_db_path
    from vora_host.web import seating
    from vora_host.web.seats import BrowserSeat
    err = Console(stderr=True, highlight=False)
    if _web_server(err, "vora play --web") is None:
        return None
    from vora_host.web import serve
    players = [p for p, a in enumerate(table.agents) if isinstance(a, BrowserSeat)]
    try:
        server, registry, links = seating.open_seats(
            table, players, args.host, WEB_PORT if args.serve is None else args.serve,
            resolve_db_path(args.db))
    except serve.PortBusy as exc:
        err.print("[red]vora play --web: %s[/red]" % escape(str(exc)), soft_wrap=True)
        return None
    seating.print_links(console, table, links, args.host, qr=console.is_terminal)
    return server, registry


def _close_web_seats(web, table):
    """The game is done: its last view reaches the browsers open on its seats (a few
    seconds at most), then their streams end and the server stops."""
    server, registry = web
    registry.settle(table, SETTLE_SECONDS)
    registry.close()
    server.should_exit = True


SETTLE_SECONDS = 5.0

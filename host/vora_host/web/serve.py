"""Running the web mirror: `vora serve` in the foreground, `vora play --serve` in a thread.

The port is bound here, before uvicorn starts, so that a busy port (a second `vora
serve`, another program) is said in one clear sentence and nothing else happens; uvicorn
then serves on that very socket (no race between the check and the use).
"""

import errno
import logging
import socket
import threading

import uvicorn

from vora_host.web import DEFAULT_PORT
from vora_host.web.app import CUT_MESSAGE, MAX_STREAMS, create_app
from vora_host.web.hosts import served_names

__all__ = ["DEFAULT_PORT", "DEFAULT_HOST", "PortBusy", "bind", "address_of", "serve",
           "start_in_thread"]

DEFAULT_HOST = "127.0.0.1"
GRACE_SECONDS = 1  # open event streams are cut this long after Ctrl-C
SEND_BUFFER = 256 * 1024  # bytes: each connection's socket send buffer (Linux doubles it)
GIVE_UP_SECONDS = 30  # a connection whose peer takes nothing this long is closed


class PortBusy(OSError):
    """The port cannot be bound (in use, not allowed, no such address), in words."""


def bind(host, port):
    """A listening socket on host:port (port 0: any free port); PortBusy says why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise PortBusy("cannot serve on %s: no such address here (%s)" % (host, exc.strerror))
    family, kind, proto, _, where = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Every connection it accepts takes this send buffer (not grown by the kernel up
        # to 4 MB): a page that reads nothing holds at most this much of the kernel's
        # memory, and its stream soon waits, and is dropped (app.WRITE_STALL_SECONDS).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        # And a peer that takes nothing of what was sent for this long (a page dropped
        # for reading nothing, a computer gone) is given up by the kernel, so that its
        # connection and buffers are freed (Linux: zero-window probes count too).
        if hasattr(socket, "TCP_USER_TIMEOUT") and family in (socket.AF_INET,
                                                                socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT,
                            int(GIVE_UP_SECONDS * 1000))
        sock.bind(where)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortBusy("port %d on %s is busy: another program (perhaps another 'vora "
                           "serve') already serves there; choose another with --port, or "
                           "--port 0 for any free one" % (port, host))
        if exc.errno == errno.EACCES:
            raise PortBusy("port %d on %s is not allowed to this user (ports below 1024 "
                           "need privileges): choose another with --port" % (port, host))
        raise PortBusy("cannot serve on %s port %d: %s" % (host, port, exc.strerror or exc))
    sock.setblocking(False)
    return sock


def address_of(sock):
    """The http:// address of a bound socket, as a browser opens it."""
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = "[%s]" % host
    return "http://%s:%d/" % (host, port)


class _LeaveOutCuts(logging.Filter):
    """uvicorn says CUT_MESSAGE of every response that ends unfinished: left out for the
    event streams the app cut on purpose (a page that read nothing; the app logs its own
    line), kept for anything else."""

    def __init__(self, app):
        super().__init__()
        self.app = app

    def filter(self, record):
        if self.app.state.cut_streams > 0 and record.getMessage() == CUT_MESSAGE:
            self.app.state.cut_streams -= 1
            return False
        return True


def _server(sock, path, names=None, max_streams=MAX_STREAMS, seats=None, tables=None):
    app = create_app(path, names=names, max_streams=max_streams, seats=seats, tables=tables)
    config = uvicorn.Config(app, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=GRACE_SECONDS, lifespan="on")
    logging.getLogger("uvicorn.error").addFilter(_LeaveOutCuts(app))
    server = uvicorn.Server(config)
    app.state.closing = lambda: server.should_exit
    return server


def serve(sock, path, listen=None, allow=(), max_streams=MAX_STREAMS, tables=None):
    """Serve the game log at `path` on `sock` until Ctrl-C. `listen`: the --host it
    listens on, a name it answers to (with localhost and every IP address); `allow`:
    more names (--allow-host); `max_streams`: live event streams at most; `tables`: the
    tables it plays (vora_host.web.tables.TableHost), or None."""
    server = _server(sock, path, served_names(listen, allow), max_streams, tables=tables)
    server.run(sockets=[sock])
    return 0


def start_in_thread(sock, path, listen=None, allow=(), max_streams=MAX_STREAMS, seats=None,
                    tables=None):
    """Serve in a daemon thread (beside `vora play`); returns the uvicorn server, whose
    `should_exit = True` stops it. `seats`: the browser seats of the game played beside
    it (vora_host.web.seats.SeatRegistry); `tables`: the tables it plays (as serve())."""
    server = _server(sock, path, served_names(listen, allow), max_streams, seats, tables)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name="vora-web", daemon=True)
    thread.start()
    server.thread = thread
    return server

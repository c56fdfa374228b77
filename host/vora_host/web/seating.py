"""`vora play GAME --web 1,2`: some seats of the table played from browsers.

The web server (vora_host.web.serve, the mirror's, with the seats' routes) runs in a thread
beside the game; each browser seat gets a link with its own token, printed on a line of
its own and drawn as a QR code, so that a phone at the table scans it. The server listens
on this computer alone (127.0.0.1) unless the player asks for more with --host: then it
says so, and which address the phones use.
"""

import io
import socket

from rich.markup import escape

__all__ = ["LOCAL", "open_seats", "lan_address", "seat_url", "print_links", "qr_text"]

LOCAL = "127.0.0.1"


def lan_address():
    """This computer's address on its network, as another device there reaches it: the
    address its route out would use (a UDP socket is connected, nothing is sent), else
    the one its name resolves to, else the loopback address."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered, never sent to
        address = probe.getsockname()[0]
        if address and not address.startswith("0."):
            return address
    except OSError:
        pass
    finally:
        probe.close()
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return LOCAL


def seat_url(base, token):
    """A seat's link: `base` is the server's http://address:port/."""
    return "%sseat/%s" % (base, token)


def qr_text(url):
    """The QR code of `url` for a terminal (two rows of modules a line), or None when it
    cannot be made."""
    try:
        import segno
    except ImportError:
        return None
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def open_seats(table, players, host, port, db_path, allow=()):
    """Start the web server with the seats of `players` of `table`: (server, registry,
    {player: url}). `host` None: this computer only. PortBusy (vora_host.web.serve) when
    the port cannot be had."""
    from vora_host.web import serve
    from vora_host.web.seats import SeatRegistry
    registry = SeatRegistry()
    tokens = registry.open(table, players)
    listen = host or LOCAL
    sock = serve.bind(listen, port)
    server = serve.start_in_thread(sock, db_path, listen=listen, allow=allow, seats=registry)
    bound_port = sock.getsockname()[1]
    if listen in ("0.0.0.0", "::", ""):
        shown = lan_address()
    else:
        shown = listen
    base = "http://%s:%d/" % ("[%s]" % shown if ":" in shown else shown, bound_port)
    return server, registry, dict((p, seat_url(base, t)) for p, t in tokens.items())


def print_links(console, table, links, host, qr=True):
    """Each seat's link on a line of its own (and its QR code), and where they work."""
    for p, url in sorted(links.items()):
        label = table.view.seat_label(table.state, p)
        console.print("[bold]%s[/bold] plays in a browser: %s" % (escape(label), url),
                      soft_wrap=True, highlight=False)
        code = qr_text(url) if qr else None
        if code:
            console.out(code, highlight=False)
    if host:
        console.print("[yellow]The server listens on %s: anyone on this network who has a "
                      "seat's link can play that seat. Keep the links to the players.[/yellow]"
                      % escape(host), soft_wrap=True)
    else:
        console.print("[dim]The links work on this computer only; for phones on your "
                      "network add --host 0.0.0.0.[/dim]", soft_wrap=True)

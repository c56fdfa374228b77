"""The link's commands: `vora mirror` (follow a board's game live and log every move) and
`vora repl` (ask the board to leave its application for mpremote).

Apart from the top command line (vora_host.cli) as the log's, the lab's and the makers'
commands are: each room registers its own commands (add_parsers) and runs them.
"""

from rich.markup import escape

from vora_host.log.session import _close_log, _open_log

__all__ = ["add_parsers", "cmd_mirror", "cmd_repl", "COMMANDS"]

COMMANDS = ("mirror", "repl")


def add_parsers(sub):
    """vora mirror's and vora repl's arguments."""
    mirror = sub.add_parser(
        "mirror", help="follow a board: show its game live and log every move",
        description="Follow the board's game over its serial link: the meadow, whose turn, "
                    "farms, scores and the last moves, live; every move is logged (vora "
                    "games). Reconnects by itself after an unplug. Ctrl-C stops.")
    mirror.add_argument("--port", default=None, metavar="DEVICE",
                        help="the serial device (default: the board found on USB); the "
                             "path printed by 'vora sim' follows the virtual board")
    mirror.add_argument("--db", metavar="PATH|URL", default=None,
                        help="the game log (as vora play)")
    mirror.add_argument("--plain", action="store_true",
                        help="print one line per event instead of drawing (the default "
                             "when the output is not a terminal)")

    repl = sub.add_parser(
        "repl", help="stop the board's application so that mpremote reaches its REPL",
        description="Ask the board (over the link) to leave its application for the "
                    "MicroPython REPL, then use mpremote. Another way: hold a corner key "
                    "while plugging the board in (safe mode). Reset the board to play again.")
    repl.add_argument("--port", default=None, metavar="DEVICE",
                      help="the serial device (default: the board found on USB)")


def _board_device(args, console, must_exist=True):
    """The board's serial device from --port or USB, or None after saying why not
    (must_exist: also for a named device that is not there)."""
    from vora_host.link import ports
    try:
        return ports.choose_port(args.port, must_exist=must_exist)
    except ports.NoBoard as exc:
        console.print("[red]%s[/red]" % escape(str(exc)))
        return None


def cmd_mirror(args, console):
    from vora_host.link import portlock
    from vora_host.link.mirror import run_mirror
    # A mirror may start before its board: a missing device is waited for, and its
    # waiting line says the system's error and the devices found.
    device = _board_device(args, console, must_exist=False)
    if device is None:
        return 1
    try:  # the port is this mirror's alone: refused at once when another program has it
        held = portlock.acquire(device)
    except portlock.PortBusy as exc:
        console.print("[red]vora mirror: %s[/red]" % escape(str(exc)), soft_wrap=True)
        return 1
    try:
        log = _open_log(console, args.db)
        if log is None:
            return 1
        try:
            return run_mirror(device, log, plain=True if args.plain else None)
        finally:
            _close_log(log)
    finally:
        portlock.release(held)


def cmd_repl(args, console):
    from vora_host.link.mirror import send_repl
    device = _board_device(args, console)
    if device is None:
        return 1
    ok, text = send_repl(device)
    console.print(text, style=None if ok else "red")
    return 0 if ok else 1

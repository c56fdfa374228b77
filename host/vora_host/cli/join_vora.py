"""`vora play --join LINK --port DEVICE|sim` at a Vora table: this PC's board plays the
seat with its own Vora (its keys, lights and previews), the table on the other computer
is the referee, and a copy of it here keeps the board in step
(vora_host.remote.remote_vora) and is logged here."""

import sys

from rich.markup import escape

__all__ = ["cmd_join_vora_board", "open_copy_table"]


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


def cmd_join_vora_board(args, console, client, view, device):
    """The seat `client` opened (its first `view`) played on the board at `device` (a
    path; None: the virtual board). Returns the exit status."""
    from vora_host.link.mirror import VirtualCompanion, run_mirror
    from vora_host.log.records import result_of
    from vora_host.remote.remote_table import start_following
    from vora_host.remote.remote_vora import RemoteVoraPlay
    from vora_host.virtual import sim
    plain = not (sys.stdout.isatty() and sys.stdin.isatty())
    table, live, status = open_copy_table(args, console, client, view, console.print)
    if table is None:
        return status
    console.print("[bold]%s[/bold] at %s on this board: you play %s; the others play there. "
                  "The board keeps its own keys and lights; the table there decides. Typed "
                  "beside it: hint, undo, yes/no (to a takeback), resign, q." % (
                      escape(view["title"]), escape(client.host),
                      escape(table.labels[table.you])), soft_wrap=True)
    plays = []

    def make_play(board_client):
        plays.append(RemoteVoraPlay(board_client, table))
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
    logged_ok = True
    if live is not None:
        if not table.is_over():
            live.ended("interrupted", result_of(table.state, "left the remote table"))
        message, logged_ok = live.finish()
        console.print(escape(message), style=None if logged_ok else "bold red",
                      soft_wrap=True)
    if not table.is_over():
        console.print("You left the table; it goes on at %s. The same command joins again."
                      % escape(client.host))
    return status if logged_ok else (status or 1)

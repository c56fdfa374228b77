"""`vora play`: a game typed in the terminal (cmd_play), and a game on the board
(cmd_play_board): Vora refereed by the board and mirrored here, any other game run here
with the board as screen and keypad; the board on USB, or the virtual board. Each is a
table (vora_host.table) logged as it goes, with browser seats when --web asks.

The arguments and the game they set up are vora_host.cli.play_args, resuming is
vora_host.cli.resume; this module plays.
"""

import sys
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from vora_host import bots
from vora_host import games as host_games
from vora_host.cli.play_args import (INTERACTIVE_DELAY, _board_play_options, _prepare_game,
                                     _print_seed_at_end, _seat_title, _seed_at_start)
from vora_host.cli.resume import _refuse_held, _resumed_game, _saved_for, _say_taken_over
from vora_host.log.records import new_record, result_of, write_record
from vora_host.log.session import _close_log, _open_log
from vora_host.play import saved
from vora_host.play.board import BOT_DELAY_MS
from vora_host.play.terminal import EOF, INTERRUPTED, OVER, QUIT, RESIGNED, TerminalGame
from vora_host.table import Table as GameTable
from vora_host.web.cli import _close_web_seats, _open_web_seats
from vora_host.words import plural

__all__ = ["cmd_play", "cmd_play_board"]


def _board_delay_ms(args):
    """The pause before a bot's move on a board: --delay when given, else the board's."""
    delay = getattr(args, "delay", None)
    return BOT_DELAY_MS if delay is None else int(round(delay * 1000))


# ---------------------------------------------------------------- typed

def cmd_play(args, console, parser):
    resumed = _saved_for(args, console, parser)
    if resumed is not None:
        module, state, seed, agents = _resumed_game(args, resumed, parser)
    else:
        module, state, seed, agents = _prepare_game(args, parser)
    view = host_games.host_game(args.game).VIEW
    players = len(state.scores())
    options = state.options()
    seats = options.get("seats") if isinstance(options.get("seats"), str) else ""
    if args.record:
        # Find out now, not after an hour of play, that the record cannot be written.
        folder = Path(args.record).resolve().parent
        if not folder.is_dir():
            parser.error("--record: the folder %s does not exist" % folder)
        if Path(args.record).is_dir():
            parser.error("--record: %s is a folder" % args.record)
    interactive = sys.stdin.isatty() and not args.bots_only
    delay = args.delay if args.delay is not None else (INTERACTIVE_DELAY if interactive else 0.0)
    record = None
    if args.record:
        record = new_record(players, seed, options, game=args.game, agents=[
            {"player": p, "seat": seats[p] if seats else str(p), "kind": a.kind,
             "seed": getattr(a, "seed", None)} for p, a in enumerate(agents)])

    if resumed is not None:
        console.print(saved.resumed_text(resumed[0]))
    elif module.HIDDEN_INFORMATION:
        console.print("[bold]%s[/bold], %d players, %s." % (module.TITLE, players,
                                                             _seed_at_start(module, seed)))
    else:
        console.print("[bold]%s[/bold], %d players, seed [bold]%d[/bold] (play it again with "
                      "--seed %d)." % (module.TITLE, players, seed, seed))
    live = None
    if not args.no_log:
        from vora_host.log.live import LiveLog
        from vora_host.log.database import resolve_db_path
        from vora_host.log.errors import GameHeld

        def warn(text):
            console.print("[yellow]Game log: %s[/yellow]" % escape(text))

        try:
            live = LiveLog(resolve_db_path(args.db), args.game, players, seed, options,
                           say=warn, game_id=resumed[0]["id"] if resumed else None,
                           earlier=resumed[0]["moves"] if resumed else (),
                           take_over=args.take_over)
        except GameHeld as exc:
            return _refuse_held(console, exc)
        _say_taken_over(console, live)
        # A demo is noted as one: never resumed, even when its process was killed.
        saved.note_seats(resolve_db_path(args.db), live.gid, agents, demo=args.bots_only)
    table = GameTable(args.game, state, agents, log=live, record=record,
                      label=lambda p: view.seat_label(table.state, p),
                      claim_after=args.claim_after, seed=seed)
    game = TerminalGame(state, agents, console, delay=delay, quiet=args.quiet and args.bots_only,
                        game=args.game, table=table)
    if resumed is not None:
        game.replay_moves(resumed[2])
        # Again just above the first prompt: at 24 rows the board scrolls the first out.
        game.note = saved.resumed_text(resumed[0])
    console.print("  " + "; ".join(view.seat_label(
        state, p, game.who[p] if game.who[p] in ("you", "browser")
        else bots.player_title(args.game, agents[p].kind)) for p in range(players)))
    web = None
    if args.web is not None:
        web = _open_web_seats(args, console, table)
        if web is None:
            if live is not None:
                live.ended("abandoned", result_of(state, "the web seats could not start"))
                live.finish()
            return 1
    if game.here:
        console.print("  Type a move's number or notation; [bold]?[/bold] for help, "
                      "[bold]q[/bold] to quit.")
    try:
        outcome = game.run()
    finally:
        if web is not None:
            _close_web_seats(web, table)
    try:
        game.print_end()
    except KeyboardInterrupt:
        outcome = INTERRUPTED  # a second Ctrl-C during the summary: skip the rest of it
    # Whatever happened at the table, the record is written and the game logged.
    status = 1 if _save_record(args.record, record, console) is False else 0
    if live is not None:
        final = game.state
        if table.stopped is None:  # a resignation was logged by the table
            live.ended(saved.end_status(final, demo=args.bots_only),
                       result_of(final, None if final.is_over() else game.stopped))
        message, logged = live.finish(args.record if status == 0 else None)
        # soft_wrap: a path is never cut in two, so that it can be copied
        console.print(escape(message), style=None if logged else "bold red", soft_wrap=True)
        if not logged:
            status = 1
        elif not final.is_over() and not args.bots_only and table.stopped is None:
            console.print("Saved: 'vora play %s --typed' resumes it ('--fresh' starts anew)."
                          % args.game)
    _print_seed_at_end(console, module, game.state, seed)
    if outcome == INTERRUPTED:
        return 130
    assert outcome in (OVER, QUIT, EOF, RESIGNED), outcome
    return status


def _save_record(path, record, console):
    """Write --record's file: True when written, None when none was asked for."""
    if record is None:
        return None
    try:
        write_record(path, record)
    except OSError as exc:
        console.print("[red]Could not write the record to %s: %s[/red]"
                      % (escape(path), escape(exc.strerror or str(exc))))
        return False
    console.print("Record written to %s (%s)."
                  % (escape(path), plural(len(record["moves"]), "move")))
    return True


# ---------------------------------------------------------------- on the board

def cmd_play_board(args, console, parser):
    """A game on the board: Vora refereed by the board and mirrored here; any other game
    run here with the board as screen and keypad (terminal mode). The board found on USB,
    or the virtual board."""
    from vora_host.link import portlock
    from vora_host.virtual import sim
    from vora_host.link.mirror import VirtualCompanion, run_mirror
    from vora_host.play.board_session import BoardGameCompanion, run_board_game
    from vora_host.play.board_play import BoardPlay
    host = None
    play = None
    if args.game == "vora":
        if args.web is not None:  # a table on this PC, which the board joins
            return _vora_board_table(args, console, parser)
        play = _board_play_options(args, parser)
    else:
        # Vora is the board's own; the others are run here, every seat a human at the
        # board unless --human or --bot name fewer (the rest are bots).
        if args.human is None:
            args.human = "all"
            args.human_by_default = True
        resumed = _saved_for(args, console, parser)
        if resumed is not None:
            module, state, seed, agents = _resumed_game(args, resumed, parser)
        else:
            module, state, seed, agents = _prepare_game(args, parser)
        host = host_games.host_game(args.game)
        if not hasattr(host, "BOARD"):
            parser.error("%s has no board mapping yet: play it with --typed" % module.TITLE)
        try:
            getattr(host.BOARD, "check", lambda st: None)(state)
        except ValueError as exc:
            parser.error(str(exc))
    log = None
    announce = True
    if not args.no_log and host is None:
        log = _open_log(console, args.db)
        if log is None:
            return 1
    held = None
    try:
        device = _board_device(args, console)
        if device is False:
            return 1
        if device is not None:
            try:  # the port is this game's alone until it ends (two programs on one
                held = portlock.acquire(device)  # port take each other's bytes)
            except portlock.PortBusy as exc:
                console.print("[red]vora play: %s[/red]" % escape(str(exc)), soft_wrap=True)
                return 1
        plain = not (sys.stdout.isatty() and sys.stdin.isatty())
        if host is not None:
            problem = None if device is None else _cannot_open(device)
            if problem is not None:  # before the log: a game that never started is not logged
                console.print("[red]vora play: cannot open %s: %s[/red]"
                              % (escape(device), escape(problem)))
                return 1
            # The game is the PC's: logged as it goes, like a typed game (LiveLog never
            # stops it; a log that cannot be written keeps it in memory, then rescues it).
            companion = BoardGameCompanion(args.game, state, agents, seed=seed,
                                           out=sys.stdout, plain=plain,
                                           bot_delay_ms=_board_delay_ms(args))
            if resumed is not None:
                companion.earlier = resumed[2]
                companion.resumed = saved.resumed_text(resumed[0])
            if not args.no_log:
                from vora_host.log.live import LiveLog
                from vora_host.log.database import resolve_db_path
                from vora_host.log.errors import GameHeld
                try:
                    companion.log = LiveLog(
                        resolve_db_path(args.db), args.game, len(state.scores()), seed,
                        state.options(), say=companion.log_said,
                        source="virtual board" if device is None else "board %s" % device,
                        game_id=resumed[0]["id"] if resumed else None,
                        earlier=resumed[0]["moves"] if resumed else (),
                        take_over=args.take_over)
                except GameHeld as exc:
                    return _refuse_held(console, exc)
                _say_taken_over(console, companion.log)
                saved.note_seats(resolve_db_path(args.db), companion.log.gid, agents)
            if resumed is not None:
                console.print("%s %s" % (companion.resumed, "; ".join(
                    host.VIEW.seat_label(state, p, _seat_title(args.game, a))
                    for p, a in enumerate(agents))))
            else:
                console.print("[bold]%s[/bold] on the board, %s; %s" % (
                    module.TITLE, _seed_at_start(module, seed),
                    "; ".join(host.VIEW.seat_label(state, p, _seat_title(args.game, a))
                              for p, a in enumerate(agents))))
            web = None
            if args.web is not None:
                companion.table = GameTable(args.game, state, agents, log=companion.log,
                                            label=lambda p: "P%d" % p,
                                            claim_after=args.claim_after, seed=seed)
                web = _open_web_seats(args, Console(stderr=True, highlight=False),
                                      companion.table)
                if web is None:
                    return 1
            try:
                if device is not None:
                    status = run_board_game(device, companion, plain)
                else:
                    # --fresh was this game's (its saved game abandoned): the board's own
                    # saved Vora game stays. A secret seed is not the virtual board's to
                    # know (it seeds the board's own games).
                    status = sim.run(save_dir=args.save_dir, fresh=False,
                                     seed=None if module.HIDDEN_INFORMATION else args.seed,
                                     headless=plain, companion=companion)
            finally:
                if web is not None:
                    _close_web_seats(web, companion.table)
            message, logged = companion.finish()
            console.print(escape(message), style=None if logged else "bold red", soft_wrap=True)
            _print_seed_at_end(console, module, companion.state, seed)
            if logged and companion.log is not None and not companion.state.is_over():
                console.print("Saved: 'vora play %s' resumes it ('--fresh' starts anew)."
                              % args.game)
            return status if logged else (status or 1)
        # What plays beside the mirror (the PC's bots, a position) is made here, above
        # the link (the mirror is the link's; BoardPlay is the play room's).
        make_play = None if play is None else partial(BoardPlay, **play)
        if device is not None:
            return run_mirror(device, log, play=make_play)
        companion = VirtualCompanion(log, sys.stdout, plain, play=make_play)
        return sim.run(save_dir=args.save_dir, fresh=args.fresh, seed=args.seed,
                       headless=plain, companion=companion,
                       on_fresh=None if log is None else partial(_abandon_saved_game, log))
    finally:
        portlock.release(held)
        if log is not None:
            _close_log(log, announce)


def _board_device(args, console):
    """The board's serial device for --port: a path, None for the virtual board (asked
    for, or no board on USB when --port was not given: said), or False after saying that
    the board asked for is not there."""
    from vora_host.link import ports
    if args.port in ports.VIRTUAL:
        return None
    try:
        return ports.choose_port(args.port, must_exist=True)
    except ports.NoBoard as exc:
        if args.port:
            console.print("[red]%s[/red]" % escape(str(exc)))
            return False
        # stderr: the first line on stdout is the virtual board's serial device
        Console(stderr=True).print("No board on USB: starting the virtual board.",
                                   style="dim")
        return None


def _vora_board_table(args, console, parser):
    """vora play vora --port DEVICE|sim --web SEATS (vora_host.cli.join_vora)."""
    from vora_host.cli.join_vora import cmd_vora_board_table
    device = _board_device(args, console)
    if device is False:
        return 1
    return cmd_vora_board_table(args, console, parser, device)


def cmd_join_board(args, console):
    """vora play --join LINK --port DEVICE|sim: this PC's board plays a seat of a table on
    another computer (vora_host.remote.remote_table): the table there is the referee, a
    copy of it here is what the board plays at, and the copy is logged here."""
    from vora_host.link import portlock, ports
    from vora_host.play.board_session import BoardGameCompanion, run_board_game
    from vora_host.remote.join import open_seat
    from vora_host.remote.remote_table import start_following
    from vora_host.virtual import sim
    client, view, status = open_seat(args.join, console)
    if client is None:
        return status
    host = host_games.host_game(view["game"])
    if view["game"] != "vora" and not hasattr(host, "BOARD"):
        console.print("[red]%s on the board is not mapped to the keys: play this seat from "
                      "the terminal ('vora play --join LINK' without --port)[/red]"
                      % escape(view["title"]))
        return 1
    device = None
    if args.port not in ports.VIRTUAL:
        try:
            device = ports.choose_port(args.port, must_exist=True)
        except ports.NoBoard as exc:
            console.print("[red]%s[/red]" % escape(str(exc)))
            return 1
    if view["game"] == "vora":  # the board's own game, kept in step with the table there
        from vora_host.cli.join_vora import cmd_join_vora_board
        return cmd_join_vora_board(args, console, client, view, device)
    from vora_host.cli.join_vora import open_copy_table
    plain = not (sys.stdout.isatty() and sys.stdin.isatty())
    table, live, status = open_copy_table(args, console, client, view, lambda text: None)
    if table is None:
        return status
    companion = BoardGameCompanion(view["game"], table.state, table.agents, log=live,
                                   seed=table.seed, out=sys.stdout, plain=plain,
                                   bot_delay_ms=_board_delay_ms(args))
    companion.table = table
    if live is not None:
        live.say = companion.log_said
    console.print("[bold]%s[/bold] at %s on this board: you play %s; the others play there."
                  % (escape(view["title"]), escape(client.host),
                     escape(table.labels[table.you])))
    stop = start_following(table, client, lambda text: companion.note(
        "trouble", "%s: connecting again" % text))
    held = None
    try:
        if device is not None:
            try:
                held = portlock.acquire(device)
            except portlock.PortBusy as exc:
                console.print("[red]vora play: %s[/red]" % escape(str(exc)), soft_wrap=True)
                return 1
            status = run_board_game(device, companion, plain)
        else:
            status = sim.run(save_dir=args.save_dir, fresh=False, seed=None,
                             headless=plain, companion=companion)
    finally:
        stop.set()
        table.leave()  # before the log's last word (companion.finish)
        portlock.release(held)
    message, logged = companion.finish()
    console.print(escape(message), style=None if logged else "bold red", soft_wrap=True)
    if not table.is_over():
        console.print("You left the table; it goes on at %s. The same command joins again."
                      % escape(client.host))
    return status if logged else (status or 1)


def _cannot_open(device):
    """None when the serial device is there for us to open, else the system's reason in
    words. Looked at, not opened: opening toggles DTR, which resets some boards."""
    import errno
    import os
    try:
        os.stat(device)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not os.access(device, os.R_OK | os.W_OK):
        return os.strerror(errno.EACCES)
    return None


def _abandon_saved_game(log, text):
    """--fresh threw away the board's saved game (its text): the log's game is abandoned."""
    from vora_fw.saved_game import BadSave, parse_game
    from vora_host.log.errors import GameLogError
    try:
        saved = parse_game(text)
        info = log.find_game(saved["game_id"], saved["seed"])
        if info is not None:
            log.close_stale(abandon=[info["id"]])
    except (BadSave, GameLogError):
        pass  # not a game the log can name, or the log cannot be written now

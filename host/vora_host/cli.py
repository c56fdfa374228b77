"""The `vora` command line.

    vora play      play Vora in the terminal against bots, or watch bots play
    vora replay    replay a recorded game, checking it move by move
    vora rules     where the rules are, and the move notation on one screen
    vora sim       the virtual board: the firmware on the PC, with a serial port (a pty)
    vora flash     install the firmware on a board with stock MicroPython
    vora update    update the board's firmware over the link
    vora doctor    check a board: versions, memory, every pixel and key

`main(argv)` returns the exit status instead of exiting, so tests can call it directly.
Exit status: 0 done, 1 a failure the command reports (a record that does not replay, a
file that cannot be written), 2 a usage error, 130 interrupted by Ctrl-C.
"""

import argparse
import random
import re
import secrets
import sys
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from shared_rules import games as rules_games
from shared_rules import vora
from shared_rules.errors import BadPosition

from vora_host import bots
from vora_host.log import cli as games_cli
from vora_host.lab import cli as lab_cli
from vora_host.maker import cli as maker_cli
from vora_host.argtypes import game_option_pairs, game_seed, positive_int, seconds, \
    seed as seed_arg
from vora_host import games as host_games
from vora_host.words import plural, print_table
from vora_host.log.records import RecordError, load_record, new_record, replay, result_of, \
    write_record
from vora_host.play import saved
from vora_host.web import DEFAULT_PORT as DEFAULT_WEB_PORT
from vora_host.play.terminal import (EOF, INTERRUPTED, OVER, QUIT, RESIGNED, Human,
                                     TerminalGame)
from vora_host.table import Table as GameTable

__all__ = ["main", "build_parser"]

# Seconds between bot moves when a human watches at a terminal.
INTERACTIVE_DELAY = 0.4
WEB_PORT = DEFAULT_WEB_PORT  # vora serve, vora play --serve



def parse_box(text):
    """'--box' as counts: '10' puts 10 of every type in the box; 'water=20,pig=8' changes
    the named types and leaves the others at the house default."""
    text = text.strip()
    if text.isdigit():
        return {name: int(text) for name in vora.TYPES}
    box = dict(zip(vora.TYPES, vora.DEFAULT_BOX))
    for part in text.split(","):
        name, sep, count = part.strip().partition("=")
        name = name.strip().lower()
        if not sep or name not in vora.TYPES or not count.strip().isdigit():
            raise argparse.ArgumentTypeError(
                "%r: give a count for every type (e.g. 10) or type=count pairs separated "
                "by commas (e.g. water=20,pig=8); the types are %s" % (part, ", ".join(vora.TYPES)))
        box[name] = int(count)
    return box


def parse_seat_list(text, players, seats):
    """'--human' as player numbers or seat names: '0', '0,2', 'S,N', 'Blue', 'none', 'all'.
    `seats`: the seat letters ('SN') or each player's names (see board_play.seat_table)."""
    from vora_host.play.board_play import find_seat, seat_table, seats_text
    table = seat_table(seats, players)
    text = text.strip()
    if text.lower() in ("", "none", "-"):
        return set()
    if text.lower() == "all":
        return set(range(players))
    out = set()
    for part in text.replace(" ", ",").split(","):
        part = part.strip()
        if not part:
            continue
        p = find_seat(part, table)
        if p is None:
            raise ValueError("%r is not a player: the seats are %s" % (part, seats_text(table)))
        out.add(p)
    return out


def seat_names(view, state):
    """Each player's seat names as the game's screen shows them, for --bot and --human:
    the seat letter of a game played at the board's sides (Vora's S, W, N, E) and the
    name in the view's seat label after 'P<n>' ('P1 North', 'P1 Red', 'P2 white')."""
    letters = state.options().get("seats")
    letters = letters if isinstance(letters, str) else ""
    out = []
    for p in range(len(state.scores())):
        names = [letters[p]] if p < len(letters) else []
        words = view.seat_label(state, p).split()
        if words[:1] == ["P%d" % p]:
            words = words[1:]
        name = " ".join(words)
        if name and not name.isdigit() and name.lower() not in (n.lower() for n in names):
            names.append(name)
        out.append(tuple(names))
    return out


# ---------------------------------------------------------------- the parser

class _VersionAction(argparse.Action):
    # argparse's own "version" action rewraps the text into one paragraph: three lines here.
    def __call__(self, parser, namespace, values, option_string=None):
        from vora_host import versions
        print(versions.describe())
        parser.exit()


def build_parser():
    parser = argparse.ArgumentParser(
        prog="vora",
        description="Vora Board on the PC: play Vora in the terminal, replay game records.",
        epilog="Run 'vora COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="this vora's version, the firmware it installs and the protocol")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play", help="play a game: on the board (mirrored here), or typed in the terminal",
        description="Play Vora on the board, mirrored and logged on the PC. With a board "
                    "on USB (or --port), the PC follows it; with none, the virtual board "
                    "starts here and you press its keys (mouse, arrows and Space, or key "
                    "names), with the mirror beside it. The other games are run by the "
                    "PC, the board their screen and keys. --typed (or --bots-only; for "
                    "Vora also --human) plays in the terminal instead: moves typed, bots "
                    "at the other seats; type ? there for help.")
    play.set_defaults(subparser=play)  # so that errors found later say "vora play: error"
    play.add_argument("game", nargs="?", default="vora", choices=rules_games.names(),
                      metavar="GAME", help="the game: %s (default vora)"
                      % ", ".join(rules_games.names()))
    board = play.add_argument_group("on the board (the default)")
    board.add_argument("--port", default=None, metavar="DEVICE",
                       help="the board's serial device, or 'sim' for the virtual board "
                            "(default: the board found on USB, else the virtual board)")
    board.add_argument("--save-dir", metavar="DIR", default=None,
                       help="the virtual board's save folder (as vora sim)")
    board.add_argument("--fresh", action="store_true",
                       help="start a new game: Vora on the virtual board forgets its saved "
                            "game; the games the PC runs (typed, or the other games on the "
                            "board) end their unfinished game as abandoned in the log")
    play.add_argument("--resume", type=positive_int, default=None, metavar="ID",
                      help="continue the unfinished game ID of the game log (vora games "
                           "list), typed or on the board; 'vora play GAME' alone resumes "
                           "the newest unfinished game of GAME the PC ran")
    play.add_argument("--take-over", action="store_true",
                      help="with --resume: take the game over from another vora that plays "
                           "it now (hung, or on a computer that is gone); that program can "
                           "then no longer write it")
    play.add_argument("--typed", action="store_true",
                      help="play in the terminal, typing moves, with bots (no board)")
    play.add_argument("--db", metavar="PATH|URL", default=None,
                      help="the game log every game goes into: an SQLite file, or a "
                           "postgresql:// URL (default $VORA_DB, else games.sqlite3 in the "
                           "user's data folder)")
    play.add_argument("--serve", type=port_number, nargs="?", const=WEB_PORT, default=None,
                      metavar="PORT", help="also start the web mirror (vora serve) on PORT "
                                           "(default %d) of 127.0.0.1, beside this screen"
                                           % WEB_PORT)
    play.add_argument("--web", metavar="LIST", default=None,
                      help="seats played in a browser (a phone at the table, a computer "
                           "elsewhere), as for --human: '1', '1,2', 'all'. Each gets a "
                           "link of its own, printed with its QR code; the web mirror "
                           "serves them (on --serve's port, default %d)" % WEB_PORT)
    play.add_argument("--host", metavar="ADDRESS", default=None,
                      help="with --web or --serve: the address the web server listens on "
                           "(default 127.0.0.1, this computer only; 0.0.0.0 lets the phones "
                           "on your network reach the seats' links)")
    play.add_argument("--no-log", action="store_true",
                      help="keep this game out of the game log (a typed game or a demo)")
    play.add_argument("--players", type=int, default=None,
                      help="number of players (default 2, or the game's smallest count)")
    play.add_argument("--seed", type=game_seed, default=None,
                      help="seed of the deal: 0 to 4294967295, or to 2**64-1 for Boars and "
                           "Tossing Tiger (default: a random one, printed; for those two "
                           "only once the game is over, see docs/secrets.md)")
    play.add_argument("--human", metavar="LIST", default=None,
                      help="the human players, as player numbers or seats named as the "
                           "screen names them: '0', '0,2', 'S,N' or 'North' (Vora), 'Red' "
                           "(Vorcept), 'green' (Gaia-Vora), 'all', 'none' (default: 0 "
                           "when typed, all on the board); the others are bots")
    play.add_argument("--bots-only", action="store_true",
                      help="every player is a bot: a demo that needs no keyboard")
    play.add_argument("--bot", metavar="SEAT=KIND", action="append", default=None,
                      help="a bot at a seat: 1=random, N=search:500 (a seat as for "
                           "--human; repeat or join with commas); on the board the PC "
                           "plays that seat. Except for Vora on the board, also a kind "
                           "alone or a comma list, given to the other bot seats in "
                           "order. Levels: easy, normal, hard (measured: each beats the "
                           "one below in most games, except in Tossing Tiger, where luck "
                           "keeps them close; hard decides within a second; "
                           "'vora rules GAME' names what each is in that game and how "
                           "far apart they were measured). Kinds: "
                           "random; search (1000 iterations a move), search:N (N "
                           "iterations), search:Nms (N milliseconds); "
                           "greedy and lookahead, Vora's own (another game names the "
                           "kinds it has). With no kind given: greedy in Vora, search:200 "
                           "in the other games")
    play.add_argument("--position", metavar="TEXT", default=None,
                      help="Vora: start from this position instead of a deal (notation in "
                           "docs/vora-notation.md), e.g. 'PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN "
                           "0 CP/D G30': for teaching and puzzles")
    play.add_argument("--delay", type=seconds, default=None, metavar="SECONDS",
                      help="pause before each bot move (default %.1f at a terminal, 0 with "
                           "--bots-only or when input is not a terminal)" % INTERACTIVE_DELAY)
    play.add_argument("--record", metavar="FILE",
                      help="write the game record (JSON) to FILE when the game ends or stops")
    play.add_argument("--quiet", action="store_true",
                      help="show only the final position and result (with --bots-only)")
    play.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                      help="a game option (repeat for several); 'vora rules GAME' lists "
                           "each game's options; @FILE gives a file's text (Boars: -o "
                           "track=@my-track.csv)")
    house = play.add_argument_group("Vora's house options (the rulebook leaves these open)")
    house.add_argument("--box", type=parse_box, default=None, metavar="COUNTS",
                       help="cubes in the box: N of every type, or type=count pairs "
                            "(default 12 of each)")
    house.add_argument("--pushed-out", choices=vora.PUSHED_OUT_CHOICES, default=None,
                       help="where a cube pushed out on a side where nobody sits goes "
                            "(default %s)" % vora.DEFAULT_PUSHED_OUT)
    house.add_argument("--seats", default=None,
                       help="the sides the players sit at, player 0 first, e.g. SE "
                            "(default SN, SWN, SWNE)")
    house.add_argument("--max-turns", type=positive_int, default=None,
                       help="end the game after this many turns (default %d, a safeguard)"
                            % vora.DEFAULT_MAX_TURNS)

    rep = sub.add_parser(
        "replay", help="replay a game record and check it",
        description="Replay a record written by 'vora play --record', checking every move "
                    "and, when the record has them, the digest after every move.")
    rep.add_argument("file", metavar="FILE", help="the game record (JSON)")
    rep.add_argument("--boards", action="store_true", help="draw the board after every move")
    rep.add_argument("--quiet", action="store_true",
                     help="do not list the moves, only the result of the check")

    rules = sub.add_parser("rules", help="where a game's rules are, its options, its notation",
                           description="Show where a game's rulebook and notation documents "
                                       "are, list its options with their house defaults, "
                                       "and summarise its move notation.")
    rules.add_argument("game", nargs="?", default="vora", choices=rules_games.names(),
                       metavar="GAME", help="the game (default vora)")

    sim = sub.add_parser(
        "sim", help="the virtual board: the firmware on the PC, with a serial port",
        description="Run the board's firmware on the PC with simulated keys and lights. "
                    "The first line printed is the serial device (a pty) that serial "
                    "programs open like the board's USB port. At a terminal the board is "
                    "drawn in colour: type a key name and Enter (c3, Sc, cS), 'hold cS' "
                    "for the menu, move with the arrows and press with Space, or click a "
                    "key; q quits. Otherwise (or with --headless) it reads commands from "
                    "stdin, one per line: press KEY [ms], hold KEY [ms], wait MS, frame, "
                    "state, help, quit; each answers ok or error.")
    sim.add_argument("--save-dir", metavar="DIR", default=None,
                     help="where the board saves the game in progress (default "
                          "$XDG_DATA_HOME/vora/sim-save, i.e. ~/.local/share/vora/sim-save)")
    sim.add_argument("--fresh", action="store_true",
                     help="forget the saved game first: the board starts in setup")
    sim.add_argument("--seed", type=seed_arg, default=None,
                     help="seed of every game dealt (default: the board's clock)")
    sim.add_argument("--headless", action="store_true",
                     help="draw nothing; read commands from stdin (the default when the "
                          "output is not a terminal)")
    sim.add_argument("--script", metavar="FILE", default=None,
                     help="run the commands in FILE first, then go on as usual (end the "
                          "file with quit to stop there)")
    sim.add_argument("--pinmap", metavar="FILE", default=None,
                     help="another pin map: a file, or one shipped with vora by name "
                          "(default rp2-pico; esp32-s3)")
    sim.add_argument("--ghosting", action="store_true",
                     help="simulate a key matrix without diodes (ghost keys)")
    sim.add_argument("--flash", metavar="DIR", default=None,
                     help="the board's flash: boot from what is installed in DIR (empty: a "
                          "board with stock MicroPython, for vora flash); the save goes to "
                          "DIR/save (docs/makers.md)")
    sim.add_argument("--flash-size", type=positive_int, default=None, metavar="KB",
                     help="the flash's capacity in KB (default 848, a Raspberry Pi Pico's)")
    sim.add_argument("--romfs-size", type=positive_int, default=None, metavar="KB",
                     help="with --flash: a ROMFS partition of this size too, as MicroPython "
                          "1.25+ builds with ROMFS have (kept in DIR.romfs; vora flash --romfs)")

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
    games_cli.add_parser(sub)  # vora games: the game log (games_cli.py)
    lab_cli.add_parser(sub)  # vora lab: the balance lab (lab/cli.py)
    maker_cli.add_parsers(sub)  # vora flash, update, doctor (maker/cli.py)
    return parser


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    if args.command in ("play", "mirror"):
        _hang_up_like_ctrl_c()
    try:
        if args.command == "play" and args.host is not None and args.serve is None \
                and args.web is None:
            args.subparser.error("--host is where the web server listens: give --web or "
                                 "--serve too")
        if args.command == "play" and args.web is not None and args.bots_only:
            args.subparser.error("--web gives seats to people in browsers; --bots-only has "
                                 "none")
        if args.command == "play" and args.serve is not None and args.web is None:
            # (With --web, the server starts once the game's table is set, with its seats.)
            if args.no_log:
                args.subparser.error("--serve shows the game log: leave out --no-log")
            if _start_web(args.serve, args.db, args.host) is None:
                return 1
        if args.command == "play":
            if args.take_over and args.resume is None:
                args.subparser.error("--take-over takes over the game --resume ID names: "
                                     "give both")
            if args.resume is not None:
                _resume_target(args, console, args.subparser)
            if args.typed or args.bots_only or (args.human is not None and args.game == "vora"):
                return cmd_play(args, console, args.subparser)
            return cmd_play_board(args, console, args.subparser)
        if args.command == "serve":
            return cmd_serve(args, console)
        if args.command == "mirror":
            return cmd_mirror(args, console)
        if args.command == "repl":
            return cmd_repl(args, console)
        if args.command == "replay":
            return cmd_replay(args, console)
        if args.command == "rules":
            return cmd_rules(args.game, console)
        if args.command == "sim":
            return cmd_sim(args)
        if args.command == "games":
            return games_cli.run(args, console)
        if args.command == "lab":
            return lab_cli.run(args, console)
        if args.command in maker_cli.COMMANDS:
            return maker_cli.run(args, console)
        parser.print_help()
        return 2
    except KeyboardInterrupt:
        console.print("\n[yellow]Interrupted.[/yellow]")
        return 130
    except BrokenPipeError:
        # Output piped into something like `head` that stopped reading: not an error of ours.
        return 1


def _hang_up_like_ctrl_c():
    """The terminal closing (SIGHUP) stops vora play and vora mirror as Ctrl-C does: the
    game is saved as interrupted (a demo abandoned) and the log closed, rather than the
    process killed with its game left "playing" (which the next session would resume, a
    demo included). What is printed after it goes nowhere: the terminal is gone, and a
    write to it would fail before the game is written."""
    import os
    import signal
    if not hasattr(signal, "SIGHUP") or signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
        return  # (nohup: kept running)

    def hung_up(signum, frame):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # once: the way out is under way
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
        except OSError:
            pass
        raise KeyboardInterrupt

    signal.signal(signal.SIGHUP, hung_up)


# ---------------------------------------------------------------- vora play (board), mirror, repl

def _open_log(console, db):
    from vora_host.log.store import GameLog, GameLogError, is_db_url, resolve_db_path
    path = resolve_db_path(db)
    try:
        log = GameLog(path)
    except GameLogError as exc:
        console.print("[red]Cannot open the game log: %s[/red]" % escape(str(exc)))
        console.print("%s, choose another log with --db PATH (or a postgresql:// URL), or "
                      "play without the log with --no-log." % ("Start the database server or check the URL"
                                     if is_db_url(path) else "Free some space or fix the file"))
        return None
    try:  # games left "playing" by a program that was killed: interrupted
        log.close_stale()
    except GameLogError:
        pass  # the file cannot be written now: they stay as they are
    return log


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
    from vora_fw.store import BadSave, parse_game
    from vora_host.log.store import GameLogError
    try:
        saved = parse_game(text)
        info = log.find_game(saved["game_id"], saved["seed"])
        if info is not None:
            log.close_stale(abandon=[info["id"]])
    except (BadSave, GameLogError):
        pass  # not a game the log can name, or the log cannot be written now


def _close_log(log, announce=True):
    """Write what waits, close the log and say (on stderr) where each game of this session
    went: "Logged as game 7" (unless `announce` is false: the caller said it), or where a
    game the log could not take was saved."""
    from vora_host.log import formats
    from vora_host.log.live import save_rescue
    from vora_host.log.store import GameLogError
    err = Console(stderr=True, highlight=False)
    try:
        log.flush()
    except GameLogError:
        pass
    waiting = set(log.real_id(op["gid"]) if op["gid"] is not None else None
                  for op in log.unwritten())
    seen = []
    for gid in log.touched:
        real = log.real_id(gid)
        if real in seen and real is not None:
            continue
        seen.append(real)
        if real is not None and real not in waiting:
            if announce:
                err.print("Logged as game %d in %s ('vora games show %d')."
                          % (real, escape(str(log.path)), real), soft_wrap=True)
            continue
        try:
            text = formats.export_json(log, gid)
            partial = [g for g in log.games() if g["id"] == real] if real is not None else []
        except GameLogError as exc:
            err.print("[red]A game of this session could not be logged or saved: %s[/red]"
                      % escape(str(exc)))
            continue
        message = save_rescue(text, log.path, log.trouble)
        if partial:
            count = partial[0]["move_count"]
            message += (" The log's game %d holds only its first %d move%s: delete it after "
                        "the import ('vora games delete %d')."
                        % (real, count, "" if count == 1 else "s", real))
        err.print("[red]%s[/red]" % escape(message), soft_wrap=True)
    log.close()


def _board_play_options(args, parser):
    # --bot SEAT=KIND and --position for a board: checked here, before anything starts.
    from vora_host.play.board_play import parse_bot_seats
    try:
        seats = parse_bot_seats(args.bot or [], "vora")
    except ValueError as exc:
        parser.error("--bot: %s" % exc)
    if args.seed is not None:
        try:
            rules_games.check_seed(vora, args.seed)
        except ValueError as exc:
            parser.error("--seed: %s" % exc)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    position = None
    if args.position is not None:
        words = args.position.split()
        try:
            state = vora.new_game(len(words[1]) if len(words) > 1 else 0, seed,
                                  position=" ".join(words))
        except (BadPosition, ValueError) as exc:
            parser.error("--position: %s" % exc)
        position = state.start
    # The seats are noted beside the log, so that a game the board resumes gets its PC
    # bots back (BoardPlay); --bot given chooses them anew.
    from vora_host.log.store import resolve_db_path
    notes = None if args.no_log else resolve_db_path(args.db)
    if not seats and position is None and notes is None:
        return None
    return {"bots": seats, "position": position, "seed": seed, "notes": notes,
            "chosen": bool(args.bot)}


def cmd_play_board(args, console, parser):
    """A game on the board: Vora refereed by the board and mirrored here; any other game
    run here with the board as screen and keypad (terminal mode). The board found on USB,
    or the virtual board."""
    from vora_host.link import portlock, ports
    from vora_host.virtual import sim
    from vora_host.link.mirror import VirtualCompanion, run_mirror
    from vora_host.play.board import BoardGameCompanion, run_board_game
    from vora_host.play.board_play import BoardPlay
    host = None
    play = None
    if args.game == "vora":
        if args.web is not None:
            parser.error("--web: Vora on the board is the board's own game, refereed by "
                         "the board; play Vora with browser seats typed ('vora play --typed "
                         "--web 1'), or another game on the board")
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
        device = None
        if args.port not in ports.VIRTUAL:
            try:
                device = ports.choose_port(args.port, must_exist=True)
            except ports.NoBoard as exc:
                if args.port:
                    console.print("[red]%s[/red]" % escape(str(exc)))
                    return 1
                # stderr: the first line on stdout is the virtual board's serial device
                Console(stderr=True).print("No board on USB: starting the virtual board.",
                                           style="dim")
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
                                           out=sys.stdout, plain=plain)
            if resumed is not None:
                companion.earlier = resumed[2]
                companion.resumed = saved.resumed_text(resumed[0])
            if not args.no_log:
                from vora_host.log.live import LiveLog
                from vora_host.log.store import GameHeld, resolve_db_path
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
                                            label=lambda p: "P%d" % p)
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


def _board_device(args, console, must_exist=True):
    """The board's serial device from --port or USB, or None after saying why not
    (must_exist: also for a named device that is not there)."""
    from vora_host.link import ports
    try:
        return ports.choose_port(args.port, must_exist=must_exist)
    except ports.NoBoard as exc:
        console.print("[red]%s[/red]" % escape(str(exc)))
        return None


def port_number(text):
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError("%r is not a TCP port (0 to 65535)" % text[:40])
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
    from vora_host.log.store import resolve_db_path
    serve = _web_server(Console(stderr=True, highlight=False), "vora serve")
    if serve is None:
        return 1
    path = resolve_db_path(args.db)
    try:
        sock = serve.bind(args.host, WEB_PORT if args.port is None else args.port)
    except serve.PortBusy as exc:
        Console(stderr=True, highlight=False).print("[red]vora serve: %s[/red]" % escape(str(exc)),
                                                  soft_wrap=True)
        return 1
    console.print("Serving the game log %s at %s (Ctrl-C stops)"
                  % (escape(str(path)), serve.address_of(sock)), soft_wrap=True)
    sys.stdout.flush()
    return serve.serve(sock, path, listen=args.host, allow=args.allow_host,
                       max_streams=args.max_streams)


def _start_web(port, db, host=None):
    """vora play --serve: the web mirror in a thread; None (said why) if it cannot start.
    Its address goes to stderr: the virtual board's first stdout line is its device."""
    from vora_host.log.store import resolve_db_path
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


def _bot_seeds(args, module, players, seed):
    # A bot's seed for each player. They derive from the game seed (seed * 10 + player)
    # so that `--bots-only --seed N` replays the very same game -- except in a game with
    # hidden information whose seed nobody chose: there a bot's choices would be a
    # function of the secret seed, and watching them would narrow it down, so its bots
    # draw their own seeds from the OS (kept in the record's agents). A seed given with
    # --seed is the user's to know already; deriving from it gives nothing away.
    if module.HIDDEN_INFORMATION and args.seed is None:
        return [secrets.randbits(BOT_SEED_BITS) for _ in range(players)]
    return [seed * 10 + p for p in range(players)]


BOT_SEED_BITS = 64  # the bots' own seeds in a hidden-information game (random.Random takes any)


def _seed_at_start(module, seed):
    # The opening line's words on the seed: a hidden-information game's seed would give
    # every bag, hand and shuffle away, so it is named only once the game is over.
    if module.HIDDEN_INFORMATION:
        return "seed kept secret until the game is over"
    return "seed %d" % seed


def _print_seed_at_end(console, module, state, seed):
    # The seed of a hidden-information game, now that no secret is left to keep.
    if not module.HIDDEN_INFORMATION:
        return
    if state.is_over():
        console.print("Seed [bold]%d[/bold]: deal the same game again with --seed %d."
                      % (seed, seed))
    else:
        # A record of it (the log, --record) keeps the seed, for replay by its owner.
        console.print("The game did not finish, so its seed stays secret.")


def _make_agents(args, players, seats, bot_seeds, parser):
    # Which seats are human, and a bot for every other seat, seeded from `bot_seeds` (one
    # per player, see _bot_seeds). `seats`: each player's seat names (seat_names).
    from vora_host.play.board_play import check_kind, parse_bot_seats, seat_text
    from vora_host.web.seats import BrowserSeat
    web = set()
    if getattr(args, "web", None) is not None:
        try:
            web = parse_seat_list(args.web, players, seats)
        except ValueError as exc:
            parser.error("--web: %s" % exc)
    if args.bots_only:
        if args.human not in (None, "", "none"):
            parser.error("--bots-only and --human contradict each other")
        humans = set()
    else:
        try:
            humans = parse_seat_list("0" if args.human is None else args.human, players, seats)
        except ValueError as exc:
            parser.error("--human: %s" % exc)
        named = args.human is not None and args.human.strip().lower() not in ("", "all",
                                                                              "none")
        if named and humans & web:
            parser.error("--human and --web both name seat %s: a seat is played here or in "
                         "a browser" % " and ".join(seat_text(p, seats[p])
                                                    for p in sorted(humans & web)))
        humans -= web
    # Each comma part is SEAT=KIND or a kind alone (which may hold settings: search:50:c=1).
    parts = [k.strip() for v in (args.bot or []) for k in v.split(",") if k.strip()]
    at_seat = [k for k in parts if "=" in k and ":" not in k.partition("=")[0]]
    kinds = [k.lower() for k in parts if k not in at_seat]
    try:
        at_seats = parse_bot_seats(at_seat, args.game, seats, players)
        for k in kinds:  # a kind asked for by name is that kind or an error
            try:
                check_kind(k, args.game)
            except ValueError as exc:
                known = set(name for g in rules_games.names() for name in bots.bot_kinds(g))
                if k.partition(":")[0] in known:
                    raise
                # No bot of any game: "--bot Red" meant a bot at Red's seat, most likely.
                given = next(p for p in parts if p.lower() == k)
                raise ValueError("%s; a bot at a seat is SEAT=KIND, e.g. --bot %s=%s" % (
                    exc, given, sorted(bots.bot_kinds(args.game))[0]))
    except ValueError as exc:
        parser.error("--bot: %s" % exc)
    if not kinds:
        # None asked for: Vora's greedy; the other games the search bot, at a budget
        # quick enough to play against.
        kinds = ["greedy" if "greedy" in bots.bot_kinds(args.game) else "search:200"]
    # A seat --bot names is no human's: --human's defaults and "all" mean the others. A
    # seat both options name, though, is a contradiction, not a choice to make silently.
    named = args.human is not None and args.human.strip().lower() not in ("", "all", "none")
    both = sorted(humans & set(at_seats)) if named else []
    if both:
        parser.error("--human and --bot both name seat %s: a seat is a human's or a bot's"
                     % " and ".join(seat_text(p, seats[p]) for p in both))
    both = sorted(web & set(at_seats))
    if both:
        parser.error("--web and --bot both name seat %s: a seat is a person's or a bot's"
                     % " and ".join(seat_text(p, seats[p]) for p in both))
    humans -= set(at_seats)
    agents = []
    n_bots = 0
    for p in range(players):
        if p in web:
            agents.append(BrowserSeat())
        elif p in humans:
            agents.append(Human())
        elif p in at_seats:
            agents.append(bots.make_bot(at_seats[p], bot_seeds[p], args.game))
        else:
            agents.append(bots.make_bot(kinds[n_bots % len(kinds)], bot_seeds[p], args.game))
            n_bots += 1
    return agents


def _game_options(args, module, parser):
    # -o NAME=VALUE for any game; Vora's own flags for Vora only.
    try:
        options = game_option_pairs(module, args.option)
    except ValueError as exc:
        parser.error("-o: %s" % exc)
    vora_flags = {"box": args.box, "seats": args.seats, "pushed_out": args.pushed_out,
                  "max_turns": args.max_turns}
    given = dict((k, v) for k, v in vora_flags.items() if v is not None)
    if given and module is not vora:
        parser.error("--%s is an option of Vora, not of %s (use -o NAME=VALUE)"
                     % (sorted(given)[0].replace("_", "-"), module.TITLE))
    if "seats" in given:
        given["seats"] = given["seats"].upper()
    options.update(given)
    if args.position is not None:
        if not any(spec[0] == "position" for spec in module.OPTIONS):
            parser.error("--position: %s has no set-up positions" % module.TITLE)
        options["position"] = " ".join(args.position.split())
    return options


def _prepare_game(args, parser):
    """The game asked for: (module, state, seed, agents), every error a usage error."""
    module = rules_games.load(args.game)
    players = args.players
    if players is None and args.position is not None and module is vora:
        words = args.position.split()  # a Vora position names its seats, so its players
        players = len(words[1]) if len(words) > 1 else None
    if players is None:
        players = 2 if 2 in module.PLAYER_COUNTS else module.PLAYER_COUNTS[0]
    if players not in module.PLAYER_COUNTS:
        parser.error("--players: %s is played by %s players" % (
            module.TITLE, ", ".join(str(n) for n in module.PLAYER_COUNTS)))
    if args.seed is not None:
        try:
            rules_games.check_seed(module, args.seed)
        except ValueError as exc:
            parser.error("--seed: %s" % exc)
        seed = args.seed
    elif module.HIDDEN_INFORMATION:
        # The whole of the chance follows from the seed: a guessable one would give every
        # secret away, so it is the OS's randomness over the game's full range.
        seed = secrets.randbelow(rules_games.seed_max(module) + 1)
    else:
        seed = random.SystemRandom().randrange(1000000)
    options = _game_options(args, module, parser)
    try:
        state = module.new_game(players, seed, **options)
    except (BadPosition, TypeError, ValueError) as exc:
        parser.error(("--position: %s" if args.position else "%s") % exc)
    seats = seat_names(host_games.host_game(args.game).VIEW, state)
    agents = _make_agents(args, players, seats, _bot_seeds(args, module, players, seed),
                          parser)
    return module, state, seed, agents


# Options that set a game up: a saved game is resumed as it was set up, never with these.
SHAPING = ("seed", "players", "position", "box", "seats", "pushed_out", "max_turns")


def _shaping(args):
    given = ["--" + name.replace("_", "-") for name in SHAPING
             if getattr(args, name, None) is not None]
    return given + (["-o"] if args.option else [])


def _seat_title(game, agent):
    """How the list of seats at the start names a seat's player: 'browser' for a seat
    played in a browser, else the bot's level and kind, or 'human'."""
    if getattr(agent, "browser", False):
        return "browser"
    return bots.player_title(game, agent.kind)


def _refuse_held(console, exc):
    """Another vora plays the game just resumed (it won the race since it was looked at)."""
    console.print("[red]vora play: %s[/red]" % escape(str(exc)), soft_wrap=True)
    return 1


def _say_taken_over(console, live):
    if live.took_over is not None:
        from vora_host.log import leases
        console.print("[yellow]Took game %d over from another vora (%s): it can no longer "
                      "write it.[/yellow]" % (live.gid, escape(leases.describe(live.took_over))),
                      soft_wrap=True)


def _resume_target(args, console, parser):
    """--resume ID: the game it names decides GAME (and a Vora game is typed: Vora on the
    board is the board's own). Usage errors for what cannot be resumed."""
    from vora_host.log.store import GameLog, GameLogError, resolve_db_path
    if args.no_log:
        parser.error("--resume: a game is resumed from the game log; leave out --no-log")
    if args.fresh:
        parser.error("--resume continues a game and --fresh starts a new one: give one")
    if args.bots_only:
        parser.error("--resume: the seats are the humans' and bots of --human and --bot; "
                     "--bots-only starts a demo")
    if _shaping(args):
        parser.error("--resume continues game %d as it was set up: leave out %s"
                     % (args.resume, ", ".join(_shaping(args))))
    try:
        with GameLog(resolve_db_path(args.db), create=False) as log:
            info = saved.resumable(log, args.resume, take_over=args.take_over)
    except saved.ResumeError as exc:
        parser.error("--resume: %s" % exc)
    except GameLogError as exc:
        parser.error("--resume: cannot read the game log: %s" % exc)
    if args.game not in ("vora", info["game"]):
        parser.error("--resume: game %d is %s, not %s" % (args.resume, info["game"], args.game))
    args.game = info["game"]
    if args.game == "vora":
        args.typed = True


def _saved_for(args, console, parser):
    """The game to resume as (log summary with moves, start state, moves), or None for a
    new game. Without --resume: the newest unfinished game of GAME the PC ran, unless
    --fresh abandons it (or there is no log to look in)."""
    from vora_host.log import leases
    from vora_host.log.store import GameLog, GameLogError, record_of, resolve_db_path
    if args.resume is None and (args.no_log or args.bots_only):
        return None
    try:
        log = GameLog(resolve_db_path(args.db), create=args.resume is None)
    except GameLogError:
        return None  # said again, with what to do, when the game is logged
    try:
        if args.resume is not None:
            info = saved.resumable(log, args.resume, take_over=args.take_over)
        else:
            held = []
            found = saved.saved_game(log, args.game, held)
            for other, holder in held:
                console.print("[yellow]Your unfinished %s is being played by another vora "
                              "(%s), so it is not resumed here; to take it over: 'vora play "
                              "--resume %d --take-over'.[/yellow]"
                              % (escape(saved.describe(other)), escape(leases.describe(holder)),
                                 other["id"]), soft_wrap=True)
            if found is None:
                return None
            info = log.game(found["id"])
            if args.fresh:
                saved.abandon(log, info)
                console.print("Your unfinished %s is abandoned (still in the log); a new "
                              "game starts." % escape(saved.describe(info)))
                return None
            if _shaping(args):
                parser.error("you have an unfinished game (%s): 'vora play %s' resumes it; "
                             "add --fresh to abandon it and start a new game with %s"
                             % (saved.describe(info), args.game, " ".join(_shaping(args))))
        try:
            state, moves = saved.replay(info)
        except saved.ResumeError as exc:
            if args.resume is not None:
                parser.error("--resume: %s" % exc)
            saved.abandon(log, info)
            console.print("[yellow]Your unfinished game cannot be resumed (%s): it is "
                          "abandoned; a new game starts.[/yellow]" % escape(str(exc)))
            return None
    except saved.ResumeError as exc:
        parser.error("--resume: %s" % exc)
    except GameLogError as exc:
        console.print("[yellow]The saved game cannot be read from the log (%s): a new game "
                      "starts.[/yellow]" % escape(str(exc)))
        return None
    finally:
        log.close()
    return info, rules_games.start(record_of(info)[0]), moves


def _resumed_game(args, resumed, parser):
    """(module, start state, seed, agents) of a resumed game: seated as last noted, unless
    --human, --bot or --bots-only say otherwise (or nothing was noted: their defaults)."""
    from vora_host.log.store import resolve_db_path
    info, state, _ = resumed
    module = rules_games.load(info["game"])
    players = len(state.scores())
    # Bots in a resumed hidden-information game draw their own seeds (a seed derived from
    # the secret one would let their play give it away); elsewhere as at the start.
    resumed_seeds = ([secrets.randbits(BOT_SEED_BITS) for _ in range(players)]
                     if module.HIDDEN_INFORMATION else
                     [info["seed"] * 10 + p for p in range(players)])
    kinds = saved.seats_noted(resolve_db_path(args.db), info["id"], players)
    chosen = args.bot or args.bots_only or getattr(args, "web", None) is not None or (
        args.human is not None and not getattr(args, "human_by_default", False))
    if kinds is not None and not chosen:  # the seats as they were
        agents = []
        for p, kind in enumerate(kinds):
            if kind == "human":
                agents.append(Human())
                continue
            try:
                agents.append(bots.make_bot(kind, resumed_seeds[p], info["game"]))
            except ValueError:
                agents = None
                break
        if agents is not None:
            return module, state, info["seed"], agents
    seats = seat_names(host_games.host_game(info["game"]).VIEW, state)
    agents = _make_agents(args, players, seats, resumed_seeds, parser)
    return module, state, info["seed"], agents


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
        from vora_host.log.store import GameHeld, resolve_db_path

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
                      label=lambda p: view.seat_label(table.state, p))
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


def _close_web_seats(web, table):
    """The game is done: its last view reaches the browsers open on its seats (a few
    seconds at most), then their streams end and the server stops."""
    server, registry = web
    registry.settle(table, SETTLE_SECONDS)
    registry.closing.set()
    server.should_exit = True


SETTLE_SECONDS = 5.0


def _open_web_seats(args, console, table):
    """vora play --web: the web server with the browser seats of `table`, their links
    printed (and their QR codes at a terminal): (server, registry), or None after saying
    why not."""
    from vora_host.log.store import resolve_db_path
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


# ---------------------------------------------------------------- vora replay

def cmd_replay(args, console):
    path = args.file
    try:
        record = load_record(path)
    except RecordError as exc:
        console.print("[red]vora replay: %s[/red]" % escape(str(exc)))
        return 1
    moves = record["moves"]
    checked = record.get("digests") is not None
    console.print("Replaying [bold]%s[/bold]: %s, %s, seed %d, %s (%s)."
                  % (escape(path), record["game"], plural(record["players"], "player"),
                     record["seed"], plural(len(moves), "move"),
                     "digests checked" if checked else "no digests to check"))
    who = {}
    for agent in record.get("agents") or []:
        # Shown beside the players: only a bot's short kind name from an untrusted file.
        if isinstance(agent, dict) and isinstance(agent.get("player"), int) \
                and isinstance(agent.get("kind"), str) \
                and re.fullmatch(r"[a-z][a-z0-9_-]{0,19}", agent["kind"]):
            who[agent["player"]] = agent["kind"]
    history = []
    view = games_cli.game_view(record["game"])
    palette = view.palette_for(console)

    def draw(state):
        # Drawn as a spectator sees it: a game that hides information keeps its secrets
        # on the screen even in a replay (the moves list shows what the record holds).
        console.print(view.render(state, None, who, history, width=console.width,
                                  palette=palette))

    def on_step(k, player, move, state):
        history.append((player, move))
        if not args.quiet:
            console.print("%4d. P%d %s" % (k, player, escape(move)))
        if args.boards:
            draw(state)

    try:
        state = replay(record, on_step)
    except RecordError as exc:
        console.print("[red]vora replay: %s[/red]" % escape(str(exc)))
        return 1
    console.print()
    draw(state)
    console.print()
    if checked:
        console.print("[green]All %s replayed; every digest matches.[/green]"
                      % plural(len(moves), "move"))
    else:
        console.print("[green]All %s replayed.[/green]" % plural(len(moves), "move"))
    if state.is_over():
        console.print("Game over: %s." % view.end_reason(state))
        for line in view.result_lines(state):
            console.print(line, style="bold")
    else:
        stopped = (record.get("result") or {}).get("end", "unfinished")
        console.print("The game was not finished (%s); scores so far: %s."
                      % (escape(str(stopped)),
                         ", ".join("P%d %+d" % (p, s) for p, s in enumerate(state.scores()))))
    return 0


# ---------------------------------------------------------------- vora sim

def cmd_sim(args):
    # Imported here: the firmware package is only needed by this command.
    from vora_host.virtual import sim
    return sim.run(save_dir=args.save_dir, fresh=args.fresh, seed=args.seed,
                   headless=args.headless, script=args.script, pinmap_file=args.pinmap,
                   ghosting=args.ghosting, flash_dir=args.flash,
                   flash_size=args.flash_size * 1024 if args.flash_size else None,
                   romfs_size=args.romfs_size * 1024 if args.romfs_size else 0)


# ---------------------------------------------------------------- vora rules

def cmd_rules(game, console):
    """How to play `game` (shipped with the package), its options and what each changes,
    and where the full notation is. At a terminal: rendered, through a pager."""
    from vora_host import howto
    module = rules_games.load(game)
    host = host_games.host_game(game)
    try:
        text = howto.text(game)
    except LookupError as missing:  # a game added without its text: still the options
        text = "# %s\n\n(%s)\n" % (module.TITLE, missing)
    if not console.is_terminal:
        console.out(text, highlight=False)
        _rules_appendix(game, module, host, console)
        return 0
    from rich.markdown import Markdown
    with _pager(console):
        console.print(Markdown(text))
        _rules_appendix(game, module, host, console)
    return 0


def _rules_appendix(game, module, host, console):
    console.print()
    console.print("[bold]Players[/bold] %s.  [bold]Options[/bold] (vora play %s -o NAME=VALUE), "
                  "and what each changes:" % (", ".join(str(n) for n in module.PLAYER_COUNTS),
                                               game))
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("option", "values", "what it changes"):
        table.add_column(column)
    for name, default, kind, text in module.OPTIONS:
        values = option_values_text(kind)
        if default is not None:
            text += " (default %s)" % (default,)
        table.add_row(name, escape(values), escape(text))
    print_table(console, table)
    _rules_bots(game, console)
    console.print()
    # What an installed vora has: this text and the help inside a game. The notation in
    # full and the house rules' reasons are documents of the project's source, which a
    # wheel does not install: said so, and shown where they are in a checkout.
    console.print("[bold]More[/bold]: the moves as you type them are under \"Typed moves\" "
                  "above; in a game, ? (or help) shows the rules and keys of the step you "
                  "are in. The notation in full (positions too) and the reasons for the "
                  "house rules are in the project's source, not installed with vora: "
                  "docs/%s and docs/rules-decisions.md." % escape(host.NOTATION))
    from vora_host import resources
    root = resources.checkout()  # run from a checkout: the notation's file is here
    if root is not None and (root / "docs" / host.NOTATION).exists():
        console.print("Here: %s" % escape(str(root / "docs" / host.NOTATION)))


def option_values_text(kind):
    """What a player types for an option of this kind (-o NAME=VALUE), in words."""
    if isinstance(kind, tuple):
        return "|".join(kind)
    return {"int": "a whole number", "bool": "yes or no",
            "dict": 'a JSON object: {"name": number, ...}',
            "str": "text, or @FILE for a file's text"}.get(kind, kind)


def _rules_bots(game, console):
    """The bots a player can sit at the other seats, and the levels' measured strength:
    an installed package has no docs/bots.md to send people to."""
    from vora_host.bots.levels import LEVEL_NAMES, MEASURED, level_kind
    console.print()
    console.print("[bold]Bots[/bold] (vora play %s --bot SEAT=KIND): the levels, and what "
                  "each is in this game:" % game)
    table = Table(show_edge=False, box=None, padding=(0, 2))
    table.add_column("level")
    table.add_column("the bot")
    for level in LEVEL_NAMES:
        table.add_row(level, escape(level_kind(game, level)))
    print_table(console, table)
    if game in MEASURED:
        console.print("Measured at two players: %s. hard takes up to about a second a move."
                      % escape(MEASURED[game]))
    console.print("Other kinds: %s; search:N for N iterations a move, search:Nms for N "
                  "milliseconds." % escape(", ".join(sorted(bots.bot_kinds(game)))))


class _pager:
    """Page what is printed inside through $PAGER (else less, if there is one), with its
    colours; straight to the console when no pager can run."""

    def __init__(self, console):
        self.console = console
        self.capture = None

    def __enter__(self):
        self.capture = self.console.capture()
        self.capture.__enter__()
        return self

    def __exit__(self, *exc):
        self.capture.__exit__(*exc)
        if exc[0] is not None:
            return False
        import os
        import shutil
        import subprocess
        rendered = self.capture.get()
        command = os.environ.get("PAGER") or ("less" if shutil.which("less") else "")
        if command:
            env = dict(os.environ)
            env.setdefault("LESS", "FRX")  # colours kept, one screen needs no paging
            try:
                proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE,
                                        env=env, errors="replace", text=True)
            except OSError:
                proc = None
            if proc is not None:
                try:
                    with proc.stdin:
                        proc.stdin.write(rendered)
                except BrokenPipeError:
                    pass  # the reader quit the pager before the end
                proc.wait()
                return False
        self.console.file.write(rendered)
        return False

"""The `vora` command line.

    vora play      play Vora in the terminal against bots, or watch bots play
    vora replay    replay a recorded game, checking it move by move
    vora rules     where the rules are, and the move notation on one screen
    vora sim       the virtual board: the firmware on the PC, with a serial port (a pty)

`main(argv)` returns the exit status instead of exiting, so tests can call it directly.
Exit status: 0 done, 1 a failure the command reports (a record that does not replay, a
file that cannot be written), 2 a usage error, 130 interrupted by Ctrl-C.
"""

import argparse
import random
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from shared_rules import vora
from shared_rules.errors import BadPosition

from vora_host import __version__, bots
from vora_host.games.vora import view as render
from vora_host.log import cli as games_cli
from vora_host.argtypes import non_negative_int, positive_int, seconds
from vora_host.log.records import RecordError, game_options, load_record, new_record, replay, \
    write_record
from vora_host.play.terminal import EOF, INTERRUPTED, OVER, QUIT, Human, TerminalGame

__all__ = ["main", "build_parser"]

# Seconds between bot moves when a human watches at a terminal.
INTERACTIVE_DELAY = 0.4



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
    """'--human' as player numbers or seat letters: '0', '0,2', 'S,N', 'none'."""
    text = text.strip()
    if text.lower() in ("", "none", "-"):
        return set()
    out = set()
    for part in text.replace(" ", ",").split(","):
        part = part.strip()
        if not part:
            continue
        if part.isdigit() and int(part) < players:
            out.add(int(part))
        elif part.upper() in seats and len(part) == 1:
            out.add(seats.index(part.upper()))
        else:
            raise ValueError("%r is not a player: use numbers 0 to %d or seats among %s"
                             % (part, players - 1, ", ".join(seats)))
    return out


# ---------------------------------------------------------------- the parser

def build_parser():
    parser = argparse.ArgumentParser(
        prog="vora",
        description="Vora Board on the PC: play Vora in the terminal, replay game records.",
        epilog="Run 'vora COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version="vora %s" % __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play", help="play Vora: on the board (mirrored here), or typed in the terminal",
        description="Play Vora on the board, mirrored and logged on the PC. With a board "
                    "on USB (or --port), the PC follows it; with none, the virtual board "
                    "starts here and you press its keys (mouse, arrows and Space, or key "
                    "names), with the mirror beside it. --typed (or --bots-only, --human) "
                    "plays in the terminal instead: moves typed, bots at the other seats; "
                    "type ? there for help.")
    play.set_defaults(subparser=play)  # so that errors found later say "vora play: error"
    board = play.add_argument_group("on the board (the default)")
    board.add_argument("--port", default=None, metavar="DEVICE",
                       help="the board's serial device, or 'sim' for the virtual board "
                            "(default: the board found on USB, else the virtual board)")
    board.add_argument("--db", metavar="PATH", default=None,
                       help="the game log (default $VORA_DB, else games.sqlite3 in the "
                            "user's data folder)")
    board.add_argument("--save-dir", metavar="DIR", default=None,
                       help="the virtual board's save folder (as vora sim)")
    board.add_argument("--fresh", action="store_true",
                       help="the virtual board forgets its saved game first")
    play.add_argument("--typed", action="store_true",
                      help="play in the terminal, typing moves, with bots (no board)")
    play.add_argument("--players", type=int, choices=(2, 3, 4), default=2,
                      help="number of players (default 2)")
    play.add_argument("--seed", type=non_negative_int, default=None,
                      help="seed of the deal (default: a random one, printed)")
    play.add_argument("--human", metavar="LIST", default=None,
                      help="the human players, as numbers or seats: '0', '0,2', 'S,N', "
                           "'none' (default: 0); the others are bots")
    play.add_argument("--bots-only", action="store_true",
                      help="every player is a bot: a demo that needs no keyboard")
    play.add_argument("--bot", metavar="KIND", default="greedy",
                      help="kind of the bots: %s, or a comma list given to the bot seats "
                           "in order (default greedy); search:N searches N iterations a "
                           "move, search:Nms N milliseconds" % " or ".join(sorted(bots.bot_kinds("vora"))))
    play.add_argument("--delay", type=seconds, default=None, metavar="SECONDS",
                      help="pause before each bot move (default %.1f at a terminal, 0 with "
                           "--bots-only or when input is not a terminal)" % INTERACTIVE_DELAY)
    play.add_argument("--record", metavar="FILE",
                      help="write the game record (JSON) to FILE when the game ends or stops")
    play.add_argument("--quiet", action="store_true",
                      help="show only the final position and result (with --bots-only)")
    house = play.add_argument_group("house options (the rulebook leaves these open)")
    house.add_argument("--box", type=parse_box, default=None, metavar="COUNTS",
                       help="cubes in the box: N of every type, or type=count pairs "
                            "(default 12 of each)")
    house.add_argument("--pushed-out", choices=vora.PUSHED_OUT_CHOICES,
                       default=vora.DEFAULT_PUSHED_OUT,
                       help="where a cube pushed out on a side where nobody sits goes "
                            "(default %s)" % vora.DEFAULT_PUSHED_OUT)
    house.add_argument("--seats", default=None,
                       help="the sides the players sit at, player 0 first, e.g. SE "
                            "(default SN, SWN, SWNE)")
    house.add_argument("--max-turns", type=positive_int, default=vora.DEFAULT_MAX_TURNS,
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

    sub.add_parser("rules", help="where the rules are, and the move notation",
                   description="Show where the rulebook and the notation documents are, "
                               "and summarise the move notation.")

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
    sim.add_argument("--seed", type=non_negative_int, default=None,
                     help="seed of every game dealt (default: the board's clock)")
    sim.add_argument("--headless", action="store_true",
                     help="draw nothing; read commands from stdin (the default when the "
                          "output is not a terminal)")
    sim.add_argument("--script", metavar="FILE", default=None,
                     help="run the commands in FILE first, then go on as usual (end the "
                          "file with quit to stop there)")
    sim.add_argument("--pinmap", metavar="FILE", default=None,
                     help="another pin map (default hardware/pinmap-rp2-pico.json)")
    sim.add_argument("--ghosting", action="store_true",
                     help="simulate a key matrix without diodes (ghost keys)")

    mirror = sub.add_parser(
        "mirror", help="follow a board: show its game live and log every move",
        description="Follow the board's game over its serial link: the meadow, whose turn, "
                    "farms, scores and the last moves, live; every move is logged (vora "
                    "games). Reconnects by itself after an unplug. Ctrl-C stops.")
    mirror.add_argument("--port", default=None, metavar="DEVICE",
                        help="the serial device (default: the board found on USB); the "
                             "path printed by 'vora sim' follows the virtual board")
    mirror.add_argument("--db", metavar="PATH", default=None, help="the game log (as vora play)")
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

    games_cli.add_parser(sub)  # vora games: the game log (games_cli.py)
    return parser


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    try:
        if args.command == "play":
            if args.typed or args.bots_only or args.human is not None:
                return cmd_play(args, console, args.subparser)
            return cmd_play_board(args, console)
        if args.command == "mirror":
            return cmd_mirror(args, console)
        if args.command == "repl":
            return cmd_repl(args, console)
        if args.command == "replay":
            return cmd_replay(args, console)
        if args.command == "rules":
            return cmd_rules(console)
        if args.command == "sim":
            return cmd_sim(args)
        if args.command == "games":
            return games_cli.run(args, console)
        parser.print_help()
        return 2
    except KeyboardInterrupt:
        console.print("\n[yellow]Interrupted.[/yellow]")
        return 130
    except BrokenPipeError:
        # Output piped into something like `head` that stopped reading: not an error of ours.
        return 1


# ---------------------------------------------------------------- vora play (board), mirror, repl

def _open_log(console, db):
    from vora_host.log.store import GameLog, GameLogError, resolve_db_path
    path = resolve_db_path(db)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return GameLog(path)
    except (GameLogError, OSError) as exc:
        console.print("[red]Cannot open the game log %s: %s[/red]" % (
            escape(str(path)), escape(str(exc))))
        return None


def cmd_play_board(args, console):
    from vora_host.link import ports
    from vora_host.virtual import board as sim
    from vora_host.link.mirror import VirtualCompanion, run_mirror
    log = _open_log(console, args.db)
    if log is None:
        return 1
    try:
        device = None
        if args.port not in ports.VIRTUAL:
            try:
                device = ports.choose_port(args.port)
            except ports.NoBoard as exc:
                if args.port:
                    console.print("[red]%s[/red]" % escape(str(exc)))
                    return 1
                # stderr: the first line on stdout is the virtual board's serial device
                Console(stderr=True).print("No board on USB: starting the virtual board.",
                                           style="dim")
        if device is not None:
            return run_mirror(device, log)
        plain = not (sys.stdout.isatty() and sys.stdin.isatty())
        companion = VirtualCompanion(log, sys.stdout, plain)
        return sim.run(save_dir=args.save_dir, fresh=args.fresh, seed=args.seed,
                       headless=plain, companion=companion)
    finally:
        log.close()


def _board_device(args, console):
    """The board's serial device from --port or USB, or None after saying why not."""
    from vora_host.link import ports
    try:
        return ports.choose_port(args.port)
    except ports.NoBoard as exc:
        console.print("[red]%s[/red]" % escape(str(exc)))
        return None


def cmd_mirror(args, console):
    from vora_host.link.mirror import run_mirror
    device = _board_device(args, console)
    if device is None:
        return 1
    log = _open_log(console, args.db)
    if log is None:
        return 1
    try:
        return run_mirror(device, log, plain=True if args.plain else None)
    finally:
        log.close()


def cmd_repl(args, console):
    from vora_host.link.mirror import send_repl
    device = _board_device(args, console)
    if device is None:
        return 1
    ok, text = send_repl(device)
    console.print(text, style=None if ok else "red")
    return 0 if ok else 1


def _make_agents(args, players, seats, seed, parser):
    # Which seats are human, and a bot for every other seat. Bot seeds derive from the
    # game seed so that `--bots-only --seed N` replays the very same game.
    if args.bots_only:
        if args.human not in (None, "", "none"):
            parser.error("--bots-only and --human contradict each other")
        humans = set()
    else:
        try:
            humans = parse_seat_list("0" if args.human is None else args.human, players, seats)
        except ValueError as exc:
            parser.error("--human: %s" % exc)
    kinds = [k.strip().lower() for k in args.bot.split(",") if k.strip()] or ["greedy"]
    for k in kinds:
        try:
            bots.make_bot(k, 0, "vora")  # an unknown kind or a bad parameter, named
        except ValueError as exc:
            parser.error("--bot: %s" % exc)
    agents = []
    n_bots = 0
    for p in range(players):
        if p in humans:
            agents.append(Human())
        else:
            agents.append(bots.make_bot(kinds[n_bots % len(kinds)], seed * 10 + p, "vora"))
            n_bots += 1
    return agents


def cmd_play(args, console, parser):
    players = args.players
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1000000)
    seats = args.seats.upper() if args.seats else vora.DEFAULT_SEATS[players]
    options = game_options(players, box=args.box, seats=seats, pushed_out=args.pushed_out,
                           max_turns=args.max_turns)
    try:
        state = vora.new_game(players, seed, **options)
    except BadPosition as exc:
        parser.error(str(exc))
    options = state.options()  # every option spelled out, house defaults included
    agents = _make_agents(args, players, seats, seed, parser)
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
        record = new_record(players, seed, options, [
            {"player": p, "seat": seats[p], "kind": a.kind,
             "seed": getattr(a, "seed", None)} for p, a in enumerate(agents)])

    console.print("[bold]Vora[/bold], %d players, seed [bold]%d[/bold] (play it again with "
                  "--seed %d)." % (players, seed, seed))
    game = TerminalGame(state, agents, console, delay=delay, record=record,
                        quiet=args.quiet and args.bots_only)
    console.print("  " + "; ".join(render.seat_label(state, p, game.who[p])
                                   for p in range(players)))
    if any(isinstance(a, Human) for a in agents):
        console.print("  Type a move's number or notation; [bold]?[/bold] for help, "
                      "[bold]q[/bold] to quit.")
    outcome = game.run()
    try:
        game.print_end()
    except KeyboardInterrupt:
        outcome = INTERRUPTED  # a second Ctrl-C during the summary: skip the rest of it
    # Whatever happened at the table, the record is written if it was asked for.
    if record is not None:
        try:
            write_record(args.record, record)
        except OSError as exc:
            console.print("[red]Could not write the record to %s: %s[/red]"
                          % (escape(args.record), escape(str(exc))))
            return 1
        console.print("Record written to %s (%d moves)."
                      % (escape(args.record), len(record["moves"])))
    if outcome == INTERRUPTED:
        return 130
    assert outcome in (OVER, QUIT, EOF), outcome
    return 0


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
    console.print("Replaying [bold]%s[/bold]: %s, %d players, seed %d, %d moves (%s)."
                  % (escape(path), record["game"], record["players"], record["seed"], len(moves),
                     "digests checked" if checked else "no digests to check"))
    who = {}
    for agent in record.get("agents") or []:
        if isinstance(agent, dict) and isinstance(agent.get("player"), int) \
                and isinstance(agent.get("kind"), str):
            who[agent["player"]] = agent["kind"]
    history = []

    def on_step(k, player, move, state):
        history.append((player, move))
        if not args.quiet:
            console.print("%4d. P%d %s" % (k, player, escape(move)))
        if args.boards:
            console.print(render.render_game(state, who, history, width=console.width,
                                             palette=render.palette_for(console)))

    try:
        state = replay(record, on_step)
    except RecordError as exc:
        console.print("[red]vora replay: %s[/red]" % escape(str(exc)))
        return 1
    console.print()
    console.print(render.render_game(state, who, history, width=console.width,
                                     palette=render.palette_for(console)))
    console.print()
    if checked:
        console.print("[green]All %d moves replayed; every digest matches.[/green]" % len(moves))
    else:
        console.print("[green]All %d moves replayed.[/green]" % len(moves))
    if state.is_over():
        console.print("Game over: %s." % render.end_reason(state))
        for line in render.result_lines(state):
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
    from vora_host.virtual import board as sim
    return sim.run(save_dir=args.save_dir, fresh=args.fresh, seed=args.seed,
                   headless=args.headless, script=args.script, pinmap_file=args.pinmap,
                   ghosting=args.ghosting)


# ---------------------------------------------------------------- vora rules

NOTATION_SUMMARY = """\
[bold]Vora move notation[/bold] (what you type, and what records store)
  Cells  a1..e5: file a..e from west to east, rank 1..5 from south to north
         (a1 is the bottom-left cell as South sees it).
  Edges  Sa..Se push north from below, Na..Ne push south from above,
         W1..W5 push east from the left, E1..E5 push west from the right.
  Cubes  pig crow wolf mole duck ladybug sheep water grass
         (letters P C W M D L S A G on the board; A is water, "aqua").
[bold]On your turn[/bold] (phase act), one of:
  push <cube> <edge>      push a cube of your farm in; the far end one goes out
  pig <edge>              a pig of your farm pushes the line two spaces
  wolf <edge>             a wolf of your farm eats the first animal; the rest flee
  crow <cell>             a crow of your farm swaps with an animal; you keep it
  mole <cell> <cell>      a meadow mole swaps with a neighbouring cube (8 around)
  duck <cell> <cell>      a meadow duck swaps with any grass or water
  ladybug <cell>          take a ladybug from the meadow; your turn ends
  water <cell>            collect 3+ connected water, named by its first cell
[bold]Then[/bold] (phase collect): take <cell> a line group you made, or pass.
  (phase bonus, after a line of 4 / 5+): extra <cell>, steal <player> <cube>, pass.
  Groups are named by their first cell in the order a1, a2, ..., e5.
  Type "?" during a game for the commands, "vora play --help" for the options."""


def _repo_root():
    # The package lives in host/vora_host/ of the repository (installed editable); an
    # installed copy elsewhere has no repository around it, and says so.
    root = Path(__file__).resolve().parents[2]
    return root if (root / "shared_rules").is_dir() else None


def cmd_rules(console):
    root = _repo_root()
    docs = [
        ("rulebook", ("..", "shared", "rulebooks", "vora.md")),
        ("notation", ("docs", "vora-notation.md")),
        ("house rules decisions", ("docs", "rules-decisions.md")),
    ]
    console.print("[bold]Where the rules are[/bold]")
    for label, parts in docs:
        if root is None:
            console.print("  %-22s %s (in the repository)" % (label, "/".join(parts)))
            continue
        path = (root.joinpath(*parts)).resolve()
        note = "" if path.exists() else "  [yellow](not in this checkout yet)[/yellow]"
        console.print("  %-22s %s%s" % (label, escape(str(path)), note))
    console.print("  %-22s python -m pydoc shared_rules.vora" % "engine")
    console.print()
    console.print(NOTATION_SUMMARY)
    return 0

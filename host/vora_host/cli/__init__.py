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

Each command's code is a module of its own: `vora play` in vora_host.cli.play (its
arguments in vora_host.cli.play_args, resuming in vora_host.cli.resume), `vora replay` and
`vora rules` in vora_host.cli.replay and vora_host.cli.rules; the rooms below register
their own: `vora sim` (vora_host.virtual.cli), `vora mirror` and `vora repl`
(vora_host.link.cli), `vora serve` (vora_host.web.cli), `vora games` (vora_host.log.cli),
`vora lab` (vora_host.lab.cli), the makers' commands (vora_host.maker.cli). This module
builds the parser from them and runs the command asked for.
"""

import argparse

from rich.console import Console

from vora_host import hang_up
from vora_host.cli import play, play_args, replay, resume, rules
from vora_host.lab import cli as lab_cli
from vora_host.link import cli as link_cli
from vora_host.log import cli as games_cli
from vora_host.maker import cli as maker_cli
from vora_host.review import cli as review_cli
from vora_host.virtual import cli as virtual_cli
from vora_host.web import cli as web_cli

__all__ = ["main", "build_parser"]


# ---------------------------------------------------------------- the parser

class _VersionAction(argparse.Action):
    # argparse's own "version" action rewraps the text into one paragraph: three lines here.
    def __call__(self, parser, namespace, values, option_string=None):
        from vora_host import versions
        print(versions.describe())
        parser.exit()


def _join(args, console):
    """vora play --join LINK: this terminal plays a seat of a table elsewhere. The options
    that set up a game here have no meaning there: each one given is named."""
    from vora_host.remote.join import run_join
    here = [flag for flag, given in (
        ("--web", args.web is not None), ("--serve", args.serve is not None),
        ("--bots-only", args.bots_only), ("--resume", args.resume is not None),
        ("--human", args.human is not None), ("--bot", bool(args.bot)),
        ("--seed", getattr(args, "seed", None) is not None),
        ("--players", args.players is not None), ("--record", bool(args.record)))
        if given]
    if here:
        args.subparser.error("--join plays a seat of a game set up elsewhere: leave out %s"
                             % ", ".join(here))
    if args.port is not None:  # this PC's board plays the seat
        return play.cmd_join_board(args, console)
    return run_join(args.join, console, db_path=args.db, no_log=args.no_log)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="vora",
        description="Vora Board on the PC: play Vora in the terminal, replay game records.",
        epilog="Run 'vora COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="this vora's version, the firmware it installs and the protocol")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play_args.add_parser(sub)  # vora play (cli/play_args.py)
    replay.add_parser(sub)  # vora replay (cli/replay.py)
    rules.add_parser(sub)  # vora rules (cli/rules.py)
    virtual_cli.add_parser(sub)  # vora sim (virtual/cli.py)
    link_cli.add_parsers(sub)  # vora mirror, repl (link/cli.py)
    web_cli.add_parser(sub)  # vora serve (web/cli.py)
    games = games_cli.add_parser(sub)  # vora games: the game log (log/cli.py)
    review_cli.add_parser(games.actions, games_cli.DB_HELP)  # vora games review (review/cli.py)
    lab_cli.add_parser(sub)  # vora lab: the balance lab (lab/cli.py)
    maker_cli.add_parsers(sub)  # vora flash, update, doctor (maker/cli.py)
    return parser


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    if args.command in ("play", "mirror"):
        hang_up.install()  # the terminal closing stops them as Ctrl-C does
    try:
        if args.command == "play" and args.join is not None:
            return _join(args, console)
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
            if web_cli._start_web(args.serve, args.db, args.host) is None:
                return 1
        if args.command == "play":
            if args.take_over and args.resume is None:
                args.subparser.error("--take-over takes over the game --resume ID names: "
                                     "give both")
            if args.resume is not None:
                resume._resume_target(args, console, args.subparser)
            if args.typed or args.bots_only or (args.human is not None and args.game == "vora"):
                return play.cmd_play(args, console, args.subparser)
            return play.cmd_play_board(args, console, args.subparser)
        if args.command == "serve":
            return web_cli.cmd_serve(args, console)
        if args.command == "mirror":
            return link_cli.cmd_mirror(args, console)
        if args.command == "repl":
            return link_cli.cmd_repl(args, console)
        if args.command == "replay":
            return replay.cmd_replay(args, console)
        if args.command == "rules":
            return rules.cmd_rules(args.game, console)
        if args.command == "sim":
            return virtual_cli.cmd_sim(args)
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

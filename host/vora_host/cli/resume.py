"""Resuming a game with `vora play`: `--resume ID` (the game it names decides GAME), or
without it the newest unfinished game of GAME the PC ran (unless --fresh abandons it, or
another vora plays it now: then it is passed by, saying how to take it over), replayed
from the log and seated as it was last noted.

Apart from playing (vora_host.cli.play) because what can be resumed, and how, is decided
before a game is set up, from the log alone.
"""

import secrets

from rich.markup import escape

from shared_rules import games as rules_games

from vora_host import bots
from vora_host import games as host_games
from vora_host.cli.play_args import _make_agents, _shaping, seat_names
from vora_host.table.deal import BOT_SEED_BITS
from vora_host.play import saved
from vora_host.play.terminal import Human

__all__ = []


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
    from vora_host.log.database import resolve_db_path
    from vora_host.log.errors import GameLogError
    from vora_host.log.store import GameLog
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
    from vora_host.log.database import resolve_db_path
    from vora_host.log.errors import GameLogError
    from vora_host.log.store import GameLog
    from vora_host.log.verify import record_of
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
    from vora_host.log.database import resolve_db_path
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

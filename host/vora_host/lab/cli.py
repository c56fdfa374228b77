"""`vora lab GAME`: the command line of the balance lab (docs/lab.md)."""

from rich.console import Console

from shared_rules import games as rules_games
from shared_rules.errors import BadPosition

from vora_host.argtypes import game_option_pairs, non_negative_int, option_value, \
    positive_int
from vora_host.lab.spec import dict_default

__all__ = ["add_parser", "run", "parse_options", "parse_compare"]

DEFAULT_GAMES = 200


def add_parser(sub):
    """Register `vora lab` on the `vora` subparsers `sub`."""
    lab = sub.add_parser(
        "lab", help="play many games between bots and report how fair and how long they are",
        description="The balance lab: play GAMES games between bots and report win rates "
                    "by seat with 95% intervals, game lengths, how games end, scores, the "
                    "moves used, and how much the seed alone decides. --compare plays the "
                    "same seeds under each value of an option and tests the differences. "
                    "Writes a folder with games.jsonl (every game), report.json, PNG plots "
                    "and report.html. Ctrl-C stops and reports the games played; --resume "
                    "goes on. See docs/lab.md.",
        epilog="Examples: vora lab vora --bots greedy --games 300 --compare pushed_out=box,pusher; "
           "vora lab vora --ladder random easy normal hard --games 100")
    lab.set_defaults(lab_parser=lab)
    lab.add_argument("game", metavar="GAME", choices=rules_games.names(),
                     help="the game: %s" % ", ".join(rules_games.names()))
    lab.add_argument("--games", "-n", type=positive_int, default=DEFAULT_GAMES, metavar="N",
                     help="games per value compared (default %d)" % DEFAULT_GAMES)
    lab.add_argument("--players", type=positive_int, default=None, metavar="N",
                     help="number of players (default 2, or the game's smallest count)")
    lab.add_argument("--bots", default="random", metavar="KINDS",
                     help="the bots: one kind for every seat, or one per seat separated by "
                          "commas, seat 0 first (e.g. greedy,random). Kinds: random for any "
                          "game, a game's own (Vora: greedy, lookahead), kinds with a budget "
                          "such as search:200 where the bot takes one, and the levels easy, "
                          "normal, hard. Default random")
    lab.add_argument("--ladder", nargs="+", default=None, metavar="KIND",
                     help="a round robin instead: every pair of these bot kinds plays --games "
                          "two-player games (seats alternating, each deal played both ways), "
                          "and the report rates them on an Elo scale with 95%% intervals "
                          "(Bradley-Terry, bootstrap), e.g. --ladder random easy normal hard; "
                          "on --workers processes, each game kept in ladder-games.jsonl as it ends "
                          "(--resume goes on), "
                          "the report in ladder.json in --out")
    lab.add_argument("--swings", type=positive_int, default=None, metavar="N",
                     help="which moves decide games instead: N games between --bots are "
                          "reviewed as 'vora games review' does (--swing-budget iterations "
                          "a position) and each kind of move (push water, keep crane...) "
                          "gets its mean change of its mover's chance to win, its mean "
                          "absolute change and how often the review marked it")
    lab.add_argument("--swing-budget", type=positive_int, default=None, metavar="N",
                     help="iterations of the search a position for --swings (default 100)")
    lab.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                     help="a game option (repeat for several); 'vora rules GAME' lists them. "
                          "A dict option also takes a bare number N: N for each of its keys "
                          "(Vora: -o box=10, ten cubes of each type); @FILE gives a file's "
                          "text (Boars: -o cards=@my-cards.csv)")
    lab.add_argument("--compare", metavar="NAME=V1,V2,...", default=None,
                     help="play every game once per value of option NAME (or 'players') and "
                          "show them side by side with the differences and their significance")
    lab.add_argument("--seed", type=non_negative_int, default=0,
                     help="the run's base seed: every game's seeds derive from it and the "
                          "game's number (default 0)")
    lab.add_argument("--seed-effect", type=non_negative_int, default=None, metavar="N",
                     help="replay the first N games with other bot seeds to measure how much "
                          "the seed alone decides (default: a fifth of the games, 50 to 1000, "
                          "for a game with chance; 0 for one without)")
    run = lab.add_argument_group("where the games run")
    run.add_argument("--workers", type=positive_int, default=None, metavar="N",
                     help="local worker processes (default: one per core); 1 plays in this "
                          "process")
    run.add_argument("--ray", metavar="ADDRESS", default=None,
                     help="play on a Ray cluster at ADDRESS (host:port, or auto), or 'local' "
                          "to start one on this machine for the run; the results are the same")
    out = lab.add_argument_group("output")
    out.add_argument("--out", metavar="DIR", default=None,
                     help="the run's folder (default lab-runs/GAME-DATE-TIME)")
    out.add_argument("--resume", action="store_true",
                     help="go on with the run or the ladder in --out (interrupted, or with "
                          "more --games)")
    out.add_argument("--no-plots", action="store_true",
                     help="no PNG plots and no HTML report (terminal and JSON only)")
    lab.add_argument("--max-moves", type=positive_int, default=None, metavar="N",
                     help="stop a game after N moves, end reason lab-cap (default 100000; "
                          "every game has its own safeguard, so this is the lab's own)")


def parse_value(module, name, text):
    """One option value from the command line: by the option's kind, and for a dict
    option a bare whole number N means N for each key of its house default."""
    from shared_rules.games import option_spec
    try:
        kind = option_spec(module, name)[2]
    except BadPosition as exc:
        raise ValueError(str(exc))
    text = text.strip()
    if kind == "dict" and text.isdigit():
        default = dict_default(module, name)
        if default:
            return {key: int(text) for key in default}
    return option_value(module, name, text)


def parse_options(module, texts):
    # -o as everywhere, with the lab's shorthand for dict options (parse_value).
    return game_option_pairs(module, texts, parse_value)


def parse_compare(module, text):
    """(name, [values]) from NAME=V1,V2,..."""
    from vora_host.lab.spec import PLAYERS, split_values
    name, sep, rest = text.partition("=")
    name = name.strip()
    if not sep or not name or not rest.strip():
        raise ValueError("give --compare as NAME=VALUE1,VALUE2,... (options of %s: %s, or "
                         "players)" % (module.TITLE, ", ".join(s[0] for s in module.OPTIONS)))
    values = split_values(rest)
    if any(not v for v in values):
        raise ValueError("--compare %s: an empty value in %r" % (name, rest))
    if name == PLAYERS:
        out = []
        for v in values:
            if not v.isdigit():
                raise ValueError("--compare players: %r is not a number of players" % v)
            out.append(int(v))
        return name, out
    return name, [parse_value(module, name, v) for v in values]


def build_spec(args):
    """The LabSpec the arguments ask for, checked; ValueError (a usage error) otherwise."""
    from vora_host.lab.spec import DEFAULT_MAX_MOVES, LabSpec
    module = rules_games.load(args.game)
    options = parse_options(module, args.option)
    compare = parse_compare(module, args.compare) if args.compare else None
    bots = [k.strip() for k in args.bots.split(",")]
    if any(not k for k in bots):
        raise ValueError("--bots: an empty bot kind in %r" % args.bots)
    spec = LabSpec(args.game, args.players, bots, options, args.games, args.seed, compare,
                   args.seed_effect, args.max_moves or DEFAULT_MAX_MOVES)
    return spec.check()


def run(args, console):
    """Run `vora lab`; returns the exit status (0 done, 1 failed, 2 usage, 130 stopped)."""
    from vora_host.lab.run import LabError, default_out_dir, run_lab
    from vora_host.lab.runners import RunnerError, make_runner
    from vora_host.lab.spec import SpecError
    from vora_host.lab.store import LabFileError
    err = Console(stderr=True, highlight=False)
    parser = args.lab_parser
    if args.resume and not args.out:
        parser.error("--resume needs --out DIR: the folder of the run to go on with")
    if args.ray and args.workers and args.ray != "local":
        parser.error("--workers counts local processes; a Ray cluster has its own (with "
                     "--ray local, --workers sets how many CPUs it gets)")
    if args.ladder is not None:
        return run_ladder(args, console, err)
    if args.swings is not None:
        return run_swings(args, console, err)
    if args.swing_budget is not None:
        parser.error("--swing-budget is the budget of --swings: give --swings N too")
    try:
        spec = build_spec(args)
    except (ValueError, SpecError) as exc:
        parser.error(str(exc))
    if not args.no_plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("the plots need matplotlib (pip install matplotlib==3.11.2, in "
                         "requirements.lock); or add --no-plots")
    out = args.out or str(default_out_dir(args.game))
    runner = make_runner(args.workers, args.ray)
    try:
        report, complete = run_lab(spec, out, runner, console, err, resume=args.resume,
                                   plots=not args.no_plots)
    except (LabError, LabFileError, RunnerError) as exc:
        err.print("[red]vora lab: %s[/red]" % _escape(str(exc)))
        return 1
    except KeyboardInterrupt:  # between the games, while reading or writing the files
        err.print("[yellow]Interrupted.[/yellow]")
        return 130
    return 0 if complete else 130


def run_swings(args, console, err):
    """`vora lab GAME --swings N` (lab/swings.py): each kind of move's chance swing over
    N reviewed bot games, as a table; returns the exit status."""
    from rich.table import Table

    from vora_host.lab import swings
    from vora_host.lab.spec import SpecError
    parser = args.lab_parser
    for given, name in ((args.compare, "--compare"), (args.ray, "--ray"),
                        (args.seed_effect, "--seed-effect"), (args.resume, "--resume")):
        if given:
            parser.error("--swings reviews games of its own: it takes no %s" % name)
    try:
        spec = build_spec(args)
    except (ValueError, SpecError) as exc:
        parser.error(str(exc))
    budget = args.swing_budget or swings.DEFAULT_SWING_BUDGET
    kinds = list(spec.bots)
    players = spec.players or min(rules_games.load(args.game).PLAYER_COUNTS)
    reviewed = []
    done = 0
    try:
        for k in range(args.swings):
            record = swings.play_record(args.game, players, kinds, args.seed + k,
                                        spec.options, spec.max_moves)
            reviewed += swings.game_swings(record, budget, workers=args.workers)
            done += 1
            err.print("game %d of %d reviewed (%d moves)" % (done, args.swings,
                                                            len(record["moves"])))
    except KeyboardInterrupt:
        err.print("[yellow]Interrupted: %d of %d games reviewed.[/yellow]"
                  % (done, args.swings))
    table = Table(title="Which moves decide %s: %d games, %d iterations a position"
                  % (args.game, done, budget), box=None, header_style="bold",
                  title_justify="left")
    for name, justify in (("kind", "left"), ("played", "right"), ("mean swing", "right"),
                          ("mean |swing|", "right"), ("marked", "right")):
        table.add_column(name, justify=justify)
    for row in swings.swing_table(reviewed):
        table.add_row(_escape(row["kind"]), str(row["count"]), "%+.3f" % row["mean"],
                      "%.3f" % row["mean_abs"], str(row["marked"]))
    console.print(table)
    console.print("[dim]swing: the mover's chance to win after the move minus before it, "
                  "as 'vora games review' computes them.[/dim]")
    return 0 if done == args.swings else 130


def run_ladder(args, console, err):
    """`vora lab GAME --ladder KINDS...` (lab/ladder.py); returns the exit status."""
    import os
    import time
    from concurrent.futures.process import BrokenProcessPool
    from pathlib import Path

    from vora_host.lab import ladder
    from vora_host.lab.run import _progress, default_out_dir
    from vora_host.lab.spec import DEFAULT_MAX_MOVES
    from vora_host.lab.store import LabFileError
    parser = args.lab_parser
    for given, name in ((args.compare, "--compare"), (args.ray, "--ray"),
                        (args.seed_effect, "--seed-effect")):
        if given:
            parser.error("--ladder plays a round robin of its own: it takes no %s" % name)
    if args.bots != "random":
        parser.error("--ladder names the bots itself: leave out --bots")
    if args.players not in (None, 2):
        parser.error("--ladder plays two-player games (--players 2), not %d" % args.players)
    module = rules_games.load(args.game)
    if 2 not in module.PLAYER_COUNTS:
        parser.error("--ladder plays two-player games; %s is not played by two"
                     % module.TITLE)
    try:
        kinds = ladder.check_kinds(args.game, args.ladder)
        options = parse_options(module, args.option)
    except ValueError as exc:
        parser.error(str(exc))
    per_pair = args.games
    total = per_pair * len(ladder.pairings(len(kinds)))
    max_moves = args.max_moves or DEFAULT_MAX_MOVES
    out = Path(args.out or str(default_out_dir(args.game)))
    path = out / ladder.LADDER_GAMES_FILE
    header = ladder.ladder_header(args.game, kinds, args.seed, options, max_moves)
    done = {}
    try:
        if path.exists():
            if not args.resume:
                raise LabFileError("%s already holds a ladder: add --resume to go on with "
                                   "it, or choose another --out" % out)
            done = ladder.read_ladder_games(path, header)
        elif args.resume:
            raise LabFileError("nothing to resume: %s has no %s" % (out, ladder.LADDER_GAMES_FILE))
        out.mkdir(parents=True, exist_ok=True)
        games_file = ladder.LadderFile(path, header)
    except (LabFileError, OSError) as exc:
        err.print("[red]vora lab: %s[/red]" % _escape(str(exc)))
        return 1
    if games_file.dropped:
        err.print("[yellow]%s: a last game cut short (%d bytes) is played again[/yellow]"
                  % (_escape(str(path)), games_file.dropped))
    kept = sum(1 for (pair, i) in done if i < per_pair)
    if kept:
        err.print("Going on with the ladder in %s: %d of %d games played already"
                  % (_escape(str(out)), kept, total))
    count = [kept]
    started = time.perf_counter()
    # As the lab's other runs: one process a core unless told, --workers 1 plays here.
    workers = args.workers or os.cpu_count() or 1
    err.print("Playing on %s." % ("this process" if workers == 1
                                  else "%d local processes" % workers))

    def one_more():
        count[0] += 1
        rate = (count[0] - kept) / max(1e-9, time.perf_counter() - started)
        bar.update(task, advance=1, rate=("%.2f" if rate < 1 else "%.1f") % rate)
        if not err.is_terminal:  # a log file gets a line a game instead of the bar
            err.print("ladder: %d of %d games" % (count[0], total))
    try:
        with games_file, _progress(err) as bar:
            task = bar.add_task("ladder", total=total, rate="-", completed=kept)
            played = ladder.play_ladder(module, args.game, kinds, per_pair, args.seed,
                                        options, max_moves, on_game=one_more, done=done,
                                        on_result=games_file.add, workers=workers)
    except KeyboardInterrupt:
        err.print("[yellow]Interrupted: %d of %d games kept in %s; go on with the same "
                  "command and --resume --out %s[/yellow]"
                  % (count[0], total, _escape(str(path)), _escape(str(out))))
        return 130
    except BrokenProcessPool:  # a worker killed (the OOM killer, kill -9)
        err.print("[red]vora lab: a worker process ended before its game did (killed, or "
                  "out of memory?); %d of %d games kept in %s; go on with the same command "
                  "and --resume --out %s[/red]"
                  % (count[0], total, _escape(str(path)), _escape(str(out))))
        return 1
    except OSError as exc:  # the games file could not be written (a full disk...)
        err.print("[red]vora lab: cannot write %s: %s; %d of %d games kept there[/red]"
                  % (_escape(str(path)), _escape(exc.strerror or str(exc)), count[0], total))
        return 1
    report = ladder.ladder_report(args.game, kinds, played, per_pair, args.seed)
    ladder.render(console, report)
    written = ladder.write(out, report, played)
    console.print("Written: %s" % _escape(str(written)))
    return 0


def _escape(text):
    from rich.markup import escape
    return escape(text)

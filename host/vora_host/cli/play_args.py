"""`vora play`'s arguments and what they make: the parser, then the game they ask for (its
options, players and seed; `--position`), its seats (`--human`, `--bot`, `--web`, by
number or by the names the game's screen gives them) and an agent at each (a human, a
bot seeded so that a demo replays, or a seat played in a browser), and what is said of
the seed (a hidden-information game's only once the game is over).

Apart from playing (vora_host.cli.play) because every error here is a usage error found
before anything starts, and the tests check them without playing.
"""

import argparse
import random

from shared_rules import games as rules_games
from shared_rules import vora
from shared_rules.errors import BadPosition

from vora_host import bots
from vora_host import games as host_games
from vora_host.argtypes import claim_seconds, game_option_pairs, game_seed, positive_int, seconds
from vora_host.play.board import BOT_DELAY_MS
from vora_host.play.terminal import Human
from vora_host.table import CLAIM_AFTER
from vora_host.table.deal import bot_seeds, new_seed
from vora_host.web.cli import WEB_PORT, port_number

__all__ = ["add_parser", "parse_box", "parse_seat_list", "seat_names", "INTERACTIVE_DELAY",
           "SHAPING"]

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

def add_parser(sub):
    """vora play's arguments."""
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
    play.add_argument("--join", metavar="LINK", default=None,
                      help="play a seat of a game on another computer from this terminal "
                           "(with --port sim or --port DEVICE: on this PC's board, for a game "
                           "that hides nothing): the seat's link its `vora play --web` "
                           "printed (http://HOST:PORT/seat/TOKEN). That table is the referee; "
                           "the game is logged here too")
    play.add_argument("--claim-after", type=claim_seconds, default=CLAIM_AFTER,
                      metavar="SECONDS",
                      help="with --web: how long a browser seat may be gone (its page "
                           "closed, its phone asleep) before the other players may end the "
                           "game: abort it, or claim the win in a game of two (default "
                           "%d: 2 minutes)" % CLAIM_AFTER)
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
                           "--bots-only or when input is not a terminal; on a board, USB or "
                           "virtual, %.1f)" % (INTERACTIVE_DELAY, BOT_DELAY_MS / 1000))
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


# ---------------------------------------------------------------- the game they ask for

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
    from vora_host.log.database import resolve_db_path
    notes = None if args.no_log else resolve_db_path(args.db)
    if not seats and position is None and notes is None:
        return None
    return {"bots": seats, "position": position, "seed": seed, "notes": notes,
            "chosen": bool(args.bot)}


def _bot_seeds(args, module, players, seed):
    # A bot's seed for each player (vora_host.table.deal.bot_seeds): derived from the
    # game's seed unless the seed of a hidden-information game is nobody's to know.
    return bot_seeds(module, players, seed, chosen=args.seed is not None)


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
    web = set()
    if getattr(args, "web", None) is not None:
        try:
            web = parse_seat_list(args.web, players, seats)
        except ValueError as exc:
            parser.error("--web: %s" % exc)
    if web:  # the web server's module (starlette, http, email: some 40 ms) for --web only
        from vora_host.web.seats import BrowserSeat
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
    else:
        seed = new_seed(module)
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

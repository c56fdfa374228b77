"""The game log's record formats, for any game of `shared_rules.games`: JSON and text.

The store (`vora_host.log.store`) keeps games; this module says what their files hold and
writes them, and vora_host.log.readers reads them back, as python-chess keeps `chess.pgn`
apart from the board.

JSON (`export_json`, read by `readers.parse_json`; `vora play --record` writes the same
without "log"): one object

    {"game": "vora", "format": 1, "options": {...}, "seed": 7, "players": 2,
     "moves": [...], "digests": [...], "result": {...},
     "log": {"id": 3, "board_game_id": null, "source": "terminal", "status": "over",
             "started_at": "...", "ended_at": "...", "logged_at": [...],
             "takebacks": [{"at": 5, "number": 4, "move": "...", "digest": "...",
                            "logged_at": "...", "taken_back_at": "..."}]}}

"moves" are the live moves (what replays); "takebacks" (only when moves were taken back)
are the moves taken back, each at its place `at` in the whole history (0-based).

Text (`export_text`, read by `readers.parse_text`): tag pairs as in PGN, then the history, one
line per move with its number, the player who played it (P- when nobody was to act: the
game was already over; P? when not known: after a move that does not replay) and the
digest after it, and one line per takeback:

    [Game "vora"]
    [Format "1"]
    [Seed "7"]
    [Players "2"]
    [Seats "SN"]              one tag per option of the game (below)
    [Result "P1 wins"]        "P<n> wins", "draw", or "*" for a game not over
    [Scores "+12 +15"] [End "box"] [Turns "31"] [Status "over"] [Source "terminal"] ...

    1. P0 push crow Sc ; 0a1b2c3d4e5f6071
    2. P0 take a2 ; 1b2c3d4e5f607182
    2. takeback               move 2 was taken back; the next move is move 2 again
    2. P0 pass ; 2c3d4e5f60718293

Options: an option `time_limit` of a game is the tag [TimeLimit] (its name in CamelCase;
[OptionEnd] for an option `end`, which would collide with a tag above). Its value is
written by its kind in the game's OPTIONS: "str" and choices as the text, "int" in
decimal, "bool" as true or false, anything else as compact JSON; an option set to None
has no tag. A game may write an option its own way: its host package's OPTION_TEXT =
{name: (to_text, from_text)} (Vora writes its box as P12C12...). Exports written before
this generic rule carried Vora's Seats, Box, PushedOut, MaxTurns, ChainLines and Position:
the same tags, read the same way. A file with takebacks says [Format "2"].

Reading them back (untrusted files, every field checked) and importing them into the log
is vora_host.log.readers.

The public record (export_public_json, export_public_text) of a hidden-information game
is what a spectator may know: no seed, no digests, the moves as the rules revealed them
(public_history), the result once the game is over. It says so ("public" in JSON,
[Public "true"] in text) and the readers refuse it (PUBLIC_REFUSED).

Apart from the readers because writing trusts what the log holds and reading trusts
nothing: the readers import from here (the tags, the options' texts, the replay of a
history with takebacks), never the other way.
"""

import json
import re

from shared_rules import games
from shared_rules.errors import BadPosition, IllegalMove

from vora_host import games as host_games
from vora_host.log.verify import check_replay, history_events, player_label, record_of

__all__ = [
    "RECORD_FORMAT", "TEXT_FORMAT_TAKEBACKS", "GENERIC_TAGS", "TAKEBACK_KEYS", "export_json",
    "export_text", "dumps_json", "option_tag", "option_texts", "replay_history",
    "public_history", "public_move_text", "hides_information", "full_record_allowed",
    "export_public_json", "export_public_text", "PUBLIC_NOTE", "PUBLIC_REFUSED",
    "PUBLIC_UNKNOWN_MOVE",
]

RECORD_FORMAT = 1
TEXT_FORMAT_TAKEBACKS = 2

GENERIC_TAGS = ("Game", "Format", "Seed", "Players", "Result", "Scores", "End", "Turns",
                "Status", "Source", "BoardGameId", "Started", "Ended", "Public")

# The public record of a hidden-information game (export_public_json/_text): what a
# spectator may know. It has no seed and no digests (both depend on the secrets) and the
# secret moves as the others saw them, so it cannot set the game up again: the readers
# refuse it with PUBLIC_REFUSED rather than with a puzzling "no seed".
PUBLIC_NOTE = ("the public record: what a spectator may know (no seed, no digests, secret "
               "moves as the other players saw them); it cannot be imported or replayed")
PUBLIC_REFUSED = ("this is a public export (what a spectator may know: no seed, no "
                  "digests, secret moves hidden): it cannot be imported or replayed; "
                  "export the game with 'vora games export ID --full' once it is over")
PUBLIC_SECRET_MOVE = "(a move kept secret)"
PUBLIC_UNKNOWN_MOVE = "(a move that does not replay)"
TAKEBACK_KEYS = ("at", "number", "move", "digest", "logged_at", "taken_back_at")


# ---------------------------------------------------------------- options as text

def option_tag(module, name):
    """The text format's tag of option `name`: its name in CamelCase, 'Option' before
    it when that would be a tag of every game."""
    tag = "".join(part[:1].upper() + part[1:] for part in re.split(r"[_\- ]+", name) if part)
    return "Option" + tag if tag in GENERIC_TAGS or not tag else tag


def _hooks(game):
    """A game's own option texts ({name: (to_text, from_text)}), or {} (also when the
    game has no host package yet: the log takes a game from its rules alone)."""
    try:
        package = host_games.host_game(game)
    except ImportError:
        return {}
    return getattr(package, "OPTION_TEXT", None) or {}


def _option_text(module, hooks, name, value):
    kind = games.option_spec(module, name)[2]
    if name in hooks:
        return hooks[name][0](value)
    if isinstance(value, str) and (kind == "str" or isinstance(kind, tuple)):
        return value
    if kind == "bool" and isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def option_texts(game, options):
    """[(name, text)] of a game's options as the text format writes them, in the order of
    the game's OPTIONS (for people: `vora games show`)."""
    module = games.load(game)
    hooks = _hooks(game)
    return [(spec[0], _option_text(module, hooks, spec[0], options[spec[0]]))
            for spec in module.OPTIONS if options.get(spec[0]) is not None]


# ---------------------------------------------------------------- replaying a history

def replay_history(record, rows):
    """(players, digests) of every history entry, replayed with takebacks: the player to
    act before it (None once over) and the digest after it; "?" and None after an entry
    that does not replay, until it is taken back."""
    players, digests, _ = _replay_rows(record, rows, None)
    return players, digests


def public_history(record, rows):
    """(players, texts) of every history entry as a spectator sees it: the player to act
    before it and the move as the rules reveal it to the others (the game's
    `public_move(state_before, move, None)`; the move itself in a game without hidden
    information). An entry that does not replay is PUBLIC_UNKNOWN_MOVE: what it would
    have revealed cannot be told."""
    players, _, texts = _replay_rows(record, rows, games.load(record["game"]))
    return players, texts


def public_move_text(module, state, move):
    """`move`, played in `state` of a game whose rules are `module`, as a spectator sees
    it (the rules' public_move; the move itself when the game hides nothing)."""
    if not module.HIDDEN_INFORMATION:
        return move
    reveal = getattr(module, "public_move", None)
    return reveal(state, move, None) if reveal is not None else PUBLIC_SECRET_MOVE


def _replay_rows(record, rows, public_module):
    texts = [PUBLIC_UNKNOWN_MOVE] * len(rows)
    try:
        state = games.start(record)
    except BadPosition:
        return ["?"] * len(rows), [None] * len(rows), texts
    index = dict((id(r), k) for k, r in enumerate(rows))
    players, digests = ["?"] * len(rows), [None] * len(rows)
    stack, bad = [], None
    for kind, item in history_events(rows):
        if kind == "takeback":
            if stack:
                state = stack.pop()
            if bad is not None and len(stack) <= bad:
                bad = None
            continue
        k = index[id(item)]
        if bad is not None:
            stack.append(state)
            continue
        stack.append(state.clone())
        players[k] = state.to_act()
        before = stack[-1]
        try:
            state.play(item["move"])
        except IllegalMove:
            bad = len(stack) - 1
            continue
        digests[k] = state.digest()
        if public_module is not None:
            texts[k] = public_move_text(public_module, before, item["move"])
    return players, digests, texts


# ---------------------------------------------------------------- export

def _quote(value):
    return '"%s"' % str(value).replace("\\", "\\\\").replace('"', '\\"')


def _json_list(values, indent):
    if not values:
        return "[]"
    pad = "\n" + " " * indent
    return "[" + pad + ("," + pad).join(json.dumps(v) for v in values) + "\n" + \
        " " * (indent - 1) + "]"


def dumps_json(record):
    """A record (with or without "log") as JSON laid out for people: one line per field,
    and one line per move, per digest, per time and per takeback, so that two exports of
    the same game diff line by line."""
    lines = []
    for key, value in record.items():
        if key in ("moves", "digests") and isinstance(value, list):
            body = _json_list(value, 2)
        elif key == "log" and isinstance(value, dict):
            inner = ["  %s: %s" % (json.dumps(k), _json_list(v, 3)
                                   if k in ("logged_at", "takebacks") else json.dumps(v))
                     for k, v in value.items()]
            body = "{\n" + ",\n".join(inner) + "\n }"
        else:
            body = json.dumps(value)
        lines.append(" %s: %s" % (json.dumps(key), body))
    return "{\n" + ",\n".join(lines) + "\n}\n"


def export_json(log, game_id):
    """The game as JSON: its record (readable by `vora replay`), with its digests and a
    "log" object (id, board_game_id, source, status, started_at, ended_at, logged_at, and
    takebacks when moves were taken back)."""
    info = log.game(game_id)
    record, _ = record_of(info)
    meta = {
        "id": log.real_id(info["id"]),
        "board_game_id": info["board_game_id"],
        "source": info["source"],
        "status": info["status"],
        "started_at": info["started_at"],
        "ended_at": info["ended_at"],
        "logged_at": [m["logged_at"] for m in info["moves"]],
    }
    takebacks = [dict(at=k, **dict((key, h[key]) for key in TAKEBACK_KEYS[1:]))
                 for k, h in enumerate(info["history"]) if h["taken_back_at"] is not None]
    if takebacks:
        meta["takebacks"] = takebacks
    record["log"] = meta
    return dumps_json(record)


def _result_tags(result):
    if result is None:
        return [("Result", "*")]
    if not result["over"]:
        head = "*"
    elif result["winner"] is None:
        head = "draw"
    else:
        head = "P%d wins" % result["winner"]
    return [("Result", head), ("Scores", " ".join("%+d" % s for s in result["scores"])),
            ("End", result["end"]), ("Turns", result["turns_completed"])]


def _game_tags(module, hooks, info, result):
    """The tags after the players' (options, result, status, source, board, times) of a
    logged game, `result` as the export may show it."""
    tags = []
    for spec in module.OPTIONS:
        # An option left at None (its default: "not set") has no tag, as PGN writes no
        # FEN tag for a game from the start.
        if info["options"].get(spec[0]) is not None:
            tags.append((option_tag(module, spec[0]),
                         _option_text(module, hooks, spec[0], info["options"][spec[0]])))
    tags += _result_tags(result)
    tags += [("Status", info["status"]), ("Source", info["source"])]
    if info["board_game_id"] is not None:
        tags.append(("BoardGameId", info["board_game_id"]))
    tags.append(("Started", info["started_at"]))
    if info["ended_at"] is not None:
        tags.append(("Ended", info["ended_at"]))
    return tags


def export_text(log, game_id):
    """The game in the text format (see the module doc), takebacks included."""
    info = log.game(game_id)
    record, digests = record_of(info)
    module = games.load(info["game"])
    hooks = _hooks(info["game"])
    report = check_replay(record, digests)
    history = info["history"]
    tags = [("Game", info["game"]),
            ("Format", TEXT_FORMAT_TAKEBACKS if info["taken_back"] else RECORD_FORMAT),
            ("Seed", info["seed"]), ("Players", info["players"])]
    tags += _game_tags(module, hooks, info, info["result"])
    real = log.real_id(info["id"])
    lines = ["# %s game %s from the vora game log; read back with 'vora games import'."
             % (module.TITLE, real if real is not None else "(not yet written to the log)")]
    if not report.ok:
        lines.append("# WARNING: this game does not replay cleanly: %s" % report.message)
    lines += ["[%s %s]" % (name, _quote(value)) for name, value in tags]
    lines.append("")
    players, _ = replay_history(record, history)
    index = dict((id(r), k) for k, r in enumerate(history))
    for kind, item in history_events(history):
        if kind == "takeback":
            lines.append("%d. takeback" % item)
        else:
            lines.append("%d. %s %s ; %s" % (item["number"],
                                             player_label(players[index[id(item)]]),
                                             item["move"], item["digest"]))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the public record

# A game that may still go on: a board or `vora play` can continue it (an interrupted
# game takes moves again), so its secrets are still secrets. An over or abandoned game
# never continues (a board's abandoned game is not taken up again by a reconnect).
STILL_OPEN = ("playing", "interrupted")


def hides_information(game):
    """Whether a game of the registry hides information (its rules'
    HIDDEN_INFORMATION: Boars and Tossing Tiger); False for a game this program does not
    know (it cannot be replayed either)."""
    try:
        return bool(games.load(game).HIDDEN_INFORMATION)
    except BadPosition:
        return False


def full_record_allowed(info):
    """Whether the full record of a logged game (seed, every move, digests) may be shown:
    always for a game without hidden information; for a hidden-information game only
    once it can no longer continue (status over or abandoned)."""
    return not hides_information(info["game"]) or info["status"] not in STILL_OPEN


def _public_parts(info):
    """(live texts, history texts, players, result) of a game as a spectator sees it;
    the result only once the game is over (the scores of a game in progress may count
    secret cards)."""
    record, _ = record_of(info)
    history = info["history"]
    players, texts = public_history(record, history)
    live = [t for t, h in zip(texts, history) if h["taken_back_at"] is None]
    result = info["result"] if info["result"] and info["result"]["over"] else None
    return live, texts, players, result


def export_public_json(log, game_id):
    """A game as a spectator may know it, as JSON: the record without seed or digests,
    the moves as the rules reveal them, the log's data (takebacks' moves public too) and
    a "public" field saying what it is; readers.parse_json refuses it (PUBLIC_REFUSED)."""
    info = log.game(game_id)
    live, texts, _, result = _public_parts(info)
    record = {"public": PUBLIC_NOTE, "game": info["game"], "format": RECORD_FORMAT,
              "options": info["options"], "players": info["players"], "moves": live,
              "result": result or {}}
    meta = {"id": log.real_id(info["id"]), "board_game_id": info["board_game_id"],
            "source": info["source"], "status": info["status"],
            "started_at": info["started_at"], "ended_at": info["ended_at"],
            "logged_at": [m["logged_at"] for m in info["moves"]]}
    takebacks = [{"at": k, "number": h["number"], "move": texts[k],
                  "logged_at": h["logged_at"], "taken_back_at": h["taken_back_at"]}
                 for k, h in enumerate(info["history"]) if h["taken_back_at"] is not None]
    if takebacks:
        meta["takebacks"] = takebacks
    record["log"] = meta
    return dumps_json(record)


def export_public_text(log, game_id):
    """A game as a spectator may know it, in the text format: no [Seed], [Public
    "true"], the moves as the rules reveal them and no digests; readers.parse_text refuses
    it (PUBLIC_REFUSED)."""
    info = log.game(game_id)
    module = games.load(info["game"])
    hooks = _hooks(info["game"])
    _, texts, players, result = _public_parts(info)
    history = info["history"]
    tags = [("Game", info["game"]),
            ("Format", TEXT_FORMAT_TAKEBACKS if info["taken_back"] else RECORD_FORMAT),
            ("Public", "true"), ("Players", info["players"])]
    tags += _game_tags(module, hooks, info, result)
    real = log.real_id(info["id"])
    lines = ["# %s game %s from the vora game log, %s."
             % (module.TITLE, real if real is not None else "(not yet written to the log)",
                PUBLIC_NOTE)]
    lines += ["[%s %s]" % (name, _quote(value)) for name, value in tags]
    lines.append("")
    index = dict((id(r), k) for k, r in enumerate(history))
    for kind, item in history_events(history):
        if kind == "takeback":
            lines.append("%d. takeback" % item)
        else:
            k = index[id(item)]
            lines.append("%d. %s %s" % (item["number"], player_label(players[k]), texts[k]))
    return "\n".join(lines) + "\n"

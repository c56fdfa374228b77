"""Reading the game log's record files back, and importing them: a JSON or text file
(vora_host.log.formats says what each holds) checked field by field into a `Parsed`
(`parse`, `parse_json`, `parse_text`, `record_from_dict`), then added to the log as a new
game once it replays (`import_parsed`, `import_json`, `import_text`, `import_any`). This is
the one reader of game files: `vora games import`, `vora replay` and `vora play --record`'s
files all come through it.

Reading untrusted files: the size is checked before any work (MAX_RECORD_CHARS, lines of
at most MAX_LINE characters, at most MAX_MOVES moves, JSON nested at most MAX_DEPTH
deep), every line is parsed in linear time, every field is checked, nothing is evaluated,
replay stops at the first move that does not replay, and messages quote at most a few
dozen characters of the file. Only BadImport leaves a parser. A leading byte order mark
is left out; whole numbers are JSON integers (not booleans or floats) or ASCII digits.

Apart from the formats (vora_host.log.formats, which writes the files) because every byte
here is untrusted: the bounds and checks read as one piece.
"""

import json
import re

from shared_rules import games
from shared_rules.errors import BadPosition

from vora_host.log.checks import (DIGEST_RE, MOVE_RE, STATUSES, U32_MAX, _check_result,
                                  _check_source, _check_timestamp, _is_int, _now, _short,
                                  normalize_options)
from vora_host.log.errors import BadImport
from vora_host.log.formats import (GENERIC_TAGS, PUBLIC_REFUSED, RECORD_FORMAT, TAKEBACK_KEYS,
                                   _hooks, option_tag, replay_history)
from vora_host.log.verify import check_history, check_replay, player_label
from vora_host.words import plural

__all__ = [
    "MAX_RECORD_CHARS", "MAX_LINE", "MAX_MOVES", "MAX_DEPTH", "Parsed", "read_json",
    "looks_like_json", "parse", "parse_json", "parse_text", "record_from_dict",
    "import_parsed", "import_json", "import_text", "import_any",
]

# A Vora game of 400 turns is about 1,200 moves and 100 KB of JSON: these bounds leave
# room for far longer games while refusing, before any work, what cannot be a record.
MAX_RECORD_CHARS = 8 * 1024 * 1024
MAX_LINE = 4096
MAX_MOVES = 100000
MAX_DEPTH = 16

RECORD_KEYS = ("game", "format", "options", "seed", "players", "agents", "moves", "digests",
               "result", "log")
LOG_KEYS = ("id", "board_game_id", "source", "status", "started_at", "ended_at", "logged_at",
            "takebacks")


class Parsed:
    """A record file read and checked: `record` (game, format, options spelled out, seed,
    players, live moves, result), `digests` (one per live move, or None), `meta` (the log
    fields: source, status, result, board_game_id, started_at, ended_at, logged_at),
    `history` (every move in order with taken_back_at, when some were taken back, else
    None), `agents` (who played each seat, informative), and for a text file the lines of
    its tags and history entries and the player each entry names."""

    def __init__(self, kind):
        self.kind = kind
        self.record = None
        self.digests = None
        self.meta = {}
        self.history = None
        self.agents = []
        self.tags = {}  # text: name -> (value, line)
        self.markers = []  # text: per history entry, the player it names (None: P-, "?": P?)
        self.lines = []  # text: per history entry, its line

    def line_of(self, *names):
        for name in names:
            if name in self.tags:
                return self.tags[name][1]
        return None

    def rows(self):
        """Every history entry (the live moves alone when none was taken back)."""
        if self.history is not None:
            return self.history
        digests = self.digests or [None] * len(self.record["moves"])
        return [{"number": k, "move": m, "digest": d, "logged_at": None, "taken_back_at": None}
                for k, (m, d) in enumerate(zip(self.record["moves"], digests), 1)]


# ---------------------------------------------------------------- bounded JSON

def _no_constants(name):
    raise ValueError("%s is not allowed in a game record" % name)


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError("the key %s appears twice" % _short(key))
        out[key] = value
    return out


def _check_depth(data, limit=MAX_DEPTH):
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            raise BadImport("the JSON is nested more than %d levels deep: not a game record"
                            % limit)
        children = value.values() if isinstance(value, dict) else value
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


def read_json(text, what="a game record"):
    """JSON text to a value, bounded: at most MAX_RECORD_CHARS, nested at most
    MAX_DEPTH deep, no NaN or Infinity, no key twice. BadImport otherwise."""
    if len(text) > MAX_RECORD_CHARS:
        raise BadImport("%s has at most %d MB; this text has %d characters"
                        % (what, MAX_RECORD_CHARS // (1024 * 1024), len(text)))
    try:
        data = json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise BadImport("the JSON is nested too deeply: not %s" % what)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        message = getattr(exc, "msg", None) or str(exc)
        raise BadImport("not JSON: %s" % _short(message, 120).strip("'\""), line=line)
    if isinstance(data, (dict, list)):
        _check_depth(data)
    return data


# ---------------------------------------------------------------- options from text and JSON

def _option_value(module, hooks, name, text, line):
    kind = games.option_spec(module, name)[2]
    tag = option_tag(module, name)
    if name in hooks:
        try:
            return hooks[name][1](text)
        except ValueError as exc:
            raise BadImport("[%s]: %s" % (tag, exc), line)
    if kind == "str":
        return text
    if isinstance(kind, tuple):
        for choice in kind:
            if (choice if isinstance(choice, str) else json.dumps(choice)) == text:
                return choice
        raise BadImport("[%s] must be one of %s, not %s" % (
            tag, ", ".join(str(c) for c in kind), _short(text)), line)
    if kind == "int":
        if not re.fullmatch(r"-?[0-9]{1,18}", text):
            raise BadImport("[%s] must be a whole number, not %s" % (tag, _short(text)), line)
        return int(text)
    if kind == "bool":
        if text not in ("true", "false"):
            raise BadImport("[%s] must be true or false, not %s" % (tag, _short(text)), line)
        return text == "true"
    try:
        return read_json(text, "an option")
    except BadImport as exc:
        raise BadImport("[%s]: %s" % (tag, exc.bare), line)


def _check_option_kind(module, name, value):
    _, default, kind, _ = games.option_spec(module, name)
    # Choices are left to the game, whose message names them ("cannot be set up: ...");
    # None is the value of an option whose default is None (Vora's position: a deal).
    ok = isinstance(kind, tuple) or (value is None and default is None) or {"int": _is_int(value), "bool": isinstance(value, bool),
                                     "str": isinstance(value, str),
                                     "dict": isinstance(value, dict)}.get(kind, True)
    if not ok:
        raise BadImport("option %r of %s has the wrong type or value: %s"
                        % (name, module.TITLE, _short(value)))


# ---------------------------------------------------------------- the record as a dict

def _module(game):
    try:
        return games.load(game)
    except BadPosition:
        raise BadImport("a record of game %s, which this program does not know (known: %s)"
                        % (_short(game), ", ".join(games.names())))


def _check_players(module, players):
    if not _is_int(players) or players not in module.PLAYER_COUNTS:
        counts = [str(n) for n in module.PLAYER_COUNTS]
        words = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " or " + counts[-1]
        raise BadImport("'players' must be %s for %s, not %s" % (words, module.TITLE,
                                                                 _short(players)))


def _check_seed(module, seed):
    try:
        return games.check_seed(module, seed)
    except ValueError as exc:
        raise BadImport("'seed': %s" % _short(str(exc), 120).strip("'\""))


def _setup(game, module, players, seed, options, line=None):
    try:
        return normalize_options(game, players, seed, options)
    except ValueError as exc:
        raise BadImport(str(exc), line)


def record_from_dict(data):
    """Check a record object (export_json or `vora play --record`) field by field:
    a Parsed. BadImport names the first problem."""
    if not isinstance(data, dict):
        raise BadImport("a game record is a JSON object, not %s" % type(data).__name__)
    if "public" in data:
        raise BadImport(PUBLIC_REFUSED)
    unknown = sorted(set(data) - set(RECORD_KEYS))
    if unknown:
        raise BadImport("unknown field(s) in the record: %s" % _short(", ".join(unknown)))
    parsed = Parsed("json")
    module = _module(data.get("game"))
    fmt = data.get("format", RECORD_FORMAT)
    if not _is_int(fmt) or fmt != RECORD_FORMAT:  # true and 1.0 equal 1 in Python
        raise BadImport("record format %s is not one this program reads (%d)"
                        % (_short(fmt), RECORD_FORMAT))
    _check_players(module, data.get("players"))
    _check_seed(module, data.get("seed"))
    options = data.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise BadImport("'options' must be an object, not %s" % _short(options))
    for key, value in options.items():
        try:
            games.option_spec(module, key)
        except BadPosition as exc:
            raise BadImport(str(exc))
        _check_option_kind(module, key, value)
    moves = data.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise BadImport("'moves' must be a list of move texts")
    if len(moves) > MAX_MOVES:
        raise BadImport("%d moves: a record holds at most %d" % (len(moves), MAX_MOVES))
    for k, move in enumerate(moves, 1):
        if not MOVE_RE.fullmatch(move):
            raise BadImport("move %d: %s is not a move text (printable ASCII, no ';', up to "
                            "120 characters)" % (k, _short(move)))
    digests = data.get("digests")
    if digests is not None:
        if not isinstance(digests, list):
            raise BadImport("'digests' must be a list of digests")
        if len(digests) != len(moves):
            raise BadImport("%s for %s: there must be one per move"
                            % (plural(len(digests), "digest"), plural(len(moves), "move")))
        for k, d in enumerate(digests, 1):
            if not isinstance(d, str) or not DIGEST_RE.fullmatch(d):
                raise BadImport("move %d: the digest %s is not 16 lowercase hex digits"
                                % (k, _short(d)))
    agents = data.get("agents", [])
    if not isinstance(agents, list) or len(agents) > 64 \
            or not all(isinstance(a, dict) for a in agents):
        raise BadImport("'agents' must be a list of objects, one per player")
    options = _setup(data["game"], module, data["players"], data["seed"], options)
    result = data.get("result")
    result = None if result in (None, {}) else result
    meta = data.get("log") or {}
    if not isinstance(meta, dict):
        raise BadImport("'log' must be an object")
    parsed.record = {"game": data["game"], "format": RECORD_FORMAT, "options": options,
                     "seed": data["seed"], "players": data["players"], "moves": list(moves),
                     "result": result if result is not None else {}}
    parsed.digests = list(digests) if digests is not None else None
    parsed.agents = agents
    parsed.meta, parsed.history = _check_meta(meta, result, moves, digests)
    if parsed.digests is not None:
        parsed.record["digests"] = list(parsed.digests)
    return parsed


def _check_meta(meta, result, moves, digests):
    unknown = sorted(set(meta) - set(LOG_KEYS))
    if unknown:
        raise BadImport("unknown log field(s): %s" % _short(", ".join(unknown)))
    meta = dict(meta)
    try:
        if "status" not in meta:
            # A record without log metadata (e.g. from `vora play --record`): its status
            # follows from its result.
            if isinstance(result, dict) and result.get("over") is True:
                meta["status"] = "over"
            elif isinstance(result, dict) and result.get("end") == "interrupted":
                meta["status"] = "interrupted"
            else:
                meta["status"] = "abandoned"
        status = meta["status"]
        if status not in STATUSES:
            raise ValueError("status must be one of %s, not %s" % (", ".join(STATUSES),
                                                                  _short(status)))
        meta["result"] = _check_result(result, status)
        meta["source"] = _check_source(meta.get("source", "terminal"))
        bgid = meta.get("board_game_id")
        if bgid is not None and (not _is_int(bgid) or not 0 <= bgid <= U32_MAX):
            raise ValueError("board_game_id must be a u32 or null, not %s" % _short(bgid))
        for key in ("started_at", "ended_at"):
            if meta.get(key) is not None:
                _check_timestamp(meta[key], key)
        logged_at = meta.get("logged_at")
        if logged_at is not None:
            if not isinstance(logged_at, list) or len(logged_at) != len(moves):
                raise ValueError("logged_at must list one time per move")
            for k, t in enumerate(logged_at, 1):
                _check_timestamp(t, "logged_at of move %d" % k)
        if meta.get("id") is not None and not _is_int(meta["id"]):
            raise ValueError("id must be a whole number, not %s" % _short(meta["id"]))
        history = _history_from_json(meta.pop("takebacks", None), moves, digests, logged_at)
    except ValueError as exc:
        raise BadImport(str(exc))
    return meta, history


def _history_from_json(takebacks, moves, digests, logged_at):
    if takebacks is None:
        return None
    if not isinstance(takebacks, list) or len(takebacks) + len(moves) > MAX_MOVES:
        raise ValueError("takebacks must be a list of taken-back moves (at most %d moves in "
                         "all)" % MAX_MOVES)
    if digests is None:
        raise ValueError("a record with takebacks gives the digest of every move")
    total = len(moves) + len(takebacks)
    places = {}
    for k, t in enumerate(takebacks, 1):
        if not isinstance(t, dict) or set(t) != set(TAKEBACK_KEYS):
            raise ValueError("takeback %d must be an object with %s" % (k, ", ".join(
                TAKEBACK_KEYS)))
        at, number = t["at"], t["number"]
        if not _is_int(at) or not 0 <= at < total or at in places:
            raise ValueError("takeback %d: 'at' must be a distinct place in the history "
                             "(0 to %d), not %s" % (k, total - 1, _short(at)))
        if not _is_int(number) or number < 1:
            raise ValueError("takeback %d: 'number' must be a move number, not %s"
                             % (k, _short(number)))
        if not isinstance(t["move"], str) or not MOVE_RE.fullmatch(t["move"]):
            raise ValueError("takeback %d: %s is not a move text" % (k, _short(t["move"])))
        if not isinstance(t["digest"], str) or not DIGEST_RE.fullmatch(t["digest"]):
            raise ValueError("takeback %d: the digest %s is not 16 lowercase hex digits"
                             % (k, _short(t["digest"])))
        _check_timestamp(t["logged_at"], "logged_at of takeback %d" % k)
        _check_timestamp(t["taken_back_at"], "taken_back_at of takeback %d" % k)
        places[at] = {"number": number, "move": t["move"], "digest": t["digest"],
                      "logged_at": t["logged_at"], "taken_back_at": t["taken_back_at"]}
    live = iter(range(len(moves)))
    history = []
    for at in range(total):
        if at in places:
            history.append(places[at])
        else:
            k = next(live)
            history.append({"number": k + 1, "move": moves[k], "digest": digests[k],
                            "logged_at": logged_at[k] if logged_at else None,
                            "taken_back_at": None})
    check_history(history)
    return history


def parse_json(text):
    """Read an export_json (or `vora play --record`) text: a Parsed. Only JSON is
    parsed; BadImport for anything that is not a well-formed record. A leading byte
    order mark is left out."""
    return record_from_dict(read_json(_without_bom(text)))


# ---------------------------------------------------------------- the text format

_TAG_RE = re.compile(r'\[([A-Za-z]{1,40}) "((?:[^"\\]|\\["\\])*)"\]')
_UNESCAPE_RE = re.compile(r'\\(["\\])')
# Numbers are ASCII digits: \d and int() would also take other scripts' digits ("\u0663").
_NUMBER_RE = re.compile(r"([0-9]{1,7})\.[ \t]+")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_RESULT_RE = re.compile(r"P([0-9]{1,2}) wins|draw|\*")
_SCORES_RE = re.compile(r"[+-]?[0-9]{1,9}(?: [+-]?[0-9]{1,9}){0,63}")


def _tag_int(value, name, line, low=0, high=U32_MAX):
    if not re.fullmatch(r"[0-9]{1,%d}" % len(str(high)), value) or not low <= int(value) <= high:
        raise BadImport("[%s] must be a whole number from %d to %d, not %s"
                        % (name, low, high, _short(value)), line)
    return int(value)


def parse_text(text):
    """Parse the text format (see the module doc): a Parsed. BadImport names the line of
    any problem; nothing is evaluated. A leading byte order mark is left out."""
    text = _without_bom(text)
    if len(text) > MAX_RECORD_CHARS:
        raise BadImport("a game record has at most %d MB; this text has %d characters"
                        % (MAX_RECORD_CHARS // (1024 * 1024), len(text)))
    parsed = Parsed("text")
    events = []  # ("move", number, marker, move, digest, line) / ("takeback", number, line)
    # Lines end at \n (and \r\n) only: str.splitlines() would also cut at \x85 or
    # \u2028 inside a quoted tag value, and the value written would not read back.
    for n, raw in enumerate(text.split("\n"), 1):
        if len(raw) > MAX_LINE:
            raise BadImport("the line has %d characters; a line of a game record has at most "
                            "%d" % (len(raw), MAX_LINE), n)
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if _CONTROL_RE.search(line):
            raise BadImport("control characters are not allowed", n)
        if line.startswith("["):
            if events:
                raise BadImport("a tag after the moves: tags come first", n)
            m = _TAG_RE.fullmatch(line)
            if not m:
                raise BadImport('a tag is written [Name "value"], not %s' % _short(line), n)
            name, value = m.group(1), _UNESCAPE_RE.sub(r"\1", m.group(2))
            if name in parsed.tags:
                raise BadImport("[%s] is given twice (first on line %d)"
                                % (name, parsed.tags[name][1]), n)
            parsed.tags[name] = (value, n)
            continue
        if len(events) >= MAX_MOVES:
            raise BadImport("more than %d moves: not a game record" % MAX_MOVES, n)
        events.append(_parse_history_line(line, n))
    module = _interpret_tags(parsed)
    _interpret_history(parsed, events, module)
    return parsed


def _parse_history_line(line, n):
    """One history line, in linear time: a move or a takeback."""
    m = _NUMBER_RE.match(line)
    shape = ("a move line is '<number>. P<player> <move> ; <digest>' (or '<number>. "
             "takeback'), not %s" % _short(line))
    if not m:
        raise BadImport(shape, n)
    number = int(m.group(1))
    rest = line[m.end():]
    if rest == "takeback":
        return ("takeback", number, n)
    parts = rest.split(None, 1)
    if len(parts) != 2 or not re.fullmatch(r"P(?:[0-9]{1,2}|-|\?)", parts[0]):
        raise BadImport(shape, n)
    marker = None if parts[0] == "P-" else "?" if parts[0] == "P?" else int(parts[0][1:])
    move, sep, digest = parts[1].partition(";")
    move = move.strip()
    digest = digest.strip() if sep else None
    if not MOVE_RE.fullmatch(move):
        raise BadImport("%s is not a move text (printable ASCII, no ';', up to 120 "
                        "characters)" % _short(move), n)
    if digest is not None and not DIGEST_RE.fullmatch(digest):
        raise BadImport("the digest %s is not 16 lowercase hex digits" % _short(digest), n)
    return ("move", number, marker, move, digest, n)


def _interpret_tags(parsed):
    tags = parsed.tags

    def tag(name, required=False):
        if name not in tags:
            if required:
                raise BadImport("the tag [%s] is missing" % name, None)
            return None, None
        return tags[name]

    if "Public" in tags:
        raise BadImport(PUBLIC_REFUSED, tags["Public"][1])
    value, line = tag("Game", True)
    try:
        module = games.load(value)
    except BadPosition:
        raise BadImport("[Game] %s is not a game this program knows (known: %s)"
                        % (_short(value), ", ".join(games.names())), line)
    known = dict((option_tag(module, spec[0]), spec[0]) for spec in module.OPTIONS)
    for name, (_, tag_line) in sorted(tags.items(), key=lambda item: item[1][1]):
        if name not in GENERIC_TAGS and name not in known:
            raise BadImport("unknown tag [%s] (the tags of %s: %s)" % (
                name, module.TITLE, ", ".join(list(GENERIC_TAGS) + sorted(known))), tag_line)
    value, line = tag("Format")
    if value is not None and value not in ("1", "2"):
        raise BadImport("[Format] %s is not one this program reads (1 or 2)" % _short(value),
                        line)
    value, line = tag("Seed", True)
    seed = _tag_int(value, "Seed", line, 0, games.seed_max(module))
    value, line = tag("Players", True)
    players = _tag_int(value, "Players", line, 1, 64)
    try:
        _check_players(module, players)
    except BadImport as exc:
        raise BadImport("[Players]: %s" % exc.bare, line)
    hooks = _hooks(module.NAME)
    options = {}
    given = []  # (line, tag) of the options the file gives
    for tag_name, name in known.items():
        value, line = tag(tag_name)
        if value is not None:
            options[name] = _option_value(module, hooks, name, value, line)
            given.append((line, tag_name))
    try:
        options = normalize_options(module.NAME, players, seed, options)
    except ValueError as exc:
        given.sort()
        raise BadImport("[Players]%s do not set up a game: %s" % (
            "".join(", [%s]" % t for _, t in given), exc),
            given[0][0] if given else parsed.line_of("Players"))
    result = _result_from_tags(parsed, players)
    meta = {}
    value, line = tag("Status")
    if value is not None:
        if value not in STATUSES:
            raise BadImport("[Status] must be one of %s, not %s" % (", ".join(STATUSES),
                                                                   _short(value)), line)
        meta["status"] = value
    value, line = tag("Source")
    if value is not None:
        try:
            meta["source"] = _check_source(value)
        except ValueError as exc:
            raise BadImport(str(exc), line)
    value, line = tag("BoardGameId")
    if value is not None:
        meta["board_game_id"] = _tag_int(value, "BoardGameId", line, 0, U32_MAX)
    for name, key in (("Started", "started_at"), ("Ended", "ended_at")):
        value, line = tag(name)
        if value is not None:
            try:
                meta[key] = _check_timestamp(value, "[%s]" % name)
            except ValueError as exc:
                raise BadImport(str(exc), line)
    try:
        _check_meta_status(meta, result)
    except ValueError as exc:
        raise BadImport(str(exc), parsed.line_of("Status", "Result"))
    parsed.record = {"game": module.NAME, "format": RECORD_FORMAT, "options": options,
                     "seed": seed, "players": players, "moves": [],
                     "result": result if result is not None else {}}
    parsed.meta = meta
    return module


def _check_meta_status(meta, result):
    if "status" not in meta:
        if result is not None and result["over"]:
            meta["status"] = "over"
        elif result is not None and result["end"] == "interrupted":
            meta["status"] = "interrupted"
        else:
            meta["status"] = "abandoned"
    meta["result"] = _check_result(result, meta["status"])
    meta.setdefault("source", "terminal")


def _result_from_tags(parsed, players):
    value, line = parsed.tags.get("Result", (None, None))
    others = [name for name in ("Scores", "End", "Turns") if name in parsed.tags]
    if value is None and not others:
        return None
    if value is None:
        raise BadImport("[%s] without [Result]" % others[0], parsed.line_of(*others))
    m = _RESULT_RE.fullmatch(value)
    if not m:
        raise BadImport('[Result] is "P<n> wins", "draw" or "*", not %s' % _short(value), line)
    if value == "*" and not others:
        return None
    missing = [name for name in ("Scores", "End", "Turns") if name not in parsed.tags]
    if missing:
        raise BadImport("[Result] needs [%s] too" % "], [".join(missing), line)
    scores_text, scores_line = parsed.tags["Scores"]
    if not _SCORES_RE.fullmatch(scores_text) or len(scores_text.split()) != players:
        raise BadImport("[Scores] is one score per player separated by spaces (%d players), "
                        "not %s" % (players, _short(scores_text)), scores_line)
    end, end_line = parsed.tags["End"]
    turns_text, turns_line = parsed.tags["Turns"]
    winner = int(m.group(1)) if m.group(1) is not None else None
    if winner is not None and winner >= players:
        raise BadImport("[Result] names P%d but there are %d players" % (winner, players), line)
    result = {"over": value != "*", "end": end,
              "turns_completed": _tag_int(turns_text, "Turns", turns_line, 0, 10 ** 9),
              "scores": [int(s) for s in scores_text.split()], "winner": winner}
    try:
        return _check_result(result, None)
    except ValueError as exc:
        raise BadImport(str(exc), end_line)


def _interpret_history(parsed, events, module):
    rows, live = [], []
    with_digest = None
    for event in events:
        if event[0] == "takeback":
            _, number, n = event
            if not live or number != live[-1]["number"]:
                raise BadImport("takeback of move %d, but the last live move is %s" % (
                    number, live[-1]["number"] if live else "none"), n)
            live.pop()["taken_back_at"] = True
            continue
        _, number, marker, move, digest, n = event
        if number != len(live) + 1:
            raise BadImport("move %d where move %d was expected (moves are numbered 1, 2, 3 "
                            "... without gaps; a takeback line makes a number free again)"
                            % (number, len(live) + 1), n)
        if with_digest is None:
            with_digest = digest is not None
        elif with_digest != (digest is not None):
            raise BadImport("give a digest on every move line or on none", n)
        row = {"number": number, "move": move, "digest": digest, "logged_at": None,
               "taken_back_at": None}
        rows.append(row)
        live.append(row)
        parsed.markers.append(marker)
        parsed.lines.append(n)
    record = parsed.record
    record["moves"] = [r["move"] for r in live]
    if with_digest:
        parsed.digests = [r["digest"] for r in live]
        record["digests"] = list(parsed.digests)
    if len(live) != len(rows):
        parsed.history = rows
        if "Format" in parsed.tags and parsed.tags["Format"][0] == "1":
            raise BadImport("a file with takebacks says [Format \"2\"]", parsed.line_of("Format"))


BOM = "\ufeff"


def _without_bom(text):
    """The text without the byte order mark some editors put before UTF-8 text
    (Windows Notepad): the file is read as if it were not there."""
    return text[1:] if text.startswith(BOM) else text


def looks_like_json(text):
    """Whether a file is meant as JSON: it opens with '{', or with '[' that does not start
    a tag of the text format ('[Game "vora"]')."""
    head = _without_bom(text).lstrip()[:2]
    return head[:1] == "{" or (head[:1] == "[" and not head[1:2].isalpha())


def parse(text):
    """A JSON or text record (told apart by looks_like_json): a Parsed. BadImport
    otherwise. A leading byte order mark is left out."""
    text = _without_bom(text)
    if looks_like_json(text):
        return parse_json(text)
    return parse_text(text)


# ---------------------------------------------------------------- import

def import_parsed(log, parsed, force=False):
    """Add a Parsed record to `log` as a new game: (id, VerifyReport). BadImport (naming
    the line in a text file) for: a move marked with the wrong player, an illegal move,
    a digest that differs from the replay, a result the replay disagrees with, a game
    the log already holds (`duplicate_of` names it); all but the first are accepted with
    `force`, and then reported."""
    record = parsed.record
    report = check_replay(record, parsed.digests)
    if report.problem == "setup":
        raise BadImport(report.message, parsed.line_of("Players"))
    rows = parsed.rows()
    players, replayed = replay_history(record, rows)
    if not force:
        for k, row in enumerate(rows):
            marked = parsed.markers[k] if k < len(parsed.markers) else "?"
            actual = players[k]
            if marked != "?" and actual != "?" and marked != actual:
                raise BadImport("move %d is marked %s but %s was to act"
                                % (row["number"], player_label(marked), player_label(actual)),
                                parsed.lines[k] if parsed.lines else None)
        if report.problem in ("illegal", "mismatch"):
            line = None
            if parsed.lines:
                live = [k for k, r in enumerate(rows) if r["taken_back_at"] is None]
                line = parsed.lines[live[report.number - 1]]
            raise BadImport(report.message + " (import it anyway with --force)", line, report)
        if report.problem == "result":
            raise BadImport(report.message + " (import it anyway with --force)",
                            parsed.line_of("Result", "Scores", "End", "Turns"), report)
    history = None
    if parsed.history is not None:
        history = [dict(r) for r in parsed.history]
        for k, row in enumerate(history):
            if row["digest"] is None:
                if replayed[k] is None:
                    raise BadImport("move %d does not replay and the file gives no digest to "
                                    "log for it" % row["number"],
                                    parsed.lines[k] if parsed.lines else None)
                row["digest"] = replayed[k]
            if row["taken_back_at"] is True:  # a text file does not say when
                row["taken_back_at"] = parsed.meta.get("ended_at") or \
                    parsed.meta.get("started_at") or _now()
    same = log.same_games(record, parsed.meta.get("started_at"))
    if same and not force:
        raise BadImport("this game is already in the log as game %s (the same game, seed, "
                        "options and moves%s); import it again with --force" % (
                            ", ".join(str(g) for g in same),
                            ", started at the same time" if parsed.meta.get("started_at")
                            else ""), duplicate_of=same)
    return log.import_game(record, parsed.digests, parsed.meta, history, force=force)


def import_text(log, text, force=False):
    """Import the text format as a new game: (id, VerifyReport); see import_parsed."""
    return import_parsed(log, parse_text(text), force)


def import_json(log, text, force=False):
    """Import export_json text (or a `vora play --record` file) as a new game:
    (id, VerifyReport); see import_parsed."""
    return import_parsed(log, parse_json(text), force)


def import_any(log, text, force=False):
    """Import a JSON or a text record, told apart by its content: (id, VerifyReport,
    kind) with kind "json" or "text"."""
    parsed = parse(text)
    gid, report = import_parsed(log, parsed, force)
    return gid, report, parsed.kind

"""What the game log accepts: the checks of every field a change or an imported file brings
(a move and its digest, a source, a time, a result, a game's options), and the rules a
change to one game keeps (a move numbered next or an exact repeat, a takeback of the last
move only, nothing added to a game that is over), applied alike to the database's rows
and to the changes waiting in memory (`_GameView`). Also the time a change is stamped with
(`_now`) and the notes of a game needing attention.

Apart from the store (vora_host.log.store) because the file formats (vora_host.log.formats)
check what they read with the same functions, and because none of it touches a database.
"""

import re
from datetime import datetime, timezone

from shared_rules import games, prng
from shared_rules.errors import BadPosition

from vora_host.log.errors import GameClosed, MoveConflict, MoveGap, NotLastMove

END_MAX = 64  # characters of a result's `end` (why a game ended, in a few words)

__all__ = ["STATUSES", "END_STATUSES", "RESULT_KEYS", "MOVE_RE", "DIGEST_RE", "U32_MAX",
           "ATTENTION_NOTES", "normalize_options"]

STATUSES = ("playing", "over", "abandoned", "interrupted")
END_STATUSES = ("over", "abandoned", "interrupted")
RESULT_KEYS = ("over", "end", "turns_completed", "scores", "winner")


# A move as the board reports it: printable ASCII, no ';' (the text format's comment
# mark), no leading or trailing space. A digest: 16 lowercase hex digits (state.digest()).
MOVE_RE = re.compile(r"[!-:<-~](?:[ -:<-~]{0,118}[!-:<-~])?")
DIGEST_RE = re.compile(r"[0-9a-f]{16}")
U32_MAX = 0xFFFFFFFF

# The most notes an attention mark keeps on one game (a board that goes wrong at every
# move must not grow the log without end); the last note says how many more there were.
ATTENTION_NOTES = 20


def _add_note(notes, note):
    """The attention notes with one more (ATTENTION_NOTES at most: then a count)."""
    lines = notes.split("\n") if notes else []
    more = 0
    if len(lines) > ATTENTION_NOTES:
        more = int(lines.pop().split()[0])  # "N more notes"
    if len(lines) < ATTENTION_NOTES:
        lines.append(note)
    else:
        lines.append("%d more notes" % (more + 1))
    return "\n".join(lines)


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _short(value, limit=60):
    """repr() of a value cut to `limit` characters, for messages about untrusted input."""
    text = repr(value) if not isinstance(value, str) else repr(value[:limit + 1])
    return text if len(text) <= limit + 2 else text[:limit] + "...'"


def _check_timestamp(value, what):
    if not isinstance(value, str) or not value or len(value) > 64:
        raise ValueError("%s must be an ISO 8601 date and time, not %s" % (what, _short(value)))
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("%s must be an ISO 8601 date and time, not %s" % (what, _short(value)))
    return value


def _check_source(source):
    ok = isinstance(source, str) and len(source) <= 200 and (
        source in ("virtual board", "terminal", "web table")
        or (source.startswith("board ") and source[6:].strip() != "")
        or (source.startswith("remote ") and source[7:].strip() != ""))
    if not ok or any(ord(c) < 32 or ord(c) == 127 for c in source):
        raise ValueError("source must be 'board <port or identity>', 'virtual board', "
                         "'terminal', 'web table' or 'remote <host>' (one line, up to 200 "
                         "characters), "
                         "not %s" % _short(source))
    return source


def _check_result(result, status):
    if result is None:
        if status == "over":
            raise ValueError("a game that is over needs its result")
        return None
    if not isinstance(result, dict) or set(result) != set(RESULT_KEYS):
        raise ValueError("the result must be None or a dict with exactly the keys %s "
                         "(vora_host.log.records.result_of), not %s"
                         % (", ".join(RESULT_KEYS), _short(result)))
    over, end, turns, scores, winner = (result[k] for k in RESULT_KEYS)
    if not isinstance(over, bool):
        raise ValueError("result 'over' must be true or false, not %s" % _short(over))
    if not isinstance(end, str) or not end or any(ord(c) < 32 or c == '"' for c in end) \
            or len(end) > END_MAX:
        raise ValueError("result 'end' must be a short word, not %s" % _short(end))
    if not _is_int(turns) or not 0 <= turns <= 10 ** 9:
        raise ValueError("result 'turns_completed' must be a whole number, not %s"
                         % _short(turns))
    if not isinstance(scores, list) or not 1 <= len(scores) <= 64 \
            or not all(_is_int(s) and abs(s) < 10 ** 9 for s in scores):
        raise ValueError("result 'scores' must be a list of whole numbers, not %s"
                         % _short(scores))
    if winner is not None and (not _is_int(winner) or not 0 <= winner < len(scores)):
        raise ValueError("result 'winner' must be a player or None, not %s" % _short(winner))
    if winner is not None and not over:
        raise ValueError("result names a winner of a game that is not over")
    if status is not None and over != (status == "over"):
        raise ValueError("status %r does not agree with a result where 'over' is %s"
                         % (status, over))
    return dict((k, result[k]) for k in RESULT_KEYS)


def _check_move_args(number, move, digest):
    if not _is_int(number) or number < 1:
        raise ValueError("a move number is a whole number from 1, not %s" % _short(number))
    if not isinstance(move, str) or not MOVE_RE.fullmatch(move):
        raise ValueError("a move is printable ASCII text without ';' (up to 120 "
                         "characters), not %s" % _short(move))
    if not isinstance(digest, str) or not DIGEST_RE.fullmatch(digest):
        raise ValueError("a digest is 16 lowercase hex digits, not %s" % _short(digest))


def _no_bool_for_int(given, spelled, where):
    """ValueError where an option's value has true or false and the game took it for a
    whole number (Python's True == 1: a rules module may not tell them apart)."""
    if isinstance(given, bool) and _is_int(spelled):
        raise ValueError("option %s: %s is not a whole number" % (where, _short(given)))
    if isinstance(given, dict) and isinstance(spelled, dict):
        for key, value in given.items():
            _no_bool_for_int(value, spelled.get(key), "%s.%s" % (where, key))
    elif isinstance(given, list) and isinstance(spelled, list):
        for k, (value, other) in enumerate(zip(given, spelled)):
            _no_bool_for_int(value, other, "%s[%d]" % (where, k))


def normalize_options(game, players, seed, options):
    """Check that the game can be set up and return its options with every default
    spelled out (the state's options()), so the log replays the same game even if a
    default changes later. ValueError when the game cannot be set up."""
    if not isinstance(game, str):
        raise ValueError("the game name must be a text, not %s" % _short(game))
    if not _is_int(players):
        raise ValueError("players must be a whole number, not %s" % _short(players))
    try:
        games.check_seed(game, seed)  # each game's own range of seeds
    except BadPosition:  # a game this program does not know: said below
        prng.check_seed(seed)
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ValueError("options must be a dict, not %s" % _short(options))
    try:
        module = games.load(game)
        for key, value in options.items():
            spec = games.option_spec(module, key)
            if isinstance(value, bool) and spec[2] != "bool":
                raise ValueError("option %r: %s is not a valid value" % (key, _short(value)))
        state = games.start({"game": game, "players": players, "seed": seed,
                             "options": options})
        spelled = state.options()
        for key, value in options.items():
            _no_bool_for_int(value, spelled.get(key), key)
    except BadPosition as exc:
        raise ValueError("the game cannot be set up: %s" % exc)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError,
            RecursionError) as exc:
        # A game should say BadPosition; options from a file are untrusted whatever it says.
        raise ValueError("the game cannot be set up with these options: %s"
                         % _short(str(exc), 120))
    return spelled


# ---------------------------------------------------------------- one game, as the checks see it

class _GameView:
    """What the write checks need of one game: its status and result, the live moves
    ({number: (move, digest)}, possibly only the one asked about) and the last number."""

    def __init__(self, status, result, last, live):
        self.status, self.result, self.last, self.live = status, result, last, live


def _check_move(gid, view, number, move, digest):
    """True when the move is new and may be logged, False for an exact repeat; raises
    MoveConflict, MoveGap or GameClosed."""
    row = view.live.get(number)
    if row is not None:
        if row == (move, digest):
            return False
        raise MoveConflict(gid, number, row[0], row[1], move, digest)
    if number > view.last + 1:
        raise MoveGap(gid, number, view.last + 1)
    if view.status in ("over", "abandoned"):
        raise GameClosed(gid, view.status)
    return True


def _check_take_back(gid, view, number):
    if view.status == "abandoned":
        raise GameClosed(gid, view.status, "its moves can no longer be taken back")
    if not _is_int(number) or number != view.last or view.last == 0:
        raise NotLastMove(gid, number, view.last)


def _apply(view, op):
    """Apply a pending change to a _GameView (in memory)."""
    kind = op["kind"]
    if kind == "move":
        view.live[op["number"]] = (op["move"], op["digest"])
        view.last = op["number"]
        if view.status == "interrupted":
            view.status, view.result = "playing", None
    elif kind == "takeback":
        view.live.pop(op["number"], None)
        view.last -= 1
        if view.status == "over":
            view.status, view.result = "playing", None
    elif kind == "end":
        view.status, view.result = op["status"], op["result"]
    # "attention" changes nothing the write checks look at

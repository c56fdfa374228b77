"""What the board sends, checked before the host believes any of it, and its text made safe
to show: the part of the link's client (`vora_host.link.client`) that trusts nothing.

The board is not trusted (docs/protocol.md, "What the host checks"): `check_summary`
checks the game summary of a HELLO_OK, GAME or STATE, `check_event` a GAME message and
`check_hello_ok` the link part of a HELLO_OK, field by field (type and range), raising
wire.BadPayload naming the first field that is wrong; the client reports such a message
and drops it. `printable` escapes the board's text for a terminal. These are plain
functions of a message, with no state of the link: the client and its following of the
game (`vora_host.link.following`) import them from here, and the client re-exports them
for the code that has always imported them from there.
"""

from shared_rules import prng, vora, wire, wire_host

from vora_host.bots.levels import LEVEL_NAMES

TEXT_LIMIT = 200  # characters of board text shown in one problem or status line

GAME_EVENTS = ("new", "resume", "over", "abandon", "unknown")


def printable(text, limit=TEXT_LIMIT):
    """Text from the board as it may reach a terminal: every character that is not
    printable (controls, escape sequences, C1 codes, bidirectional overrides, line breaks)
    written as a Python escape (\\x1b, \\u202e), and at most `limit` characters."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > limit:
        text = text[:limit] + "..."
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _bad(what, field, value, want):
    raise wire.BadPayload("%s: %s must be %s, not %s" % (what, field, want, printable(repr(value), 60)))


def _int_field(what, d, field, lo, hi, required=True):
    if field not in d:
        if required:
            raise wire.BadPayload("%s: the field %s is missing" % (what, field))
        return None
    v = d[field]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        _bad(what, field, v, "a whole number from %d to %d" % (lo, hi))
    return v


# The board's own bot's levels as a summary spells them (board_levels, one letter a bot):
# the first letter of each level's name.
BOARD_BOT_LEVELS = {name[0]: name for name in LEVEL_NAMES}


def _str_field(what, d, field, limit, required=False):
    if field not in d:
        if required:
            raise wire.BadPayload("%s: the field %s is missing" % (what, field))
        return None
    v = d[field]
    if not isinstance(v, str) or len(v) > limit:
        _bad(what, field, v, "text of at most %d characters" % limit)
    return v


def check_summary(d, what):
    """Check the game summary of a HELLO_OK, GAME or STATE (docs/protocol.md, "JSON
    fields"): every field the host uses has its type and range, or wire.BadPayload names
    the first that does not. Returns the game id (None: no game)."""
    _int_field(what, d, "mode", wire.MODE_STANDALONE, wire.MODE_TERMINAL, required=False)
    if "over" in d and not isinstance(d["over"], bool):
        _bad(what, "over", d["over"], "true or false")
    name = _str_field(what, d, "name", 32)
    if name is not None and name != vora.NAME:
        _bad(what, "name", name, "%r (the one game a board referees)" % vora.NAME)
    if "game" not in d:
        raise wire.BadPayload("%s: the field game is missing" % what)
    game = d["game"]
    if game is None:
        return None
    _int_field(what, d, "game", 0, wire_host.U32_MAX)
    _int_field(what, d, "seed", 0, prng.SEED_MAX)
    players = _int_field(what, d, "players", min(vora.PLAYER_COUNTS), max(vora.PLAYER_COUNTS))
    seats = _str_field(what, d, "seats", 4, required=True)
    if len(seats) != players or any(s not in vora.SIDES or seats.count(s) > 1 for s in seats):
        _bad(what, "seats", seats, "%d different sides among %s" % (players, vora.SIDES))
    _int_field(what, d, "moves", 0, 0xFFFF)
    digest = _str_field(what, d, "digest", 16, required=True)
    if len(digest) != 16 or any(c not in "0123456789abcdef" for c in digest):
        _bad(what, "digest", digest, "16 hexadecimal digits")
    _str_field(what, d, "state", wire.MAX_PAYLOAD)
    _str_field(what, d, "save_error", TEXT_LIMIT)
    bots = _str_field(what, d, "board_bots", 4) or ""
    if any(b not in seats or bots.count(b) > 1 for b in bots):
        _bad(what, "board_bots", bots, "different seats among %s" % seats)
    levels = _str_field(what, d, "board_levels", 4)
    if levels is not None and (len(levels) != len(bots)
                               or any(c not in BOARD_BOT_LEVELS for c in levels)):
        _bad(what, "board_levels", levels, "one of %s for each of board_bots %r"
             % ("".join(BOARD_BOT_LEVELS), bots))
    return game


def check_event(d):
    """Check a GAME message: the event, and the summary where the event carries one."""
    event = d.get("event")
    if event not in GAME_EVENTS:
        _bad("GAME", "event", event, "one of %s" % ", ".join(GAME_EVENTS))
    what = "GAME %s" % event
    if event in ("new", "resume", "over"):
        check_summary(d, what)
    _int_field(what, d, "game", 0, wire_host.U32_MAX)
    if event == "over":
        scores = d.get("scores")
        if not isinstance(scores, list) or len(scores) != d["players"] or any(
                not isinstance(s, int) or isinstance(s, bool) or not -99999 <= s <= 99999 for s in scores):
            _bad(what, "scores", scores, "one whole number per player")
        winner = d.get("winner")
        if winner is not None:
            _int_field(what, d, "winner", 0, d["players"] - 1)
    return event


def check_hello_ok(d):
    """The link part of a HELLO_OK (the game summary is checked apart)."""
    _int_field("HELLO_OK", d, "nonce", 0, wire_host.U32_MAX)
    _int_field("HELLO_OK", d, "proto", 0, 255)
    for field in ("fw", "board", "layout", "role"):
        _str_field("HELLO_OK", d, field, 64)
    caps = d.get("caps", [])
    if not isinstance(caps, list) or len(caps) > 32 or any(
            not isinstance(c, str) or len(c) > 32 for c in caps):
        _bad("HELLO_OK", "caps", caps, "a list of short names")


"""Boars on the Run!: the track and card files.

A game's track and cards are data: a built-in set of `shared_rules.boars_data` named by an
option, or a user's own file given as its full text (docs/boars-notation.md). Here they
are read and checked line by line (`parse_track`, `parse_cards`: a bad file raises
BadPosition naming the line and the field), an option is turned into its parsed data
(`_resolve`, with a small cache so that from_json() does not parse the same text again),
and a card is described in words for renderers (`card_info`, `cards_list`). The game's
module, `shared_rules.boars`, offers these functions too; this file does not import it.
"""

from shared_rules import boars_data
from shared_rules.boars_options import (
    BLACK, CARD_FIELDS, CARDS_HEADER, COLOURS, DEFAULT_CARDS, DEFAULT_TRACK, DIET_KINDS,
    DISPLAY_SLOTS, FINISH, K_FINISH, K_START, K_STATION, MAX_TEXT, N_FOOD, PLAYER_COUNTS,
    RESERVED_IDS, SPACE_KINDS, START, TRACK_HEADER, TRACK_SPACES, VENDETTA_KINDS,
    _letters_counts, cubes_text)
from shared_rules.errors import BadPosition


class Track:
    """A parsed track: kinds[i] and colours[i] (-1: none) of each space 0..95, and for each
    ticket colour the next station of that colour after each space (-1: none)."""

    def __init__(self, kinds, colours):
        self.kinds = kinds
        self.colours = colours
        nxt = []
        for c in range(N_FOOD):
            row = [-1] * TRACK_SPACES
            after = -1
            for i in range(TRACK_SPACES - 1, -1, -1):
                row[i] = after
                if kinds[i] == K_STATION and colours[i] == c:
                    after = i
            nxt.append(tuple(row))
        self.next_station = tuple(nxt)

    def space(self, i):
        """Space i as a dict {"kind": ..., "colour": ... or None} (JSON-ready)."""
        c = self.colours[i]
        return {"kind": SPACE_KINDS[self.kinds[i]], "colour": COLOURS[c] if c >= 0 else None}


class Cards:
    """A parsed card list: `cards` (dicts, file order), `index` (id -> number), `boars`
    (numbers of the Boar cards) and `others` (numbers of the Diet and Vendetta cards)."""

    def __init__(self, cards):
        self.cards = cards
        self.index = {}
        boars, others = [], []
        for i, card in enumerate(cards):
            self.index[card["id"]] = i
            (boars if card["kind"] == "boar" else others).append(i)
        self.boars = tuple(boars)
        self.others = tuple(others)


def _data_lines(text, what, header):
    # (line number, stripped text) of every line that is not blank or a comment, after
    # checking the header. Only printable ASCII and tabs: files are shown in terminals.
    if not isinstance(text, str):
        raise BadPosition("a %s file is a text, not %r" % (what, type(text).__name__))
    if len(text) > MAX_TEXT:
        raise BadPosition("the %s file is %d characters long; at most %d are read"
                          % (what, len(text), MAX_TEXT))
    out = []
    seen_header = False
    for n, line in enumerate(text.split("\n")):
        if line.endswith("\r"):
            line = line[:-1]
        for ch in line:
            o = ord(ch)
            if o > 126 or (o < 32 and o != 9):
                raise BadPosition("%s line %d: character %r is not printable ASCII"
                                  % (what, n + 1, ch))
        s = line.strip()
        if not s or s[0] == "#":
            continue
        if not seen_header:
            if s.replace(" ", "") != header:
                raise BadPosition("%s line %d: the first line that is not a comment must be "
                                  "the header %r, not %r" % (what, n + 1, header, s))
            seen_header = True
            continue
        out.append((n + 1, s))
    if not seen_header:
        raise BadPosition("the %s file has no header line %r" % (what, header))
    return out


def _colour_field(value, where, field):
    for c in range(N_FOOD):
        if value == COLOURS[c]:
            return c
    raise BadPosition("%s, field %r: %r is not a colour (red, blue, yellow, green)"
                      % (where, field, value))


def parse_track(text):
    """Read a track file (see docs/boars-notation.md): a header "kind,colour", then one line
    per space from Start to Finish, 96 in all. Returns a Track; a bad file raises
    BadPosition naming the line and the field."""
    lines = _data_lines(text, "track", TRACK_HEADER)
    kinds, colours = [], []
    finish_at = ""  # where the line before this one was read: the finish, once it is
    for n, s in lines:
        space = len(kinds)
        where = "track line %d (space %d)" % (n, space)
        if kinds and kinds[-1] == K_FINISH:
            raise BadPosition("%s, field 'kind': only the last space (space %d) is the "
                              "finish, and more spaces follow it" % (finish_at, FINISH))
        fields = [f.strip() for f in s.split(",")]
        kind = fields[0]
        if kind not in SPACE_KINDS:
            raise BadPosition("%s, field 'kind': %r is not a kind of space (%s)"
                              % (where, kind, ", ".join(SPACE_KINDS)))
        k = SPACE_KINDS.index(kind)
        if len(fields) > 2:
            raise BadPosition("%s: a space has 2 fields (kind,colour), this line has %d"
                              % (where, len(fields)))
        colour = fields[1] if len(fields) == 2 else ""
        if k in (K_START, K_FINISH):
            if colour:
                raise BadPosition("%s, field 'colour': %s has no colour, not %r"
                                  % (where, kind, colour))
            c = -1
        else:
            if not colour:
                raise BadPosition("%s, field 'colour': a %s space needs a colour" % (where, kind))
            c = _colour_field(colour, where, "colour")
        if k == K_START and space != START:
            raise BadPosition("%s, field 'kind': only the first space is the start" % where)
        if space == START and k != K_START:
            raise BadPosition("%s, field 'kind': the first space must be the start, not %s"
                              % (where, kind))
        if space == FINISH and k != K_FINISH:
            raise BadPosition("%s, field 'kind': the last space must be the finish, not %s"
                              % (where, kind))
        kinds.append(k)
        colours.append(c)
        finish_at = where
    if len(kinds) != TRACK_SPACES:
        raise BadPosition("the track file has %d spaces; a track has %d (start and finish "
                          "included)%s" % (len(kinds), TRACK_SPACES,
                                          "" if kinds else ": no space line found"))
    return Track(tuple(kinds), tuple(colours))


def _int_field(value, lo, hi, where, field):
    if not value.isdigit() or not lo <= int(value) <= hi:
        raise BadPosition("%s, field %r: %r is not a whole number from %d to %d"
                          % (where, field, value, lo, hi))
    return int(value)


def _cubes_field(value, where, field):
    counts = _letters_counts(value) if value and value != "-" else None
    if counts is None or counts[BLACK] or not 1 <= sum(counts) <= 9:
        raise BadPosition("%s, field %r: %r is not 1 to 9 cube letters among r, b, y, g "
                          "(red, blue, yellow, green)" % (where, field, value))
    return tuple(counts)


def _card_id(value, where):
    ok = 0 < len(value) <= 20 and "a" <= value[0] <= "z"
    for ch in value:
        if not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch == "-"):
            ok = False
    if not ok or value in RESERVED_IDS:
        raise BadPosition("%s, field 'id': %r is not a card id (1 to 20 characters a-z, 0-9 "
                          "and -, starting with a letter; not %s)"
                          % (where, value, ", ".join(RESERVED_IDS)))
    return value


def parse_cards(text):
    """Read a card file (see docs/boars-notation.md): a header "id,kind,cost,fields", then
    one line per card: its id, its kind, its cost ("-" for a Boar card) and its kind's
    fields as key=value. Returns a Cards; a bad file raises BadPosition naming the line
    and the field."""
    lines = _data_lines(text, "cards", CARDS_HEADER)
    cards = []
    ids = {}
    for n, s in lines:
        where = "cards line %d" % n
        fields = [f.strip() for f in s.split(",")]
        if len(fields) < 3:
            raise BadPosition("%s: a card needs at least id,kind,cost" % where)
        cid = _card_id(fields[0], where)
        where = "cards line %d (card %s)" % (n, cid)
        if cid in ids:
            raise BadPosition("%s, field 'id': %r is already the id of line %d"
                              % (where, cid, ids[cid]))
        ids[cid] = n
        kind = fields[1]
        if kind not in CARD_FIELDS:
            raise BadPosition("%s, field 'kind': %r is not a kind of card (%s)"
                              % (where, kind, ", ".join(DIET_KINDS + VENDETTA_KINDS)))
        card = {"id": cid, "kind": kind, "cost": 0, "pay": None, "move": 0, "pay2": None,
                "move2": 0, "colour": -1, "gain": None, "extra": 0, "drawn": 0,
                "black": -1, "spaces": 0}
        if kind == "boar":
            if fields[2] != "-":
                raise BadPosition("%s, field 'cost': a Boar card is not bought; write -, not %r"
                                  % (where, fields[2]))
        else:
            card["cost"] = _int_field(fields[2], 0, 9, where, "cost")
        need = CARD_FIELDS[kind]
        got = []
        for f in fields[3:]:
            kv = f.split("=")
            if len(kv) != 2 or not kv[0].strip():
                raise BadPosition("%s: %r is not a field written key=value" % (where, f))
            key, value = kv[0].strip(), kv[1].strip()
            if key not in need:
                raise BadPosition("%s, field %r: a %s card has no such field (its fields: %s)"
                                  % (where, key, kind, ", ".join(need)))
            if key in got:
                raise BadPosition("%s, field %r: given twice" % (where, key))
            got.append(key)
            if key in ("pay", "pay2", "gain"):
                card[key] = _cubes_field(value, where, key)
            elif key == "colour":
                card[key] = _colour_field(value, where, key)
            elif key in ("move", "move2", "spaces"):
                card[key] = _int_field(value, 1, 30, where, key)
            elif key == "drawn":
                card[key] = _int_field(value, 1, 99, where, key)
            elif key == "extra":
                card[key] = _int_field(value, 1, 5, where, key)
            else:  # black
                card[key] = _int_field(value, 0, 5, where, key)
        for key in need:
            if key not in got:
                raise BadPosition("%s, field %r: missing (a %s card needs %s)"
                                  % (where, key, kind, ", ".join(need)))
        if kind in ("mono", "combo"):
            colours = sum(1 for c in range(N_FOOD) if card["pay"][c])
            if kind == "mono" and colours != 1:
                raise BadPosition("%s, field 'pay': a mono diet pays cubes of one colour"
                                  % where)
            if kind == "combo" and colours < 2:
                raise BadPosition("%s, field 'pay': a combo diet pays cubes of 2 or more "
                                  "colours" % where)
        cards.append(card)
    result = Cards(tuple(cards))
    if len(result.boars) < PLAYER_COUNTS[-1]:
        raise BadPosition("the card file has %d Boar cards; %d players need %d"
                          % (len(result.boars), PLAYER_COUNTS[-1], PLAYER_COUNTS[-1]))
    if len(result.others) < DISPLAY_SLOTS:
        raise BadPosition("the card file has %d Diet and Vendetta cards; the display needs "
                          "at least %d" % (len(result.others), DISPLAY_SLOTS))
    return result


_PARSED = {}  # (what, text) -> parsed data: a cache, so from_json does not parse again


def _resolve(what, option):
    # A data option: a built-in set's name, or the full text of a file.
    table = boars_data.TRACKS if what == "track" else boars_data.CARDS
    if not isinstance(option, str):
        raise BadPosition("option %r must be a built-in name (%s) or a file's text, not %r"
                          % (what, ", ".join(sorted(table)), option))
    if option in table:
        text = table[option]
    elif "\n" in option:
        text = option
    else:
        raise BadPosition("option %r: %r is not a built-in %s (%s); a file of your own is "
                          "given as its full text" % (what, option, what,
                                                      ", ".join(sorted(table))))
    key = (what, text)
    got = _PARSED.get(key)
    if got is None:
        got = parse_track(text) if what == "track" else parse_cards(text)
        if len(_PARSED) >= 16:
            _PARSED.clear()
        _PARSED[key] = got
    return got


def track_spaces(track=DEFAULT_TRACK):
    """The spaces of a track option (name or text): a list of {"kind", "colour"} dicts."""
    t = _resolve("track", track)
    return [t.space(i) for i in range(TRACK_SPACES)]


def card_info(card):
    """A parsed card as a JSON-ready dict in words: id, kind, cost, type (boar, diet or
    vendetta), the kind's fields, and "text", a short description."""
    kind = card["kind"]
    d = {"id": card["id"], "kind": kind,
         "type": "boar" if kind == "boar" else "diet" if kind in DIET_KINDS else "vendetta",
         "cost": None if kind == "boar" else card["cost"]}
    for key in CARD_FIELDS[kind]:
        v = card[key]
        if key in ("pay", "pay2", "gain"):
            v = cubes_text(v)
        elif key == "colour":
            v = COLOURS[v]
        d[key] = v
    d["text"] = _card_text(card)
    return d


def _card_text(card):
    kind = card["kind"]
    if kind == "boar":
        return "pay %s: move %d; pay %s: move %d" % (cubes_text(card["pay"]), card["move"],
                                                     cubes_text(card["pay2"]), card["move2"])
    if kind in ("mono", "combo"):
        return "pay %s: move %d" % (cubes_text(card["pay"]), card["move"])
    if kind == "non":
        return "drew no %s: move %d" % (COLOURS[card["colour"]], card["move"])
    if kind == "feast":
        return "drew no %s: gain %s" % (COLOURS[card["colour"]], cubes_text(card["gain"]))
    if kind == "portion":
        return "drew exactly %d cubes: move %d" % (card["drawn"], card["move"])
    if kind == "gatherer":
        return "gaining %s from a space: %d more" % (COLOURS[card["colour"]], card["extra"])
    if kind == "knowledge":
        return "bought a diet this turn: move %d" % card["move"]
    if kind == "cold":
        return "bought a vendetta this turn: move %d" % card["move"]
    if kind == "careless":
        return "discard another card: move %d" % card["move"]
    head = "%d black: " % card["black"]
    if kind == "overtake":
        return head + "to one space past a boar on %s" % COLOURS[card["colour"]]
    if kind == "pullback":
        return head + "a boar goes back %d" % card["spaces"]
    if kind == "switcheroo":
        return head + "switch two cards of two players"
    if kind == "finders":
        return head + "take a card from an opponent"
    return head + "one player discards all their cards"


def cards_list(cards=DEFAULT_CARDS):
    """Every card of a cards option (name or text) as card_info() dicts, in file order."""
    return [card_info(c) for c in _resolve("cards", cards).cards]

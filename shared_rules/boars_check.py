"""Boars on the Run!: checking what comes from outside.

A new game's options (`_check_options`: the player count, the track and cards, which are
read here through `shared_rules.boars_files`, the cubes, the turn limit, min_draw), and a
state read from untrusted text: `from_json()` and `determinize()` (in `shared_rules.boars`,
the game's module, which makes the empty BoarsState) hand the fields to `fill_checked`,
which checks each one (its type, its range, the cards it names) as it fills the state in,
then that the whole fits together (`_check_consistency`: every card in exactly one place,
every cube somewhere, the phase matching what was drawn and bought). The first fault
found is raised as BadPosition, naming the field.
"""

from shared_rules import secret_prng
from shared_rules.boars_files import _resolve
from shared_rules.boars_options import (
    BLACK, COLOURS, DEFAULT_MIN_DRAW, DISPLAY_SLOTS, END_REASONS, FINISH, HAND_LIMIT,
    MAX_CUBES, N_FOOD, PER_COLOUR_IN_BAG, PH_DISCARD, PH_DRAW, PH_MENU, PH_OVER, PH_SPACE,
    PH_VENDETTA, PHASES, PLAYER_COUNTS, SICK_AT, START)
from shared_rules.errors import BadPosition


def _check_options(players, track, cards, cubes, max_turns, min_draw=DEFAULT_MIN_DRAW):
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise BadPosition("Boars on the Run! is played by 2, 3 or 4 players, not %r"
                          % (players,))
    t = _resolve("track", track)
    c = _resolve("cards", cards)
    if not isinstance(cubes, int) or isinstance(cubes, bool) \
            or not PER_COLOUR_IN_BAG * players <= cubes <= MAX_CUBES:
        raise BadPosition("cubes (food cubes of each colour) must be an integer from %d "
                          "(5 per bag) to %d, not %r"
                          % (PER_COLOUR_IN_BAG * players, MAX_CUBES, cubes))
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise BadPosition("max_turns must be a positive integer, not %r" % (max_turns,))
    if isinstance(min_draw, bool) or min_draw not in (0, 1):
        raise BadPosition("min_draw must be 0 or 1, not %r" % (min_draw,))
    return t, c


def _field(d, key, kind):
    if key not in d:
        raise BadPosition("field %r is missing" % key)
    v = d[key]
    if not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool):
        raise BadPosition("field %r has the wrong type: %r" % (key, v))
    return v


def _ints(v, key, n, lo, hi):
    if not isinstance(v, list) or len(v) != n or any(
            not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi for x in v):
        raise BadPosition("field %r must be %d integers from %d to %d" % (key, n, lo, hi))
    return v[:]


def _card_ref(data, v, key, allow_none=False):
    if v is None and allow_none:
        return -1
    if not isinstance(v, str) or v not in data.index:
        raise BadPosition("field %r: %r is not a card of this game" % (key, v))
    return data.index[v]


def fill_checked(s, d, rng, bags, deck, deck_hidden):
    """Fill the new, empty state `s` from the fields of `d` (to_json()'s, or a view's for
    determinize(), which passes the hidden parts it dealt as rng, bags, deck and
    deck_hidden), checking every one; returns s. BadPosition names the first field found
    wrong."""
    players = _field(d, "players", int)
    s.track, s.deck_data = _check_options(players, _field(d, "track", str),
                                          _field(d, "cards", str), _field(d, "cubes", int),
                                          _field(d, "max_turns", int),
                                          d.get("min_draw", DEFAULT_MIN_DRAW))
    data = s.deck_data
    s.players = n = players
    s.track_option = d["track"]
    s.cards_option = d["cards"]
    s.cubes = d["cubes"]
    s.max_turns = d["max_turns"]
    s.min_draw = d.get("min_draw", DEFAULT_MIN_DRAW)  # states saved before it existed
    if not secret_prng.check_state(rng):
        raise BadPosition("field 'rng' must be a state of shared_rules.secret_prng")
    s.rng = rng
    s.turn = _field(d, "turn", int)
    if not 0 <= s.turn <= s.max_turns:
        raise BadPosition("field 'turn' must be from 0 to max_turns")
    s.active = _field(d, "active", int)
    if not 0 <= s.active < n:
        raise BadPosition("field 'active' must be a player from 0 to %d" % (n - 1))
    phase = _field(d, "phase", str)
    if phase not in PHASES:
        raise BadPosition("field 'phase' must be one of %s" % ", ".join(PHASES))
    s.phase = PHASES.index(phase)
    s.pos = _ints(_field(d, "positions", list), "positions", n, START, FINISH)
    boars = _field(d, "boars", list)
    if len(boars) != n:
        raise BadPosition("field 'boars' must name %d Boar cards" % n)
    s.boar = [_card_ref(data, b, "boars") for b in boars]
    hands = _field(d, "hands", list)
    if len(hands) != n:
        raise BadPosition("field 'hands' must hold %d lists of cards" % n)
    for p in range(n):
        if not isinstance(hands[p], list) or len(hands[p]) > HAND_LIMIT:
            raise BadPosition("field 'hands': hand %d must be a list of at most %d cards"
                              % (p, HAND_LIMIT))
        s.hands.append([_card_ref(data, x, "hands") for x in hands[p]])
    if len(bags) != n:
        raise BadPosition("field 'bags' must hold %d bags" % n)
    s.bags = [_ints(b, "bags", 5, 0, MAX_CUBES) for b in bags]
    s.supply = _ints(_field(d, "supply", list), "supply", N_FOOD, 0, MAX_CUBES)
    display = _field(d, "display", list)
    if len(display) != DISPLAY_SLOTS:
        raise BadPosition("field 'display' must hold %d slots" % DISPLAY_SLOTS)
    s.display = [_card_ref(data, x, "display", True) for x in display]
    s.deck = [_card_ref(data, x, "deck") for x in deck]
    if not 0 <= deck_hidden <= len(s.deck):
        raise BadPosition("field 'deck_hidden' must be from 0 to the deck's size")
    s.deck_hidden = deck_hidden
    s.drawn = _ints(_field(d, "drawn", list), "drawn", 5, 0, MAX_CUBES)
    s.front = _ints(_field(d, "front", list), "front", 5, 0, MAX_CUBES)
    used = _field(d, "used", list)
    for u in used:
        if not isinstance(u, str) or (u not in ("top", "bottom") and u not in data.index) \
                or used.count(u) > 1:
            raise BadPosition("field 'used': %r is not a diet used once this turn" % (u,))
    s.used = used[:]
    s.bought = _card_ref(data, d.get("bought"), "bought", True)
    s.keep = _card_ref(data, d.get("keep"), "keep", True)
    s.then = _card_ref(data, d.get("then"), "then", True)
    for key in ("bought", "keep", "then"):
        _field(d, key, (str, type(None)))
    s.end = _field(d, "end", str)
    if s.end not in END_REASONS or (s.end == "") != (s.phase != PH_OVER):
        raise BadPosition("field 'end' must be 'finish' or 'turns' exactly when the game "
                          "is over")
    _check_consistency(s)
    return s


def _check_consistency(s):
    data = s.deck_data
    n = s.players
    # Every card is in exactly one place; the Boar cards are the players' own.
    for b in s.boar:
        if data.cards[b]["kind"] != "boar" or s.boar.count(b) > 1:
            raise BadPosition("field 'boars': each player has a different Boar card")
    places = s.deck + [x for x in s.display if x >= 0]
    for h in s.hands:
        places += h
    if sorted(places) != sorted(data.others):
        raise BadPosition("the Diet and Vendetta cards must each be in exactly one place "
                          "(hands, display, deck)")
    # Every cube is somewhere: black cubes stay with their bag's owner.
    for c in range(5):
        total = sum(b[c] for b in s.bags) + s.front[c] + (s.supply[c] if c < N_FOOD else 0)
        want = s.cubes if c < N_FOOD else PER_COLOUR_IN_BAG * n
        if total != want:
            raise BadPosition("there must be %d %s cubes in bags, reserve and in front of "
                              "the active player; there are %d" % (want, COLOURS[c], total))
    for p in range(n):
        black = PER_COLOUR_IN_BAG - (s.front[BLACK] if p == s.active else 0)
        if s.bags[p][BLACK] != black:
            raise BadPosition("field 'bags': bag %d must hold %d black cubes" % (p, black))
    ph = s.phase
    if ph == PH_DRAW and (any(s.drawn) or any(s.front) or s.used or s.bought >= 0):
        raise BadPosition("before drawing, nothing is drawn, in front, used or bought")
    for c in range(5):
        if s.front[c] > s.drawn[c]:
            raise BadPosition("field 'front': more %s cubes in front than drawn" % COLOURS[c])
    if s.drawn[BLACK] >= SICK_AT and any(s.front):
        raise BadPosition("a sick boar has no cubes in front")
    if ph != PH_DRAW and ph != PH_OVER and not any(s.drawn) and s.min_draw:
        raise BadPosition("after drawing, at least %d cube is drawn (min_draw)" % s.min_draw)
    if s.bought >= 0 and s.bought not in s.hands[s.active] + s.deck:
        raise BadPosition("field 'bought': the card bought is the active player's or "
                          "was discarded")
    if ph == PH_DISCARD:
        if s.keep not in s.hands[s.active] or 1 + len(s.hands[s.active]) != HAND_LIMIT + 1:
            raise BadPosition("the discard phase needs six cards and the card kept")
        if s.then >= 0 and s.then != s.keep:
            raise BadPosition("field 'then' is the vendetta kept during the discard")
    else:
        if s.keep >= 0 or s.then >= 0:
            raise BadPosition("fields 'keep' and 'then' are set only in the discard phase")
        for h in s.hands:
            if 1 + len(h) > HAND_LIMIT:
                raise BadPosition("field 'hands': at most %d cards with the Boar card"
                                  % HAND_LIMIT)
    if ph == PH_OVER and s.end == "finish" and FINISH not in s.pos:
        raise BadPosition("a game ended at the finish has a boar on the Finish")
    if ph != PH_OVER and FINISH in s.pos:
        raise BadPosition("a boar on the Finish ends the game")
    if ph == PH_VENDETTA and not s._triggered():
        raise BadPosition("the vendetta phase needs a triggered vendetta")
    if ph == PH_MENU and s.drawn[BLACK] != PER_COLOUR_IN_BAG:
        raise BadPosition("the menu is changed only after drawing all 5 black cubes")
    if ph == PH_SPACE and len(s._space_options()) < 2:
        raise BadPosition("the space phase needs a choice to make")

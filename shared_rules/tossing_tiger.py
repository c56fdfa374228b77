"""Tossing Tiger, Rolling Dragon: the complete rules, the variants and the three expansions.

The rulebook is ../shared/rulebooks/tossing-tiger-rolling-dragon.md (with the facts listed
in FACTS.md); every choice it leaves open is a named option or constant here and an entry
in docs/rules-decisions.md. The notation is documented in docs/tossing-tiger-notation.md.
The cards (animals, counts, strength tables, Roosters) are data in
`shared_rules.tossing_tiger_data`.

How the table is modelled:
- A hand, a die (pile) and the draw pile are multisets of card names (sorted lists). A die
  is shuffled when it is rolled, so rolling draws its top card uniformly at random; the draw
  pile is shuffled, so drawing takes a random card. No hidden order exists anywhere: what
  a player may not see is only which cards lie in a place, never in which order.
- Every place that hides cards carries the set of players who know its content (`know`, a
  bit mask): a die is known to the player who made it, and to whoever looked at it (Monkey).
  `view(p)` replaces every place p does not know by its number of cards.
- Simultaneous decisions (both fighters making their dice, Simulwars) are sequential
  moves: one player acts at a time and nobody sees another's hidden choice.
- A war is a small state machine (`war["step"]`): build the dice, then for each battle the
  choices before the roll, the roll, the actions (attacker first), the result, the choices
  after it; then the spoils. Every choice a card offers is a move of the player who owns
  the card; everything else happens by itself.

The game is refereed by the host (CPython), but the source compiles with mpy-cross and
follows the same purity rules as the board's games.

The rules are in several files, each importing only those below it (none imports this one):
- `tossing_tiger` (this one): the game's interface: new_game(), TigerState with its shared
  methods, views, legal moves and play(), determinize(), from_json();
- `tossing_tiger_war`, `tossing_tiger_animals`, `tossing_tiger_expansions`: TigerState's
  mixins: the war machine, the animals' actions and battles, Fight Together and Dawndojo;
- `tossing_tiger_check`: every field of a state read from outside, checked;
- `tossing_tiger_options`, the lowest: the options, the deck and the constants all share;
- `tossing_tiger_data`: the cards (animals, counts, strength tables, Roosters).
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import secret_prng
from shared_rules import tossing_tiger_data as data
from shared_rules.errors import BadPosition, IllegalMove
from shared_rules.tossing_tiger_animals import Animals
from shared_rules.tossing_tiger_check import _need, check_cards, check_fields
from shared_rules.tossing_tiger_expansions import Expansions
# The options and shared constants, part of this module's interface too.
from shared_rules.tossing_tiger_options import (  # noqa: F401
    BUILD_HINT_PLAIN, COPYABLE, DEFAULT_MAX_TURNS, DISCARDS, EMPTY_DRAW, EVERYTHING,
    FT_MIN_PLAYERS, HAND_SIZE, LEFTOVERS, MAX_MIN_DICE, MAX_TURNS_LIMIT, MIN_PILE,
    MIN_PILE_TEAM, ON_PURPOSE_CHANGES, OPTIONS, PHASE_HINTS, PLAYER_COUNTS, READINGS,
    TEAM_LOW, TITLE, TWO_TIGERS, TYPE_PICK_RULES, WAR_PILE_END, WAR_STEPS, WAR_WINNERS,
    _bit, _check_options, _copy, _insert, _types_in, card_type, deck_of)
from shared_rules.tossing_tiger_war import WarMachine

NAME = "tossing-tiger"
HIDDEN_INFORMATION = True
# Seeds from 0 to SEED_MAX; every draw comes from shared_rules.secret_prng, whose draws
# do not give the seed away (docs/secrets.md).
SEED_MAX = secret_prng.SEED_MAX
FORMAT_VERSION = const(1)
DETERMINIZE_TRIES = const(200)


# ---------------------------------------------------------------- the state

def _canonical_json(dumps, v):
    # Keys sorted as CPython's sort_keys sorts them (by code point); every text in a state
    # is ASCII, which both runtimes write alike.
    if isinstance(v, dict):
        return "{" + ",".join(dumps(k) + ":" + _canonical_json(dumps, v[k])
                              for k in sorted(v)) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_canonical_json(dumps, x) for x in v) + "]"
    return dumps(v)


class TigerState(WarMachine, Animals, Expansions):
    """One game. Build it with new_game(), from_json() or determinize()."""

    def __init__(self, s, cache=None):
        # `s` is the whole state, JSON-ready (see docs/tossing-tiger-notation.md); its
        # PRNG state moves to `rng`, where every game keeps it, and to_json() puts it back.
        self.rng = s.pop("rng")
        self.s = s
        if cache is None:
            o = s["options"]
            cache = {
                "table": dict((a, tuple(v)) for a, v in data.strength_table(o["strengths"]).items()),
                "roosters": data.rooster_list(o["roosters"]),
                "deck": deck_of(o),
                "types": _types_in(o),
            }
        self._c = cache

    # ---- the interface shared by every game

    def to_act(self):
        """The player (0-based) who decides next, or None once the game is over."""
        return None if self.s["end"] else self.s["who"]

    def is_over(self):
        return bool(self.s["end"])

    def end_reason(self):
        """"" while playing; "cards" (a player ran low: the rulebook's end, or Fight
        Together's 2 cards or fewer), "warpile" (Fight Together's war pile reached 10),
        "dice" (Fight Together: no number of dice both teams can follow, a house rule) or
        "turns" (the house safeguard)."""
        return self.s["end"]

    def turn_count(self):
        """Wars completed."""
        return self.s["turn"]

    def options(self):
        """Every option spelled out, house defaults included."""
        return dict(self.s["options"])

    def scores(self):
        """Per player: the cards they own (hand, plus their dice on the table during a war);
        with Highscore, the sum of those cards' values (minus their strengths). With Fight
        Together, every player gets their team's total."""
        own = [0] * self.s["players"]
        for p in range(self.s["players"]):
            for c in self._owned(p):
                own[p] += self.card_value(c) if self.s["options"]["highscore"] else 1
        if not self.s["options"]["fight_together"]:
            return own
        teams = self.s["options"]["teams"]
        total = {"A": 0, "B": 0}
        for p in range(self.s["players"]):
            total[teams[p]] += own[p]
        return [total[teams[p]] for p in range(self.s["players"])]

    def winners(self):
        """Every winning player (a whole team with Fight Together); [] while playing or for
        a draw."""
        s = self.s
        if not s["end"]:
            return []
        n = s["players"]
        if s["options"]["fight_together"]:
            teams = s["options"]["teams"]
            if s["end"] == "cards":
                low = set(teams[p] for p in range(n) if len(s["hands"][p]) <= TEAM_LOW)
                if len(low) != 1:
                    return []
                win = "B" if "A" in low else "A"
            else:
                sc = self.scores()
                ta = [sc[p] for p in range(n) if teams[p] == "A"][0]
                tb = [sc[p] for p in range(n) if teams[p] == "B"][0]
                if ta == tb:
                    return []
                win = "A" if ta > tb else "B"
            return [p for p in range(n) if teams[p] == win]
        sc = self.scores()
        best = max(sc)
        return [sc.index(best)] if sc.count(best) == 1 else []

    def winner(self):
        """The winner, or None while playing or for a draw. With Fight Together, the
        lowest-numbered player of the winning team (winners() lists the whole team)."""
        w = self.winners()
        return w[0] if w else None

    def team_of(self, player):
        """"A" or "B" with Fight Together, else ""."""
        teams = self.s["options"]["teams"]
        return teams[player] if teams else ""

    def clone(self):
        s = _copy(self.s)
        s["rng"] = self.rng
        return TigerState(s, self._c)

    def to_json(self):
        """The whole state as canonical JSON (sorted keys, no spaces)."""
        import json
        d = dict(self.s)
        d["rng"] = self.rng
        try:
            return json.dumps(d, sort_keys=True, separators=(",", ":"))
        except TypeError:  # MicroPython's json has no sort_keys: the same text by hand
            return _canonical_json(json.dumps, d)

    def digest(self):
        import hashlib
        import binascii
        h = hashlib.sha256(self.to_json().encode()).digest()
        return binascii.hexlify(h[:8]).decode()

    def __eq__(self, other):
        return isinstance(other, TigerState) and self.to_json() == other.to_json()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        return "tossing_tiger.from_json(%r)" % self.to_json()

    # ---- public accessors for renderers and tests

    def hand(self, player):
        """A player's hand as {card: count} (full information: use view() for a player)."""
        out = {}
        for c in self.s["hands"][player]:
            out[c] = out.get(c, 0) + 1
        return out

    def phase(self):
        """The kind of decision awaited (a key of PHASE_HINTS), "over" at the end."""
        return "over" if self.s["end"] else self.s["phase"]

    def war(self):
        """The war in progress (a dict, see the notation document) or None."""
        return self.s["war"]

    def strength_table(self):
        """{animal: (types it is strong against)} of this game's print."""
        return dict(self._c["table"])

    def rooster_cards(self):
        """{rooster card: (Dawn rule, Rooster Change)} of this game's print ({} without
        Dawndojo)."""
        if not self.s["options"]["dawndojo"]:
            return {}
        return dict(("rooster%d" % (i + 1), r) for i, r in enumerate(self._c["roosters"]))

    def card_value(self, card):
        """Highscore value of a card: minus the number of its printed strengths."""
        return -len(self._c["table"].get(card_type(card), ()))

    def last_war(self):
        """The war fought last (a dict like war(), its dice empty), or None."""
        return self.s["last"]

    def battle_result(self, battle):
        """Who won battle `battle` (1-based) of the war in progress, or of the war fought
        last between wars: a set of sides (0: the attacker, 1: the defender); None before
        it is fought."""
        w = self.s["war"] or self.s["last"]
        bt = w["b"][battle - 1]
        if bt["done"] != 2:
            return None
        return set(sd for sd in (0, 1) if bt["res"] & _bit(sd))

    # ---- views

    def view(self, player=None):
        """What `player` (None: a spectator) may know, as a JSON-ready dict: the state with
        every place the viewer does not know replaced by its number of cards, no PRNG, and
        an "info" section for renderers (whose decision, what kind, hand sizes, the print)."""
        s = self.s
        d = _copy(s)  # without the PRNG state, kept apart in self.rng
        vb = _bit(player) if player is not None else 0
        for q in range(s["players"]):
            if q != player:
                d["hands"][q] = len(s["hands"][q])
        d["draw"] = len(s["draw"])
        w = d["war"]
        if w is not None:
            for bt in w["b"]:
                for side in bt["s"]:
                    if not side["know"] & vb:
                        side["pile"] = len(side["pile"])
            b = w["build"]
            if b is not None and b["p"] != player:
                b["pool"] = len(b["pool"])
                b["cur"] = len(b["cur"])
            for lots in w["loot"]:
                for lot in lots:
                    if not lot["know"] & vb:
                        lot["cards"] = len(lot["cards"])
        d["viewer"] = player
        d["info"] = self._info(player)
        return d

    def _info(self, player):
        # Derived, renderer-friendly facts; all public, or the viewer's own.
        s = self.s
        w = s["war"]
        vb = _bit(player) if player is not None else 0
        war = None
        battles = []
        if w is not None:
            war = {"attacker": w["sides"][0], "defender": w["sides"][1], "dice": w["n"],
                   "battle": w["k"] + 1 if w["k"] < w["n"] else 0, "dawn": w["dawn"],
                   "rule": w["rule"], "change": w["change"], "pick": w["pick"],
                   "talk": [sd for sd in (0, 1) if w["talk"] & _bit(sd)],
                   "captains": list(w["caps"])}
            for bt in w["b"]:
                row = {"fought": bt["done"] == 2, "gone": bool(bt["gone"]),
                       "winner": (None if bt["done"] != 2 else
                                  ("none", "a", "d", "both")[bt["res"]])}
                for sd in (0, 1):
                    side = bt["s"][sd]
                    row["ad"[sd]] = {"face": side["face"] or None, "cards": len(side["pile"]),
                                     "owner": side["own"], "known": bool(side["know"] & vb),
                                     "empty": bool(side["void"]), "dawn": bool(side["dawn"])}
                battles.append(row)
        dec = None
        if not s["end"]:
            dec = {"kind": s["phase"], "player": s["who"], "hint": self._hint(s["phase"]),
                   "battle": (w["k"] + 1) if w is not None and w["k"] < w["n"]
                   and w["step"] != "build" else 0}
        return {
            "to_act": self.to_act(),
            "decision": dec,
            "hand": self.hand(player) if player is not None else None,
            "war": war,
            "battles": battles,
            "hand_sizes": [len(h) for h in s["hands"]],
            "teams": s["options"]["teams"],
            "strengths": dict((a, list(v)) for a, v in sorted(self._c["table"].items())
                              if a in self._c["types"]),
            "roosters": dict((k, list(v)) for k, v in self.rooster_cards().items()),
            "end": s["end"],
            "winners": self.winners(),
        }

    # ---- helpers on the table

    def _opts(self):
        return self.s["options"]

    def _ft(self):
        return self.s["options"]["fight_together"]

    def _all_mask(self):
        return (1 << self.s["players"]) - 1

    def _team_members(self, letter):
        teams = self.s["options"]["teams"]
        return [p for p in range(self.s["players"]) if teams[p] == letter]

    def _side_mask(self, sd):
        # The players on side sd of the war in progress.
        w = self.s["war"]
        if self._ft():
            return sum(_bit(p) for p in self._team_members("AB"[w["sides"][sd]]))
        return _bit(w["sides"][sd])

    def _owned(self, p):
        s = self.s
        out = list(s["hands"][p])
        w = s["war"]
        if w is not None:
            for bt in w["b"]:
                for side in bt["s"]:
                    if side["own"] == p:
                        out += side["pile"]
                        if side["face"]:
                            out.append(side["face"])
            b = w["build"]
            if b is not None and b["p"] == p:
                out += b["pool"] + b["cur"]
        return out

    def _draw_card(self):
        # A random card of the draw pile ("" if none); an empty draw pile is refilled from
        # the discard pile when the empty_draw option says so.
        s = self.s
        if not s["draw"] and s["options"]["empty_draw"] == "reshuffle" and s["discard"]:
            s["draw"] = s["discard"]
            s["discard"] = []
        if not s["draw"]:
            return ""
        i, self.rng = secret_prng.below(self.rng, len(s["draw"]))
        return s["draw"].pop(i)

    def _can_draw(self):
        s = self.s
        return bool(s["draw"]) or (s["options"]["empty_draw"] == "reshuffle" and bool(s["discard"]))

    def _discard(self, card):
        s = self.s
        _insert(s["draw"] if s["options"]["discards"] == "draw" else s["discard"], card)

    # ---------------------------------------------------------------- the flow

    def _advance(self):
        # Run everything that happens by itself until a player must decide or the game ends.
        guard = 0
        while not self.s["end"]:
            guard += 1
            if guard > 100000:
                raise AssertionError("the game's flow does not settle")
            w = self.s["war"]
            if w is None:
                if self._start_turn():
                    return
                continue
            step = w["step"]
            if _STEPS[step](self, w):
                return

    def _decide(self, phase, who):
        self.s["phase"] = phase
        self.s["who"] = who
        return True

    # ---------------------------------------------------------------- legal moves

    def legal_moves(self):
        """Every move the player to act may play now, sorted; [] once the game is over."""
        s = self.s
        if s["end"]:
            return []
        ph = s["phase"]
        w = s["war"]
        if ph == "fight":
            if self._ft():
                return sorted("fight %d" % n for n in self._team_numbers())
            me = s["who"]
            out = []
            rivals = self._unpaired() if self._opts()["simulwars"] else range(s["players"])
            for p in rivals:
                if p != me:
                    for n in self._fight_numbers(me, p):
                        out.append("fight %d %d" % (p, n))
            return sorted(out)
        if ph == "build":
            return self._build_moves()
        k = w["k"]
        i = w["i"]
        if ph == "pick":
            moves = ["pick " + t for t in self._c["types"]]
            return sorted(moves + (["pass"] if w["step"] == "act" else []))
        if ph == "merge":
            return sorted(["merge %d" % (j + 1) for j in self._merge_targets()] + ["pass"])
        if ph == "guess":
            return sorted(["guess " + t for t in self._c["types"]] + ["pass"])
        if ph == "flee":
            return ["flee", "pass"]
        if ph == "copy":
            return ["copy " + a for a in self._copy_options(k)]
        if ph == "reroll":
            return sorted(["reroll %d" % (j + 1) for j in self._reroll_targets(k, i, k)]
                          + ["pass"])
        if ph == "free":
            upto = k if w["step"] == "post" else w["n"] - 1
            return sorted(["reroll %d" % (j + 1) for j in self._reroll_targets(upto, i - 1, upto)]
                          + ["pass"])
        if ph == "look":
            return sorted(["look %d" % (j + 1) for j in self._look_targets(k)] + ["pass"])
        if ph == "swap":
            pos = self._swap_positions(i, w["b"][k]["s"][i]["own"])
            return sorted(["swap %d %d" % (a + 1, b + 1) for a in pos for b in pos if a < b]
                          + ["pass"])
        if ph == "destroy":
            return sorted(["destroy %d%s" % (j + 1, "ad"[sd]) for j, sd in self._face_targets(k)]
                          + ["pass"])
        if ph == "draw":
            moves = ["draw %d%s" % (j + 1, "ad"[sd]) for j, sd in self._face_targets(k)]
            if self._can_draw():
                moves.append("draw deck")
            return sorted(moves + ["pass"])
        if ph == "rooster":
            return sorted(self._rooster_moves(k, i) + ["pass"])
        if ph == "take":
            return sorted(self._take_moves(k, i, w["b"][k]["s"][i]["own"]) + ["pass"])
        if ph == "switch":
            return sorted(self._switch_moves(i - 3) + ["pass"])
        if ph == "claim":
            return sorted("claim %d" % (j + 1) for j in self._claim_targets(i))
        if ph == "keep":
            cards = set()
            for lot in w["loot"][i]:
                cards.update(lot["cards"])
            moves = []
            if self._ft():
                members = self._team_members("AB"[w["sides"][i]])
                for c in cards:
                    for p in members:
                        moves.append("keep %s %d" % (c, p))
            else:
                moves = ["keep " + c for c in cards]
            moves += ["discard " + c for c in cards]
            return sorted(moves)
        if ph == "tribute":
            return sorted("tribute " + c for c in set(s["hands"][s["who"]]))
        return []

    # ---------------------------------------------------------------- playing a move

    def play(self, move):
        """Apply one move in notation; IllegalMove (state unchanged) if it cannot be played."""
        if self.s["end"]:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, str):
            raise IllegalMove(move, "a move is a notation string such as 'fight 1 3'")
        legal = self.legal_moves()
        if move not in legal:
            raise IllegalMove(move, self._explain(move, legal))
        words = move.split(" ")
        _APPLY[self.s["phase"]](self, words)
        self._advance()

    def _hint(self, ph):
        # What the decision `ph` asks for, in words; a Dawn card only where there are any.
        if ph == "build" and not self._opts()["dawndojo"]:
            return BUILD_HINT_PLAIN
        return PHASE_HINTS[ph]

    def _explain(self, move, legal):
        s = self.s
        ph = s["phase"]
        words = move.split(" ")
        verb = words[0]
        if verb not in _VERBS:
            return "unknown move word %r; moves start with one of: %s" % (
                verb, ", ".join(sorted(_VERBS)))
        if ph == "build" and verb in ("add", "next", "dawn"):
            b = s["war"]["build"]
            if verb == "add" and len(words) == 2:
                if words[1] not in b["pool"]:
                    return "player %d has no %s left to put in a die" % (s["who"], words[1])
                return "a %s more in this die would leave too few cards for the other " \
                       "dice" % words[1]
            if verb == "next" and len(words) == 1:
                return "a die needs at least %d cards, and the cards left must make the " \
                       "other dice" % b["m"]
            if verb == "dawn" and not self._opts()["dawndojo"]:
                return "this game has no Dawn cards: they come with the Dawndojo " \
                       "expansion (option dawndojo), which is off"
            if verb == "dawn":
                return "a Dawn card is played first, by the attacker, with a Rooster in " \
                       "hand, when the other dice can still be made"
            return "'add' takes one card name, 'next' nothing"
        kinds = sorted(set(m.split(" ")[0] for m in legal))
        if verb not in kinds:
            return "player %d must now %s" % (s["who"], self._hint(ph))
        if ph == "fight" and verb == "fight":
            size = 2 if self._ft() else 3
            if len(words) != size or not all(w.isdigit() for w in words[1:]):
                return "'fight' takes %s: %s" % (
                    "a number of dice" if self._ft() else "a player and a number of dice",
                    legal[0])
            return "both fighters must be able to make that many dice of at least %d cards " \
                   "from their hands (choose among: %s)" % (
                       self._pile_min(), ", ".join(legal[:12]))
        return "not possible now (%s); possible: %s" % (
            self._hint(ph), ", ".join(legal[:12]) + (" ..." if len(legal) > 12 else ""))


# One method per step of a war (WAR_STEPS): _step_<name>, from the mixins.
_STEPS = dict((name, getattr(TigerState, "_step_" + name)) for name in WAR_STEPS)

_APPLY = {
    "fight": TigerState._do_fight,
    "build": TigerState._do_build,
    "pick": TigerState._do_pick,
    "merge": TigerState._do_merge,
    "guess": TigerState._do_guess,
    "flee": TigerState._do_flee,
    "copy": TigerState._do_copy,
    "reroll": TigerState._do_reroll,
    "free": TigerState._do_free,
    "look": TigerState._do_look,
    "swap": TigerState._do_swap,
    "destroy": TigerState._do_destroy,
    "draw": TigerState._do_draw,
    "rooster": TigerState._do_rooster,
    "take": TigerState._do_take,
    "switch": TigerState._do_switch,
    "claim": TigerState._do_claim,
    "keep": TigerState._do_keep,
    "tribute": TigerState._do_tribute,
}

_VERBS = ("fight", "add", "next", "dawn", "pick", "merge", "guess", "flee", "copy", "reroll",
          "look", "swap", "destroy", "draw", "stop", "remove", "give", "concede", "retreat",
          "rebuild", "steal", "bonus", "take", "switch", "claim", "keep", "discard", "tribute",
          "pass")


# ---------------------------------------------------------------- building states

def new_game(players=2, seed=0, **options):
    """A new game: every player is dealt 6 random cards, the rest is the draw pile.

    Options: see OPTIONS (variants, expansions, the strength table and Roosters by name or
    text, and the house defaults)."""
    opts = _check_options(players, options)
    try:
        x = secret_prng.seed_state(seed)
    except ValueError as exc:
        raise BadPosition(str(exc))
    s = {
        "game": NAME, "format": FORMAT_VERSION, "players": players, "options": opts,
        "rng": x, "hands": [[] for _ in range(players)], "draw": deck_of(opts),
        "discard": [], "destroyed": [], "warpile": [],
        "turn": 0, "active": 0, "round": 0, "pairs": [], "pi": 0,
        "war": None, "last": None, "phase": "fight", "who": 0, "end": "",
    }
    state = TigerState(s)
    for p in range(players):
        for _ in range(HAND_SIZE):
            _insert(s["hands"][p], state._draw_card())
    state._advance()
    return state


def from_hands(hands, seed=0, **options):
    """A game at the start of its first war with the hands given (lists of card names, one
    per player; player 0 to act); the rest of the box is the draw pile. For teaching,
    puzzles and tests."""
    if not isinstance(hands, (list, tuple)):
        raise BadPosition("hands must be a list with one list of card names per player")
    state = new_game(len(hands), seed, **options)
    s = state.s
    rest = list(state._c["deck"])
    s["hands"] = []
    for p, h in enumerate(hands):
        if not isinstance(h, (list, tuple)):
            raise BadPosition("hand %d must be a list of card names" % p)
        for c in h:
            if c not in rest:
                raise BadPosition("hand %d: no %r card is left in the box" % (p, c))
            rest.remove(c)
        if len(h) < (3 if s["options"]["fight_together"] else 2):
            raise BadPosition("hand %d is too small to wage war" % p)
        s["hands"].append(sorted(h))
    s["draw"] = rest
    state._advance()
    return state


def _parse(text):
    if isinstance(text, dict):
        return text
    import json
    try:
        d = json.loads(text)
    except (ValueError, TypeError) as exc:
        raise BadPosition("not JSON text: %s" % (exc,))
    return d


# Moves that name a card nobody else may see: the card goes face down into a die or a
# hand. Others learn only that a card went there.
_SECRET_CARD_MOVES = ("add", "take", "keep", "tribute")


def public_move(state, move, viewer):
    """What `viewer` learns of a move by the player to act in `state` (the state before
    the move): the move, with the card hidden when it goes face down ("add a card",
    "keep a card", "take 2 a card")."""
    words = move.split(" ")
    if words[0] not in _SECRET_CARD_MOVES or viewer == state.to_act():
        return move
    if words[0] == "take" and len(words) == 3:
        return "take %s a card" % words[1]
    if words[0] == "keep" and len(words) == 3:
        return "keep a card for P%s" % words[2]
    return "%s a card" % words[0]


def determinize(view, seed):
    """A full state that `view` (from state.view(p)) allows: every place the viewer does not
    know is dealt at random, from seed, out of the cards the viewer cannot account for; the
    PRNG is reseeded from seed."""
    if not isinstance(view, dict):
        raise BadPosition("a view is a dict from state.view()")
    d = _copy(view)
    d.pop("viewer", None)
    d.pop("info", None)
    opts = d.get("options")
    if not isinstance(opts, dict) or not isinstance(d.get("players"), int):
        raise BadPosition("the view has no valid options or players")
    deck = deck_of(_check_options(d["players"], opts))
    try:
        x = secret_prng.seed_state(seed)
    except ValueError as exc:
        raise BadPosition(str(exc))
    slots = []  # (container, key) of each hidden place, in a fixed order

    def visit(container, key):
        v = container[key]
        if isinstance(v, int) and not isinstance(v, bool):
            slots.append((container, key))
        elif isinstance(v, list):
            for c in v:
                if c in unknown:
                    unknown.remove(c)
                else:
                    raise BadPosition("the view shows more %r cards than the box holds" % (c,))
        else:
            raise BadPosition("a place of cards must be a list or a count, not %r" % (v,))

    unknown = list(deck)
    try:
        for p in range(d["players"]):
            visit(d["hands"], p)
        visit(d, "draw")
        for key in ("discard", "destroyed", "warpile"):
            visit(d, key)
        w = d["war"]
        if w is not None:
            for bt in w["b"]:
                for side in bt["s"]:
                    visit(side, "pile")
                    if side["face"]:
                        if side["face"] in unknown:
                            unknown.remove(side["face"])
                        else:
                            raise BadPosition("the view shows more %r cards than the box "
                                              "holds" % side["face"])
            if w["build"] is not None:
                visit(w["build"], "pool")
                visit(w["build"], "cur")
            for lots in w["loot"]:
                for lot in lots:
                    visit(lot, "cards")
    except (KeyError, TypeError, IndexError) as exc:
        raise BadPosition("the view is incomplete: %r" % (exc,))
    sizes = [c[k] for c, k in slots]
    if sum(sizes) != len(unknown):
        raise BadPosition("the hidden places hold %d cards, the viewer cannot account for %d"
                          % (sum(sizes), len(unknown)))
    # Deal the unknown cards at random. A deal must also leave the player to act a legal
    # move: an announcement may have told the table more than the view shows (a number of
    # dice only a Rooster in hand makes possible), so deals that contradict it are drawn
    # again (rejection sampling, at most DETERMINIZE_TRIES deals).
    for _attempt in range(DETERMINIZE_TRIES):
        pool = list(unknown)
        for (container, key), size in zip(slots, sizes):
            got = []
            for _ in range(size):
                i, x = secret_prng.below(x, len(pool))
                got.append(pool.pop(i))
            container[key] = sorted(got)
        d["rng"] = x
        state = _from_dict(d)
        if state.s["end"] or state.legal_moves():
            return state
    raise BadPosition("no deal of the hidden cards leaves the player to act a legal move")


# ---------------------------------------------------------------- reading a state

def from_json(text):
    """Rebuild a state from to_json() text (or that text parsed), checking every field."""
    state = _from_dict(_parse(text))
    if not state.s["end"] and not state.legal_moves():
        raise BadPosition("the state leaves the player to act without a legal move")
    return state



def _from_dict(d):
    _need(isinstance(d, dict), "a %s state is a JSON object" % TITLE)
    _need(d.get("game") == NAME and d.get("format") == FORMAT_VERSION,
          "not a %s state of format %d (game=%r, format=%r)"
          % (TITLE, FORMAT_VERSION, d.get("game"), d.get("format")))
    s = check_fields(d)
    state = TigerState(s)
    b = s["war"]["build"] if s["war"] is not None else None
    if b is not None and b["lo"] > b["hi"]:
        _need(state._dawn_cards(), "build.lo must not exceed build.hi (unless a Dawn card "
              "makes the dice possible)")
    check_cards(s)
    if not s["end"]:
        try:
            state.legal_moves()
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise BadPosition("the state is inconsistent: %r" % (exc,))
    return state

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
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import secret_prng
from shared_rules import tossing_tiger_data as data
from shared_rules.errors import BadPosition, IllegalMove

NAME = "tossing-tiger"
TITLE = "Tossing Tiger, Rolling Dragon"
PLAYER_COUNTS = (2, 3, 4, 5, 6)
HIDDEN_INFORMATION = True
# Seeds from 0 to SEED_MAX; every draw comes from shared_rules.secret_prng, whose draws
# do not give the seed away (docs/secrets.md).
SEED_MAX = secret_prng.SEED_MAX
FORMAT_VERSION = const(1)

HAND_SIZE = const(6)  # "Deal all players a random deck of 6 cards."
MAX_MIN_DICE = HAND_SIZE // 2  # min_dice: a dealt hand makes at most this many dice of 2
MIN_PILE = const(2)  # "Every pile must have at least 2 cards"
MIN_PILE_TEAM = const(3)  # Fight Together: "Every die must contain at least 3 cards"
WAR_PILE_END = const(10)  # Fight Together: the game ends when the war pile has 10 cards
FT_MIN_PLAYERS = const(4)  # Fight Together: two teams of 2 at least (see rules decisions)
TEAM_LOW = const(2)  # Fight Together: a player with 2 cards or fewer ends the game
DEFAULT_MAX_TURNS = const(300)  # house safeguard: wars in a game at most
MAX_TURNS_LIMIT = const(100000)
DETERMINIZE_TRIES = const(200)

READINGS = ("rulebook", "published")
TWO_TIGERS = ("toss-both", "attacker", "nobody")
DISCARDS = ("pile", "draw")
EMPTY_DRAW = ("reshuffle", "nothing")
LEFTOVERS = ("owner", "discard")
WAR_WINNERS = ("majority", "more")

OPTIONS = (
    ("highscore", False, "bool",
     "Highscore variant: each card in hand is worth minus its number of strengths"),
    ("simulwars", False, "bool",
     "Simulwars variant: everyone is paired each round; with an odd count the round's "
     "start player sits out"),
    ("more_animals", False, "bool", "More Animals! expansion: eight more animals"),
    ("fight_together", False, "bool",
     "Fight Together expansion: two teams, every player in every war (4 to 6 players)"),
    ("dawndojo", False, "bool", "Dawndojo expansion: Rooster cards with Dawn rules"),
    ("strengths", "house-1", "str",
     "strength table: house-1, print-<n> (generated like a new print) or a table as text"),
    ("roosters", "house-1", "str",
     "Dawndojo Roosters: house-1, print-<n> or a list as text"),
    ("battle_reading", "rulebook", READINGS,
     "who wins a battle: the rulebook's reading (both strong: nobody; neither: both) or "
     "the published one (both strong: both; neither: nobody)"),
    ("war_winner", "majority", WAR_WINNERS,
     "who wins the war (the whole-pile bonus): the majority of the battles fought, as the "
     "rulebook says, or more battles than the opponent"),
    ("min_dice", 1, "int",
     "house option: a war (one against one) has at least this many dice, or as many as "
     "the hands can follow (1: any number, as the rulebook says; 2 stops a first war that "
     "bets a whole hand on one battle)"),
    ("two_tigers", "toss-both", TWO_TIGERS,
     "two Tigers in one battle: both toss (a disagreement: nobody wins), only the "
     "attacker's tosses, or nobody wins"),
    ("discards", "pile", DISCARDS,
     "where discarded cards go: a face-up discard pile, or shuffled into the draw pile"),
    ("empty_draw", "reshuffle", EMPTY_DRAW,
     "drawing from an empty draw pile: reshuffle the discard pile into it, or draw nothing"),
    ("leftovers", "owner", LEFTOVERS,
     "cards left in dice after a war go back to their owner's hand, or are discarded"),
    ("teams", "", "str",
     "Fight Together teams, one letter A or B per player (default alternating ABAB...)"),
    ("max_turns", DEFAULT_MAX_TURNS, "int", "house safeguard: the game ends after this many wars"),
)
_DEFAULTS = dict((o[0], o[1]) for o in OPTIONS)

# The actions a Chameleon can copy (every animal with an action, but the Chameleon).
COPYABLE = ("tiger", "dragon", "monkey", "panda", "turtle", "leopard", "snake", "peacock",
            "bull", "redpanda", "horse", "unicorn", "frog")
# Rooster Changes that lose the battle on purpose: decided at the reveal, before any action.
ON_PURPOSE_CHANGES = ("rooster_concede", "rooster_change")
TYPE_PICK_RULES = ("strong_type", "weak_type", "superhero_type", "superweak_type")
EVERYTHING = "*"  # a strength set marker: strong against every card

PHASE_HINTS = {
    "fight": "wage war: 'fight <player> <dice>'",
    "build": "make your dice: 'add <card>', 'next' (or 'dawn <rooster>')",
    "pick": "pick a card type: 'pick <type>'",
    "merge": "'merge <battle>' or 'pass'",
    "guess": "'guess <type>' or 'pass'",
    "flee": "'flee' or 'pass'",
    "copy": "'copy <animal>'",
    "reroll": "the Dragon: 'reroll <battle>' or 'pass'",
    "look": "the Monkey: 'look <battle>' or 'pass'",
    "swap": "the Leopard: 'swap <battle> <battle>' or 'pass'",
    "destroy": "the Bull: 'destroy <battle><a|d>' or 'pass'",
    "draw": "the Red Panda: 'draw deck', 'draw <battle><a|d>' or 'pass'",
    "rooster": "the Rooster Change's choice, or 'pass'",
    "take": "'take <battle> <card>' or 'pass'",
    "free": "a free reroll: 'reroll <battle>' or 'pass'",
    "switch": "'switch <won battle> <other battle>' or 'pass'",
    "claim": "'claim <battle>': the whole die you take",
    "keep": "'keep <card>' or 'discard <card>'",
    "tribute": "'tribute <card>': a card for the war pile",
    "over": "stop: the game is over",
}
# The build's hint in a game without Dawndojo: no Dawn card is ever a move there.
BUILD_HINT_PLAIN = "make your dice: 'add <card>', 'next'"


def card_type(card):
    """The type of a card name: every Rooster card (rooster1, rooster2...) is a "rooster"."""
    return data.ROOSTER if card.startswith(data.ROOSTER) else card


def _bit(p):
    return 1 << p


def _insert(lst, card):
    # Insert into a sorted list of names, keeping it sorted (no bisect on the board).
    i = len(lst)
    while i > 0 and lst[i - 1] > card:
        i -= 1
    lst.insert(i, card)


def _remove(lst, card):
    lst.remove(card)


def _sorted_unique(items):
    return sorted(set(items))


def _copy(x):
    # Deep copy of JSON-like data (dicts, lists, ints, strs, None).
    if isinstance(x, list):
        return [_copy(v) for v in x]
    if isinstance(x, dict):
        return dict((k, _copy(v)) for k, v in x.items())
    return x


# ---------------------------------------------------------------- options and the deck

def _check_options(players, opts):
    if not isinstance(players, int) or isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise BadPosition("%s is played by 2 to 6 players, not %r" % (TITLE, players))
    for name in opts:
        if name not in _DEFAULTS:
            raise BadPosition("%s has no option %r (its options: %s)"
                              % (TITLE, name, ", ".join(o[0] for o in OPTIONS)))
    out = {}
    for name, default, kind, _help in OPTIONS:
        v = opts.get(name, default)
        if kind == "bool":
            if v is not True and v is not False:
                raise BadPosition("option %s must be true or false, not %r" % (name, v))
        elif kind == "int":
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_TURNS_LIMIT:
                raise BadPosition("option %s must be a whole number from 1 to %d, not %r"
                                  % (name, MAX_TURNS_LIMIT, v))
        elif kind == "str":
            if not isinstance(v, str):
                raise BadPosition("option %s must be a text, not %r" % (name, v))
        elif v not in kind:
            raise BadPosition("option %s must be one of %s, not %r" % (name, ", ".join(kind), v))
        out[name] = v
    if out["min_dice"] > MAX_MIN_DICE:
        raise BadPosition("option min_dice must be from 1 to %d (a hand of %d cards makes at "
                          "most %d dice), not %r" % (MAX_MIN_DICE, HAND_SIZE, MAX_MIN_DICE,
                                                     out["min_dice"]))
    try:
        data.strength_table(out["strengths"])
        data.rooster_list(out["roosters"])
    except ValueError as exc:
        raise BadPosition(str(exc))
    if out["fight_together"]:
        if out["simulwars"]:
            raise BadPosition("Fight Together puts every player in every war: it cannot be "
                              "played with Simulwars")
        if players < FT_MIN_PLAYERS:
            raise BadPosition("Fight Together needs 4 to 6 players: a team of 2 must announce "
                              "3 dice or more, of 3 cards or more, and a lone player's 6 "
                              "cards cannot follow that")
        teams = out["teams"] or "AB" * 3
        teams = teams[:players] if not out["teams"] else teams
        if len(teams) != players or any(c not in "AB" for c in teams):
            raise BadPosition("teams must give one letter A or B per player (%d), not %r"
                              % (players, out["teams"]))
        a = teams.count("A")
        if abs(a - (players - a)) > 1:
            raise BadPosition("teams %r: the two teams must be as even as possible" % teams)
        out["teams"] = teams
    elif out["teams"]:
        raise BadPosition("teams are only for the Fight Together expansion")
    return out


def deck_of(opts):
    """Every card of the box the options put in play, as a sorted list of names."""
    cards = []
    for a in data.BASE_ANIMALS:
        cards += [a] * data.BASE_COPIES
    if opts["more_animals"]:
        for a in data.ZOO_ANIMALS:
            cards += [a] * data.ZOO_COPIES
    if opts["fight_together"]:
        cards += [data.BIRD] * data.BIRD_COPIES
    if opts["dawndojo"]:
        for i in range(len(data.rooster_list(opts["roosters"]))):
            cards.append("rooster%d" % (i + 1))
    return sorted(cards)


def _types_in(opts):
    types = list(data.BASE_ANIMALS)
    if opts["more_animals"]:
        types += list(data.ZOO_ANIMALS)
    if opts["fight_together"]:
        types.append(data.BIRD)
    if opts["dawndojo"]:
        types.append(data.ROOSTER)
    return sorted(types)


def _new_side():
    # One side of a battle: a die (pile) and its revealed top card (face).
    return {"pile": [], "face": "", "shown": "", "own": -1, "know": 0, "set": 0, "void": 0,
            "dawn": 0, "toss": 0, "act": "", "off": 0}


def _new_battle():
    return {"s": [_new_side(), _new_side()], "done": 0, "gone": 0, "res": 0, "pea": 0,
            "con": 0, "guess": "", "guesser": -1, "cnt": [-1, -1]}


# ---------------------------------------------------------------- the state

class TigerState:
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
        return json.dumps(d, sort_keys=True, separators=(",", ":"))

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

    # ---- turns and pairing

    def _start_turn(self):
        s = self.s
        if self._ft():
            team = s["turn"] % 2
            if not self._team_numbers():
                # House rule: no number of dice both teams can follow: the game ends.
                s["end"] = "dice"
                s["phase"] = "over"
                s["who"] = -1
                return True
            return self._decide("fight", self._captain(team))
        if s["options"]["simulwars"]:
            if len(self._unpaired()) >= 2:
                return self._decide("fight", self._unpaired()[0])
            a, d, n = s["pairs"][s["pi"]]
            self._start_war(a, d, n)
            return False
        return self._decide("fight", s["active"])

    def _captain(self, team):
        # Fight Together: each team's captain this war (the player who speaks for the team
        # where one decision is needed), rotating through the team's members.
        members = self._team_members("AB"[team])
        return members[(self.s["turn"] // 2) % len(members)]

    def _sitter(self):
        # Simulwars: with an odd player count the round's start player sits out.
        s = self.s
        return s["active"] if s["players"] % 2 else -1

    def _unpaired(self):
        s = self.s
        taken = set()
        for a, d, _n in s["pairs"]:
            taken.add(a)
            taken.add(d)
        out = []
        for i in range(s["players"]):
            p = (s["active"] + i) % s["players"]
            if p not in taken and p != self._sitter():
                out.append(p)
        return out

    # ---- feasibility of dice

    def _pile_min(self):
        return MIN_PILE_TEAM if self._ft() else MIN_PILE

    def _team_caps(self, team, captain_dawn=False):
        # Fight Together: (members, most dice each member can make) for a team.
        members = self._team_members("AB"[team])
        cap = self._captain(team)
        caps = []
        for p in members:
            h = len(self.s["hands"][p]) - (1 if captain_dawn and p == cap else 0)
            caps.append(h // MIN_PILE_TEAM)
        return members, caps

    def _dawn_ok(self, rule, n, rest, others, defenders):
        # Can both sides make their dice when the attacker plays a Dawn card with `rule` in
        # the first place of n? rest: the attacker's (captain's) other cards; others: the
        # hand sizes of the attacker's teammates; defenders: the defenders' hand sizes.
        m = self._pile_min()
        if n < 2:
            return False
        dn = n - 1 if rule == "one_less" else n
        if self._ft():
            caps = [rest // m] + [h // m for h in others]
            dcaps = [h // m for h in defenders]
            return (min(caps) >= 1 and len(caps) <= n - 1 <= sum(caps)
                    and len(dcaps) <= dn <= sum(dcaps))
        return m * (n - 1) <= rest and dn >= 1 and m * dn <= defenders[0]

    def _dawn_rules_in(self, cards):
        return [self._c["roosters"][int(c[7:]) - 1][0] for c in _sorted_unique(cards)
                if c.startswith(data.ROOSTER)]

    def _fight_numbers(self, a, d):
        # The numbers of dice the attacker may announce against d (base game, Simulwars):
        # the defender can make that many dice of 2 cards or more from their whole hand,
        # and so can the attacker, or the attacker can with a Dawn card in the first place.
        hands = self.s["hands"]
        ha = len(hands[a])
        hd = len(hands[d])
        rules = self._dawn_rules_in(hands[a]) if self._opts()["dawndojo"] else []
        out = []
        n = 1
        while 2 * n <= hd:
            if 2 * n <= ha or [r for r in rules if self._dawn_ok(r, n, ha - 1, [], [hd])]:
                out.append(n)
            n += 1
        # min_dice: at least that many dice, or as many as the hands can follow.
        least = min(self._opts()["min_dice"], out[-1]) if out else 0
        return [n for n in out if n >= least]

    def _team_numbers(self):
        # Fight Together: the numbers the attacking team's captain may announce.
        s = self.s
        att = s["turn"] % 2
        ma, ca = self._team_caps(att)
        md, cd = self._team_caps(1 - att)
        cap = self._captain(att)
        rules = self._dawn_rules_in(s["hands"][cap]) if self._opts()["dawndojo"] else []
        rest = len(s["hands"][cap]) - 1
        others = [len(s["hands"][p]) for p in ma if p != cap]
        defenders = [len(s["hands"][p]) for p in md]
        out = []
        for n in range(len(ma), sum(cd) + 1):
            if n < len(md):
                continue
            ok = n <= sum(ca)
            if not ok:
                ok = bool([r for r in rules if self._dawn_ok(r, n, rest, others, defenders)])
            if ok:
                out.append(n)
        # "This number must be greater than the number of players on their team" -- unless
        # no such number can be followed: then (house rule) the team's size will do.
        strict = [n for n in out if n > len(ma)]
        return strict or out[:1]

    # ---- starting a war

    def _start_war(self, a, d, n):
        s = self.s
        ft = self._ft()
        w = {
            "sides": [a, d], "n": n, "caps": [a, d],
            "dawn": "", "rule": "", "change": "", "pick": "", "needpick": 0,
            "b": [_new_battle() for _ in range(n)],
            "k": 0, "step": "build", "i": 0, "ret": "",
            "queue": [], "build": None,
            "extra": [], "minus": [], "bonus": 1, "nobonus": 0, "nowinner": 0,
            "overall": 0, "stopped": 0, "free": [0, 0], "guess": 0, "merge": 0,
            "talk": 0, "takes": 0, "loot": [[], []], "claims": [0, 0], "winners": 0,
        }
        s["war"] = w
        if ft:
            w["caps"] = [self._captain(a), self._captain(d)]
            for sd in (0, 1):
                members = self._team_members("AB"[w["sides"][sd]])
                cap = w["caps"][sd]
                at = members.index(cap)
                for j in range(len(members)):
                    w["queue"].append([members[(at + j) % len(members)], sd, "war"])
        else:
            w["queue"] = [[a, 0, "war"], [d, 1, "war"]]

    # ---- building dice

    def _slots_free(self, sd):
        w = self.s["war"]
        return [j for j in range(w["n"]) if not w["b"][j]["s"][sd]["set"]]

    def _step_build(self, w):
        if w["needpick"]:
            return self._decide("pick", w["caps"][0])
        b = w["build"]
        if b is not None:
            return self._decide("build", b["p"])
        if w["queue"]:
            p, sd, mode = w["queue"].pop(0)
            self._start_session(p, sd, mode)
            return False
        if w["ret"]:
            w["step"] = w["ret"]
            w["ret"] = ""
            return False
        w["step"] = "pre"
        w["i"] = 0
        return False

    def _start_session(self, p, sd, mode, slots=None, pool=None):
        # One player makes one or more dice. Every card of the pool must end in a die; the
        # dice each hold at least `m` cards; the player makes from `lo` to `hi` dice now and
        # must leave at least `left` dice' worth of cards for later stages.
        s = self.s
        w = s["war"]
        m = self._pile_min()
        if pool is None:
            pool = s["hands"][p]
            s["hands"][p] = []
        left = 0
        if mode == "rebuild":
            lo = hi = len(slots)
        elif mode == "stage":
            lo = hi = 1
            slots = [w["k"]]
            left = len([j for j in self._slots_free(sd) if j > w["k"]])
        elif self._ft():
            free = self._slots_free(sd)
            need = len(free)
            later = [q for q in w["queue"] if q[1] == sd and q[2] == "war"]
            caps = sum(len(s["hands"][q[0]]) // m for q in later)
            lo = max(1, need - caps)
            hi = min(len(pool) // m, need - len(later))
            slots = None
        else:
            slots = None
            lo = hi = len(self._slots_free(sd))
        w["build"] = {"p": p, "s": sd, "mode": mode, "pool": pool, "cur": [], "made": 0,
                      "lo": lo, "hi": hi, "m": m, "left": left, "slots": slots or []}
        self._build_auto()

    def _build_auto(self):
        # The last die of a session takes every card left; a session ends when its pool is
        # empty or its dice are made.
        w = self.s["war"]
        b = w["build"]
        if self._dawn_cards():  # the attacker may still play a Dawn card instead
            return
        if b["left"] == 0 and b["made"] == b["hi"] - 1 and b["hi"] >= 1 and b["lo"] <= b["hi"]:
            b["cur"] += b["pool"]
            b["pool"] = []
            self._close_pile()
        elif b["hi"] == 0:
            self._end_session()

    def _close_pile(self):
        w = self.s["war"]
        b = w["build"]
        sd = b["s"]
        if b["slots"]:
            j = b["slots"].pop(0)
        else:
            j = self._slots_free(sd)[0]
        side = w["b"][j]["s"][sd]
        side["pile"] = sorted(b["cur"])
        side["own"] = b["p"]
        side["know"] = _bit(b["p"])
        side["set"] = 1
        b["cur"] = []
        b["made"] += 1
        if not b["pool"] or (b["made"] == b["hi"] and b["left"] > 0):
            self._end_session()
        else:
            self._build_auto()

    def _end_session(self):
        s = self.s
        w = s["war"]
        b = w["build"]
        if b["pool"]:  # a stage leaves the rest in hand for the next stages
            s["hands"][b["p"]] = sorted(s["hands"][b["p"]] + b["pool"])
        w["build"] = None

    def _build_moves(self):
        w = self.s["war"]
        b = w["build"]
        pool, cur, m = b["pool"], b["cur"], b["m"]
        reserve = m * b["left"]
        moves = []
        after = len(pool) - 1
        still = max(0, b["lo"] - b["made"] - 1)
        if b["lo"] > b["hi"]:  # only the Dawn card makes these dice possible
            after = -1
        # after this card, the cards left must still fill this die and the dice to come
        if after >= max(0, m - len(cur) - 1) + m * still + reserve:
            for c in _sorted_unique(pool):
                moves.append("add " + c)
        if len(cur) >= m:
            if b["made"] + 1 < b["hi"] and len(pool) >= m + reserve:
                moves.append("next")
            elif b["made"] + 1 == b["hi"] and b["left"] > 0 and len(pool) >= reserve:
                moves.append("next")
        for c in self._dawn_cards():
            moves.append("dawn " + c)
        return sorted(moves)

    def _dawn_cards(self):
        # Roosters the attacker may play as the Dawn card: at the very start of making the
        # attacker's dice, if the rest of the cards can still make the other dice.
        s = self.s
        w = s["war"]
        b = w["build"]
        if (not self._opts()["dawndojo"] or w["dawn"] or b["s"] != 0 or b["mode"] != "war"
                or b["p"] != w["caps"][0] or b["made"] or b["cur"] or w["b"][0]["s"][0]["set"]
                or w["n"] < 2):
            return []
        roosters = _sorted_unique(c for c in b["pool"] if c.startswith("rooster"))
        if not roosters:
            return []
        out = []
        for c in roosters:
            rule = self._c["roosters"][int(c[7:]) - 1][0]
            if self._dawn_fits(rule):
                out.append(c)
        return out

    def _dawn_fits(self, rule):
        # With the Dawn card in the first place, can both sides still make their dice?
        s = self.s
        w = s["war"]
        b = w["build"]
        others = [len(s["hands"][q[0]]) for q in w["queue"] if q[1] == 0]
        if self._ft():
            defenders = [len(s["hands"][p]) for p in self._team_members("AB"[w["sides"][1]])]
        else:
            defenders = [len(s["hands"][w["sides"][1]])]
        return self._dawn_ok(rule, w["n"], len(b["pool"]) - 1, others, defenders)

    def _play_dawn(self, card):
        s = self.s
        w = s["war"]
        b = w["build"]
        _remove(b["pool"], card)
        rule, change = self._c["roosters"][int(card[7:]) - 1]
        side = w["b"][0]["s"][0]
        side["face"] = card
        side["shown"] = card
        side["own"] = b["p"]
        side["know"] = self._all_mask()
        side["set"] = 1
        side["dawn"] = 1
        w["dawn"] = card
        w["rule"] = rule
        w["change"] = change
        if rule == "one_less":
            last = w["b"][w["n"] - 1]["s"][1]
            last["set"] = 1
            last["void"] = 1
        elif rule == "one_reroll":
            w["free"] = [1, 1]
        elif rule == "guess":
            w["guess"] = 1
        elif rule == "one_merge":
            w["merge"] = 1
        elif rule == "no_winner":
            w["nowinner"] = 1
        if rule in TYPE_PICK_RULES:
            w["needpick"] = 1
        if rule == "multi_stage" and not self._ft():
            # Dice are made one battle at a time: put the cards back, make them per stage.
            s["hands"][b["p"]] = sorted(s["hands"][b["p"]] + b["pool"])
            w["build"] = None
            w["queue"] = []
            w["multi"] = 1
            return
        # the session goes on with one die fewer to make
        if self._ft():
            later = [q for q in w["queue"] if q[1] == 0]
            caps = sum(len(s["hands"][q[0]]) // b["m"] for q in later)
            need = len(self._slots_free(0))
            b["lo"] = max(1, need - caps)
            b["hi"] = min(len(b["pool"]) // b["m"], need - len(later))
        else:
            b["lo"] = b["hi"] = len(self._slots_free(0))
        self._build_auto()

    # ---- battles: before the roll

    def _step_pre(self, w):
        k = w["k"]
        if k >= w["n"] or w["stopped"]:
            self._stop_rest()
            w["step"] = "final"
            w["i"] = 0
            return False
        bt = w["b"][k]
        if bt["gone"]:
            w["k"] += 1
            return False
        if w.get("multi") and not (bt["s"][0]["set"] and bt["s"][1]["set"]):
            for sd in (0, 1):
                if not bt["s"][sd]["set"]:
                    w["queue"].append([w["sides"][sd] if not self._ft() else w["caps"][sd],
                                       sd, "stage"])
            w["step"] = "build"
            w["ret"] = "pre"
            return False
        i = w["i"]
        rule = w["rule"]
        if i == 0:
            w["i"] = 1
            if rule == "one_merge" and w["merge"] and self._merge_targets():
                return self._decide("merge", w["caps"][0])
            return False
        if i == 1:
            w["i"] = 2
            if rule == "guess" and w["guess"]:
                return self._decide("guess", w["caps"][0])
            return False
        if i in (2, 3):
            w["i"] = i + 1
            sd = i - 2
            if rule == "flee" and not bt["con"] & _bit(sd):
                return self._decide("flee", w["caps"][sd])
            return False
        w["step"] = "roll"
        return False

    def _merge_targets(self):
        w = self.s["war"]
        k = w["k"]
        if w["b"][k]["s"][1]["void"]:
            return []
        out = []
        for j in range(k + 1, w["n"]):
            bt = w["b"][j]
            side = bt["s"][1]
            if not bt["gone"] and side["set"] and not side["void"]:
                out.append(j)
        return out

    def _stop_rest(self):
        # Battles not fought when the war stops are not part of it.
        w = self.s["war"]
        for bt in w["b"]:
            if bt["done"] != 2:
                bt["gone"] = 1
                bt["res"] = 0

    # ---- the roll

    def _roll_side(self, k, sd, regular):
        s = self.s
        w = s["war"]
        side = w["b"][k]["s"][sd]
        if side["void"] or side["dawn"]:
            side["act"] = ""
            return
        if side["face"]:
            _insert(side["pile"], side["face"])
            side["face"] = ""
        side["toss"] = 0
        side["off"] = 0
        side["act"] = ""
        if not side["pile"]:
            return
        i, self.rng = secret_prng.below(self.rng, len(side["pile"]))
        face = side["pile"].pop(i)
        side["face"] = face
        side["shown"] = face
        if regular:
            t = card_type(face)
            if t == data.ROOSTER:
                side["act"] = "rooster" if w["dawn"] else ""
            elif t in COPYABLE or t in ("chameleon", data.BIRD):
                side["act"] = t

    def _step_roll(self, w):
        k = w["k"]
        bt = w["b"][k]
        w["talk"] = 0
        for sd in (0, 1):
            self._roll_side(k, sd, True)
        bt["done"] = 1
        if bt["con"]:
            for sd in (0, 1):
                bt["s"][sd]["act"] = ""
        w["step"] = "reveal"
        w["i"] = 0
        return False

    # ---- actions

    def _prev_battle(self, k):
        w = self.s["war"]
        j = k - 1
        while j >= 0 and (w["b"][j]["gone"] or w["b"][j]["done"] != 2):
            j -= 1
        return j

    def _copy_options(self, k):
        w = self.s["war"]
        j = self._prev_battle(k)
        if j < 0:
            return []
        out = []
        for side in w["b"][j]["s"]:
            if not side["face"]:
                continue
            t = card_type(side["face"])
            a = side["act"] if t == "chameleon" else t
            if a in COPYABLE:
                out.append(a)
        return _sorted_unique(out)

    def _step_reveal(self, w):
        # What holds from the reveal, before any action is handled. A Rooster whose Change
        # loses the battle on purpose decides now: "no actions trigger" then, not even the
        # attacker's, which would be handled first. A printed Turtle's cancel is no choice:
        # a cancelled action is never handled, whichever side the Turtle is on.
        k = w["k"]
        bt = w["b"][k]
        i = w["i"]
        if i < 2:
            side = bt["s"][i]
            if side["act"] == "rooster" and w["change"] in ON_PURPOSE_CHANGES \
                    and bt["s"][1 - i]["act"] != "turtle" and not bt["con"] \
                    and self._rooster_moves(k, i):
                return self._decide("rooster", side["own"])  # _do_rooster moves i on
            w["i"] = i + 1
            return False
        for sd in (0, 1):
            if bt["con"]:
                bt["s"][sd]["act"] = ""
            elif bt["s"][1 - sd]["act"] == "turtle":
                bt["s"][sd]["off"] = 1
        w["step"] = "act"
        w["i"] = 0
        return False

    def _step_act(self, w):
        # "Handle those now: attacker first, defender second": the attacker's action is
        # handled to its end before the defender's begins.
        k = w["k"]
        bt = w["b"][k]
        i = w["i"]
        if i >= 2:
            w["step"] = "settle"
            return False
        side = bt["s"][i]
        a = side["act"]
        if side["off"] or not a or not side["face"]:
            w["i"] = i + 1
            return False
        other = bt["s"][1 - i]
        owner = side["own"]
        if a == "chameleon":
            # It copies in its own turn, from the previous battle as it lies now (after an
            # attacker's Dragon, Leopard or Bull changed it).
            opts = self._copy_options(k)
            if len(opts) > 1:
                return self._decide("copy", owner)  # _do_copy sets act; i stays
            side["act"] = a = opts[0] if opts else ""
            if not a:
                w["i"] = i + 1
                return False
        if a == "turtle":
            # A copied Turtle cancels from now on; what the attacker's action did stays done.
            other["off"] = 1
        if a == "tiger":
            w["i"] = i + 1
            both = other["act"] == "tiger" and not other["off"] and other["face"]
            rule = self._opts()["two_tigers"]
            if both and (rule == "nobody" or (rule == "attacker" and i == 1)):
                return False
            t, self.rng = secret_prng.below(self.rng, 2)
            side["toss"] = 1 + t
            return False
        if a == "dragon":
            if self._reroll_targets(k, i, k):
                return self._decide("reroll", owner)
        elif a == "monkey":
            if self._look_targets(k):
                return self._decide("look", owner)
        elif a == "leopard":
            if len(self._swap_positions(i, owner)) >= 2:
                return self._decide("swap", owner)
        elif a == "bull":
            if self._face_targets(k):
                return self._decide("destroy", owner)
        elif a == "redpanda":
            if other["face"] and self._strong(k, 1 - i):
                if self._can_draw() or self._face_targets(k):
                    return self._decide("draw", owner)
        elif a == "peacock":
            j = k + 1
            while j < w["n"] and w["b"][j]["gone"]:
                j += 1
            if j < w["n"]:
                w["b"][j]["pea"] |= _bit(i)
        elif a == "unicorn":
            earlier = self._earlier_types(k, i)
            if len(earlier) == len(set(earlier)):  # "add my type as a strength"
                w["extra"].append([k, i, card_type(side["face"])])
        elif a == "bird":
            w["talk"] |= _bit(i)
        elif a == "rooster":
            if self._rooster_action(k, i):
                return True
            if w["overall"]:  # the war instantly ended: no later action is handled
                w["i"] = 2
                return False
        w["i"] = i + 1
        return False

    def _rooster_action(self, k, i):
        # The Rooster Change of this war's Dawn card, applied to a Rooster revealed by a
        # regular roll. Returns True when its owner must decide.
        w = self.s["war"]
        bt = w["b"][k]
        side = bt["s"][i]
        other = bt["s"][1 - i]
        owner = side["own"]
        ch = w["change"]
        if ch == "rooster_always_win":
            # "if the opponent rolls this card too, the war instantly ends and they win
            # (overall)": handled attacker first, so two Roosters give the defender the war.
            if other["face"] and card_type(other["face"]) == data.ROOSTER:
                w["overall"] = _bit(1 - i)
                w["stopped"] = 1
        elif ch == "rooster_always_win_alt":
            if other["face"]:
                w["minus"].append([k, card_type(other["face"])])
        elif ch == "rooster_disable":
            if other["face"]:
                w["extra"].append([k, 2, card_type(other["face"])])
        elif ch == "rooster_count":
            bt["cnt"][i] = self._rooster_count(k)
        elif ch == "rooster_multi_bonus":
            w["bonus"] *= self._wins_before(k, i)
        elif ch == "rooster_always_lose_alt":
            # (a decision of several moves: `takes` counts them, reset when it is over)
            if self._take_moves(k, i, owner):
                return self._decide("take", owner)
        elif ch == "rooster_pity_type":
            if self._lost_all_before(k, i):
                return self._decide("pick", owner)
        elif ch in ON_PURPOSE_CHANGES:
            pass  # decided at the reveal (_step_reveal)
        elif self._rooster_moves(k, i):
            return self._decide("rooster", owner)
        return False

    def _rooster_count(self, k):
        w = self.s["war"]
        n = 0
        for j in range(k):
            bt = w["b"][j]
            if bt["gone"] or bt["done"] != 2:
                continue
            for side in bt["s"]:
                if side["face"] and card_type(side["face"]) == data.ROOSTER:
                    n += 1
        return n

    def _wins_before(self, k, sd):
        w = self.s["war"]
        return len([j for j in range(k) if not w["b"][j]["gone"] and w["b"][j]["done"] == 2
                    and w["b"][j]["res"] & _bit(sd)])

    def _fought_before(self, k):
        w = self.s["war"]
        return [j for j in range(k) if not w["b"][j]["gone"] and w["b"][j]["done"] == 2]

    def _lost_all_before(self, k, sd):
        fought = self._fought_before(k)
        return bool(fought) and self._wins_before(k, sd) == 0

    def _earlier_types(self, k, sd):
        w = self.s["war"]
        out = []
        for j in self._fought_before(k):
            f = w["b"][j]["s"][sd]["face"]
            if f:
                out.append(card_type(f))
        return out

    # ---- targets of the choices

    def _reroll_targets(self, k, sd, upto):
        # Battles 0..upto where side sd's die can be rolled again.
        w = self.s["war"]
        out = []
        for j in range(upto + 1):
            bt = w["b"][j]
            side = bt["s"][sd]
            if bt["gone"] or not bt["done"] or side["void"] or side["dawn"]:
                continue
            if side["pile"] or side["face"]:
                out.append(j)
        return out

    def _look_targets(self, k):
        w = self.s["war"]
        return [j for j in range(k + 1, w["n"]) if not w["b"][j]["gone"]
                and (w["b"][j]["s"][0]["set"] or w["b"][j]["s"][1]["set"])]

    def _swap_positions(self, sd, owner):
        w = self.s["war"]
        out = []
        for j in range(w["n"]):
            bt = w["b"][j]
            side = bt["s"][sd]
            if bt["gone"] or not side["set"] or side["void"] or side["dawn"]:
                continue
            if side["own"] == owner:
                out.append(j)
        return out

    def _face_targets(self, k):
        # Revealed cards of earlier battles: (battle, side).
        w = self.s["war"]
        out = []
        for j in self._fought_before(k):
            for sd in (0, 1):
                if w["b"][j]["s"][sd]["face"]:
                    out.append((j, sd))
        return out

    def _take_moves(self, k, sd, owner):
        w = self.s["war"]
        if w["takes"] >= 3:
            return []
        out = []
        for j in range(k + 1, w["n"]):
            bt = w["b"][j]
            side = bt["s"][sd]
            if bt["gone"] or side["own"] != owner:
                continue
            for c in _sorted_unique(side["pile"]):
                out.append("take %d %s" % (j + 1, c))
        return out

    def _rooster_moves(self, k, sd):
        w = self.s["war"]
        ch = w["change"]
        out = []
        if ch == "rooster_always_lose":
            out.append("stop")
            for j in self._fought_before(k):
                out.append("remove %d" % (j + 1))
        elif ch == "rooster_insta_end":
            out.append("give")
        elif ch == "rooster_concede":
            out.append("concede")
        elif ch == "rooster_skip":
            if [j for j in range(k + 1, w["n"]) if not w["b"][j]["gone"]]:
                out.append("retreat")
        elif ch == "rooster_change":
            if self._rebuild_slots(k, sd, w["b"][k]["s"][sd]["own"]):
                out.append("rebuild")
        elif ch == "rooster_steal":
            if self._rooster_count(k) > 3:
                for j in range(w["n"]):
                    bt = w["b"][j]
                    side = bt["s"][1 - sd]
                    if j != k and not bt["gone"] and (side["face"] or side["pile"]):
                        out.append("steal %d" % (j + 1))
        elif ch == "rooster_change_bonus":
            out += ["bonus 1", "bonus 2", "bonus 3", "bonus 4"]
        return out

    def _rebuild_slots(self, k, sd, owner):
        w = self.s["war"]
        out = []
        for j in range(k + 1, w["n"]):
            bt = w["b"][j]
            side = bt["s"][sd]
            if not bt["gone"] and side["set"] and not side["void"] and not side["dawn"] \
                    and side["own"] == owner:
                out.append(j)
        return out

    # ---- strengths and results

    def _strengths(self, k, sd):
        # The types side sd's card in battle k is strong against (EVERYTHING: all).
        w = self.s["war"]
        side = w["b"][k]["s"][sd]
        t = card_type(side["face"])
        rule, pick = w["rule"], w["pick"]
        if rule == "superweak_type" and t == pick:
            return set()
        act = side["act"] if not side["off"] else ""
        printed = self._c["table"].get(t, ())
        if act == "horse":
            earlier = set(self._earlier_types(k, sd))
            if printed and not [x for x in printed if x not in earlier]:
                return EVERYTHING
        got = set(printed)
        if act == "panda":
            got |= set(self._earlier_types(k, sd))
        for k0, who, typ in w["extra"]:
            if k > k0 and (who == sd or (who == 2 and t == data.ROOSTER)):
                got.add(typ)
        if rule == "strong_type" and sd == 0:
            got.add(pick)
        if rule == "weak_type":
            got.discard(pick)
        for k0, typ in w["minus"]:
            if k > k0:
                got.discard(typ)
        return got

    def _strong(self, k, sd):
        w = self.s["war"]
        other = w["b"][k]["s"][1 - sd]["face"]
        if not other or not w["b"][k]["s"][sd]["face"]:
            return False
        got = self._strengths(k, sd)
        return got == EVERYTHING or card_type(other) in got

    def _settle(self, k):
        # Who won battle k, from the cards as they lie now. A battle settled earlier is
        # settled again (only it) when a card changes it.
        w = self.s["war"]
        bt = w["b"][k]
        bt["done"] = 2
        if bt["gone"]:
            bt["res"] = 0
            return
        sides = bt["s"]
        has = [bool(sides[0]["face"]), bool(sides[1]["face"])]
        if not (has[0] and has[1]):
            res = (1 if has[0] else 0) | (2 if has[1] else 0)
        elif bt["con"]:
            res = (0, 2, 1, 0)[bt["con"]]
        else:
            res = self._fight(k)
        pea = bt["pea"]
        if pea in (1, 2) and res not in (1, 2):
            res = pea
        bt["res"] = res

    def _fight(self, k):
        w = self.s["war"]
        bt = w["b"][k]
        sides = bt["s"]
        t = [card_type(sides[0]["face"]), card_type(sides[1]["face"])]
        act = [sides[sd]["act"] if not sides[sd]["off"] else "" for sd in (0, 1)]
        win = [0, 0]
        lose = [0, 0]
        fought = self._fought_before(k)
        for sd in (0, 1):
            if sides[sd]["dawn"] or t[sd] == data.BIRD:
                lose[sd] = 1
            elif t[sd] == data.ROOSTER:
                ch = w["change"] if act[sd] == "rooster" else ""
                if ch in ("rooster_always_win", "rooster_always_win_alt"):
                    win[sd] = 1
                elif ch in ("rooster_always_lose", "rooster_always_lose_alt") or not ch:
                    lose[sd] = 1
            a = act[sd]
            if a == "snake" and fought:
                wins = self._wins_before(k, sd)
                if wins == 0:
                    lose[sd] = 1
                elif wins == len(fought):
                    win[sd] = 1
            elif a == "frog":  # "If anyone rolled me in an earlier battle, I always lose."
                for j in fought:
                    for side in w["b"][j]["s"]:
                        if side["face"] and card_type(side["face"]) == t[sd]:
                            lose[sd] = 1
        tigers = [sd for sd in (0, 1) if act[sd] == "tiger" and sides[sd]["toss"]]
        if act[0] == "tiger" and act[1] == "tiger":
            rule = self._opts()["two_tigers"]
            if rule == "nobody" or len(tigers) == 0:
                lose = [1, 1]
            else:
                says = set()
                for sd in tigers:
                    says.add(sd if sides[sd]["toss"] == 1 else 1 - sd)
                if len(says) == 1:
                    win[says.pop()] = 1
                else:
                    lose = [1, 1]
        elif tigers:
            sd = tigers[0]
            win[sd if sides[sd]["toss"] == 1 else 1 - sd] = 1
        g = bt["guesser"]
        if g >= 0 and t[1 - g] == bt["guess"]:
            win[g] = 1
        if w["rule"] == "no_ties" and t[0] == t[1]:
            win[0] = 1
            lose[1] = 1
        for sd in (0, 1):
            if win[sd] and lose[sd]:
                win[sd] = lose[sd] = 0
        if win[0] or win[1]:
            res = win[0] | win[1] << 1
        elif lose[0] or lose[1]:
            res = (0 if lose[0] else 1) | (0 if lose[1] else 2)
        else:
            sa = self._strong(k, 0)
            sd_ = self._strong(k, 1)
            published = self._opts()["battle_reading"] == "published"
            if sa and not sd_:
                res = 1
            elif sd_ and not sa:
                res = 2
            elif sa and sd_:
                res = 3 if published else 0
            else:
                res = 0 if published else 3
        if w["rule"] == "superhero_type":
            for sd in (0, 1):
                if t[sd] == w["pick"]:
                    res |= _bit(sd)
        return res

    def _step_settle(self, w):
        self._settle(w["k"])
        w["step"] = "post"
        w["i"] = 0
        return False

    def _resettle(self, j):
        w = self.s["war"]
        if w["b"][j]["done"] == 2:
            self._settle(j)

    # ---- after a battle

    def _step_post(self, w):
        k = w["k"]
        i = w["i"]
        if i < 2:
            w["i"] = i + 1
            if w["free"][i] and not w["stopped"] and self._reroll_targets(k, i, k):
                return self._decide("free", w["caps"][i])
            return False
        if not w["stopped"] and w["rule"] == "early_stop":
            fought = self._fought_before(k + 1)
            for sd in (0, 1):
                if len(fought) - self._wins_before(k + 1, sd) >= 2:
                    w["stopped"] = 1
        w["k"] = k + 1
        w["step"] = "pre"
        w["i"] = 0
        return False

    # ---- the end of the war

    def _last_fought(self):
        w = self.s["war"]
        f = self._fought_before(w["n"])
        return f[-1] if f else -1

    def _step_final(self, w):
        i = w["i"]
        if i < 2:
            w["i"] = i + 1
            if w["rule"] == "final_reroll":
                j = self._last_fought()
                if j >= 0 and w["b"][j]["res"] & _bit(i) and self._reroll_targets(
                        w["n"] - 1, i, w["n"] - 1):
                    return self._decide("free", w["caps"][i])
            return False
        if i < 4:
            w["i"] = i + 1
            sd = i - 2
            if w["rule"] == "bait_and_switch" and self._switch_moves(sd):
                return self._decide("switch", w["caps"][sd])
            return False
        self._spoils()
        w["step"] = "claim"
        w["i"] = 0
        return False

    def _switch_moves(self, sd):
        w = self.s["war"]
        fought = self._fought_before(w["n"])
        won = [j for j in fought if w["b"][j]["res"] & _bit(sd)]
        other = [j for j in fought if not w["b"][j]["res"] & _bit(sd)]
        return ["switch %d %d" % (a + 1, b + 1) for a in won for b in other]

    def _add_loot(self, sd, card, know):
        w = self.s["war"]
        lots = w["loot"][sd]
        for lot in lots:
            if lot["know"] == know:
                _insert(lot["cards"], card)
                return
        lots.append({"cards": [card], "know": know})
        lots.sort(key=lambda lot: -lot["know"])

    def _grab(self, sd, j, count):
        # Side sd takes `count` cards of the opposing die of battle j: its revealed card
        # first, then random cards of the die.
        s = self.s
        w = s["war"]
        side = w["b"][j]["s"][1 - sd]
        team = self._side_mask(sd)
        for _ in range(count):
            if side["face"]:
                self._add_loot(sd, side["face"], self._all_mask())
                side["face"] = ""
            elif side["pile"]:
                i, self.rng = secret_prng.below(self.rng, len(side["pile"]))
                self._add_loot(sd, side["pile"].pop(i), side["know"] | team)

    def _spoils(self):
        w = self.s["war"]
        for j in range(w["n"]):
            bt = w["b"][j]
            if bt["gone"] or bt["done"] != 2:
                continue
            for sd in (0, 1):
                if bt["res"] & _bit(sd):
                    cnt = bt["cnt"][sd]
                    self._grab(sd, j, 1 if cnt < 0 else cnt)
        wins = [self._wins_before(w["n"], sd) for sd in (0, 1)]
        # "you won the majority of battles": more than half of the battles fought (option
        # war_winner=more: more than the opponent). Two majorities of one size: a tie.
        fought = len(self._fought_before(w["n"]))
        lead = 0 if wins[0] > wins[1] else 1
        majority = self._opts()["war_winner"] == "more" or 2 * wins[lead] > fought
        if w["overall"]:
            winners = w["overall"]
        elif w["nowinner"]:
            winners = 0
        elif wins[0] != wins[1]:
            winners = _bit(lead) if majority else 0
        elif w["rule"] == "tied_winner":
            winners = 3
        else:
            winners = 0
        w["winners"] = winners
        if not w["nobonus"]:
            for sd in (0, 1):
                if winners & _bit(sd):
                    w["claims"][sd] = w["bonus"]

    def _claim_targets(self, sd):
        w = self.s["war"]
        out = []
        for j in range(w["n"]):
            bt = w["b"][j]
            side = bt["s"][1 - sd]
            if not bt["gone"] and bt["done"] == 2 and bt["res"] & _bit(sd) \
                    and (side["pile"] or side["face"]):
                out.append(j)
        return out

    def _step_claim(self, w):
        i = w["i"]
        if i >= 2:
            w["step"] = "keep"
            w["i"] = 0
            return False
        targets = self._claim_targets(i)
        if w["claims"][i] <= 0 or not targets:
            w["claims"][i] = 0
            w["i"] = i + 1
            return False
        if len(targets) <= w["claims"][i]:
            for j in targets:
                self._claim(i, j)
            w["claims"][i] = 0
            return False
        return self._decide("claim", w["caps"][i])

    def _claim(self, sd, j):
        w = self.s["war"]
        side = w["b"][j]["s"][1 - sd]
        count = len(side["pile"]) + (1 if side["face"] else 0)
        self._grab(sd, j, count)
        w["claims"][sd] -= 1

    def _step_keep(self, w):
        i = w["i"]
        if i >= 2:
            self._leftovers()
            w["step"] = "tribute"
            w["i"] = 0
            return False
        if not w["loot"][i]:
            w["i"] = i + 1
            return False
        return self._decide("keep", w["caps"][i])

    def _leftovers(self):
        s = self.s
        w = s["war"]
        for bt in w["b"]:
            for side in bt["s"]:
                cards = side["pile"] + ([side["face"]] if side["face"] else [])
                side["pile"] = []
                side["face"] = ""
                for c in cards:
                    if s["options"]["leftovers"] == "owner":
                        _insert(s["hands"][side["own"]], c)
                    else:
                        self._discard(c)

    def _tribute_payer(self, team):
        s = self.s
        members = self._team_members("AB"[team])
        best = -1
        for p in members:
            if s["hands"][p] and (best < 0 or len(s["hands"][p]) > len(s["hands"][best])):
                best = p
        return best

    def _step_tribute(self, w):
        # Fight Together: "After every war, the loser must place one card to the side.
        # (If nobody wins, both are losers.)"
        if self._ft():
            i = w["i"]
            if i < 2:
                w["i"] = i + 1
                if not w["winners"] & _bit(i):
                    p = self._tribute_payer(w["sides"][i])
                    if p >= 0:
                        return self._decide("tribute", p)
                return False
        self._finish_war()
        return False

    def _finish_war(self):
        s = self.s
        s["last"] = s["war"]  # kept for renderers: its dice are empty, everything is public
        s["war"] = None
        s["turn"] += 1
        n = s["players"]
        o = s["options"]
        if o["fight_together"]:
            if [p for p in range(n) if len(s["hands"][p]) <= TEAM_LOW]:
                s["end"] = "cards"
            elif len(s["warpile"]) >= WAR_PILE_END:
                s["end"] = "warpile"
        elif o["simulwars"]:
            s["pi"] += 1
            if s["pi"] >= len(s["pairs"]):
                if [p for p in range(n) if len(s["hands"][p]) < 2]:
                    s["end"] = "cards"
                s["pairs"] = []
                s["pi"] = 0
                s["active"] = (s["active"] + 1) % n
                s["round"] += 1
        else:
            if [p for p in range(n) if len(s["hands"][p]) < 2]:
                s["end"] = "cards"
            s["active"] = (s["active"] + 1) % n
        if not s["end"] and s["turn"] >= o["max_turns"] and not (o["simulwars"] and s["pairs"]):
            s["end"] = "turns"
        if s["end"]:
            s["phase"] = "over"
            s["who"] = -1

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

    # ---- move handlers (the move is known to be legal)

    def _do_fight(self, words):
        s = self.s
        if self._ft():
            att = s["turn"] % 2
            self._start_war(att, 1 - att, int(words[1]))
            return
        me = s["who"]
        p, n = int(words[1]), int(words[2])
        if self._opts()["simulwars"]:
            s["pairs"].append([me, p, n])  # the wars start once everyone is paired
            return
        self._start_war(me, p, n)

    def _do_build(self, words):
        w = self.s["war"]
        b = w["build"]
        if words[0] == "add":
            _remove(b["pool"], words[1])
            b["cur"].append(words[1])
            if not b["pool"]:
                self._close_pile()
        elif words[0] == "next":
            self._close_pile()
        else:
            self._play_dawn(words[1])

    def _do_pick(self, words):
        w = self.s["war"]
        if w["step"] == "build":
            w["pick"] = words[1]
            w["needpick"] = 0
            return
        # Rooster Change "pity": the picked type becomes a strength of your later animals.
        if words[0] == "pick":
            w["extra"].append([w["k"], w["i"], words[1]])
        w["i"] += 1

    def _do_merge(self, words):
        w = self.s["war"]
        w["i"] = 1
        if words[0] == "pass":
            return
        w["merge"] = 0
        k = w["k"]
        j = int(words[1]) - 1
        src = w["b"][j]["s"][1]
        dst = w["b"][k]["s"][1]
        cards = src["pile"] + ([src["face"]] if src["face"] else [])
        dst["pile"] = sorted(dst["pile"] + cards)
        # Who knew both dice knows the merged one; the suppliers, who merge it, see it.
        dst["know"] = (dst["know"] & src["know"]) | _bit(dst["own"]) | _bit(src["own"])
        src["pile"] = []
        src["face"] = ""
        src["void"] = 1
        src["own"] = -1
        src["know"] = 0

    def _do_guess(self, words):
        w = self.s["war"]
        if words[0] == "guess":
            w["guess"] = 0
            bt = w["b"][w["k"]]
            bt["guess"] = words[1]
            bt["guesser"] = 0

    def _do_flee(self, words):
        w = self.s["war"]
        if words[0] == "flee":
            sd = w["i"] - 3
            w["b"][w["k"]]["con"] |= _bit(sd)
            w["nobonus"] = 1

    def _do_copy(self, words):
        w = self.s["war"]
        side = w["b"][w["k"]]["s"][w["i"]]
        side["act"] = words[1]  # _step_act handles the copied action next

    def _reroll(self, j, sd):
        self._roll_side(j, sd, False)
        self._resettle(j)

    def _do_reroll(self, words):
        # The Dragon: "Reroll this battle or an earlier one."
        w = self.s["war"]
        sd = w["i"]
        if words[0] == "reroll":
            self._reroll(int(words[1]) - 1, sd)
        w["i"] = sd + 1

    def _do_free(self, words):
        # A free reroll (Dawn rules one_reroll and final_reroll): i was moved on already.
        w = self.s["war"]
        sd = w["i"] - 1
        if words[0] == "reroll":
            if w["step"] == "post":
                w["free"][sd] = 0
            self._reroll(int(words[1]) - 1, sd)

    def _do_look(self, words):
        # The Monkey: its owner looks at both dice of a later battle.
        w = self.s["war"]
        sd = w["i"]
        if words[0] == "look":
            owner = w["b"][w["k"]]["s"][sd]["own"]
            for side in w["b"][int(words[1]) - 1]["s"]:
                if side["set"] and not side["void"]:
                    side["know"] |= _bit(owner)
        w["i"] = sd + 1

    def _do_swap(self, words):
        # The Leopard: two of its owner's dice change places, revealed or not. A die moved
        # into a battle already fought is rolled there (no action); results of fought
        # battles are settled again.
        w = self.s["war"]
        sd = w["i"]
        k = w["k"]
        if words[0] == "swap":
            a, b = int(words[1]) - 1, int(words[2]) - 1
            ba, bb = w["b"][a], w["b"][b]
            ba["s"][sd], bb["s"][sd] = bb["s"][sd], ba["s"][sd]
            for j in (a, b):
                bt = w["b"][j]
                side = bt["s"][sd]
                if bt["done"] and not side["face"]:
                    self._roll_side(j, sd, False)
                if j < k:
                    self._resettle(j)
        w["i"] = sd + 1

    def _take_face(self, j, sd):
        w = self.s["war"]
        side = w["b"][j]["s"][sd]
        card = side["face"]
        side["face"] = ""
        side["act"] = ""
        side["toss"] = 0
        self._resettle(j)
        return card

    def _do_destroy(self, words):
        # The Bull: a revealed card of an earlier battle leaves the game.
        w = self.s["war"]
        sd = w["i"]
        if words[0] == "destroy":
            j = int(words[1][:-1]) - 1
            card = self._take_face(j, "ad".index(words[1][-1]))
            _insert(self.s["destroyed"], card)
        w["i"] = sd + 1

    def _do_draw(self, words):
        # The Red Panda: draw from the deck, or take a revealed card of an earlier battle.
        s = self.s
        w = s["war"]
        sd = w["i"]
        owner = w["b"][w["k"]]["s"][sd]["own"]
        if words[0] == "draw":
            if words[1] == "deck":
                card = self._draw_card()
            else:
                j = int(words[1][:-1]) - 1
                card = self._take_face(j, "ad".index(words[1][-1]))
            if card:
                _insert(s["hands"][owner], card)
        w["i"] = sd + 1

    def _do_rooster(self, words):
        s = self.s
        w = s["war"]
        k = w["k"]
        sd = w["i"]
        bt = w["b"][k]
        side = bt["s"][sd]
        v = words[0]
        w["i"] = sd + 1
        if v == "stop":
            w["stopped"] = 1
        elif v == "remove":
            j = int(words[1]) - 1
            w["b"][j]["gone"] = 1
            w["b"][j]["res"] = 0
        elif v == "give":
            # The Rooster's die goes to the opponent (as spoils); the war stops, no winner.
            cards = side["pile"] + ([side["face"]] if side["face"] else [])
            for c in cards:
                know = self._all_mask() if c == side["face"] else side["know"] | self._side_mask(1 - sd)
                self._add_loot(1 - sd, c, know)
            side["pile"] = []
            side["face"] = ""
            bt["gone"] = 1
            w["stopped"] = 1
            w["nowinner"] = 1
        elif v == "concede":
            bt["con"] |= _bit(sd)
            w["nobonus"] = 1
        elif v == "retreat":
            j = k + 1
            while w["b"][j]["gone"]:
                j += 1
            w["b"][j]["gone"] = 1
        elif v == "rebuild":
            bt["con"] |= _bit(sd)
            owner = side["own"]
            slots = self._rebuild_slots(k, sd, owner)
            pool = []
            for j in slots:
                t = w["b"][j]["s"][sd]
                pool += t["pile"] + ([t["face"]] if t["face"] else [])
                w["b"][j]["s"][sd] = _new_side()
            self._start_session(owner, sd, "rebuild", slots, sorted(pool))
            w["ret"] = w["step"]
            w["step"] = "build"
        elif v == "steal":
            j = int(words[1]) - 1
            target = w["b"][j]["s"][1 - sd]
            if target["face"]:
                card = self._take_face(j, 1 - sd)
            else:
                i, self.rng = secret_prng.below(self.rng, len(target["pile"]))
                card = target["pile"].pop(i)
            _insert(s["hands"][side["own"]], card)
        elif v == "bonus":
            w["bonus"] = int(words[1])

    def _do_take(self, words):
        # Rooster Change: take up to 3 cards of your later dice back into your hand.
        s = self.s
        w = s["war"]
        sd = w["i"]
        if words[0] == "take":
            j = int(words[1]) - 1
            side = w["b"][j]["s"][sd]
            _remove(side["pile"], words[2])
            _insert(s["hands"][side["own"]], words[2])
            w["takes"] += 1
        if words[0] == "pass" or not self._take_moves(w["k"], sd, w["b"][w["k"]]["s"][sd]["own"]):
            w["takes"] = 0
            w["i"] = sd + 1

    def _do_switch(self, words):
        w = self.s["war"]
        sd = w["i"] - 3
        if words[0] == "switch":
            a, b = int(words[1]) - 1, int(words[2]) - 1
            w["b"][a]["res"] &= ~_bit(sd)
            w["b"][b]["res"] |= _bit(sd)

    def _do_claim(self, words):
        w = self.s["war"]
        self._claim(w["i"], int(words[1]) - 1)

    def _do_keep(self, words):
        s = self.s
        w = s["war"]
        lots = w["loot"][w["i"]]
        card = words[1]
        for lot in lots:
            if card in lot["cards"]:
                _remove(lot["cards"], card)
                break
        w["loot"][w["i"]] = [lot for lot in lots if lot["cards"]]
        if words[0] == "keep":
            p = int(words[2]) if len(words) == 3 else w["caps"][w["i"]]
            _insert(s["hands"][p], card)
        else:
            self._discard(card)

    def _do_tribute(self, words):
        s = self.s
        _remove(s["hands"][s["who"]], words[1])
        _insert(s["warpile"], words[1])


_STEPS = {
    "build": TigerState._step_build,
    "pre": TigerState._step_pre,
    "roll": TigerState._step_roll,
    "reveal": TigerState._step_reveal,
    "act": TigerState._step_act,
    "settle": TigerState._step_settle,
    "post": TigerState._step_post,
    "final": TigerState._step_final,
    "claim": TigerState._step_claim,
    "keep": TigerState._step_keep,
    "tribute": TigerState._step_tribute,
}

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


# ---------------------------------------------------------------- checking a state

_TOP_KEYS = ("active", "discard", "destroyed", "draw", "end", "format", "game", "hands",
             "last", "options", "pairs", "phase", "pi", "players", "rng", "round", "turn",
             "war", "warpile", "who")
_WAR_KEYS = ("b", "bonus", "build", "caps", "change", "claims", "dawn", "extra", "free",
             "guess", "i", "k", "loot", "merge", "minus", "n", "needpick", "nobonus",
             "nowinner", "overall", "pick", "queue", "ret", "rule", "sides", "step", "stopped",
             "takes", "talk", "winners")
_WAR_OPTIONAL = ("multi",)
_SIDE_KEYS = ("act", "dawn", "face", "know", "off", "own", "pile", "set", "shown", "toss",
              "void")
_BATTLE_KEYS = ("cnt", "con", "done", "gone", "guess", "guesser", "pea", "res", "s")
_BUILD_KEYS = ("cur", "hi", "left", "lo", "m", "made", "mode", "p", "pool", "s", "slots")
_ENDS = ("", "cards", "warpile", "dice", "turns")


def _need(cond, what):
    if not cond:
        raise BadPosition(what)


def _int(v, lo, hi, what):
    _need(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi,
          "%s must be a whole number from %d to %d, not %r" % (what, lo, hi, v))
    return v


def _str(v, allowed, what):
    _need(isinstance(v, str) and v in allowed, "%s must be one of %s, not %r"
          % (what, ", ".join(repr(a) for a in allowed), v))
    return v


def _keys(d, keys, what, optional=()):
    _need(isinstance(d, dict), "%s must be an object" % what)
    missing = [k for k in keys if k not in d]
    _need(not missing, "%s lacks the fields %s" % (what, ", ".join(missing)))
    extra = [k for k in d if k not in keys and k not in optional]
    _need(not extra, "%s has unknown fields %s" % (what, ", ".join(sorted(extra))))


def _cards(v, names, what):
    _need(isinstance(v, list) and all(isinstance(c, str) and c in names for c in v),
          "%s must be a list of card names of this game" % what)
    _need(v == sorted(v), "%s must be sorted" % what)
    return v


def _check_war(w, s, names, types):
    n_players = s["players"]
    all_mask = (1 << n_players) - 1
    _keys(w, _WAR_KEYS, "field 'war'", _WAR_OPTIONAL)
    n = _int(w["n"], 1, 60, "war.n")
    ft = s["options"]["fight_together"]
    for key in ("sides", "caps", "free", "claims"):
        _need(isinstance(w[key], list) and len(w[key]) == 2, "war.%s must hold 2 numbers" % key)
    for sd in (0, 1):
        _int(w["sides"][sd], 0, 1 if ft else n_players - 1, "war.sides")
        _int(w["caps"][sd], 0, n_players - 1, "war.caps")
        _int(w["free"][sd], 0, 1, "war.free")
        _int(w["claims"][sd], 0, 4 * n, "war.claims")
    _need(w["sides"][0] != w["sides"][1], "war.sides must be two different sides")
    _need(isinstance(w["b"], list) and len(w["b"]) == n, "war.b must hold n battles")
    for bt in w["b"]:
        _keys(bt, _BATTLE_KEYS, "a battle")
        _int(bt["done"], 0, 2, "battle.done")
        _int(bt["gone"], 0, 1, "battle.gone")
        _int(bt["res"], 0, 3, "battle.res")
        _int(bt["pea"], 0, 3, "battle.pea")
        _int(bt["con"], 0, 3, "battle.con")
        _int(bt["guesser"], -1, 1, "battle.guesser")
        _str(bt["guess"], [""] + types, "battle.guess")
        _need(isinstance(bt["cnt"], list) and len(bt["cnt"]) == 2, "battle.cnt holds 2 numbers")
        for c in bt["cnt"]:
            _int(c, -1, 60, "battle.cnt")
        _need(isinstance(bt["s"], list) and len(bt["s"]) == 2, "a battle has 2 sides")
        for side in bt["s"]:
            _keys(side, _SIDE_KEYS, "a battle side")
            _cards(side["pile"], names, "a die")
            _str(side["face"], [""] + names, "a face")
            _str(side["shown"], [""] + names, "side.shown")
            _int(side["own"], -1, n_players - 1, "side.own")
            _int(side["know"], 0, all_mask, "side.know")
            for key in ("set", "void", "dawn", "off"):
                _int(side[key], 0, 1, "side." + key)
            _int(side["toss"], 0, 2, "side.toss")
            _str(side["act"], [""] + list(COPYABLE) + ["chameleon", "bird", "rooster"], "side.act")
            _need(side["own"] >= 0 or not (side["pile"] or side["face"]) or side["dawn"],
                  "a die with cards must have an owner")
    _int(w["k"], 0, n, "war.k")
    _int(w["i"], 0, 4, "war.i")
    _str(w["step"], list(_STEPS), "war.step")
    _str(w["ret"], ["", "pre", "reveal"], "war.ret")
    _str(w["dawn"], [""] + [c for c in names if c.startswith("rooster")], "war.dawn")
    _str(w["rule"], [""] + list(data.DAWN_KEYS), "war.rule")
    _str(w["change"], [""] + list(data.CHANGE_KEYS), "war.change")
    _str(w["pick"], [""] + types, "war.pick")
    for key in ("needpick", "nobonus", "nowinner", "stopped", "guess", "merge"):
        _int(w[key], 0, 1, "war." + key)
    _int(w["overall"], 0, 3, "war.overall")
    _int(w["winners"], 0, 3, "war.winners")
    _int(w["talk"], 0, 3, "war.talk")
    _int(w["takes"], 0, 3, "war.takes")
    _int(w["bonus"], 0, 4 * n, "war.bonus")
    if "multi" in w:
        _int(w["multi"], 1, 1, "war.multi")
    _need(isinstance(w["queue"], list), "war.queue must be a list")
    for q in w["queue"]:
        _need(isinstance(q, list) and len(q) == 3, "war.queue holds [player, side, mode]")
        _int(q[0], 0, n_players - 1, "war.queue player")
        _int(q[1], 0, 1, "war.queue side")
        _str(q[2], ["war", "stage"], "war.queue mode")
    _need(isinstance(w["extra"], list) and isinstance(w["minus"], list),
          "war.extra and war.minus must be lists")
    for e in w["extra"]:
        _need(isinstance(e, list) and len(e) == 3, "war.extra holds [battle, side, type]")
        _int(e[0], 0, n - 1, "war.extra battle")
        _int(e[1], 0, 2, "war.extra side")
        _str(e[2], types, "war.extra type")
    for e in w["minus"]:
        _need(isinstance(e, list) and len(e) == 2, "war.minus holds [battle, type]")
        _int(e[0], 0, n - 1, "war.minus battle")
        _str(e[1], types + [data.ROOSTER, data.BIRD], "war.minus type")
    b = w["build"]
    if b is not None:
        _keys(b, _BUILD_KEYS, "war.build")
        _int(b["p"], 0, n_players - 1, "build.p")
        _int(b["s"], 0, 1, "build.s")
        _str(b["mode"], ["war", "stage", "rebuild"], "build.mode")
        _cards(b["pool"], names, "build.pool")
        _need(isinstance(b["cur"], list) and all(c in names for c in b["cur"]),
              "build.cur must be a list of card names")
        for key in ("made", "lo", "hi", "left"):
            _int(b[key], 0, 60, "build." + key)
        _int(b["m"], MIN_PILE, MIN_PILE_TEAM, "build.m")
        _need(isinstance(b["slots"], list), "build.slots must be a list")
        for j in b["slots"]:
            _int(j, 0, n - 1, "build.slots")
    _check_war_flow(w, s)
    _need(isinstance(w["loot"], list) and len(w["loot"]) == 2, "war.loot holds 2 lists")
    for lots in w["loot"]:
        _need(isinstance(lots, list), "war.loot holds lists of lots")
        for lot in lots:
            _keys(lot, ("cards", "know"), "a lot of spoils")
            _cards(lot["cards"], names, "a lot of spoils")
            _int(lot["know"], 0, all_mask, "lot.know")


def _check_war_flow(w, s):
    # The parts of a war must fit together: who makes which dice, which places are free.
    ft = s["options"]["fight_together"]
    teams = s["options"]["teams"]
    n = w["n"]

    def on_side(p, sd):
        return teams[p] == "AB"[w["sides"][sd]] if ft else p == w["sides"][sd]

    for sd in (0, 1):
        _need(on_side(w["caps"][sd], sd), "war.caps must be players of their side")
    for j, bt in enumerate(w["b"]):
        for sd in (0, 1):
            side = bt["s"][sd]
            if not side["set"]:
                _need(not side["pile"] and not side["face"] and side["own"] == -1
                      and not side["void"] and not side["dawn"] and bt["done"] == 0,
                      "battle %d: a place not yet filled holds nothing" % (j + 1))
            elif not side["void"]:
                _need(side["own"] >= 0 and on_side(side["own"], sd),
                      "battle %d: a die belongs to a player of its side" % (j + 1))
            else:
                _need(not side["pile"] and not side["face"],
                      "battle %d: an empty spot holds no card" % (j + 1))
            _need(not side["dawn"] or (j == 0 and sd == 0 and side["face"] in (w["dawn"], "")),
                  "battle %d: only the first attacking place holds the Dawn card" % (j + 1))
    for q in w["queue"]:
        _need(on_side(q[0], q[1]), "war.queue: a maker must be on the side they make for")
        _need(q[2] == "war" or "multi" in w, "war.queue: stages only with multi_stage")
    if ft:
        order = []  # each team's members from its captain on, attackers first
        for sd in (0, 1):
            members = [p for p in range(s["players"]) if teams[p] == "AB"[w["sides"][sd]]]
            at = members.index(w["caps"][sd])
            order += [[members[(at + j) % len(members)], sd, "war"] for j in range(len(members))]
        queue = w["queue"]
        _need(not queue or queue == order[len(order) - len(queue):],
              "war.queue: team members make their dice in turn")
        b = w["build"]
        if b is not None and b["mode"] == "war":
            _need(len(queue) < len(order) and order[len(order) - len(queue) - 1][:2]
                  == [b["p"], b["s"]], "build.p must be the maker whose turn it is")
    if w["step"] != "build":
        _need(w["build"] is None and not w["queue"] and not w["needpick"],
              "dice are only made in the war's 'build' step")
        upto = w["k"] if "multi" in w else n
        for j in range(min(upto, n)):
            _need(w["b"][j]["gone"] or (w["b"][j]["s"][0]["set"] and w["b"][j]["s"][1]["set"]),
                  "battle %d: both dice must be placed before the battles" % (j + 1))
    b = w["build"]
    if b is not None:
        _need(on_side(b["p"], b["s"]), "build.p must be a player of side build.s")
        _need(b["made"] < b["hi"] or b["hi"] == 0, "build.made must be below build.hi")
        _need(b["lo"] >= 1 and b["hi"] <= n, "build.lo and build.hi must be from 1 to n")
        free = [j for j in range(n) if not w["b"][j]["s"][b["s"]]["set"]]
        if b["mode"] == "rebuild":
            _need(len(b["slots"]) == b["hi"] - b["made"] and all(j in free for j in b["slots"]),
                  "build.slots must be the free places still to fill")
            _need(w["ret"] == "reveal", "a rebuild returns to the battle's reveal")
        elif b["mode"] == "stage":
            _need("multi" in w and b["lo"] == b["hi"] == 1 and w["k"] in free
                  and b["left"] == len([j for j in free if j > w["k"]]),
                  "build: a stage makes the die of the current battle")
        else:
            _need(not b["slots"] and b["left"] == 0, "build: a war's dice fill free places")
            if ft:
                _need(len(free) >= b["hi"] - b["made"], "build: too few free places")
                mine = [j for j in range(n) if w["b"][j]["s"][b["s"]]["own"] == b["p"]
                        and not w["b"][j]["s"][b["s"]]["dawn"]]
                _need(len(mine) == b["made"], "build.made must count the maker's dice")
            else:
                _need(b["lo"] == b["hi"] and len(free) == b["hi"] - b["made"],
                      "build: the dice left to make must match the free places")


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
    _keys(d, _TOP_KEYS, "the state")
    players = d["players"]
    opts = d["options"]
    _need(isinstance(opts, dict), "field 'options' must be an object")
    checked = _check_options(players, opts)
    _need(checked == opts, "field 'options' must spell out every option (%s)"
          % ", ".join(sorted(checked)))
    s = _copy(d)
    deck = deck_of(opts)
    names = sorted(set(deck))
    types = _types_in(opts)
    _need(secret_prng.check_state(s["rng"]),
          "field 'rng' must be a state of shared_rules.secret_prng")
    _need(isinstance(s["hands"], list) and len(s["hands"]) == players,
          "field 'hands' must hold one hand per player")
    for h in s["hands"]:
        _cards(h, names, "a hand")
    for key in ("draw", "discard", "destroyed", "warpile"):
        _cards(s[key], names, "field %r" % key)
    _int(s["turn"], 0, MAX_TURNS_LIMIT, "field 'turn'")
    _int(s["round"], 0, MAX_TURNS_LIMIT, "field 'round'")
    _int(s["active"], 0, players - 1, "field 'active'")
    _int(s["pi"], 0, players, "field 'pi'")
    _need(isinstance(s["pairs"], list) and len(s["pairs"]) <= players // 2,
          "field 'pairs' must be a list of at most %d pairs" % (players // 2))
    for pr in s["pairs"]:
        _need(isinstance(pr, list) and len(pr) == 3, "a pair is [attacker, defender, dice]")
        _int(pr[0], 0, players - 1, "a pair's attacker")
        _int(pr[1], 0, players - 1, "a pair's defender")
        _int(pr[2], 1, 60, "a pair's dice")
    _str(s["end"], _ENDS, "field 'end'")
    _str(s["phase"], list(PHASE_HINTS), "field 'phase'")
    if s["end"]:
        _need(s["phase"] == "over" and s["who"] == -1 and s["war"] is None,
              "a finished game has phase 'over', who -1 and no war")
    else:
        _int(s["who"], 0, players - 1, "field 'who'")
        _need(s["phase"] != "over", "phase 'over' only once the game has ended")
    if s["war"] is not None:
        _check_war(s["war"], s, names, types)
    else:
        _need(s["phase"] in ("fight", "over"), "without a war the phase is 'fight'")
    if s["last"] is not None:
        _check_war(s["last"], s, names, types)
        _need(s["last"]["build"] is None and all(
            not side["pile"] and not side["face"] for bt in s["last"]["b"] for side in bt["s"])
            and not any(s["last"]["loot"]), "field 'last' (the finished war) holds no card")
    state = TigerState(s)
    b = s["war"]["build"] if s["war"] is not None else None
    if b is not None and b["lo"] > b["hi"]:
        _need(state._dawn_cards(), "build.lo must not exceed build.hi (unless a Dawn card "
              "makes the dice possible)")
    # Every card of the box lies in exactly one place.
    everything = []
    for h in s["hands"]:
        everything += h
    for key in ("draw", "discard", "destroyed", "warpile"):
        everything += s[key]
    w = s["war"]
    if w is not None:
        for bt in w["b"]:
            for side in bt["s"]:
                everything += side["pile"]
                if side["face"]:
                    everything.append(side["face"])
        if w["build"] is not None:
            everything += w["build"]["pool"] + w["build"]["cur"]
        for lots in w["loot"]:
            for lot in lots:
                everything += lot["cards"]
    _need(sorted(everything) == deck, "the cards on the table are not exactly the box's %d "
          "cards (%d found)" % (len(deck), len(everything)))
    if not s["end"]:
        try:
            state.legal_moves()
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise BadPosition("the state is inconsistent: %r" % (exc,))
    return state

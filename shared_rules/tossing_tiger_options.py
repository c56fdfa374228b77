"""Tossing Tiger, Rolling Dragon: the options, and what every part of its rules shares.

The lowest of the game's files (the model is in `shared_rules.tossing_tiger`, the game's
module): the house constants, the options and the deck they put in play, the decisions a
player meets (PHASE_HINTS) and the steps of a war, the empty places of a battle, and small
helpers on sorted lists of card names. It imports none of the game's other files, which all
take their shared names from here.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import tossing_tiger_data as data
from shared_rules.errors import BadPosition

TITLE = "Tossing Tiger, Rolling Dragon"
PLAYER_COUNTS = (2, 3, 4, 5, 6)

HAND_SIZE = const(6)  # "Deal all players a random deck of 6 cards."
MAX_MIN_DICE = HAND_SIZE // 2  # min_dice: a dealt hand makes at most this many dice of 2
MIN_PILE = const(2)  # "Every pile must have at least 2 cards"
MIN_PILE_TEAM = const(3)  # Fight Together: "Every die must contain at least 3 cards"
WAR_PILE_END = const(10)  # Fight Together: the game ends when the war pile has 10 cards
FT_MIN_PLAYERS = const(4)  # Fight Together: two teams of 2 at least (see rules decisions)
TEAM_LOW = const(2)  # Fight Together: a player with 2 cards or fewer ends the game
DEFAULT_MAX_TURNS = const(300)  # house safeguard: wars in a game at most
MAX_TURNS_LIMIT = const(100000)

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

# The steps of a war (war["step"]), in the order a war goes through them; TigerState has
# one method per step, _step_<name> (the actions' in tossing_tiger_animals, every other
# in tossing_tiger_war).
WAR_STEPS = ("build", "pre", "roll", "reveal", "act", "settle", "post", "final", "claim",
             "keep", "tribute")


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

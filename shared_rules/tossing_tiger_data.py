"""Tossing Tiger, Rolling Dragon: the cards as data.

Everything a print of the game decides lives here, apart from the engine
(`shared_rules.tossing_tiger`): the animals of each set, how many copies a box holds, what
every card does (in our own words, for renderers and docs), the strength tables and the
Rooster cards. A print draws its strength table and its Roosters at random; the engine
takes them as named, versioned data sets:

- `"house-1"`: the house table and the house Roosters shipped with the project. A built-in
  data set is never changed in place: a new version gets a new name (`"house-2"`...), so
  recorded games keep replaying.
- `"print-<n>"` (n from 0 to 4294967295): generated from seed n the way the published
  generator makes a new print (see `generate_strengths` and `generate_roosters`).
- a user's own table or Rooster list as text (`parse_strengths`, `parse_roosters`), checked
  line by line; errors name the line and the field.

Pure data and small functions: no I/O, no clock, randomness only from `shared_rules.prng`.
"""

from shared_rules import prng

# The animals of each set, in the order of the published generator's card dictionary (that
# order decides which strengths a generated print gives, see generate_strengths).
BASE_ANIMALS = ("tiger", "dragon", "mantis", "crane", "monkey", "panda", "turtle", "leopard")
ZOO_ANIMALS = ("snake", "peacock", "bull", "redpanda", "chameleon", "horse", "unicorn", "frog")
ANIMALS = BASE_ANIMALS + ZOO_ANIMALS
BIRD = "bird"  # Fight Together's communication card (the "Blabbering Bird")
ROOSTER = "rooster"  # Dawndojo: every Rooster card is named rooster1, rooster2, ...
# Every card type: a strength, a Dawn pick or a Rooster Change can name any of these.
TYPES = ANIMALS + (BIRD, ROOSTER)

# Copies in a box: 6 of each base animal (48 cards), 5 of each More Animals animal (40: the
# generator asks for 36 and adds whole shuffled rounds of 8 until it has them), 9 birds.
BASE_COPIES = 6
ZOO_COPIES = 5
BIRD_COPIES = 9

# Animals printed without strengths of their own (their action decides their battles).
STRENGTHLESS = ("tiger", "panda")

FULL_NAMES = {
    "tiger": "Tossing Tiger", "dragon": "Rolling Dragon", "mantis": "Midjab Mantis",
    "crane": "Crouching Crane", "monkey": "Megakick Monkey", "panda": "Pushing Panda",
    "turtle": "Trickstomp Turtle", "leopard": "Lunging Leopard",
    "snake": "Swinging Snake", "peacock": "Pirouette Peacock", "bull": "Bashing Bull",
    "redpanda": "Rearpunch Red Panda", "chameleon": "Crabbing Chameleon",
    "horse": "Highkick Horse", "unicorn": "Undercut Unicorn", "frog": "Feinting Frog",
    "bird": "Blabbering Bird", "rooster": "Roaring Rooster",
}

# What each card does, in the project's own words (the engine implements exactly this; see
# docs/tossing-tiger-notation.md for the fine print).
ACTIONS = {
    "tiger": "Toss it: face up, you win this battle; face down, your opponent wins it.",
    "dragon": "Reroll your die in this battle or in an earlier one (your choice).",
    "mantis": "",
    "crane": "",
    "monkey": "Look at both dice of one later battle.",
    "panda": "Every animal you revealed in earlier battles counts as one of its strengths.",
    "turtle": "Cancels the action of the opposing card.",
    "leopard": "Swap two of your own dice, revealed or not.",
    "snake": "Lost every earlier battle: it always loses. Won every one: it always wins.",
    "peacock": "If the next battle has no single winner, you become its single winner.",
    "bull": "Destroy a revealed card of an earlier battle.",
    "redpanda": "If the opposing card is strong against it, draw a card from the deck or "
                "take a revealed card of an earlier battle.",
    "chameleon": "Copy the action of a card in the previous battle.",
    "horse": "If you revealed all its strengths in earlier battles, it is strong against "
             "everything.",
    "unicorn": "If all your earlier animals differ, your later animals are strong against "
               "unicorns.",
    "frog": "If anyone revealed a frog in an earlier battle, it always loses.",
    "bird": "Always loses. Its team may talk freely about this war until the next reveal.",
    "rooster": "Always loses, unless this war's Dawn card changes Roosters.",
}

# Dawndojo. A Rooster card pairs one Dawn rule (true for the whole war when the card is
# played face up in the first pile's place) with one Rooster Change (applied to every
# Rooster revealed by a regular roll later in that war). The keys are the published
# generator's; the texts are ours. 16 Dawn rules, 14 Rooster Changes: a print pairs them at
# random and makes 14 Roosters.
DAWN_RULES = {
    "one_less": "The opponent makes one die fewer; you win against the empty spot.",
    "one_merge": "Once this war, before a battle, you may make the opponent merge a later "
                 "die into this battle's die; you win against the empty spot.",
    "one_reroll": "Each side has one free reroll during this war.",
    "no_winner": "Nobody wins this war overall.",
    "tied_winner": "If the war ends in a tie, both sides win it.",
    "early_stop": "The war ends as soon as a side has lost 2 battles.",
    "final_reroll": "The winner of the last battle gets one free reroll at the war's end.",
    "multi_stage": "The war goes one battle at a time: dice are made just before each battle.",
    "bait_and_switch": "At the war's end, each side may give up a battle it won to win one "
                       "it did not.",
    "strong_type": "Pick an animal: all your animals are strong against it this war.",
    "weak_type": "Pick an animal: nothing is strong against it this war.",
    "superhero_type": "Pick an animal: it cannot lose its battles this war.",
    "superweak_type": "Pick an animal: it has no strengths this war.",
    "guess": "Once this war, before a battle, guess the opponent's card; if right, you win it.",
    "flee": "Before a battle, either side may concede it; that cancels the war's pile bonus.",
    "no_ties": "Where both sides reveal the same animal, your opponent loses.",
}
DAWN_KEYS = tuple(sorted(DAWN_RULES))

ROOSTER_CHANGES = {
    "rooster_always_win": "Always wins. If the opponent reveals a Rooster too, the war ends "
                          "at once and the opponent wins it.",
    "rooster_always_lose": "Always loses. You may stop the war now, or remove an earlier "
                           "battle from it.",
    "rooster_always_lose_alt": "Always loses. Take up to 3 cards of your later dice back "
                               "into your hand.",
    "rooster_always_win_alt": "Always wins. The opposing animal stops being a strength of "
                              "any card in later battles.",
    "rooster_insta_end": "You may give this die to your opponent: the war stops with no "
                         "overall winner.",
    "rooster_concede": "You may lose this battle on purpose: nobody wins the war's pile bonus.",
    "rooster_skip": "You may retreat from the next battle: it is not fought.",
    "rooster_change": "You may lose this battle on purpose to remake your later dice.",
    "rooster_disable": "In later battles, Roosters are strong against the opposing animal.",
    "rooster_steal": "If more than 3 Roosters were revealed in earlier battles, take a card "
                     "of one of the opponent's dice.",
    "rooster_count": "If you win this battle, take as many cards of the opposing die as "
                     "Roosters were revealed in earlier battles.",
    "rooster_change_bonus": "Set the war's bonus: the winner takes 1, 2, 3 or 4 whole dice.",
    "rooster_pity_type": "If you lost every earlier battle, pick an animal: your later "
                         "animals are strong against it.",
    "rooster_multi_bonus": "The war's bonus is multiplied by the earlier battles you won.",
}
CHANGE_KEYS = tuple(sorted(ROOSTER_CHANGES))

# ---------------------------------------------------------------- built-in data sets

# House strength table, version 1 (never edit: add "house-2" instead). Designed by hand for
# the base set: the six animals with strengths have 3 or 4 each (the generator's average is
# 3.5), every animal is beaten by 2 or 3 others, and one pair (mantis, leopard) is strong
# both ways. More Animals: every animal has 3 or 4 strengths and is beaten by 3 or 4.
HOUSE_STRENGTHS = {
    "house-1": {
        "tiger": (), "panda": (),
        "dragon": ("tiger", "mantis", "crane", "panda"),
        "mantis": ("crane", "monkey", "leopard"),
        "crane": ("monkey", "panda", "turtle"),
        "monkey": ("tiger", "dragon", "turtle", "leopard"),
        "turtle": ("dragon", "mantis", "leopard"),
        "leopard": ("dragon", "mantis", "crane", "panda"),
        "snake": ("peacock", "redpanda", "frog"),
        "peacock": ("bull", "chameleon", "unicorn"),
        "bull": ("snake", "redpanda", "horse", "frog"),
        "redpanda": ("peacock", "chameleon", "unicorn"),
        "chameleon": ("snake", "horse", "frog"),
        "horse": ("snake", "bull", "unicorn"),
        "unicorn": ("bull", "redpanda", "chameleon", "frog"),
        "frog": ("snake", "peacock", "horse"),
    },
}

# House Roosters, version 1: 14 cards, each Dawn rule with a Rooster Change. The two Dawn
# rules that need the most bookkeeping at the table (one_merge, multi_stage) are left out,
# as a print always leaves two out; generated prints may include them.
HOUSE_ROOSTERS = {
    "house-1": (
        ("one_less", "rooster_always_win"),
        ("one_reroll", "rooster_always_lose"),
        ("no_winner", "rooster_always_lose_alt"),
        ("tied_winner", "rooster_always_win_alt"),
        ("early_stop", "rooster_insta_end"),
        ("final_reroll", "rooster_concede"),
        ("bait_and_switch", "rooster_skip"),
        ("strong_type", "rooster_change"),
        ("weak_type", "rooster_disable"),
        ("superhero_type", "rooster_steal"),
        ("superweak_type", "rooster_count"),
        ("guess", "rooster_change_bonus"),
        ("flee", "rooster_pity_type"),
        ("no_ties", "rooster_multi_bonus"),
    ),
}

# ---------------------------------------------------------------- the print generator

# The published generator's numbers: per set, the share (in percent) of animals with 1 to 5
# strengths, and the number of cards that need strengths (base: 48 cards of which the 12
# tigers and pandas need none; More Animals: 36 cards asked for).
STRENGTH_SHARES = {"base": (15, 15, 25, 35, 10), "zoo": (10, 20, 30, 30, 10)}
CARDS_NEEDING_STRENGTHS = {"base": 36, "zoo": 36}
MAX_TEXT = 4000  # a user's table or Rooster list is refused beyond this many characters


def _shuffle(items, x):
    # Fisher-Yates with the game's PRNG; returns the new PRNG state.
    for i in range(len(items) - 1, 0, -1):
        j, x = prng.below(x, i + 1)
        items[i], items[j] = items[j], items[i]
    return x


def _generate_set(animals, shares, need, x):
    # As the published generator does for one set: a pool of strength counts where the count
    # k appears ceil(share_k * need) * k times, shuffled; the set's animals in a random order
    # each take the last count of the pool (animals printed without strengths take none);
    # the strengths themselves are consecutive runs of the set's animals, in their fixed
    # order and round and round, so an animal's strengths never repeat and may include
    # itself.
    pool = []
    for k in range(1, 6):
        pct = shares[k - 1]
        times = (pct * need + 99) // 100  # ceil(pct / 100 * need) in whole numbers
        pool += [k] * (times * k)
    x = _shuffle(pool, x)
    order = list(animals)
    x = _shuffle(order, x)
    table = {}
    at = 0
    for a in order:
        if a in STRENGTHLESS:
            table[a] = ()
            continue
        c = pool.pop()
        table[a] = tuple(animals[(at + i) % len(animals)] for i in range(c))
        at += c
    return table, x


def generate_strengths(seed):
    """The strength table of print number `seed`: both sets, base first, one PRNG stream."""
    x = prng.seed_state(seed)
    base, x = _generate_set(BASE_ANIMALS, STRENGTH_SHARES["base"],
                            CARDS_NEEDING_STRENGTHS["base"], x)
    zoo, x = _generate_set(ZOO_ANIMALS, STRENGTH_SHARES["zoo"],
                           CARDS_NEEDING_STRENGTHS["zoo"], x)
    base.update(zoo)
    return base


def generate_roosters(seed):
    """The Roosters of print number `seed`: the Dawn rules and the Rooster Changes are each
    shuffled, then paired from the end of both lists while both last (14 Roosters)."""
    x = prng.seed_state(seed)
    dawn = list(DAWN_KEYS)
    change = list(CHANGE_KEYS)
    x = _shuffle(dawn, x)
    x = _shuffle(change, x)
    out = []
    while dawn and change:
        out.append((dawn.pop(), change.pop()))
    return tuple(out)


# ---------------------------------------------------------------- data sets by name or text

def _print_number(name):
    # n for "print-<n>", else -1.
    if not name.startswith("print-"):
        return -1
    digits = name[6:]
    if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
        return -1
    n = int(digits)
    return n if n <= prng.SEED_MAX else -1


def _lines(text):
    # (line number, fields) of the lines that carry something ('#' starts a comment).
    out = []
    for no, line in enumerate(text.split("\n")):
        cut = line.find("#")
        if cut >= 0:
            line = line[:cut]
        fields = line.replace(":", " : ").split()
        if fields:
            out.append((no + 1, fields))
    return out


def parse_strengths(text):
    """A strength table from text, one animal a line: `dragon: tiger mantis crane`.

    Animals not named have no strengths; a strength may be any card type (the 16 animals,
    bird, rooster). ValueError names the line and the field that is wrong."""
    if len(text) > MAX_TEXT:
        raise ValueError("a strength table is at most %d characters" % MAX_TEXT)
    table = {}
    for no, fields in _lines(text):
        if len(fields) < 2 or fields[1] != ":":
            raise ValueError("strengths line %d: write 'animal: strength strength ...'" % no)
        animal = fields[0]
        if animal not in ANIMALS:
            raise ValueError("strengths line %d, field 1: %r is not an animal (%s)"
                             % (no, animal, ", ".join(ANIMALS)))
        if animal in table:
            raise ValueError("strengths line %d, field 1: %s is listed twice" % (no, animal))
        got = []
        for i, s in enumerate(fields[2:]):
            if s not in TYPES:
                raise ValueError("strengths line %d, field %d: %r is not a card type (%s)"
                                 % (no, i + 2, s, ", ".join(TYPES)))
            if s in got:
                raise ValueError("strengths line %d, field %d: %s is named twice"
                                 % (no, i + 2, s))
            got.append(s)
        table[animal] = tuple(got)
    return table


def parse_roosters(text):
    """Rooster cards from text, one a line: `one_less rooster_always_win` (a Dawn rule, then
    a Rooster Change); 1 to 16 lines. ValueError names the line and the field."""
    if len(text) > MAX_TEXT:
        raise ValueError("a Rooster list is at most %d characters" % MAX_TEXT)
    out = []
    for no, fields in _lines(text):
        if len(fields) != 2:
            raise ValueError("roosters line %d: write 'dawn_rule rooster_change'" % no)
        if fields[0] not in DAWN_RULES:
            raise ValueError("roosters line %d, field 1: %r is not a Dawn rule (%s)"
                             % (no, fields[0], ", ".join(DAWN_KEYS)))
        if fields[1] not in ROOSTER_CHANGES:
            raise ValueError("roosters line %d, field 2: %r is not a Rooster Change (%s)"
                             % (no, fields[1], ", ".join(CHANGE_KEYS)))
        out.append((fields[0], fields[1]))
    if not 1 <= len(out) <= 16:
        raise ValueError("a Rooster list has 1 to 16 lines, not %d" % len(out))
    return tuple(out)


def strength_table(name):
    """The full strength table {animal: strengths} of a data set name or text; ValueError
    when it is neither a built-in name, nor print-<n>, nor a valid table text."""
    if not isinstance(name, str):
        raise ValueError("strengths must be a text, not %r" % (name,))
    if name in HOUSE_STRENGTHS:
        table = dict(HOUSE_STRENGTHS[name])
    elif _print_number(name) >= 0:
        table = generate_strengths(_print_number(name))
    elif ":" in name:
        table = parse_strengths(name)
    else:
        raise ValueError("unknown strength table %r (built in: %s; or print-<n>; or a table "
                         "as text)" % (name, ", ".join(sorted(HOUSE_STRENGTHS))))
    for a in ANIMALS:
        table.setdefault(a, ())
    return table


def rooster_list(name):
    """The Roosters ((dawn rule, change), ...) of a data set name or text; ValueError when it
    is neither a built-in name, nor print-<n>, nor a valid Rooster list text."""
    if not isinstance(name, str):
        raise ValueError("roosters must be a text, not %r" % (name,))
    if name in HOUSE_ROOSTERS:
        return HOUSE_ROOSTERS[name]
    if _print_number(name) >= 0:
        return generate_roosters(_print_number(name))
    if " " in name.strip() or "\n" in name:
        return parse_roosters(name)
    raise ValueError("unknown Rooster list %r (built in: %s; or print-<n>; or a list as "
                     "text)" % (name, ", ".join(sorted(HOUSE_ROOSTERS))))


def table_text(table):
    """A strength table as text that parse_strengths reads back (every animal, set order)."""
    return "\n".join("%s: %s" % (a, " ".join(table.get(a, ()))) for a in ANIMALS)

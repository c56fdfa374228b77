"""Computer players: generic bots that play any game of `shared_rules.games`, and the
bots a game brings along in its host package (`vora_host.games.<module>.BOTS`).

    bot = make_bot("random", seed=7, game="vorcept")
    bot = make_bot("search:2000", seed=7, game="vora")   # 2000 iterations a move
    move = bot.choose(state)

A kind string is the bot's kind, then optional parameters after colons, read by the
bot's class (`Bot.from_spec`). The search bot's: `search` (1000 iterations a move),
`search:N` (N iterations: reproducible), `search:Nms` or `search:Ns` (a time budget: as
many iterations as fit, so it depends on the machine), and name=value settings such as
`search:500:horizon=8:c=1` (vora_host/bots/search.py lists them). A bot's `kind`
attribute is the kind string that makes it again, as game records keep it.

Levels for people: `easy`, `normal` and `hard` stand for a concrete kind of each game
(vora_host/bots/levels.py, measured in docs/bots.md): `make_bot("hard", 7, "vora")` is
the bot that table names for Vora, and its `kind` is that concrete kind.
"""

from vora_host.bots.base import Bot, RandomBot
from vora_host.bots.levels import LEVEL_NAMES, level_kind
from vora_host.bots.search import SearchBot

__all__ = ["Bot", "RandomBot", "SearchBot", "GENERIC_BOTS", "LEVEL_NAMES", "bot_kinds",
           "level_of", "make_bot", "player_title", "short_kind", "split_kind"]

# Bots every game gets.
GENERIC_BOTS = {RandomBot.kind: RandomBot, SearchBot.kind: SearchBot}


def bot_kinds(game="vora"):
    """{kind: class} of the bots that play `game`: the generic ones and the game's own."""
    from vora_host import games
    kinds = dict(GENERIC_BOTS)
    kinds.update(games.host_game(game).BOTS)
    return kinds


def split_kind(kind):
    """("search", "2000") from "search:2000": the kind and its parameters ("" if none)."""
    if not isinstance(kind, str):
        raise ValueError("a bot kind is a text such as 'random' or 'search:2000', not %r"
                         % (kind,))
    name, _, arg = kind.strip().partition(":")
    return name.lower(), arg


def make_bot(kind, seed=0, game="vora"):
    """A bot of the named kind (parameters included, see above) for `game`, seeded with
    `seed`; ValueError naming the kinds there are for an unknown one, or the parameter
    the bot cannot read."""
    kinds = bot_kinds(game)
    name, arg = split_kind(kind)
    if name in LEVEL_NAMES:
        if arg:
            raise ValueError("the level %r takes no parameters, not %r (it stands for %s "
                             "in %s)" % (name, arg, level_kind(game, name), game))
        name, arg = split_kind(level_kind(game, name))
    try:
        cls = kinds[name]
    except KeyError:
        raise ValueError("unknown bot %r for %s (choose from %s), or a level (%s)"
                         % (name, game, ", ".join(sorted(kinds)), ", ".join(LEVEL_NAMES)))
    return cls.from_spec(seed, game, arg)


# {game: {concrete kind: level}}, filled on first use: making a bot of each level is how
# the level's kind string is spelled the way a bot spells its own `kind`.
_LEVEL_OF_KIND = {}


def level_of(game, kind):
    """The level (`easy`, `normal`, `hard`) whose bot in `game` has this concrete kind,
    or None: a record keeps only the concrete kind, and this gives people the level back."""
    if game not in _LEVEL_OF_KIND:
        levels = {}
        for level in LEVEL_NAMES:
            levels.setdefault(make_bot(level, 0, game).kind, level)
        _LEVEL_OF_KIND[game] = levels
    return _LEVEL_OF_KIND[game].get(kind)


# {(game, kind): its shortest spelling}, filled on first use.
_SHORT_KINDS = {}


def short_kind(game, kind):
    """The shortest spelling of `kind` that makes the same bot in `game`: a setting the
    game chooses anyway is left out, so Gaia-Vora's `search:30:horizon=12:temperature=6`
    reads `search:30`. Records keep the full kind (it names the bot whatever the game's
    settings become); people see this one, which fits a seat row at 80 columns and can be
    typed back to `--bot`. A kind no bot of the game has is returned as it is."""
    key = (game, kind)
    if key not in _SHORT_KINDS:
        _SHORT_KINDS[key] = _shortest(game, kind)
    return _SHORT_KINDS[key]


def _shortest(game, kind):
    try:
        target = make_bot(kind, 0, game).kind
    except ValueError:
        return kind
    name, arg = split_kind(kind)
    parts = arg.split(":") if arg else []
    for part in list(parts):
        if "=" not in part:
            continue  # a budget is always said: it is what the player chose
        fewer = [p for p in parts if p != part]
        try:
            same = make_bot(":".join([name] + fewer), 0, game).kind == target
        except ValueError:
            same = False
        if same:
            parts = fewer
    return ":".join([name] + parts)


def player_title(game, kind):
    """How a seat's player is named to people: the kind (its short spelling, `short_kind`),
    with the level it stands for first when it is one (`hard, search:horizon=6`), so a
    player who chose `--bot 1=hard` (or resumed such a game) sees the level."""
    level = level_of(game, kind)
    short = short_kind(game, kind)
    return "%s, %s" % (level, short) if level else short

"""What a lab run is: the game, the seats' bots, the options, the values compared, how
many games and from which seed. A spec is plain JSON-ready data, written at the head of a
run's games file, so that a run can be resumed and its report says exactly what was played.

Seeds: game `i` of a run with base seed `S` is dealt with seed H(S, "game", i) and the bot
at seat `p` gets H(S, "bot", i, p, replica), H being SHA-256 cut to 32 bits. So a game's
seeds depend on nothing but the base seed and its index: not on the number of games,
the workers, the machine, nor on the value being compared (every value plays the same
deals with the same bot seeds, which is what makes the comparison paired).
"""

import hashlib
import json

from shared_rules import games as rules_games
from shared_rules import prng
from shared_rules.errors import BadPosition

__all__ = ["LabSpec", "SpecError", "derive_seed", "game_seed", "bot_seeds", "split_values",
           "PLAYERS"]

# `--compare players=2,3,4` compares player counts, which are not a game option.
PLAYERS = "players"
# A game that runs past this many moves is stopped by the lab ("lab-cap"): every game has
# its own safeguard, so meeting this one means that safeguard failed.
DEFAULT_MAX_MOVES = 100000
SPEC_VERSION = 1


class SpecError(ValueError):
    """A lab spec that cannot be run: the message names what is wrong."""


def derive_seed(*parts):
    """A seed from 0 to prng.SEED_MAX that depends on `parts` alone (ints and strings)."""
    text = json.dumps(parts, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") % (prng.SEED_MAX + 1)


def game_seed(base, index):
    return derive_seed(base, "game", index)


def bot_seeds(base, index, players, replica=0):
    return [derive_seed(base, "bot", index, seat, replica) for seat in range(players)]


def split_values(text):
    """Values of `--compare NAME=V1,V2,...`: split at commas outside JSON braces, brackets
    and quotes, so that dict options can be compared too."""
    out, depth, quote, start = [], 0, False, 0
    for k, ch in enumerate(text):
        if quote:
            if ch == '"' and text[k - 1] != "\\":
                quote = False
        elif ch == '"':
            quote = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:k].strip())
            start = k + 1
    out.append(text[start:].strip())
    return out


class LabSpec:
    """A lab run. Build with LabSpec(...) then check(); to_dict()/from_dict() round-trip."""

    def __init__(self, game, players=None, bots=("random",), options=None, games=200, seed=0,
                 compare=None, seed_effect=None, max_moves=DEFAULT_MAX_MOVES):
        self.game = game
        self.players = players
        self.bots = list(bots)
        self.options = dict(options or {})
        self.games = games
        self.seed = seed
        # (option name, [values]) or None; the values already of the option's type.
        self.compare = None if compare is None else (compare[0], list(compare[1]))
        self.seed_effect = seed_effect  # replica games; None: decided by check()
        self.max_moves = max_moves

    # ---- what is played

    def variants(self):
        """[(label, players, options)] in order: one without --compare, else one per value."""
        if self.compare is None:
            return [(self.plain_label(), self.players, dict(self.options))]
        name, values = self.compare
        out = []
        for value in values:
            options = dict(self.options)
            players = self.players
            if name == PLAYERS:
                players = value
            else:
                options[name] = value
            out.append(("%s=%s" % (name, value_label(value)), players, options))
        return out

    def seat_bots(self, players):
        return self.bots * players if len(self.bots) == 1 else list(self.bots)

    def plain_label(self):
        """What the games of a run without --compare are, for its plots' legends and its
        report: "2 players, house options", "3 players, options goal=20"."""
        from vora_host.words import plural
        who = plural(self.players, "player") if isinstance(self.players, int) \
            else "the game's players"
        if not self.options:
            return "%s, house options" % who
        return "%s, options %s" % (who, ", ".join(
            "%s=%s" % (k, value_label(v)) for k, v in sorted(self.options.items())))

    # ---- checks

    def check(self):
        """Check everything against the game and its bots before any game is played;
        SpecError naming the problem. Fills in players and seed_effect when not given."""
        from vora_host import bots as host_bots
        try:
            module = rules_games.load(self.game)
        except BadPosition as exc:
            raise SpecError(str(exc))
        if self.players is None:
            self.players = default_players(module)
        if not isinstance(self.games, int) or self.games < 1:
            raise SpecError("the number of games must be at least 1, not %r" % (self.games,))
        try:
            prng.check_seed(self.seed)
        except ValueError as exc:
            raise SpecError("--seed: %s" % exc)
        if not self.bots:
            raise SpecError("--bots: name at least one bot")
        for kind in self.bots:
            try:
                host_bots.make_bot(kind, 0, self.game)
            except ValueError as exc:
                hint = ""
                if kind.split(":")[0] == "greedy":
                    hint = " ('greedy' is Vora's own bot; other games have their own bots or none)"
                raise SpecError("--bots: %s%s" % (exc, hint))
        if self.compare is not None:
            name, values = self.compare
            if len(values) < 2:
                raise SpecError("--compare %s: give at least two values to compare" % name)
            if len(set(value_text(v) for v in values)) != len(values):
                raise SpecError("--compare %s: a value is given twice" % name)
            if name in self.options:
                raise SpecError("--compare %s: the option is also given with -o; give it in "
                                "one place" % name)
        for label, players, options in self.variants():
            if players not in module.PLAYER_COUNTS:
                raise SpecError("%s is played by %s players, not %r" % (
                    module.TITLE, ", ".join(str(n) for n in module.PLAYER_COUNTS), players))
            if len(self.bots) not in (1, players):
                raise SpecError("--bots: give one bot for every seat or one for all: %d "
                                "given for %d players" % (len(self.bots), players))
            try:
                module.new_game(players, 0, **options)
            except BadPosition as exc:
                raise SpecError("%s: %s" % (label, exc))
            except TypeError as exc:
                raise SpecError("%s: %s" % (label, exc))
        if self.seed_effect is None:
            self.seed_effect = default_seed_effect(self.games) if has_chance(self) else 0
        if not isinstance(self.seed_effect, int) or not 0 <= self.seed_effect <= self.games:
            raise SpecError("--seed-effect: from 0 to the number of games (%d), not %r"
                            % (self.games, self.seed_effect))
        if not isinstance(self.max_moves, int) or self.max_moves < 1:
            raise SpecError("--max-moves must be at least 1")
        return self

    # ---- JSON

    def to_dict(self):
        return {"spec_version": SPEC_VERSION, "game": self.game, "players": self.players,
                "bots": list(self.bots), "options": self.options, "games": self.games,
                "seed": self.seed,
                "compare": None if self.compare is None else [self.compare[0],
                                                              list(self.compare[1])],
                "seed_effect": self.seed_effect, "max_moves": self.max_moves}

    @classmethod
    def from_dict(cls, d):
        """A spec from to_dict() output read back from a file; SpecError if malformed."""
        if not isinstance(d, dict) or d.get("spec_version") != SPEC_VERSION:
            raise SpecError("not a lab spec of version %d" % SPEC_VERSION)
        try:
            compare = d["compare"]
            if compare is not None:
                if not (isinstance(compare, list) and len(compare) == 2
                        and isinstance(compare[0], str) and isinstance(compare[1], list)):
                    raise SpecError("the spec's compare must be [name, [values]]")
                compare = (compare[0], compare[1])
            spec = cls(d["game"], d["players"], d["bots"], d["options"], d["games"], d["seed"],
                       compare, d["seed_effect"], d["max_moves"])
        except KeyError as exc:
            raise SpecError("the spec has no %s" % exc)
        except TypeError as exc:
            raise SpecError("the spec is malformed: %s" % exc)
        for key, kind in (("game", str), ("players", int), ("games", int), ("seed", int),
                          ("seed_effect", int), ("max_moves", int)):
            if not isinstance(getattr(spec, key), kind) or isinstance(getattr(spec, key), bool):
                raise SpecError("the spec's %s has the wrong type" % key)
        if not isinstance(d["options"], dict) or not all(isinstance(b, str) for b in spec.bots):
            raise SpecError("the spec's options or bots have the wrong type")
        return spec

    def same_games(self, other):
        """The fields that must agree for `other`'s games to belong to this run (the number
        of games may differ: a resumed run may be extended). [] when they all agree."""
        a, b = self.to_dict(), other.to_dict()
        return [k for k in a if k not in ("games", "seed_effect") and a[k] != b[k]]


def dict_default(module, name):
    """A dict option's value with every key spelled out (state.options() of a new game)."""
    players = 2 if 2 in module.PLAYER_COUNTS else module.PLAYER_COUNTS[0]
    value = module.new_game(players, 0).options().get(name)
    return value if isinstance(value, dict) else None


def value_text(value):
    """An option value as the command line would give it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return str(value)


def default_players(module):
    """2 players where the game allows them, else its smallest count (as vora play)."""
    return 2 if 2 in module.PLAYER_COUNTS else module.PLAYER_COUNTS[0]


def value_label(value):
    """A value as a short label: a dict with one count for every key is "N each"."""
    if isinstance(value, dict) and value and len(set(map(repr, value.values()))) == 1:
        return "%s each" % value_text(next(iter(value.values())))
    return value_text(value)


def default_seed_effect(games):
    """Replica games played by default for a game with chance: a fifth of the games, at
    least 50 (or all of them), at most 1000."""
    return min(games, max(50, min(1000, (games + 4) // 5)))


def has_chance(spec):
    """Does the seed change anything in this game? Two short random games with the same
    bot seeds and different game seeds: with no chance they are the same game."""
    from vora_host import bots as host_bots
    module = rules_games.load(spec.game)
    label, players, options = spec.variants()[0]
    players = players or default_players(module)
    histories = []
    for seed in (1, 2):
        state = module.new_game(players, seed, **options)
        agents = [host_bots.make_bot("random", 7 + p, spec.game) for p in range(players)]
        seen = [json.dumps(state.view(None), sort_keys=True)]
        for _ in range(300):
            if state.is_over():
                break
            move = agents[state.to_act()].choose(state)
            state.play(move)
            seen.append(move)
            seen.append(json.dumps(state.view(None), sort_keys=True))
        histories.append(seen)
    return histories[0] != histories[1]

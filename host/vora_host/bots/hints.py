"""Hints: the move the `hard` level would play for a player, from what that player sees.

    hint = compute_hint("boars", state, number=12)   # the player to act's hint
    hint.move, hint.reason                           # "draw 3", "your boar 14 -> 17"

What a hint may know is what its player may know: `state.view(player)` and nothing
else. The hint is computed on a determinisation of that view (`module.determinize(view,
seed)`: the others' secrets dealt at random, the future draws seeded afresh), so a bot
that reads the whole state (Vora's lookahead) reads only what the player could have
known; the search bot reads the view anyway. Every seed involved comes from public
things only (`hint_seed`: the game's name, the number of moves played, the player),
never from the game's seed, its PRNG or another player's secret: two games that differ
only in what the player cannot see give the same hint, reason included
(tests/test_hints.py deals the others' secrets again to check it).

The bot is `make_bot("hard", hint_seed(...), game)`: the same bot the level names
(vora_host/bots/levels.py), with that seed. A hint answers within 2 s of CPU: where the
hard level's search takes longer (Tossing Tiger at 5 or 6 players, measured by
bench/bench_hints.py), it stops at `CPU_LIMIT_S` of the process's CPU time with the best
move found so far, and the hint says it was `cut` (then it depends on the machine's speed,
never on a secret). The reason says only what is certain from
the player's view: the move is played on a few determinisations (public seeds too), and
only what it does alike in all of them is said (what the game's view says the move
changed, `describe`; the player's score before and after; a win).
"""

import json
import time
import zlib

from shared_rules import games, prng

from vora_host import games as host_games
from vora_host.bots import SearchBot, make_bot
from vora_host.bots.levels import level_kind

__all__ = ["Hint", "compute_hint", "hint_kind", "hint_seed", "CPU_LIMIT_S", "HINT_LEVEL",
           "REASON_SAMPLES"]

HINT_LEVEL = "hard"
CPU_LIMIT_S = 1.8  # the search's share of a hint's 2 s of CPU (its reason takes a few ms)
REASON_SAMPLES = 3  # determinisations the reason must hold in (games with secrets)
_SEEDS = prng.SEED_MAX + 1

# What a game's scores() counts for one player, in the words of a reason.
SCORE_WORDS = {"boars": "your boar's space", "tossing-tiger": "your cards",
               "vorcept": None}  # Vorcept scores only a win: said as a win


class Hint:
    """A hint: `move` (legal for `player`), `reason` ('' when nothing certain can be
    said), the move `number` it is for (moves played before it), the bot's `kind`,
    `seconds` of CPU it took, and whether its search was `cut` at CPU_LIMIT_S."""

    def __init__(self, player, number, move, reason, kind, seconds, cut=False):
        self.player = player
        self.number = number
        self.move = move
        self.reason = reason
        self.kind = kind
        self.seconds = seconds
        self.cut = cut

    def text(self):
        """'push crow Sc (P0 +3 L; your score 2 -> 5)': the move and its reason."""
        return "%s (%s)" % (self.move, self.reason) if self.reason else self.move

    def data(self):
        """What the game log keeps of it (GameLog.add_event's data)."""
        data = {"seat": self.player, "number": self.number, "move": self.move,
                "reason": self.reason, "kind": self.kind,
                "cpu_ms": int(round(self.seconds * 1000))}
        if self.cut:
            data["cut"] = True
        return data

    def __repr__(self):
        return "Hint(P%d, move %d: %r)" % (self.player, self.number + 1, self.text())


def hint_seed(game, number, player):
    """The seed of a hint: from public things only (the game's name, how many moves were
    played, the player asking), the same every time the same position is asked about."""
    text = "hint/%s/%d/%d" % (game, number, player)
    return zlib.crc32(text.encode("ascii")) % _SEEDS


def compute_hint(game, state, number, player=None, cpu_limit=...):
    """The hint for `player` (the player to act; ValueError for another, or when the game
    is over) in `state` of `game` (a registry name), `number` moves into the game. Reads
    `state.view(player)` only. `cpu_limit`: seconds of CPU the search may take at most
    (None: the hard level's whole budget, however long; by default CPU_LIMIT_S)."""
    if cpu_limit is ...:
        cpu_limit = CPU_LIMIT_S
    if state.is_over():
        raise ValueError("the game is over: no hint")
    to_act = state.to_act()
    if player is None:
        player = to_act
    if player != to_act:
        raise ValueError("a hint is for the player to act (P%d), not P%d" % (to_act, player))
    started = time.process_time()
    module = games.load(game)
    text = json.dumps(state.view(player))
    seed = hint_seed(game, number, player)
    bot = make_bot(HINT_LEVEL, seed, game)
    budget = getattr(bot, "iterations", None)
    if cpu_limit is not None and isinstance(bot, SearchBot):
        # Whichever ends first: the level's iterations or the CPU time (SearchBot).
        bot.ms, bot.clock = cpu_limit * 1000.0, "cpu"
    seen = module.determinize(json.loads(text), seed)
    move = bot.choose(seen)
    done = bot.last.get("iterations") if isinstance(bot, SearchBot) else None
    cut = budget is not None and done is not None and 0 < done < budget
    reason = _reason(game, module, text, move, player, seed)
    return Hint(player, number, move, reason, bot.kind, time.process_time() - started, cut)


def hint_kind(game):
    """The concrete bot kind hints use in `game` (the `hard` level's)."""
    return level_kind(game, HINT_LEVEL)


def _reason(game, module, text, move, player, seed):
    # What the move does alike on every determinisation of the player's view (in a game
    # without secrets or chance they are all the same game: a move is cheap to replay).
    view = host_games.host_game(game).VIEW
    agreed = None
    for k in range(REASON_SAMPLES):
        before = module.determinize(json.loads(text), (seed + 1 + k) % _SEEDS)
        after = before.clone()
        after.play(move)
        parts = _parts(game, view, before, after, player)
        agreed = parts if agreed is None else [p for p in agreed if p in parts]
    return "; ".join(agreed or [])


def _parts(game, view, before, after, player):
    parts = []
    if after.is_over():
        winner = after.winner()
        parts.append("wins the game" if winner == player else
                     "ends the game in a draw" if winner is None else "ends the game")
    changed = view.describe(before, after, player)
    if changed:
        parts.append(changed)
    words = SCORE_WORDS.get(game, "your score")
    old, new = before.scores()[player], after.scores()[player]
    if words and old != new:
        parts.append("%s %s -> %s" % (words, old, new))
    return parts

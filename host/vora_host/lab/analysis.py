"""From the games' summaries to the report's numbers.

`Results` keeps, per variant (value compared), one slot per game index: compact integer
arrays rather than the summaries themselves, so that millions of games fit in memory.
Totals are whole numbers and every list is read in index order, so the report is the same
whatever order the games came back in. `report()` turns them into the JSON-ready report:
per variant, then each variant against the first one (paired: same seeds).
"""

import hashlib
from array import array

from vora_host.lab import stats
from vora_host.lab.playing import LAB_CAP

__all__ = ["Results", "SummaryError", "check_summary", "SAFEGUARD_END"]

MISSING = -2 ** 31
DRAW = -1
# The end reason a game's house turn limit writes (docs/adding-a-game.md): the lab shows
# it apart from the rulebook's ends.
SAFEGUARD_END = "turns"
ALPHA = 0.05
MAX_KIND_LENGTH = 40


_KIND_NAMES = {int: "a whole number", str: "a text", list: "a list", dict: "an object"}


class SummaryError(ValueError):
    """A game summary (from a worker or a file) that does not fit the run."""


def check_summary(s, spec, variants):
    """Check a summary read from a file field by field; SummaryError naming the field."""
    def need(key, kind):
        v = s.get(key)
        if not isinstance(v, kind) or isinstance(v, bool):
            raise SummaryError("field %r is missing or not %s" % (key, _KIND_NAMES[kind]))
        return v
    if not isinstance(s, dict):
        raise SummaryError("a game summary is a JSON object")
    v, i, r = need("v", int), need("i", int), need("r", int)
    if not 0 <= v < len(variants):
        raise SummaryError("variant %d is not one of this run's %d" % (v, len(variants)))
    if r not in (0, 1) or not 0 <= i < (spec.games if r == 0 else spec.seed_effect):
        raise SummaryError("game %d (replica %d) is outside this run" % (i, r))
    players = need("players", int)
    if players != variants[v][1]:
        raise SummaryError("%d players where the run has %d" % (players, variants[v][1]))
    scores = need("scores", list)
    if len(scores) != players or not all(isinstance(x, int) and not isinstance(x, bool)
                                         and abs(x) < 2 ** 30 for x in scores):
        raise SummaryError("field 'scores' must hold one whole number per player")
    winner = s.get("winner")
    if winner is not None and (not isinstance(winner, int) or isinstance(winner, bool)
                               or not 0 <= winner < players):
        raise SummaryError("field 'winner' must be a player or null")
    for key in ("turns", "moves", "seed"):
        if not 0 <= need(key, int) < 2 ** 31 * 2:
            raise SummaryError("field %r is out of range" % key)
    end = need("end", str)
    if len(end) > MAX_KIND_LENGTH:
        raise SummaryError("field 'end' is too long")
    kinds = need("kinds", dict)
    if len(kinds) > 200:
        raise SummaryError("field 'kinds' has too many move kinds")
    for k, row in kinds.items():
        if not (isinstance(k, str) and 0 < len(k) <= MAX_KIND_LENGTH and isinstance(row, list)
                and len(row) == players and all(isinstance(x, int) and not isinstance(x, bool)
                                                and 0 <= x < 2 ** 31 for x in row)):
            raise SummaryError("field 'kinds' must map move kinds to one count per player")
    need("digest", str)
    return s


class _Slots:
    """One variant's games (replica 0) or replica games (1), by index."""

    def __init__(self, size, players):
        self.players = players
        self.winner = array("i", [MISSING]) * size
        self.turns = array("i", [0]) * size
        self.moves = array("i", [0]) * size
        self.end = array("i", [0]) * size  # an index into Results.ends
        self.scores = [array("i", [0]) * size for _ in range(players)]

    def present(self):
        return [i for i, w in enumerate(self.winner) if w != MISSING]


class Results:
    """Every game played so far, by variant and index; add() them in any order."""

    def __init__(self, spec):
        self.spec = spec
        self.variants = spec.variants()
        self.main = [_Slots(spec.games, p) for _, p, _ in self.variants]
        self.replicas = [_Slots(spec.seed_effect or 0, p) for _, p, _ in self.variants]
        self.ends = []  # end reasons in order of first sight (reports sort them by name)
        # Move kinds per variant: kind -> [uses, games using it, uses by the eventual
        # winner, uses in games that had a winner].
        self.kinds = [{} for _ in self.variants]
        self.digest = [0 for _ in self.variants]  # XOR of per-game hashes: order-free
        self.fingerprints = set()
        self.count = 0

    def has(self, v, i, r):
        slots = (self.main if r == 0 else self.replicas)[v]
        return i < len(slots.winner) and slots.winner[i] != MISSING

    def missing(self):
        """(variant, index, replica) of every game not played yet, in report order (an
        iterator: a run of millions of games never holds the list)."""
        for v in range(len(self.variants)):
            for r, slots in ((0, self.main[v]), (1, self.replicas[v])):
                for i, w in enumerate(slots.winner):
                    if w == MISSING:
                        yield (v, i, r)

    def missing_count(self):
        return sum(slots.winner.count(MISSING) for slots in self.main + self.replicas)

    def add(self, s):
        """Take one game's summary; False if that game was already in (a duplicate)."""
        v, i, r = s["v"], s["i"], s["r"]
        if self.has(v, i, r):
            return False
        slots = (self.main if r == 0 else self.replicas)[v]
        winner = s["winner"]
        slots.winner[i] = DRAW if winner is None else winner
        slots.turns[i] = s["turns"]
        slots.moves[i] = s["moves"]
        if s["end"] not in self.ends:
            self.ends.append(s["end"])
        slots.end[i] = self.ends.index(s["end"])
        for p in range(slots.players):
            slots.scores[p][i] = s["scores"][p]
        if r == 0:
            table = self.kinds[v]
            for kind, row in s["kinds"].items():
                got = table.get(kind)
                if got is None:
                    got = table[kind] = [0, 0, 0, 0]
                total = sum(row)
                got[0] += total
                got[1] += 1 if total else 0
                if winner is not None:
                    got[2] += row[winner]
                    got[3] += total
        h = hashlib.sha256(("%d %d %d %s" % (v, i, r, s["digest"])).encode()).digest()
        self.digest[v] ^= int.from_bytes(h[:8], "big")
        self.count += 1
        return True

    # ---- the report

    def report(self):
        # Histograms drawn together share their bins: the range over every variant.
        ranges = {}
        for slots in self.main:
            idx = slots.present()
            for key, values in (("turns", [slots.turns[i] for i in idx]),
                                ("moves", [slots.moves[i] for i in idx]),
                                ("spread", [_spread(slots, i) for i in idx]),
                                ("margin", [_margin(slots, i) for i in idx])):
                if values:
                    lo, hi = ranges.get(key, (min(values), max(values)))
                    ranges[key] = (min(lo, min(values)), max(hi, max(values)))
        self._ranges = ranges
        variants = [self._variant(v) for v in range(len(self.variants))]
        out = {"variants": variants, "comparisons": []}
        for v in range(1, len(self.variants)):
            out["comparisons"].append(self._compare(0, v))
        return out

    def _variant(self, v):
        label, players, options = self.variants[v]
        slots = self.main[v]
        idx = slots.present()
        n = len(idx)
        bots = self.spec.seat_bots(players)
        out = {"label": label, "players": players, "options": options, "bots": bots,
               "games": n, "games_digest": "%016x" % self.digest[v]}
        wins = [0] * players
        draws = 0
        for i in idx:
            w = slots.winner[i]
            if w == DRAW:
                draws += 1
            else:
                wins[w] += 1
        fair = 1.0 / players
        out["fair_share"] = fair
        out["seats"] = [_rate(wins[p], n, seat=p, bot=bots[p]) for p in range(players)]
        out["draws"] = _rate(draws, n)
        low, high = stats.wilson(wins[0], n)
        out["first_player_edge"] = {"edge": (wins[0] / n - fair) if n else 0.0,
                                    "low": low - fair, "high": high - fair,
                                    "significant": n > 0 and not low <= fair <= high}
        if len(set(bots)) > 1:
            by_bot = []
            for kind in sorted(set(bots)):
                seats = [p for p in range(players) if bots[p] == kind]
                by_bot.append(dict(_rate(sum(wins[p] for p in seats), n), bot=kind,
                                   seats=seats, fair_share=len(seats) / players))
            out["by_bot"] = by_bot
        turns = [slots.turns[i] for i in idx]
        moves = [slots.moves[i] for i in idx]
        out["turns"] = stats.summary_of(turns)
        out["moves"] = stats.summary_of(moves)
        out["turns_histogram"] = self._histogram("turns", turns)
        out["moves_histogram"] = self._histogram("moves", moves)
        ends = {}
        for i in idx:
            name = self.ends[slots.end[i]]
            ends[name] = ends.get(name, 0) + 1
        out["ends"] = [dict(_rate(ends[name], n), reason=name,
                            safeguard=name in (SAFEGUARD_END, LAB_CAP))
                       for name in sorted(ends, key=lambda e: (e in (SAFEGUARD_END, LAB_CAP), e))]
        out["turn_limit"] = _rate(ends.get(SAFEGUARD_END, 0), n)
        spread, margin, top = [], [], []
        for i in idx:
            s = sorted((slots.scores[p][i] for p in range(players)), reverse=True)
            spread.append(s[0] - s[-1])
            margin.append(s[0] - s[1])
            top.append(s[0])
        out["scores"] = {
            "seat_means": [sum(slots.scores[p][i] for i in idx) / n if n else 0.0
                           for p in range(players)],
            "best": stats.summary_of(top), "spread": stats.summary_of(spread),
            "margin": stats.summary_of(margin),
            "spread_histogram": self._histogram("spread", spread),
            "margin_histogram": self._histogram("margin", margin)}
        kinds = []
        for kind in sorted(self.kinds[v], key=lambda k: (-self.kinds[v][k][0], k)):
            uses, games_using, by_winner, in_won = self.kinds[v][kind]
            kinds.append({"kind": kind, "uses": uses, "per_game": uses / n if n else 0.0,
                          "games_using": games_using,
                          "games_using_rate": games_using / n if n else 0.0,
                          "winner_share": by_winner / in_won if in_won else None,
                          "fair_share": fair})
        out["kinds"] = kinds
        out["seed_effect"] = self._seed_effect(v)
        return out

    def _histogram(self, key, values):
        lo, hi = self._ranges.get(key, (None, None))
        return stats.histogram(values, lo=lo, hi=hi)

    def _seed_effect(self, v):
        rep = self.replicas[v]
        main = self.main[v]
        pairs, xs, ys = [], [], []
        for i in rep.present():
            if main.winner[i] == MISSING:
                continue
            pairs.append((main.winner[i], rep.winner[i]))
            xs.append(_lead(main, i))
            ys.append(_lead(rep, i))
        if not pairs:
            return None
        agree, expected, k, low, high = stats.kappa(pairs)
        return {"pairs": len(pairs), "agreement": agree, "expected": expected, "kappa": k,
                "low": low, "high": high, "lead_correlation": stats.pearson(xs, ys)}

    def _compare(self, a, b):
        A, B = self.main[a], self.main[b]
        both = [i for i in A.present() if i < len(B.winner) and B.winner[i] != MISSING]
        rows = []

        def binary(name, fa, fb):
            x = sum(1 for i in both if fa(i))
            y = sum(1 for i in both if fb(i))
            only_a = sum(1 for i in both if fa(i) and not fb(i))
            only_b = sum(1 for i in both if fb(i) and not fa(i))
            n = len(both)
            p = stats.mcnemar(only_a, only_b)
            rows.append({"metric": name, "kind": "rate", "base": x / n if n else 0.0,
                         "value": y / n if n else 0.0, "diff": (y - x) / n if n else 0.0,
                         "p": p, "significant": p < ALPHA, "test": "McNemar"})

        def paired(name, get):
            d = [get(B, i) - get(A, i) for i in both]
            mean, half, p = stats.paired_difference(len(d), sum(d), sum(x * x for x in d))
            n = len(both)
            rows.append({"metric": name, "kind": "mean",
                         "base": sum(get(A, i) for i in both) / n if n else 0.0,
                         "value": sum(get(B, i) for i in both) / n if n else 0.0,
                         "diff": mean, "half_width": half, "p": p,
                         "significant": p < ALPHA and len(d) >= 30, "test": "paired z"})

        for p in range(min(A.players, B.players)):
            binary("seat %d wins" % p, lambda i, p=p: A.winner[i] == p,
                   lambda i, p=p: B.winner[i] == p)
        binary("draws", lambda i: A.winner[i] == DRAW, lambda i: B.winner[i] == DRAW)
        reasons = sorted(set(self.ends[A.end[i]] for i in both)
                         | set(self.ends[B.end[i]] for i in both))
        for name in reasons:
            code = self.ends.index(name)
            binary("ends by %s" % name, lambda i, c=code: A.end[i] == c,
                   lambda i, c=code: B.end[i] == c)
        paired("turns", lambda S, i: S.turns[i])
        paired("moves", lambda S, i: S.moves[i])
        paired("best score", lambda S, i: max(S.scores[p][i] for p in range(S.players)))
        paired("score spread", lambda S, i: _spread(S, i))
        paired("margin of victory", lambda S, i: _margin(S, i))
        return {"base": self.variants[a][0], "variant": self.variants[b][0],
                "pairs": len(both), "rows": rows}


def _rate(k, n, **extra):
    low, high = stats.wilson(k, n)
    out = {"count": k, "rate": k / n if n else 0.0, "low": low, "high": high}
    out.update(extra)
    return out


def _spread(slots, i):
    s = [slots.scores[p][i] for p in range(slots.players)]
    return max(s) - min(s)


def _margin(slots, i):
    s = sorted((slots.scores[p][i] for p in range(slots.players)), reverse=True)
    return s[0] - s[1]


def _lead(slots, i):
    # Seat 0's score minus the best other score: one number per game that says who led.
    s = [slots.scores[p][i] for p in range(slots.players)]
    return s[0] - max(s[1:])

"""`vora lab GAME --ladder KINDS...`: a round robin between bots and their ratings.

Every pair of kinds plays `games` two-player games. Games go in twos on one deal: the
first with the pair's first kind at seat 0, the second with the seats swapped, so a
pair's result holds no seat advantage and little luck of the deal. Seeds derive from
the run's base seed, the pair and the game's number (as the lab's do), so the same
command gives the same ladder on any machine.

Ratings: the Bradley-Terry model, P(i beats j) = p_i / (p_i + p_j), fitted by maximum
likelihood (Hunter's 2004 minorization-maximization updates), a draw counting half a
win to each. It is Elo's model: ratings are 400 log10(p_i), so 200 points apart means
the stronger wins 76% of games, 400 points 91%. The first kind named is rated 0. Each
pair also gets one virtual drawn game, so a bot that wins every game still has a
finite rating (a weak prior, worth one game in `games`). The 95% intervals come from
the bootstrap: the games of each pair drawn again with replacement, the ratings fitted
again, `replicates` times, and the 2.5th and 97.5th percentiles kept.

Each game's result is appended to `ladder-games.jsonl` in the run's folder as it ends
(a header naming the ladder, then a line a game), so a ladder stopped by Ctrl-C or a
crash keeps what it played and `--resume` plays only the rest: the same seeds make the
same games, so a resumed ladder is the ladder played at one go. The file is read as
untrusted (bounded lines, every field checked against the header and the seeds).
Games are played in local worker processes (`workers`, the lab's `--workers`), one game
a worker at a time, each kept as it ends.
"""

import itertools
import json
import math
import random
from pathlib import Path

from vora_host.lab import stats
from vora_host.lab.playing import play_game
from vora_host.lab.spec import derive_seed
from vora_host.lab.store import LabFileError, json_line, repair_cut_end, whole_lines, \
    write_json

__all__ = ["LADDER_GAMES_FILE", "LadderError", "LadderFile", "check_kinds", "pairings",
           "play_ladder", "read_ladder_games", "ladder_header", "bradley_terry", "ratings",
           "ladder_report", "render"]

LADDER_GAMES_FILE = "ladder-games.jsonl"
FORMAT = "vora-lab-ladder"
FORMAT_VERSION = 1

PRIOR_DRAWS = 1  # virtual drawn games per pair (see the module's documentation)
ELO = 400.0 / math.log(10.0)


class LadderError(ValueError):
    """A ladder that cannot be run: the message names what is wrong."""


def check_kinds(game, kinds):
    """The kinds, checked with make_bot for `game` (two at least, no repeats)."""
    from vora_host.bots import make_bot
    kinds = [k.strip() for k in kinds if k.strip()]
    if len(kinds) < 2:
        raise LadderError("--ladder: name two bot kinds at least (e.g. random search:200)")
    if len(set(kinds)) != len(kinds):
        raise LadderError("--ladder: a kind named twice in %s" % " ".join(kinds))
    for kind in kinds:
        try:
            make_bot(kind, 0, game)
        except ValueError as exc:
            raise LadderError("--ladder: %s" % exc)
    return kinds


def pairings(count):
    """[(i, j)] of every pair of `count` kinds, i < j, in order."""
    return list(itertools.combinations(range(count), 2))


def _deal(seed, pair, i):
    # Game i of a pair is played on deal i // 2: each deal once each way.
    return derive_seed(seed, "ladder", pair, i // 2)


def play_ladder(module, game, kinds, games, seed=0, options=None, max_moves=100000,
                on_game=None, done=None, on_result=None, workers=1):
    """Play the round robin; returns [{"pair", "i", "a", "b", "first", "winner", "scores",
    "seed"}] in order: the pair's number and the game's, the pair's kind indexes, the
    index of the kind at seat 0, the index of the kind that won (None: a draw), the
    scores and the deal's seed. Games already in `done` ({(pair, i): result}, from
    read_ladder_games) are not played again; each game played goes to `on_result(game)`
    (the ladder's file) and then `on_game()` (a progress bar), in the order they end.

    `workers` above 1 plays that many games at once in local processes (as the lab's
    `--workers`). A game's seeds depend only on the ladder's seed, the pair and the
    game's number, so the ladder is the same whoever plays it. Ctrl-C (KeyboardInterrupt)
    stops the workers: the games they had under way are not kept, and a resumed ladder
    plays them again."""
    options = dict(options or {})
    done = done or {}
    results = {}
    todo = []
    for pair, (a, b) in enumerate(pairings(len(kinds))):
        for i in range(games):
            if (pair, i) in done:
                results[pair, i] = done[pair, i]
            else:
                todo.append((pair, i, a, b))

    def kept(result):
        results[result["pair"], result["i"]] = result
        if on_result is not None:
            on_result(result)
        if on_game is not None:
            on_game()
    if workers <= 1 or len(todo) <= 1:
        for job in todo:
            kept(_play_one(module, game, kinds, seed, options, max_moves, job))
    else:
        _play_in_workers(workers, (game, kinds, seed, options, max_moves), todo, kept)
    return [results[key] for key in sorted(results)]


def _play_one(module, game, kinds, seed, options, max_moves, job):
    pair, i, a, b = job
    first, second = (a, b) if i % 2 == 0 else (b, a)
    deal = _deal(seed, pair, i)
    seeds = [derive_seed(seed, "ladder-bot", pair, i, seat) for seat in (0, 1)]
    summary = play_game(module, game, 2, options, [kinds[first], kinds[second]], deal,
                        seeds, max_moves)
    w = summary["winner"]
    return {"pair": pair, "i": i, "a": a, "b": b, "first": first,
            "winner": None if w is None else (first, second)[w],
            "scores": summary["scores"], "seed": deal}


def _play_in_worker(ladder, job):
    """A worker process's task: one game of the ladder (game, kinds, seed, options,
    max_moves), the game's module loaded here."""
    from shared_rules import games as rules_games
    game, kinds, seed, options, max_moves = ladder
    return _play_one(rules_games.load(game), game, kinds, seed, options, max_moves, job)


def _play_in_workers(workers, ladder, todo, kept):
    from concurrent.futures import FIRST_COMPLETED, wait

    from vora_host.lab.runners import start_local_pool, stop_local_pool
    pool = start_local_pool(workers)
    jobs = iter(todo)
    pending = set()
    finished = False
    try:
        while True:
            # One game a worker at a time: a ladder's game takes seconds to minutes,
            # and a game queued ahead would only be lost to Ctrl-C.
            while len(pending) < workers:
                job = next(jobs, None)
                if job is None:
                    break
                pending.add(pool.submit(_play_in_worker, ladder, job))
            if not pending:
                break
            ended, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in ended:
                kept(future.result())
        finished = True
    finally:  # stopped or failed: the workers' games under way are dropped
        stop_local_pool(pool, finished)


# ---------------------------------------------------------------- the ladder's file

def ladder_header(game, kinds, seed, options, max_moves):
    """What makes a ladder's games what they are (not how many a pair: a resumed ladder
    may ask for more, or fewer). `bots` are the concrete kinds the names stand for (a
    level is a kind of each game, and the table of levels may change between versions)."""
    from vora_host.bots import make_bot
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": game,
            "kinds": list(kinds), "bots": [make_bot(k, 0, game).kind for k in kinds],
            "seed": seed, "options": dict(options or {}), "max_moves": max_moves}


class LadderFile:
    """The ladder's games file, open for appending: the header first (a new file), then
    a line a game, each on disk before the next game starts (a ladder's games take
    seconds to minutes: nothing is worth losing). A last line cut short by a crash is
    dropped first (`dropped`: bytes), so the game is played again."""

    def __init__(self, path, header):
        self.path = Path(path)
        self.dropped = repair_cut_end(self.path)
        new = not self.path.exists() or self.path.stat().st_size == 0
        self.file = open(self.path, "a", encoding="utf-8")
        if new:
            self.add(header)

    def add(self, obj):
        self.file.write(json_line(obj))
        self.file.flush()

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _need(ok, path, k, why):
    if not ok:
        raise LabFileError("%s line %d: %s" % (path, k, why))


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def read_ladder_games(path, header):
    """The games of the ladder file `path`, checked against `header` (ladder_header of
    the command that goes on with it): {(pair, i): game}. LabFileError names the file,
    the line and what is wrong: another ladder's header (the fields that differ), a
    line that is not a game of it, a game twice. A last line cut short is left out."""
    path = Path(path)
    pairs = pairings(len(header["kinds"]))
    games = {}
    k = 0
    for k, raw in whole_lines(path):
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise LabFileError("%s line %d: not JSON (%s)" % (path, k, exc))
        _need(isinstance(obj, dict), path, k, "not a JSON object")
        if k == 1:
            _need(obj.get("format") == FORMAT and obj.get("format_version") == FORMAT_VERSION,
                  path, k, "not a ladder games file of format %d" % FORMAT_VERSION)
            differ = sorted(key for key in header if obj.get(key) != header[key])
            if differ:
                raise LabFileError("%s holds another ladder: %s differ%s from this "
                                   "command's" % (path, ", ".join(differ),
                                                  "" if len(differ) > 1 else "s"))
            continue
        _need(sorted(obj) == ["a", "b", "first", "i", "pair", "scores", "seed", "winner"],
              path, k, "not a ladder game (its fields: %s)" % ", ".join(sorted(obj)[:10]))
        pair, i = obj["pair"], obj["i"]
        _need(_whole(pair) and 0 <= pair < len(pairs), path, k,
              "pair %r is not one of 0..%d" % (pair, len(pairs) - 1))
        _need(_whole(i) and 0 <= i < 2 ** 31, path, k, "game number %r" % (i,))
        a, b = pairs[pair]
        # Kind indexes are whole numbers, not 1.0 or true (which == 1 in Python): what is
        # read goes into ladder.json as it is.
        _need(all(_whole(obj[key]) for key in ("a", "b", "first"))
              and obj["a"] == a and obj["b"] == b, path, k,
              "pair %d is kinds %d and %d, not %r and %r" % (pair, a, b, obj["a"], obj["b"]))
        _need(obj["first"] == (a if i % 2 == 0 else b), path, k,
              "game %d of pair %d has the wrong kind at seat 0" % (i, pair))
        _need(obj["winner"] is None or (_whole(obj["winner"]) and obj["winner"] in (a, b)),
              path, k, "winner %r is not of pair %d" % (obj["winner"], pair))
        _need(obj["seed"] == _deal(header["seed"], pair, i) and _whole(obj["seed"]),
              path, k, "seed %r is not the deal of game %d of pair %d" % (obj["seed"], i, pair))
        scores = obj["scores"]
        _need(isinstance(scores, list) and len(scores) == 2 and all(
            (_whole(x) or isinstance(x, float)) and math.isfinite(x) for x in scores),
            path, k, "scores %r are not two numbers" % (scores,))
        _need((pair, i) not in games, path, k, "game %d of pair %d twice" % (i, pair))
        games[pair, i] = obj
    if k == 0:
        raise LabFileError("%s is empty: not a ladder games file" % path)
    return games


def _tally(count, games):
    # wins[i][j]: games i won against j, a draw half each (plus the prior's draws).
    wins = [[0.0] * count for _ in range(count)]
    for a, b in pairings(count):
        wins[a][b] += PRIOR_DRAWS / 2.0
        wins[b][a] += PRIOR_DRAWS / 2.0
    for g in games:
        w = g["winner"]
        if w is None:
            wins[g["a"]][g["b"]] += 0.5
            wins[g["b"]][g["a"]] += 0.5
        else:
            wins[w][g["b"] if w == g["a"] else g["a"]] += 1.0
    return wins


def bradley_terry(wins, iterations=10000, tolerance=1e-10):
    """Strengths p (the first 1) maximising the Bradley-Terry likelihood of `wins`
    (wins[i][j]: i's wins against j; every pair needs games both ways or a prior)."""
    count = len(wins)
    p = [1.0] * count
    for _ in range(iterations):
        new = []
        for i in range(count):
            won = sum(wins[i])
            denominator = sum((wins[i][j] + wins[j][i]) / (p[i] + p[j])
                              for j in range(count) if j != i)
            new.append(won / denominator if denominator else p[i])
        new = [x / new[0] for x in new]
        change = max(abs(math.log(x / y)) for x, y in zip(new, p))
        p = new
        if change < tolerance:
            break
    return p


def ratings(count, games):
    """Elo-scale ratings (the first kind 0) from the games' results."""
    return [ELO * math.log(x) for x in bradley_terry(_tally(count, games))]


def ladder_report(game, kinds, games, per_pair, seed=0, replicates=200):
    """Everything `render` shows, JSON-ready: ratings with bootstrap intervals, each
    kind's record, and every pair's score with its Wilson interval."""
    count = len(kinds)
    point = ratings(count, games)
    by_pair = {}
    for g in games:
        by_pair.setdefault((g["a"], g["b"]), []).append(g)
    rng = random.Random(derive_seed(seed, "ladder-bootstrap"))
    samples = [[] for _ in range(count)]
    for _ in range(replicates):
        drawn = []
        for pair in sorted(by_pair):
            played = by_pair[pair]
            drawn.extend(rng.choice(played) for _ in played)
        for i, r in enumerate(ratings(count, drawn)):
            samples[i].append(r)
    rows = []
    for i, kind in enumerate(kinds):
        mine = [g for g in games if i in (g["a"], g["b"])]
        won = sum(1 for g in mine if g["winner"] == i)
        drawn = sum(1 for g in mine if g["winner"] is None)
        ordered = sorted(samples[i])
        rows.append({"kind": kind, "rating": point[i],
                     "low": stats.quantile(ordered, 0.025) if ordered else None,
                     "high": stats.quantile(ordered, 0.975) if ordered else None,
                     "games": len(mine), "wins": won, "draws": drawn})
    pairs = []
    for (a, b), played in sorted(by_pair.items()):
        score = sum(1.0 if g["winner"] == a else 0.5 if g["winner"] is None else 0.0
                    for g in played)
        low, high = stats.wilson(score, len(played))
        pairs.append({"a": kinds[a], "b": kinds[b], "games": len(played),
                      "a_wins": sum(1 for g in played if g["winner"] == a),
                      "b_wins": sum(1 for g in played if g["winner"] == b),
                      "draws": sum(1 for g in played if g["winner"] is None),
                      "a_score": score / len(played), "low": low, "high": high})
    return {"game": game, "kinds": list(kinds), "games_per_pair": per_pair, "seed": seed,
            "players": 2, "prior_draws_per_pair": PRIOR_DRAWS,
            "bootstrap_replicates": replicates,
            "ratings": sorted(rows, key=lambda r: -r["rating"]), "pairs": pairs}


def render(console, report):
    """The ladder's tables on a rich console."""
    from rich.table import Table
    table = Table(title="%s: ladder, %d games a pair, seats alternating (first kind rated 0)"
                  % (report["game"], report["games_per_pair"]))
    for name in ("kind", "rating", "95% interval", "games", "wins", "draws"):
        table.add_column(name, justify="left" if name == "kind" else "right")
    for r in report["ratings"]:
        table.add_row(r["kind"], "%+.0f" % r["rating"],
                      "%+.0f to %+.0f" % (r["low"], r["high"]), str(r["games"]),
                      str(r["wins"]), str(r["draws"]))
    console.print(table)
    pairs = Table(title="pairs: the first kind's score (a draw counts half), 95% Wilson")
    for name in ("first", "second", "games", "wins", "losses", "draws", "score",
                 "95% interval"):
        pairs.add_column(name, justify="left" if name in ("first", "second") else "right")
    for p in report["pairs"]:
        pairs.add_row(p["a"], p["b"], str(p["games"]), str(p["a_wins"]), str(p["b_wins"]),
                      str(p["draws"]), "%.1f%%" % (100 * p["a_score"]),
                      "%.1f to %.1f%%" % (100 * p["low"], 100 * p["high"]))
    console.print(pairs)


def write(out, report, games):
    """ladder.json (the report and every game's result) in the folder `out`, written
    whole or not at all."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ladder.json"
    write_json(path, dict(report, games=games))
    return path

"""Playing the lab's games: one game to its summary, and a chunk of games (what a worker
process or a Ray task runs). Pure functions of the spec and the game's index: the same
summary comes back whichever process, machine or order plays it.
"""

import hashlib
import json
import sys

from shared_rules import games as rules_games

from vora_host.lab.spec import LabSpec, bot_seeds, game_seed

__all__ = ["play_game", "play_chunk", "fingerprint", "LAB_CAP"]

# The end reason the lab writes when it had to stop a game itself (spec.max_moves).
LAB_CAP = "lab-cap"


def play_game(module, game, players, options, kinds, seed, seeds, max_moves):
    """Play one game between bots; returns its summary (a JSON-ready dict)."""
    from collections import Counter
    from vora_host.bots import make_bot
    state = module.new_game(players, seed, **options)
    agents = [make_bot(kinds[p], seeds[p], game) for p in range(players)]
    # Who played what, counted after the game: per move, two appends are all the lab adds
    # to what the bots and the rules do (docs/benchmarks.md: the lab's overhead).
    played, who = [], []
    while not state.is_over() and len(played) < max_moves:
        p = state.to_act()
        move = agents[p].choose(state)
        state.play(move)
        played.append(move)
        who.append(p)
    counts = {}  # move kind (a move's first word) -> [uses per player]
    for (p, move), n in Counter(zip(who, played)).items():
        kind = move.split(" ", 1)[0]
        row = counts.get(kind)
        if row is None:
            row = counts[kind] = [0] * players
        row[p] += n
    over = state.is_over()
    return {"seed": seed, "bot_seeds": list(seeds), "players": players,
            "winner": state.winner() if over else None,
            "scores": list(state.scores()), "turns": state.turn_count(), "moves": len(played),
            "end": state.end_reason() if over else LAB_CAP,
            "kinds": counts, "digest": state.digest()}


_CACHE = {}


def _prepared(spec_dict):
    # Per worker process: the spec, its variants and the code fingerprint, made once.
    key = json.dumps(spec_dict, sort_keys=True)
    got = _CACHE.get(key)
    if got is None:
        spec = LabSpec.from_dict(spec_dict)
        got = _CACHE[key] = (spec, spec.variants(), rules_games.load(spec.game),
                             fingerprint(spec))
    return got


def play_chunk(job):
    """A worker's task: job = {"spec": spec.to_dict(), "tasks": [[variant, index, replica],
    ...]}. Returns {"fingerprint": ..., "games": [summary, ...]} in the tasks' order."""
    spec, variants, module, fp = _prepared(job["spec"])
    out = []
    for v, i, r in job["tasks"]:
        label, players, options = variants[v]
        summary = play_game(module, spec.game, players, options, spec.seat_bots(players),
                            game_seed(spec.seed, i), bot_seeds(spec.seed, i, players, r),
                            spec.max_moves)
        summary.update(v=v, i=i, r=r)
        out.append(summary)
    return {"fingerprint": fp, "games": out}


def fingerprint(spec):
    """16 hex digits over the source of the code that decides a game's result: every module
    of shared_rules (the rules, their tables, the PRNG), the bots' modules and this one.
    Workers on other machines (Ray) must give the driver's fingerprint, or their games
    would not be the same games."""
    import os
    import shared_rules
    from vora_host.bots import make_bot
    names = {"vora_host.games.bot", "vora_host.bots.base", "vora_host.lab.playing",
             rules_games.load(spec.game).__name__}  # wherever the game's module lives
    for kind in set(spec.bots):
        names.add(type(make_bot(kind, 0, spec.game)).__module__)
    files = [(name, sys.modules[name].__file__) for name in sorted(names)]
    rules = os.path.dirname(shared_rules.__file__)
    files += [("shared_rules/" + f, os.path.join(rules, f))
              for f in sorted(os.listdir(rules)) if f.endswith(".py")]
    h = hashlib.sha256()
    for name, path in files:
        with open(path, "rb") as f:
            h.update(name.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()[:16]

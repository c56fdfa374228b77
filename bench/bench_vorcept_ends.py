"""How Vorcept games end, split finer than the lab's end reasons: the lab's "host" covers
both a Host taken by the enemy and (with self_capture="remove") a Host walled in by its
own side, and docs/rules-decisions.md (Vorcept 14) needs the two apart. Plays GAMES games
with uniformly random moves (seeds 0..GAMES-1, the same deals for each value) under each
value of self_capture and prints the share of each ending and the length in turns.

    .venv/bin/python bench/bench_vorcept_ends.py [GAMES]
    .venv/bin/python bench/bench_vorcept_ends.py --lab DIR

With --lab, the games of a `vora lab vorcept` run (its games.jsonl) are played again from
their seeds with the same bots, checked against the final digest the lab recorded, and
split the same way: how search bots' games end, not only random ones.
"""

import random
import sys

from shared_rules import vorcept


def ending(state, actor):
    """The end of a finished game, "own-host" when the actor lost their own Host."""
    reason = state.end_reason()
    if reason == "host":
        return "enemy-host" if state.winner() == actor else "own-host"
    return reason


def play(seed, **options):
    rnd = random.Random(seed)
    state = vorcept.new_game(2, seed, **options)
    actor = None
    while not state.is_over():
        actor = state.to_act()
        state.play(rnd.choice(state.legal_moves()))
    return ending(state, actor), state.turn_count()


def percentile(values, q):
    # Linear interpolation between the closest ranks (numpy's default).
    v = sorted(values)
    k = (len(v) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def replay_lab(folder):
    import json
    from vora_host.bots import make_bot
    lines = open(folder + "/games.jsonl").read().splitlines()
    spec = json.loads(lines[0])["spec"]
    name, values = spec["compare"] if spec["compare"] else ("-", [None])
    kinds = spec["bots"] * 2 if len(spec["bots"]) == 1 else spec["bots"]
    rows = {}
    for line in lines[1:]:
        if not line.strip():
            continue
        g = json.loads(line)
        if g.get("r"):
            continue
        options = dict(spec["options"])
        if name != "-":
            options[name] = values[g["v"]]
        state = vorcept.new_game(2, g["seed"], **options)
        bots = [make_bot(kinds[p], g["bot_seeds"][p], "vorcept") for p in (0, 1)]
        actor = None
        while not state.is_over():
            actor = state.to_act()
            state.play(bots[actor].choose(state))
        if state.digest() != g["digest"]:
            raise SystemExit("game %d of variant %d did not replay the same" % (g["i"], g["v"]))
        rows.setdefault(g["v"], []).append((ending(state, actor), state.turn_count()))
    print("%s, bots %s: %s" % (folder, ",".join(spec["bots"]), name))
    for v in sorted(rows):
        ends = {}
        for end, _ in rows[v]:
            ends[end] = ends.get(end, 0) + 1
        n = len(rows[v])
        print("  %s=%s, %d games: %s" % (name, values[v], n, ", ".join(
            "%s %.1f%%" % (k, 100.0 * c / n) for k, c in sorted(ends.items()))))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--lab":
        return replay_lab(sys.argv[2])
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print("Vorcept, %d random games per value (seeds 0..%d)" % (games, games - 1))
    print("| self_capture | enemy Host taken | own Host walled in | pylon | concede | "
          "turns (limit) | stalemate | turns: median (p5-p95) | own Host lost within 5 turns |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for value in vorcept.SELF_CAPTURE_CHOICES:
        ends = {}
        turns = []
        quick_own = 0
        for seed in range(games):
            end, n = play(seed, self_capture=value)
            ends[end] = ends.get(end, 0) + 1
            turns.append(n)
            quick_own += end == "own-host" and n <= 5
        share = lambda k: "%.1f%%" % (100.0 * ends.get(k, 0) / games)
        print("| %s | %s | %s | %s | %s | %s | %s | %g (%g-%g) | %.1f%% |" % (
            value, share("enemy-host"), share("own-host"), share("pylon"), share("concede"),
            share("turns"), share("stalemate"), percentile(turns, 50), percentile(turns, 5),
            percentile(turns, 95), 100.0 * quick_own / games))


if __name__ == "__main__":
    main()

"""Balance measurements of the Boars on the Run! house data (docs/rules-decisions.md).

Plays many seeded games between two kinds of players and prints game length, how each
game ended, and win rates by seat and by Boar card:
- "random": every decision uniformly among the legal moves;
- "greedy": a one-step greedy player: it draws a moderate number of cubes, takes every
  ticket and diet that moves it, buys the card that moves it furthest per cube, and aims
  vendettas at the leader. It is a yardstick for the data, not a bot for play.

    .venv/bin/python tools/boars_balance.py [games] [--track NAME] [--cards NAME]
"""

import random
import sys
import time
from collections import Counter

from shared_rules import boars


def greedy_move(s, rnd):
    moves = s.legal_moves()
    if len(moves) == 1:
        return moves[0]
    a = s.active
    ph = s.phase
    if ph == boars.PH_DRAW:
        size = len(moves)
        want = max(3, min(9, (size * 3 + 5) // 10))
        for ci in s.hands[a]:
            card = s.deck_data.cards[ci]
            if card["kind"] == "portion" and card["drawn"] <= size and abs(card["drawn"] - want) <= 2:
                want = card["drawn"]
        return "draw %d" % min(want, size)
    if ph == boars.PH_MENU:
        return "menu keep"
    if ph in (boars.PH_VENDETTA, boars.PH_DISCARD, boars.PH_SPACE):
        return max(moves, key=lambda m: (value(after(s, m), a), rnd.random()))
    # act: move first (tickets and diets), then buy, then end
    best, best_v = "end", None
    for m in moves:
        if m == "end":
            continue
        t = after(s, m)
        gain = t.pos[a] - s.pos[a]
        v = gain * 10
        if m.startswith("buy"):
            v = card_value(s.deck_data.cards[s.deck_data.index[m.split()[1]]])
        if m.startswith("diet") and gain <= 0:
            v = 5  # a feast: cubes for later
        if m.startswith("diet") and len(m.split()) == 3:
            v -= 20  # careless: a card for 3 spaces, only if nothing better
        if v > 0 and (best_v is None or v > best_v):
            best, best_v = m, v
    return best


def card_value(card):
    kind = card["kind"]
    if kind in ("mono", "combo"):
        return 1 + card["move"] * 2 // max(1, sum(card["pay"]))
    if kind in ("non", "portion", "knowledge", "cold", "careless"):
        return 3
    if kind in ("gatherer", "feast"):
        return 2
    return 2  # vendettas


def after(s, m):
    t = s.clone()
    t.play(m)
    return t


def value(s, me):
    others = [s.pos[p] for p in range(s.players) if p != me]
    v = s.pos[me] * 4 - max(others) * 3
    v += sum(s.bags[me][:4]) // 2 + len(s.hands[me]) * 2
    return v


def play(seed, players, kind, options):
    """One game; returns the final state, the number of moves, and each player's set of
    card kinds bought."""
    rnd = random.Random(seed)
    s = boars.new_game(players, seed=seed, **options)
    moves = 0
    bought = [set() for _ in range(players)]
    while not s.is_over():
        ms = s.legal_moves()
        m = rnd.choice(ms) if kind == "random" else greedy_move(s, rnd)
        if m.startswith("buy "):
            card = s.deck_data.cards[s.deck_data.index[m.split()[1]]]
            bought[s.active].add(card["kind"])
        s.play(m)
        moves += 1
    return s, moves, bought


def report(games, kind, options):
    for players in (2, 3, 4):
        t0 = time.perf_counter()
        ends, seat, boar = Counter(), Counter(), Counter()
        dealt = Counter()
        turns = []
        moves = 0
        kind_buyers, kind_wins = Counter(), Counter()
        for seed in range(games):
            s, n, bought = play(seed, players, kind, options)
            moves += n
            for p in range(players):
                for k in bought[p]:
                    kind_buyers[k] += 1
                    kind_wins[k] += s.winner() == p
            ends[s.end_reason()] += 1
            turns.append(s.turn_count())
            for p in range(players):
                dealt[s.card_id(s.boar[p])] += 1
            w = s.winner()
            if w is not None:
                seat[w] += 1
                boar[s.card_id(s.boar[w])] += 1
        dt = time.perf_counter() - t0
        turns.sort()
        print("%s, %d players, %d games: %.1f ms/game, %.0f moves/game" % (
            kind, players, games, dt * 1000 / games, moves / games))
        print("  ends: %s" % ", ".join("%s %d%%" % (k, v * 100 // games) for k, v in sorted(ends.items())))
        print("  turns (all players): median %d, 10%% %d, 90%% %d; per player median %.1f" % (
            turns[games // 2], turns[games // 10], turns[games * 9 // 10], turns[games // 2] / players))
        print("  wins by seat: %s" % ", ".join("%d: %d%%" % (p, seat[p] * 100 // games) for p in range(players)))
        print("  wins per game dealt, by boar: %s" % ", ".join(
            "%s %d%%" % (b, boar[b] * 100 // max(1, dealt[b])) for b in sorted(dealt)))
        if kind == "greedy":
            print("  wins of players who bought a kind of card (base %d%%): %s" % (
                100 // players, ", ".join("%s %d%%" % (k, kind_wins[k] * 100 // kind_buyers[k])
                                          for k in sorted(kind_buyers))))


def main(argv):
    games = int(argv[0]) if argv and argv[0].isdigit() else 200
    options = {}
    for key in ("track", "cards"):
        if "--" + key in argv:
            options[key] = argv[argv.index("--" + key) + 1]
    for kind in ("greedy", "random"):
        report(games, kind, options)


if __name__ == "__main__":
    main(sys.argv[1:])

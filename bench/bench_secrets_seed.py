"""Can the public opening of Boars on the Run! give its seed away? (issue 23, finding 1)

The opening of a game is public: the four cards of the display and each player's Boar
card, the first draws of the game (two players here). This scans seeds 0 to N-1 and
counts, for many games, the seeds that deal the same opening:

- the earlier generator (xorshift32, default seeds below 10**6): a game with a default
  seed whose opening no other seed of the range deals is identified, and with it every
  bag and the whole deck order;
- shared_rules.secret_prng with a seed from the OS (63 bits): the true seed lies in the
  range with odds of N in 2**63, so any seed the scan finds shares the opening by chance;
  the bench checks whether such a seed also deals the game's deck (what a player would
  want to learn), and times the generator to say what trying all 2**63 seeds would take.

Tossing Tiger the same way: a player's own hand (6 of the 48 cards, the first draws of
a two-player game) against the hands seeds 0 to N-1 deal; the seeds that share it are
the candidates, and the bench counts how many of them also deal the opponent's hand.

    .venv/bin/python bench/bench_secrets_seed.py              (about 45 s: N = 200,000)
    .venv/bin/python bench/bench_secrets_seed.py --full       (N = 10**6, 60,000 games)
"""

import argparse
import collections
import platform
import random
import secrets
import time

from shared_rules import boars, prng, secret_prng, tossing_tiger


def default_cards():
    return boars._check_options(2, boars.DEFAULT_TRACK, boars.DEFAULT_CARDS,
                                boars.DEFAULT_CUBES, boars.DEFAULT_MAX_TURNS)[1]


PLAYERS = 2


def old_deal(cards, seed):
    # (deck, Boar cards) as new_game() shuffled them with xorshift32 before this change:
    # the same Fisher-Yates over the same lists, drawn from shared_rules.prng.
    x = prng.seed_state(seed)
    deck = list(cards.others)
    boar_cards = list(cards.boars)
    for items in (deck, boar_cards):
        for i in range(len(items) - 1, 0, -1):
            j, x = prng.below(x, i + 1)
            items[i], items[j] = items[j], items[i]
    return deck, boar_cards


def new_deal(cards, seed):
    deck = list(cards.others)
    boar_cards = list(cards.boars)
    x = boars._shuffle(deck, secret_prng.seed_state(seed))
    boars._shuffle(boar_cards, x)
    return deck, boar_cards


def opening(deal):
    deck, boar_cards = deal
    return tuple(deck[:boars.DISPLAY_SLOTS]) + tuple(boar_cards[:PLAYERS])


def scan(deal, cards, n):
    # opening -> seeds of 0..n-1 that deal it
    seen = collections.defaultdict(list)
    for seed in range(n):
        seen[opening(deal(cards, seed))].append(seed)
    return seen


def tiger_hands(generator, draw_pile, seed):
    # Both hands of a two-player Tossing Tiger deal: player 0's six cards, then player 1's,
    # each drawn at random from what is left (TigerState._draw_card), kept sorted.
    pile = list(draw_pile)
    x = generator.seed_state(seed)
    hands = []
    for _ in range(PLAYERS):
        hand = []
        for _ in range(tossing_tiger.HAND_SIZE):
            i, x = generator.below(x, len(pile))
            hand.append(pile.pop(i))
        hands.append(tuple(sorted(hand)))
    return hands


def tiger(n, games):
    pile = tossing_tiger.deck_of(tossing_tiger._check_options(PLAYERS, {}))
    for seed in (0, 2 ** 62):
        s = tossing_tiger.new_game(PLAYERS, seed=seed).s
        assert [tuple(h) for h in s["hands"]] == tiger_hands(secret_prng, pile, seed)
    for name, generator, pick in (
            ("earlier generator, default seeds below %d" % n, prng,
             lambda rnd: rnd.randrange(n)),
            ("secret_prng, seeds from the OS (63 bits)", secret_prng,
             lambda rnd: secrets.randbelow(secret_prng.SEED_MAX + 1))):
        t0 = time.process_time()
        by_hand = collections.defaultdict(list)
        for seed in range(n):
            by_hand[tiger_hands(generator, pile, seed)[0]].append(seed)
        scan_s = time.process_time() - t0
        rnd = random.Random(23)
        sizes = []
        found = predicted = 0
        for _ in range(games):
            seed = pick(rnd)
            own, other = tiger_hands(generator, pile, seed)
            candidates = by_hand[own]
            sizes.append(len(candidates))
            found += seed in candidates
            predicted += sum(1 for c in candidates
                             if tiger_hands(generator, pile, c)[1] == other)
        sizes.sort()
        print("Tossing Tiger, %s: a hand leaves %d candidate seeds (median of %d games); "
              "the true seed among them in %d games; %d of %d candidates in all deal the "
              "opponent's hand; scan %.1f CPU s"
              % (name, sizes[len(sizes) // 2], games, found, predicted, sum(sizes), scan_s))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help="the issue's figures: 10**6 seeds, 60,000 games")
    parser.add_argument("--seeds", type=int, default=None, help="seeds scanned (N)")
    parser.add_argument("--games", type=int, default=None, help="Boars games looked at")
    parser.add_argument("--tiger-games", type=int, default=None,
                        help="Tossing Tiger games looked at")
    args = parser.parse_args()
    n = args.seeds or (10 ** 6 if args.full else 200000)
    games = args.games or (60000 if args.full else 2000)
    cards = default_cards()
    # The replica of new_game's deal must be new_game's deal.
    for seed in (0, 1, 2 ** 62):
        s = boars.new_game(PLAYERS, seed=seed)
        deck, boar_cards = new_deal(cards, seed)
        assert opening((deck, boar_cards)) == tuple(s.display) + tuple(s.boar)
        assert s.deck == deck[boars.DISPLAY_SLOTS:]
    print("Boars on the Run! (house cards, %d in the deck), %s %s; seeds 0 to %d scanned"
          % (len(cards.others), platform.python_implementation(), platform.python_version(),
             n - 1))

    t0 = time.process_time()
    old = scan(old_deal, cards, n)
    old_s = time.process_time() - t0
    rnd = random.Random(23)
    targets = [rnd.randrange(n) for _ in range(games)]
    unique = sum(1 for s in targets if len(old[opening(old_deal(cards, s))]) == 1)
    print("earlier generator, default seeds below %d: the opening alone names the seed in "
          "%d of %d games (%.1f%%); scan %.1f CPU s" % (n, unique, games, 100.0 * unique / games,
                                                         old_s))

    t0 = time.process_time()
    new = scan(new_deal, cards, n)
    new_s = time.process_time() - t0
    matched = candidates = same_deck = found = 0
    for _ in range(games):
        seed = secrets.randbelow(secret_prng.SEED_MAX + 1)
        deal = new_deal(cards, seed)
        hits = new[opening(deal)]
        if hits:
            matched += 1
            candidates += len(hits)
            same_deck += sum(1 for s in hits if new_deal(cards, s)[0] == deal[0])
            found += seed in hits
    print("secret_prng, seeds from the OS (63 bits): %d of %d games share their opening with "
          "some scanned seed (%d seeds in all); of those seeds, %d deal the game's deck; the "
          "true seed was among them %d times; scan %.1f CPU s"
          % (matched, games, candidates, same_deck, found, new_s))
    per_seed = new_s / n
    years = per_seed * (secret_prng.SEED_MAX + 1) / (365.25 * 24 * 3600)
    print("trying every seed of 0 to 2**63 - 1 at this pace (%.1f us a deal): %.2g CPU years"
          % (per_seed * 1e6, years))
    tiger(n, args.tiger_games or (200 if args.full else 50))


if __name__ == "__main__":
    main()

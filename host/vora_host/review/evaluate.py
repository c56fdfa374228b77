"""The evaluation behind a review: every position of a game searched at a fixed budget.

For move k (1-based) of a game, played by `player` from position k-1:
- before: the search's root value for the mover at position k-1 (their mean reward over
  the simulations there: a chance to win from 0 to 1, vora_host.bots.search);
- after: the mover's value at position k, from a search there (the root's mean reward for
  every player is kept, not only the one to act); after the last move of a finished game,
  the real result (the winner 1, the others 0, a draw shared by the best scores);
- best: the move the search at position k-1 would play, when it is not the move played,
  and best_chance its value for the mover;
- mark: how much the move cost, before - after, against THRESHOLDS (>= 0.1 an
  inaccuracy, >= 0.2 a mistake, >= 0.3 a blunder), and only when the move played was not
  the search's own choice: a drop after the search's best move is chance (a refill, a
  draw) or the search's own noise, not the mover's error.

Each position is searched by a SearchBot of the game's own settings with `budget`
iterations and a seed made from the game's name and the position's number, so a review
depends on nothing but the record and the budget (the same on every run and machine, and
whichever process searched which position). In a hidden-information game the review,
made once the game is over, searches the true state with its PRNG reseeded (it knows
every hand, and where the rules keep one, the order of a shuffled deck; not the future
draws): `knows_secrets` is then true and every screen says so.
"""

import zlib

from shared_rules import games, secret_prng

from vora_host.bots.search import SearchBot
from vora_host.log.reviews import THRESHOLDS, mark_of

__all__ = ["DEFAULT_BUDGET", "MAX_BUDGET", "position_seed", "positions", "evaluate_position",
           "evaluate_positions", "review_moves", "knows_secrets", "result_values"]

# Iterations per position: a 300-move Vora game is reviewed in under a minute on two cores
# (docs/benchmarks.md, "Reviews").
DEFAULT_BUDGET = 300
MAX_BUDGET = 100000


def knows_secrets(game):
    """Whether a review of `game` sees what the players could not (its hidden hands)."""
    return bool(games.load(game).HIDDEN_INFORMATION)


def position_seed(game, number):
    """The search's seed at position `number` (0: the start) of a game of `game`: public
    things only, the same on every run."""
    return zlib.crc32(("vora-review:%s:%d" % (game, number)).encode("ascii"))


def positions(record):
    """The states of a record's game, one before each move and one after the last (the
    record's moves must replay: vora_host.log.verify checks that first)."""
    state = games.start(record)
    out = [state.clone()]
    for move in record["moves"]:
        state.play(move)
        out.append(state.clone())
    return out


def result_values(state):
    """Each player's reward in a finished game: the winner 1, a draw shared by the best."""
    return SearchBot(0, iterations=1).rewards(state)


def evaluate_position(game, state_json, number, budget, secrets):
    """The search's view of one position (given as to_json text, so that a worker process
    gets it cheaply): {"value": [each player's chance], "best": move or None,
    "values": {move: the mover's chance}, "player": who acts}. A finished position: its
    real result. `secrets`: search the true state (hidden-information games, after the
    game)."""
    module = games.load(game)
    state = module.from_json(state_json)
    if state.is_over():
        return {"value": result_values(state), "best": None, "values": {},
                "player": None}
    bot = SearchBot.from_spec(position_seed(game, number), game, str(budget))
    sample = None
    if secrets:
        def sample(seed):
            # The true position, only its chance drawn afresh (the review knows every hand).
            s = state.clone()
            s.rng = secret_prng.seed_state(seed)
            return s
    return bot.evaluate(state, sample)


def evaluate_positions(game, states, budget, secrets, start=0):
    """evaluate_position of each state of `states` in this process (numbers from `start`),
    as a generator."""
    for k, state in enumerate(states, start):
        yield evaluate_position(game, state.to_json(), k, budget, secrets)


def review_moves(record, evaluations, hints=(), start=0):
    """The review's per-move results (vora_host.log.reviews) for moves start + 1 to
    start + len(evaluations) - 1 of `record`, from the evaluations of positions start,
    start + 1, ... `hints`: the numbers of the moves before which a hint was taken."""
    out = []
    hints = set(hints)
    for j in range(1, len(evaluations)):
        here, there = evaluations[j - 1], evaluations[j]
        k = start + j
        mover = here["player"]
        move = record["moves"][k - 1]
        before = _chance(here["value"][mover])
        after = _chance(there["value"][mover])
        best = here["best"] if here["best"] != move else None
        best_chance = None if best is None else _chance(here["values"][best])
        mark = None if best is None else mark_of(before, after, THRESHOLDS)
        out.append({"number": k, "player": mover, "move": move, "before": before,
                    "after": after, "best": best, "best_chance": best_chance, "mark": mark,
                    "hint": k in hints})
    return out


def _chance(value):
    # Six places: the review's figures, the same on every machine's float printing.
    return min(1.0, max(0.0, round(float(value), 6)))

"""Which moves decide games: the review's evaluation over many bot games (`vora lab GAME
--swings N`, docs/lab.md "Which moves decide games").

N games between the `--bots` kinds (seeds from `--seed` on, as the lab's games) are each
reviewed like `vora games review` does (vora_host.review.evaluate: every position searched
at a fixed budget, seeded from the game's name and the position's number; hidden hands
known, after the game), and every move's swing, the mover's chance after it minus before
it, is gathered by the kind of the move: its words that name something (the verb and the
card, animal, cube or piece: "push water", "keep crane", "buy gatherer-yellow",
"summon"), without squares, edges and counts (any word with a digit, or of one or two
letters). For each kind: how often it was played, its mean swing (negative: it tends to
cost its mover), its mean absolute swing (how much it moves a game either way), and how
many of its moves the review marked.
"""

import statistics

from shared_rules import games

from vora_host.bots import make_bot
from vora_host.review import run as review_run
from vora_host.review.evaluate import knows_secrets, positions, review_moves
from vora_host.review.run import evaluations

__all__ = ["move_kind", "play_record", "game_swings", "swing_table", "DEFAULT_SWING_BUDGET"]

# Iterations a position: many games are reviewed, so less than a single review's 300.
DEFAULT_SWING_BUDGET = 100


def move_kind(move):
    """The kind of a move in notation: its words that name something (see the module)."""
    words = [w for w in move.split() if len(w) >= 3 and not any(c.isdigit() for c in w)]
    return " ".join(words) or move.split()[0]


def play_record(game, players, kinds, seed, options=None, max_moves=2000):
    """A game between bots of `kinds` (one per seat, cycled), bot seeds from the game
    seed: its record (game, players, seed, options, moves)."""
    module = games.load(game)
    state = module.new_game(players, seed, **(options or {}))
    bots = [make_bot(kinds[p % len(kinds)], seed * 16 + p, game) for p in range(players)]
    moves = []
    while not state.is_over() and len(moves) < max_moves:
        move = bots[state.to_act()].choose(state)
        state.play(move)
        moves.append(move)
    return {"game": game, "players": players, "seed": seed, "options": state.options(),
            "moves": moves}


def game_swings(record, budget, workers=None):
    """The review's per-move results of a record (vora_host.log.reviews' moves);
    `workers`: processes (None: as a review, vora_host.review.run.WORKERS)."""
    found = list(evaluations(record["game"], positions(record), 0, budget,
                             knows_secrets(record["game"]),
                             review_run.WORKERS if workers is None else workers))
    return review_moves(record, found)


def swing_table(reviewed):
    """Rows for each kind of move over the reviewed moves (dicts of review_moves), most
    decisive (largest mean absolute swing) first: {"kind", "count", "mean", "mean_abs",
    "marked"}."""
    by_kind = {}
    for m in reviewed:
        by_kind.setdefault(move_kind(m["move"]), []).append(m)
    rows = []
    for kind, moves in by_kind.items():
        swings = [m["after"] - m["before"] for m in moves]
        rows.append({"kind": kind, "count": len(moves),
                     "mean": round(statistics.fmean(swings), 4),
                     "mean_abs": round(statistics.fmean(abs(s) for s in swings), 4),
                     "marked": sum(m["mark"] is not None for m in moves)})
    rows.sort(key=lambda r: (-r["mean_abs"], r["kind"]))
    return rows

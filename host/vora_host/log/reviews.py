"""Reviews kept beside the games: what `vora games review` (vora_host.review) computed for
a finished game, one review per game, in the `reviews` table (schema 6).

    log.save_review(gid, review)   # the review dict below; complete or not (resumed later)
    log.review(gid)                # the same dict, or None when the game has none
    log.delete_review(gid)         # forget it (a game deleted loses its review too)

The review dict, which the web page and the terminal both read:

    {"format": "vora-review", "version": 1, "game_id": int, "game": str,
     "budget": int (the search's iterations per position), "complete": bool,
     "knows_secrets": bool (computed from the true state of a hidden-information game),
     "thresholds": {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3},
     "moves": [{"number": int (1-based), "player": int, "move": str,
                "before": float, "after": float (the mover's chance, 0..1),
                "best": str or None, "best_chance": float or None,
                "mark": None or "inaccuracy" / "mistake" / "blunder",
                "hint": bool (a hint was taken before this move)}]}

A review is not a move: it needs no lease, but a game being played (status "playing", or
"interrupted", which may be resumed) gets none. A review whose moves are no longer the
game's (a takeback after it, then another end) is not returned.

Apart from the store (vora_host.log.store) because a review is computed above the log
(vora_host.review needs the bots); the log only keeps and checks it.
"""

import json
import math

from vora_host.log.checks import _is_int, _now, _short
from vora_host.log.errors import NoSuchGame

__all__ = ["Reviews", "REVIEW_FORMAT", "REVIEW_VERSION", "THRESHOLDS", "MARKS", "mark_of",
           "GameBeingPlayed", "REVIEWABLE"]

REVIEW_FORMAT = "vora-review"
REVIEW_VERSION = 1

# How much of the mover's chance a move lost, from before it to after it, for each mark
# (the highest reached): like Lichess's win-chance thresholds, on a 0..1 chance.
THRESHOLDS = {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3}
MARKS = ("inaccuracy", "mistake", "blunder")  # mildest first

# The statuses of a game that may be reviewed: over, or thrown away (never resumed).
REVIEWABLE = ("over", "abandoned")

_MOVE_KEYS = ("number", "player", "move", "before", "after", "best", "best_chance", "mark",
              "hint")


class GameBeingPlayed(ValueError):
    """A review asked for a game that is still being played (or may be resumed)."""

    def __init__(self, game_id, status):
        self.game_id = game_id
        self.status = status
        why = ("it is still being played" if status == "playing" else
               "it was interrupted and may be resumed")
        ValueError.__init__(self, "game %s has no review: %s (status %s); a game is "
                                  "reviewed once it is over" % (game_id, why, status))


def mark_of(before, after, thresholds=THRESHOLDS):
    """The mark of a move that took its mover's chance from `before` to `after`: the
    worst of "inaccuracy", "mistake", "blunder" whose threshold the drop reaches, or None.
    The drop is rounded to 6 places first, so that 0.5 - 0.4 counts as 0.1."""
    drop = round(before - after, 6)
    mark = None
    for name in MARKS:
        if drop >= thresholds[name]:
            mark = name
    return mark


def _chance(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError("a review's %s is a chance from 0 to 1, not %s" % (what, _short(value)))
    return float(value)


def check_moves(moves):
    """The per-move results of a review checked field by field (ValueError names the
    first that is wrong), as plain dicts with exactly the documented keys."""
    if not isinstance(moves, list):
        raise ValueError("a review's moves are a list, not %s" % _short(moves))
    out = []
    for k, m in enumerate(moves, 1):
        if not isinstance(m, dict):
            raise ValueError("a review's move %d is a dict, not %s" % (k, _short(m)))
        missing = [key for key in _MOVE_KEYS if key not in m]
        if missing:
            raise ValueError("a review's move %d lacks %s" % (k, ", ".join(missing)))
        if m["number"] != k or not _is_int(m["number"]):
            raise ValueError("a review's move %d is numbered %s" % (k, _short(m["number"])))
        if not _is_int(m["player"]) or m["player"] < 0:
            raise ValueError("a review's move %d has no seat: %s" % (k, _short(m["player"])))
        if not isinstance(m["move"], str) or not m["move"]:
            raise ValueError("a review's move %d is not a move: %s" % (k, _short(m["move"])))
        best = m["best"]
        if best is not None and not isinstance(best, str):
            raise ValueError("a review's move %d has a best move %s" % (k, _short(best)))
        best_chance = m["best_chance"]
        if (best is None) != (best_chance is None):
            raise ValueError("a review's move %d has a best move and its chance, or neither"
                             % k)
        if m["mark"] is not None and m["mark"] not in MARKS:
            raise ValueError("a review's move %d has the mark %s" % (k, _short(m["mark"])))
        if not isinstance(m["hint"], bool):
            raise ValueError("a review's move %d: hint is true or false" % k)
        out.append({"number": k, "player": m["player"], "move": m["move"],
                    "before": _chance(m["before"], "chance before move %d" % k),
                    "after": _chance(m["after"], "chance after move %d" % k),
                    "best": best,
                    "best_chance": None if best_chance is None
                    else _chance(best_chance, "best move's chance at move %d" % k),
                    "mark": m["mark"], "hint": m["hint"]})
    return out


class Reviews:
    """The part of vora_host.log.store.GameLog that keeps reviews."""

    def save_review(self, game_id, review) -> None:
        """Keep `review` (the dict of this module's documentation; `game_id`, `game`,
        `format`, `version` and `thresholds` are the log's own and may be left out) as
        the review of game `game_id`, replacing any it had. Refused: NoSuchGame,
        GameBeingPlayed (a game playing or interrupted), ValueError naming a wrong field.
        Not fenced (a review changes nothing of the game), and not kept in memory when
        the file cannot be written (CannotWrite, DatabaseLocked: run it again)."""
        if not isinstance(review, dict):
            raise ValueError("a review is a dict, not %s" % _short(review))
        budget = review.get("budget")
        if not _is_int(budget) or budget < 1:
            raise ValueError("a review's budget is a whole number of iterations of at least "
                             "1, not %s" % _short(budget))
        for key in ("complete", "knows_secrets"):
            if not isinstance(review.get(key), bool):
                raise ValueError("a review's %s is true or false, not %s"
                                 % (key, _short(review.get(key))))
        moves = check_moves(review.get("moves"))
        gid = self._canon(game_id)
        if not _is_int(gid) or gid < 0:
            raise NoSuchGame(game_id, self.path)
        text = json.dumps(moves)
        with self._transaction() as conn:
            status, _ = self._status(conn, gid)
            if status not in REVIEWABLE:
                raise GameBeingPlayed(gid, status)
            conn.execute("DELETE FROM reviews WHERE game_id = ?", (gid,))
            conn.execute("INSERT INTO reviews (game_id, budget, complete, knows_secrets, moves, "
                         "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                         (gid, budget, int(review["complete"]), int(review["knows_secrets"]),
                          text, _now()))

    def delete_review(self, game_id) -> None:
        """Forget the review of a game (none: nothing happens)."""
        gid = self._canon(game_id)
        if not _is_int(gid) or gid < 0:
            return
        with self._transaction() as conn:
            conn.execute("DELETE FROM reviews WHERE game_id = ?", (gid,))

    def review(self, game_id):
        """The review of game `game_id` as the dict of this module's documentation, or
        None when it has none (or its moves are no longer the game's). NoSuchGame when
        there is no such game."""
        info = self.game(game_id)
        gid = info["id"]
        if not _is_int(gid) or gid < 0:
            return None
        with self._errors():
            row = self._conn.execute("SELECT budget, complete, knows_secrets, moves FROM "
                                     "reviews WHERE game_id = ?", (gid,)).fetchone()
        if row is None:
            return None
        budget, complete, knows, text = row
        try:
            moves = check_moves(json.loads(text))
        except ValueError:
            return None  # written by hand, or damaged: as if there were none
        live = [m["move"] for m in info["moves"]]
        if [m["move"] for m in moves] != live[:len(moves)]:
            return None  # the game changed since (a takeback, then another end)
        return {"format": REVIEW_FORMAT, "version": REVIEW_VERSION, "game_id": gid,
                "game": info["game"], "budget": int(budget),
                "complete": bool(complete) and len(moves) == len(live),
                "knows_secrets": bool(knows), "thresholds": dict(THRESHOLDS),
                "moves": moves}

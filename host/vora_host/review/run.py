"""A review of a game in the log: computed once, kept there (GameLog.save_review), resumed
where it stopped, re-done with a bigger budget, and computed by worker processes where
that pays.

    review = review_game(log, gid)                 # the stored one, or computed and kept
    review = review_game(log, gid, budget=2000)    # bigger than the stored budget: re-done
    review_game(log, gid, on_progress=f)           # f(done, total) after each move reviewed

Ctrl-C (KeyboardInterrupt) while computing keeps the moves reviewed so far in the log and
raises ReviewStopped(done, total); the same call later goes on from there. Every position
is searched with its own seed (vora_host.review.evaluate), so which process searched it,
and whether the review was stopped and resumed, changes nothing in the result.
"""

import multiprocessing
import os
import signal
import time

from vora_host.log.reviews import REVIEWABLE, GameBeingPlayed
from vora_host.log.verify import check_replay, record_of
from vora_host.pools import stop_local_pool
from vora_host.review.evaluate import (DEFAULT_BUDGET, MAX_BUDGET, evaluate_position,
                                       knows_secrets, positions, review_moves)

__all__ = ["review_game", "ReviewStopped", "GameDoesNotReplay", "WORKERS",
           "PARALLEL_FROM", "hint_moves", "evaluations"]

# Worker processes: two, the cores this machine has (fewer where there are fewer).
WORKERS = min(2, os.cpu_count() or 1)
# Positions left below which one process does it all: starting a worker (spawn, imports)
# takes longer than a few positions' search.
PARALLEL_FROM = 40
# Seconds between two saves of a review in progress (and one at the end or a stop).
SAVE_EVERY = 5.0


class ReviewStopped(Exception):
    """The review was interrupted (Ctrl-C) after `done` of `total` moves; those are kept."""

    def __init__(self, game_id, done, total):
        Exception.__init__(self, "stopped at move %d of %d; run the same command to go on"
                           % (done, total))
        self.game_id = game_id
        self.done = done
        self.total = total


class GameDoesNotReplay(ValueError):
    """A logged game whose moves do not replay: there is nothing to review."""


def hint_moves(events):
    """The numbers of the moves before which a hint was taken, from GameLog.events (a
    hint's event carries the game's live move count when it was asked for)."""
    return sorted({e["number"] + 1 for e in events if e["kind"] == "hint"})


def review_game(log, game_id, budget=None, again=False, workers=None, on_progress=None,
                on_start=None):
    """The review of game `game_id` of `log` (the dict of vora_host.log.reviews), computed
    and kept when the log has none, or none complete at this budget. `budget`: iterations
    per position (None: the stored review's, else DEFAULT_BUDGET); bigger than the stored
    one computes it afresh, and so does `again` once the stored one is complete (a review
    stopped part way goes on). `workers`: processes (None: WORKERS).
    `on_start(total, done, budget)` before computing; `on_progress(done, total)` after each
    move. Raises NoSuchGame, GameBeingPlayed, GameDoesNotReplay, ValueError (a bad budget),
    ReviewStopped."""
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)
                               or not 1 <= budget <= MAX_BUDGET):
        raise ValueError("a review's budget is a whole number of iterations from 1 to %d, "
                         "not %r" % (MAX_BUDGET, budget))
    info = log.game(game_id)
    gid = info["id"]
    if info["status"] not in REVIEWABLE:
        raise GameBeingPlayed(gid, info["status"])
    record, digests = record_of(info)
    report = check_replay(record, digests)
    if report.problem not in (None, "result"):
        raise GameDoesNotReplay("game %d does not replay (%s): there is nothing to review; "
                                "see 'vora games verify %d'" % (gid, report.message, gid))
    stored = log.review(gid)
    if stored is not None:
        if (again and stored["complete"]) or (budget is not None
                                               and budget > stored["budget"]):
            # Re-done from the start. (`again` on a review left part way goes on with it:
            # the same command, run again after Ctrl-C, must not start over.)
            stored = None
        else:
            budget = stored["budget"]  # a smaller budget keeps the better review
            if stored["complete"]:
                return stored
    if budget is None:
        budget = DEFAULT_BUDGET
    game = info["game"]
    secrets = knows_secrets(game)
    total = len(record["moves"])
    hints = hint_moves(log.events(gid))
    done = [] if stored is None else stored["moves"]
    if on_start is not None:
        on_start(total, len(done), budget)
    states = positions(record)[len(done):]  # from the position before the first move left
    last = []  # the last two evaluations: all that a move's review needs
    last_save = [time.monotonic()]

    def save(complete):
        log.save_review(gid, {"budget": budget, "complete": complete,
                              "knows_secrets": secrets, "moves": done})
        last_save[0] = time.monotonic()

    try:
        for evaluation in evaluations(game, states, len(done), budget, secrets,
                                       WORKERS if workers is None else workers):
            last = last[-1:] + [evaluation]
            if len(last) < 2:
                continue
            done.extend(review_moves(record, last, hints, start=len(done)))
            if on_progress is not None:
                on_progress(len(done), total)
            if time.monotonic() - last_save[0] >= SAVE_EVERY:
                save(False)
    except KeyboardInterrupt:
        save(False)
        raise ReviewStopped(gid, len(done), total)
    except Exception:
        save(False)  # a worker lost (killed, out of memory): what was done is kept
        raise
    save(True)
    return log.review(gid)


def evaluations(game, states, start, budget, secrets, workers):
    """The evaluations of `states` (positions start, start + 1, ...), in order, by
    `workers` processes when PARALLEL_FROM positions or more (else here)."""
    texts = [s.to_json() for s in states]
    if workers <= 1 or len(texts) < PARALLEL_FROM:
        for k, text in enumerate(texts, start):
            yield evaluate_position(game, text, k, budget, secrets)
        return
    from concurrent.futures import ProcessPoolExecutor
    # spawn: the workers start clean, whatever threads this process runs (the game log's
    # lease keeper, the progress bar); they ignore Ctrl-C, which the parent handles.
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_ignore_sigint)
    finished = False
    try:
        futures = [pool.submit(evaluate_position, game, text, k, budget, secrets)
                   for k, text in enumerate(texts, start)]
        for future in futures:
            yield future.result()
        finished = True
    finally:
        stop_local_pool(pool, finished)


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)



"""Reviews of finished games (issue 41): kept in the game log beside the game (SQLite and
PostgreSQL), computed by vora_host.review with the search at a fixed budget, shown by
`vora games review`."""

import json
import random

import pytest

from shared_rules import games as rules_games
from vora_host.log.records import result_of
from vora_host.log.reviews import GameBeingPlayed, THRESHOLDS, mark_of
from vora_host.log.store import GameLog, NoSuchGame
from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path):
    """A game log on each backend (PostgreSQL skipped, saying why, without a server)."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return request.getfixturevalue("pg_url")


def log_random_game(log, game="vora", seed=1, players=2, max_moves=None, end=True):
    """A game of random moves logged whole (over when it ended, else abandoned or left
    playing): its id and moves."""
    module = rules_games.load(game)
    state = module.new_game(players, seed)
    rng = random.Random(seed)
    gid = log.start_game(game=game, players=players, seed=seed, source="terminal",
                         options=state.options())
    moves = []
    while not state.is_over() and (max_moves is None or len(moves) < max_moves):
        move = rng.choice(state.legal_moves())
        state.play(move)
        moves.append(move)
        assert log.add_move(gid, len(moves), move, state.digest())
    if end:
        log.end_game(gid, "over" if state.is_over() else "abandoned",
                     result_of(state, None if state.is_over() else "quit"))
    return gid, moves


def fake_moves(moves):
    return [{"number": k, "player": k % 2, "move": m, "before": 0.5, "after": 0.25,
             "best": "x", "best_chance": 0.5, "mark": "mistake", "hint": False}
            for k, m in enumerate(moves, 1)]


# ---------------------------------------------------------------- the store

def test_a_review_is_kept_read_back_and_deleted_with_its_game(target):
    with GameLog(target) as log:
        gid, moves = log_random_game(log, max_moves=6)
        assert log.review(gid) is None
        log.save_review(gid, {"budget": 50, "complete": False, "knows_secrets": False,
                              "moves": fake_moves(moves[:3])})
        review = log.review(gid)
        assert review == {"format": "vora-review", "version": 1, "game_id": gid,
                          "game": "vora", "budget": 50, "complete": False,
                          "knows_secrets": False, "thresholds": THRESHOLDS,
                          "moves": fake_moves(moves[:3])}
        json.dumps(review)  # what the web page serves
        log.save_review(gid, {"budget": 80, "complete": True, "knows_secrets": False,
                              "moves": fake_moves(moves)})
        assert log.review(gid)["budget"] == 80 and log.review(gid)["complete"] is True
    with GameLog(target) as log:  # kept
        assert len(log.review(gid)["moves"]) == len(moves)
        log.delete_game(gid)
        with pytest.raises(NoSuchGame):
            log.review(gid)
        other, _ = log_random_game(log, seed=2, max_moves=4)
        assert log.review(other) is None


def test_a_game_being_played_gets_no_review_and_bad_fields_are_named(target):
    with GameLog(target) as log:
        gid, moves = log_random_game(log, max_moves=4, end=False)
        with pytest.raises(GameBeingPlayed, match="game %d has no review: it is still being "
                                                  "played" % gid):
            log.save_review(gid, {"budget": 5, "complete": True, "knows_secrets": False,
                                  "moves": fake_moves(moves)})
        with pytest.raises(NoSuchGame):
            log.save_review(gid + 100, {"budget": 5, "complete": True, "knows_secrets": False,
                                        "moves": []})
        log.end_game(gid, "abandoned")
        bad = fake_moves(moves)
        bad[1]["after"] = 1.5
        with pytest.raises(ValueError, match="chance after move 2 is a chance from 0 to 1"):
            log.save_review(gid, {"budget": 5, "complete": True, "knows_secrets": False,
                                  "moves": bad})
        with pytest.raises(ValueError, match="budget"):
            log.save_review(gid, {"budget": 0, "complete": True, "knows_secrets": False,
                                  "moves": []})
        assert log.review(gid) is None


def test_a_review_of_moves_no_longer_the_games_is_not_shown(tmp_path):
    with GameLog(tmp_path / "games.sqlite3") as log:
        gid, moves = log_random_game(log, game="vorcept", seed=3)
        assert log.game(gid)["status"] == "over"
        log.save_review(gid, {"budget": 5, "complete": True, "knows_secrets": False,
                              "moves": fake_moves(moves)})
        assert log.review(gid) is not None
        log.take_back(gid, len(moves))  # the game is playing again, then ends otherwise
        log.end_game(gid, "abandoned")
        assert log.review(gid) is None


def test_marks_follow_the_thresholds():
    assert THRESHOLDS == {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3}
    assert mark_of(0.5, 0.41) is None
    assert mark_of(0.5, 0.4) == "inaccuracy"  # 0.1 exactly, whatever the float rounding
    assert mark_of(0.5, 0.31) == "inaccuracy"
    assert mark_of(0.7, 0.5) == "mistake"
    assert mark_of(0.9, 0.6) == "blunder"
    assert mark_of(0.3, 0.9) is None  # a gain is never marked

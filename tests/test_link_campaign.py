"""The fault campaign at a modest size (tests/link_campaign.py says how it plays): whole
games over a line damaging 1 %, 5 % and 20 % of the frames both ways with every fault kind
(drops, bit flips, duplicates, reorders, truncations, inserted and deleted bytes), and the
host's game log compared with the board's record: no move lost, doubled or out of order.

Finding 1 of issue 8 (catch-up stalled for good when the board's queue was full) lost
moves in 3 of these 8 games at 20 % before the fix (284 of 1,200 moves). The full size
(whole games of up to 400 moves, 3,000 games a rate)
is bench/bench_link_campaign.py; its figures are in docs/benchmarks.md."""

import pytest

from vora_host.log.store import GameLog

from link_campaign import FAULTS, Summary, percentile, play_game

GAMES = 8  # per rate, of 150 moves each: 1,200 moves and 13,000 frames a rate
MOVES = 150


@pytest.mark.parametrize("rate", [0.01, 0.05, 0.20], ids=["1pct", "5pct", "20pct"])
def test_no_move_is_lost_doubled_or_reordered_with_every_fault_kind(tmp_path, rate):
    summary = Summary(rate)
    with GameLog(tmp_path / "campaign.sqlite3") as log:
        for k in range(GAMES):
            result = play_game(7000 + k, rate, log, max_moves=MOVES)
            assert (result.lost, result.doubled, result.reordered) == (0, 0, 0), (
                "game %d at %d%%: %s" % (7000 + k, rate * 100, vars(result)))
            summary.add(result)
        assert len(log.games()) == GAMES
    assert summary.board_moves == MOVES * GAMES
    assert all(summary.faults[kind] > 5 for kind in FAULTS), summary.faults
    assert "mismatch" not in summary.problems, summary.problems  # no bad frame got through
    # Catch-up never stalls: every move is in the log within seconds of being played.
    assert max(summary.catch_up_ms) < 20000, summary.line()
    assert percentile(summary.catch_up_ms, 50) < 3000, summary.line()


def test_a_faulty_board_loses_no_move_and_its_games_are_marked(tmp_path):
    # Issue 23, finding 6: a CRC-valid MOVE with a wrong digest (a faulty board) stopped
    # the log for good. Now and then this board reports a wrong digest, or its own state
    # goes wrong between moves; over a line damaging 5 % of the frames, every move is
    # logged, and every game the board got wrong is marked as needing attention.
    summary = Summary(0.05)
    with GameLog(tmp_path / "campaign.sqlite3") as log:
        for k in range(4):
            result = play_game(7100 + k, 0.05, log, max_moves=MOVES, faulty=0.05)
            assert (result.lost, result.doubled, result.reordered) == (0, 0, 0), (
                "game %d: %s" % (7100 + k, vars(result)))
            assert result.attention == bool(result.board_faults), vars(result)
            summary.add(result)
    assert summary.board_moves == MOVES * 4 and summary.games_faulty == 4
    assert summary.board_faults > 10 and summary.resyncs > 5, summary.line()
    assert max(summary.catch_up_ms) < 20000, summary.line()

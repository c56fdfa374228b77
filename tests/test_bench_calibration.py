"""The statistics of the review's calibration bench (bench/bench_review_calibration.py,
issue 41): binning, the table's rows, Brier scores, which bots and positions a seed gets.
Hand-made data, expected values worked out by hand in the comments."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_review_calibration as cal  # noqa: E402


@pytest.mark.parametrize("chance, expected", [
    (0.0, 0), (0.05, 0), (0.0999, 0),
    (0.1, 1),             # a boundary goes to the bin above
    (0.69, 6), (0.7, 7),
    (0.7 - 1e-12, 7),     # a hair below a boundary (float error) counts as on it
    (0.95, 9), (1.0, 9),  # 100% is in the last bin, not an eleventh
])
def test_bin_of(chance, expected):
    assert cal.bin_of(chance) == expected


@pytest.mark.parametrize("chance", [-0.01, 1.01])
def test_bin_of_refuses_what_is_not_a_chance(chance):
    with pytest.raises(ValueError, match="from 0 to 1"):
        cal.bin_of(chance)


def test_calibration_rows():
    pairs = [(0.05, 0), (0.08, 0),          # bin 0: n 2, mean 0.065, observed 0
             (0.15, 1),                     # bin 1: n 1, mean 0.15, observed 1
             (0.92, 1), (0.98, 1), (0.95, 0.5)]  # bin 9: n 3, mean 2.85/3 = 0.95,
    #                                        observed 2.5/3 = 0.8333 (a draw: its half)
    rows = cal.calibration_rows(pairs)
    assert len(rows) == 10
    assert [r["n"] for r in rows] == [2, 1, 0, 0, 0, 0, 0, 0, 0, 3]
    assert [(r["low"], r["high"]) for r in rows[:2]] == [(0.0, 0.1), (0.1, 0.2)]
    assert rows[9]["high"] == 1.0
    assert rows[0]["mean"] == pytest.approx(0.065)
    assert rows[0]["observed"] == 0
    assert rows[1]["mean"] == pytest.approx(0.15)
    assert rows[1]["observed"] == 1
    assert rows[9]["mean"] == pytest.approx(0.95)
    assert rows[9]["observed"] == pytest.approx(2.5 / 3)
    # Wilson 95%, z = 1.96, z^2 = 3.8415:
    # 0 of 2: centre = (0 + z^2/4) / (1 + z^2/2) = 0.96037 / 2.92073 = 0.32881, and
    #   half = z * sqrt(z^2/16) / 2.92073 = 0.96037 / 2.92073 = 0.32881: (0, 0.6576).
    assert rows[0]["ci"][0] == 0.0
    assert rows[0]["ci"][1] == pytest.approx(0.6576, abs=1e-4)
    # 1 of 1: centre = (1 + z^2/2) / (1 + z^2) = 2.92073 / 4.84146 = 0.60328, half =
    #   z * sqrt(z^2/4) / 4.84146 = 1.92073 / 4.84146 = 0.39672: (0.2066, 1).
    assert rows[1]["ci"][0] == pytest.approx(0.2066, abs=1e-4)
    assert rows[1]["ci"][1] == 1.0
    # An empty bin: nothing to say.
    assert rows[5]["mean"] is None and rows[5]["observed"] is None
    assert rows[5]["ci"] == (0.0, 1.0)


def test_brier_and_the_base_rate():
    pairs = [(0.8, 1), (0.3, 0), (0.5, 0.5)]
    # (0.2^2 + 0.3^2 + 0^2) / 3 = (0.04 + 0.09) / 3 = 0.043333
    assert cal.brier(pairs) == pytest.approx(0.13 / 3)
    # Always 1/2: (0.25 + 0.25 + 0) / 3 = 0.166667
    assert cal.base_brier(pairs, 2) == pytest.approx(0.5 / 3)
    # 1 - 0.043333 / 0.166667 = 1 - 0.26 = 0.74
    assert cal.skill(cal.brier(pairs), cal.base_brier(pairs, 2)) == pytest.approx(0.74)
    # Three players, always 1/3 against outcomes 1, 0, 0:
    # ((2/3)^2 + (1/3)^2 + (1/3)^2) / 3 = (6/9) / 3 = 2/9
    assert cal.base_brier([(0.9, 1), (0.1, 0), (0.2, 0)], 3) == pytest.approx(2 / 9)
    # A perfect forecaster: Brier 0, skill 1; the base rate itself: skill 0.
    perfect = [(1.0, 1), (0.0, 0)]
    assert cal.brier(perfect) == 0
    assert cal.skill(cal.brier(perfect), cal.base_brier(perfect, 2)) == 1.0
    assert cal.skill(0.25, 0.25) == 0.0
    with pytest.raises(ValueError):
        cal.brier([])


def test_seat_kinds_go_through_every_pairing():
    kinds = ["a", "b", "c"]
    # The ordered pairs in itertools.product's order: aa ab ac ba bb bc ca cb cc.
    assert cal.seat_kinds(kinds, 2, 9) == ["a", "a"]
    assert cal.seat_kinds(kinds, 2, 5) == ["b", "c"]
    assert cal.seat_kinds(kinds, 2, 20000) == ["a", "c"]  # 20000 = 9 * 2222 + 2
    assert sorted(tuple(cal.seat_kinds(kinds, 2, s)) for s in range(20000, 20009)) == [
        (x, y) for x in kinds for y in kinds]
    assert len(cal.seat_kinds(kinds, 3, 7)) == 3


def test_plies_are_drawn_from_the_seed():
    got = cal.plies(100, 6, 20000)
    assert got == sorted(set(got)) and len(got) == 6
    assert all(0 <= p < 100 for p in got)
    assert cal.plies(100, 6, 20000) == got        # the seed, not the clock
    assert cal.plies(100, 6, 20001) != got
    assert cal.plies(3, 6, 1) == [0, 1, 2]        # a short game: every position


def test_a_game_job_scores_the_player_to_act():
    from shared_rules import games
    from vora_host.lab.swings import play_record
    from vora_host.review.evaluate import positions, result_values
    out = cal.game_job(("vora", 2, 5, ["random", "random"], 3, 20))
    assert out["finished"] and len(out["points"]) == 3
    states = positions(play_record("vora", 2, ["random", "random"], 5))
    result = result_values(states[-1])
    assert games.load("vora") and out["moves"] == len(states) - 1
    for point in out["points"]:
        assert point["player"] == states[point["ply"]].to_act()
        assert point["outcome"] == result[point["player"]]
        assert 0.0 <= point["chance"] <= 1.0


def test_games_per_bin_counts_each_game_once_a_bin():
    games = [[(0.05, 0), (0.02, 0), (0.95, 1)],   # game 0: bins 0, 0, 9
             [(0.03, 1)],                          # game 1: bin 0
             []]                                   # game 2: no position
    assert cal.games_per_bin(games) == [2, 0, 0, 0, 0, 0, 0, 0, 0, 1]


def test_bootstrap_skill_resamples_whole_games():
    # Every game the same: every resample has the same mix, so the interval is the one
    # skill, 0.74 (worked out in test_brier_and_the_base_rate).
    same = [[(0.8, 1), (0.3, 0), (0.5, 0.5)]] * 5
    low, high = cal.bootstrap_skill(same, 2, rounds=200)
    assert low == pytest.approx(0.74) and high == pytest.approx(0.74)
    # One perfect game and one that says 1.0 and loses: resamples go from all perfect
    # (skill 1) to all wrong (Brier 1 against 0.25: skill -3), so a wide interval that
    # holds the whole sample's skill, 1 - 0.5 / 0.25 = -1.
    mixed = [[(1.0, 1)], [(1.0, 0)]]
    low, high = cal.bootstrap_skill(mixed, 2, rounds=400)
    assert low < -1 < high
    assert low >= -3 and high <= 1
    assert cal.bootstrap_skill(mixed, 2, rounds=400) == (low, high)  # seeded, not clocked
    # Nothing to resample: no interval.
    nothing = cal.bootstrap_skill([[]], 2, rounds=10)
    assert all(x != x for x in nothing)  # nan


def test_bootstrap_skill_keeps_a_games_positions_together():
    # Two games of two positions: one right twice (1.0, won), one wrong twice (1.0, lost).
    # Resampling games gives 4 positions of 0, 2 or 4 wrong ones: Brier 0, 0.5 or 1
    # against the base rate's 0.25, skill 1, -1 or -3. Resampling positions would also
    # give 1 or 3 wrong ones (skill 0 or -2).
    games = [[(1.0, 1), (1.0, 1)], [(1.0, 0), (1.0, 0)]]
    seen = set()
    for seed in range(60):
        low, high = cal.bootstrap_skill(games, 2, rounds=1, seed=seed)
        assert low == high
        seen.add(round(low, 9))
    assert seen == {1.0, -1.0, -3.0}

"""The balance lab (`vora lab`, vora_host.lab): its statistics against published values,
its seeds, its numbers against games counted by hand, the same report whoever plays the
games (this process, local processes, Ray, an interrupted run resumed), its files read as
untrusted input, and what a user sees."""

import json
import math
import os
import pty
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from vora_host.cli import main
from vora_host.lab import stats
from vora_host.lab.analysis import Results
from vora_host.lab.cli import parse_compare, parse_options
from vora_host.lab.run import run_lab
from vora_host.lab.runners import InProcessRunner, ProcessRunner
from vora_host.lab.spec import LabSpec, SpecError, bot_seeds, game_seed, has_chance, \
    split_values
from vora_host.lab.store import GAMES_FILE, LabFileError, read_games

from fakegames import high_card
from shared_rules import vora

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def quiet():
    return Console(file=open(os.devnull, "w"), width=200)


def play(spec, out, runner=None, resume=False, plots=False):
    report, complete = run_lab(spec.check(), out, runner or InProcessRunner(), quiet(), quiet(),
                               resume=resume, plots=plots)
    return report, complete


def same_numbers(a, b):
    # Everything but the "run" part (who played, how fast), as written to report.json.
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
    a.pop("run")
    b.pop("run")
    return a == b


def vora_lab(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "vora_host", "lab", "vora", *args],
                          capture_output=True, text=True, cwd=kwargs.pop("cwd", ROOT),
                          env=dict(os.environ, COLUMNS="200"), timeout=300, **kwargs)


# ---------------------------------------------------------------- statistics

def test_wilson_interval_matches_published_values():
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553 to 0.3662;
    # 0/10 -> 0 to 0.2775.
    low, high = stats.wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = stats.wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_mcnemar_exact_and_approximate():
    # Exact: 1 of 10 discordant pairs one way: p = 2 * 11 / 1024.
    assert stats.mcnemar(1, 9) == pytest.approx(22 / 1024)
    assert stats.mcnemar(5, 5) == 1.0
    assert stats.mcnemar(0, 0) == 1.0
    # Large: McNemar's chi-square with continuity, (|b - c| - 1)^2 / (b + c) = 20.67 for
    # b = 121, c = 59 (Wikipedia's example), p = 5.4e-6.
    assert stats.mcnemar(121, 59) == pytest.approx(5.45e-6, rel=0.02)


def test_paired_difference():
    mean, half, p = stats.paired_difference(4, 8, 4 * 4)  # four differences of 2
    assert (mean, half, p) == (2.0, 0.0, 0.0)
    d = [1, -1] * 50
    mean, half, p = stats.paired_difference(len(d), sum(d), sum(x * x for x in d))
    assert mean == 0 and p == 1.0 and half == pytest.approx(1.96 * (100 / 99 / 100) ** .5,
                                                            rel=1e-3)
    assert stats.paired_difference(1, 3, 9) == (3.0, None, 1.0)


def test_quantiles_are_numpys_default():
    import numpy
    rnd = random.Random(4)
    for n in (1, 2, 7, 100):
        values = sorted(rnd.randint(0, 50) for _ in range(n))
        for q in (0, .05, .25, .5, .95, 1):
            assert stats.quantile(values, q) == pytest.approx(numpy.percentile(values, 100 * q))


def test_kappa_of_a_textbook_table():
    # 50 pairs: yes/yes 20, yes/no 5, no/yes 10, no/no 15: agreement .7, chance .5, kappa .4.
    pairs = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    agree, expected, k, low, high = stats.kappa(pairs)
    assert (agree, expected) == (0.7, 0.5) and k == pytest.approx(0.4)
    assert low < 0.4 < high
    assert stats.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert stats.kappa([(1, 1)] * 9) == (1.0, 1.0, None, None, None)


def test_histogram_counts_every_value():
    edges, counts = stats.histogram(list(range(100)) + [5, 5], bins=10)
    assert sum(counts) == 102 and edges[0] == 0 and len(edges) == len(counts) + 1
    assert stats.histogram([3, 4], bins=10, lo=0, hi=99)[0] == edges


# ---------------------------------------------------------------- seeds and specs

def test_seeds_depend_on_the_base_seed_and_index_alone(tmp_path):
    assert game_seed(0, 5) == game_seed(0, 5)
    assert len({game_seed(0, i) for i in range(1000)}) == 1000
    assert game_seed(0, 5) != game_seed(1, 5)
    assert bot_seeds(0, 5, 3) != bot_seeds(0, 5, 3, replica=1)
    # The first games of a longer run are the games of a shorter one.
    play(LabSpec("vora", games=3, seed=3, seed_effect=0), tmp_path / "short")
    play(LabSpec("vora", games=6, seed=3, seed_effect=0), tmp_path / "long")

    def games(name):
        lines = (tmp_path / name / GAMES_FILE).read_text().splitlines()[1:]
        return sorted(lines, key=lambda x: json.loads(x)["i"])
    assert games("long")[:3] == games("short")


def test_compare_values_split_outside_json():
    assert split_values("1,2, 3") == ["1", "2", "3"]
    assert split_values('{"a": 1, "b": [1, 2]},{"a": 2}') == ['{"a": 1, "b": [1, 2]}', '{"a": 2}']


def test_option_values_from_the_command_line():
    assert parse_options(vora, ["box=10"])["box"] == {t: 10 for t in vora.TYPES}
    assert parse_options(vora, ['box={"pig": 3}'])["box"] == {"pig": 3}
    assert parse_compare(vora, "pushed_out=box,pusher") == ("pushed_out", ["box", "pusher"])
    assert parse_compare(vora, "max_turns=100,400") == ("max_turns", [100, 400])
    assert parse_compare(vora, "players=2,4") == ("players", [2, 4])
    with pytest.raises(ValueError, match="pushed_out is one of box, pusher"):
        parse_compare(vora, "pushed_out=box,nobody")
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        parse_options(vora, ["colour=red"])


@pytest.mark.parametrize("kwargs,message", [
    (dict(game="vorcept", bots=["greedy"]), "'greedy' is Vora's own bot"),
    (dict(game="vora", bots=["random", "greedy", "random"]), "3 given for 2 players"),
    (dict(game="vora", players=5), "played by 2, 3, 4 players"),
    (dict(game="vora", compare=("pushed_out", ["box"])), "at least two values"),
    (dict(game="vora", compare=("max_turns", [4, 4])), "given twice"),
    (dict(game="vora", options={"max_turns": 9}, compare=("max_turns", [4, 5])),
     "also given with -o"),
    (dict(game="vora", options={"box": {"pig": 1}}), "the box holds 1 cube;"),
    (dict(game="vora", compare=("players", [2, 7])), "not 7"),
    (dict(game="vora", seed_effect=10, games=5), "--seed-effect"),
    (dict(game="nim"), "unknown game 'nim'"),
])
def test_a_spec_that_cannot_run_says_why(kwargs, message):
    with pytest.raises(SpecError, match=message):
        LabSpec(**kwargs).check()


def test_the_bot_kind_is_handed_to_make_bot_as_given(monkeypatch):
    # Kinds with a budget ("search:200") go to make_bot unchanged: the search bot parses
    # its own budget.
    from vora_host import bots
    seen = []
    real = bots.make_bot

    def spy(kind, seed=0, game="vora"):
        seen.append(kind)
        return real("random", seed, game)
    monkeypatch.setattr(bots, "make_bot", spy)
    LabSpec("vora", bots=["search:200", "random"], seed_effect=0).check()
    assert "search:200" in seen


def test_chance_is_found_by_playing():
    assert has_chance(LabSpec("vora"))
    assert not has_chance(LabSpec("vorcept"))
    assert LabSpec("vorcept", games=100).check().seed_effect == 0
    assert LabSpec("vora", games=100).check().seed_effect == 50


# ---------------------------------------------------------------- the numbers

def summary(v, i, winner, scores, turns, end="box", kinds=None, r=0):
    return {"v": v, "i": i, "r": r, "seed": 1, "bot_seeds": [1, 2], "players": len(scores),
            "winner": winner, "scores": scores, "turns": turns, "moves": turns * 2,
            "end": end, "kinds": kinds or {}, "digest": "%016x" % (i * 7 + v)}


def test_report_numbers_counted_by_hand():
    spec = LabSpec("vora", games=4, seed_effect=0, compare=("max_turns", [10, 20])).check()
    results = Results(spec)
    # Variant 0: seat 0 wins twice, seat 1 once, one draw; one game at the turn limit.
    games0 = [(0, [5, 1], 10, "box", {"push": [3, 1], "crow": [1, 0]}),
              (1, [2, 7], 12, "box", {"push": [2, 2]}),
              (0, [4, 0], 8, "turns", {"push": [1, 1]}),
              (None, [3, 3], 14, "box", {"push": [2, 2], "crow": [0, 1]})]
    for i, (w, s, t, e, k) in reversed(list(enumerate(games0))):  # any order
        assert results.add(summary(0, i, w, s, t, e, k))
    # Variant 1: the same games but seat 1 wins game 0 and nothing ends by the limit.
    games1 = [(1, [1, 5], 20, "box"), (1, [2, 7], 12, "box"), (0, [4, 0], 9, "box"),
              (None, [3, 3], 14, "box")]
    for i, (w, s, t, e) in enumerate(games1):
        results.add(summary(1, i, w, s, t, e))
    assert not results.add(summary(0, 2, 1, [0, 9], 99))  # a duplicate changes nothing
    report = results.report()
    v = report["variants"][0]
    assert [s["count"] for s in v["seats"]] == [2, 1] and v["draws"]["count"] == 1
    assert v["seats"][0]["rate"] == 0.5
    assert v["first_player_edge"]["edge"] == 0.0
    assert v["turns"]["mean"] == 11 and v["turns"]["min"] == 8 and v["turns"]["max"] == 14
    assert {e["reason"]: e["count"] for e in v["ends"]} == {"box": 3, "turns": 1}
    assert v["turn_limit"]["count"] == 1
    assert [e["reason"] for e in v["ends"]][-1] == "turns"  # the safeguard listed last
    assert v["scores"]["spread"]["mean"] == (4 + 5 + 4 + 0) / 4
    assert v["scores"]["seat_means"] == [14 / 4, 11 / 4]
    kinds = {k["kind"]: k for k in v["kinds"]}
    assert kinds["push"]["uses"] == 14 and kinds["push"]["per_game"] == 3.5
    # Push uses in games with a winner: 4 + 4 + 2 = 10, of which the winner's: 3 + 2 + 1.
    assert kinds["push"]["winner_share"] == 6 / 10
    assert kinds["crow"]["games_using"] == 2 and kinds["crow"]["winner_share"] == 1.0
    rows = {r["metric"]: r for r in report["comparisons"][0]["rows"]}
    assert rows["seat 0 wins"]["diff"] == -0.25 and rows["seat 1 wins"]["diff"] == 0.25
    assert rows["ends by turns"]["base"] == 0.25 and rows["ends by turns"]["value"] == 0.0
    assert rows["turns"]["diff"] == (10 + 0 + 1 + 0) / 4
    assert rows["turns"]["significant"] is False  # four pairs are too few to say
    # Histograms drawn together share their bins.
    assert v["turns_histogram"][0] == report["variants"][1]["turns_histogram"][0]
    assert v["turns_histogram"][0][0] == 8 and v["turns_histogram"][0][-1] > 20


def test_results_do_not_depend_on_the_order_games_arrive():
    spec = LabSpec("vora", games=30, seed_effect=10).check()
    rnd = random.Random(1)
    games = [summary(0, i, rnd.choice([0, 1, None]), [rnd.randint(-5, 30), rnd.randint(-5, 30)],
                     rnd.randint(10, 400), rnd.choice(["box", "turns"]),
                     {"push": [rnd.randint(0, 9), rnd.randint(0, 9)]}) for i in range(30)]
    games += [summary(0, i, rnd.choice([0, 1]), [1, 2], 5, r=1) for i in range(10)]
    reports = []
    for _ in range(3):
        rnd.shuffle(games)
        results = Results(spec)
        for g in games:
            results.add(g)
        reports.append(json.dumps(results.report(), sort_keys=True))
    assert reports[0] == reports[1] == reports[2]


def test_the_seed_effect_of_a_game_of_pure_chance(monkeypatch, tmp_path):
    # High card: the cards dealt (and drawn on a swap) decide many games whatever the
    # players say, so replays of a seed with other bot seeds agree beyond chance.
    high_card.register(monkeypatch)
    spec = LabSpec("high-card", games=300, seed_effect=300)
    report, complete = play(spec, tmp_path / "hc")
    se = report["variants"][0]["seed_effect"]
    assert complete and se["pairs"] == 300
    assert se["low"] > 0 and se["agreement"] > se["expected"]
    assert {k["kind"] for k in report["variants"][0]["kinds"]} == {"keep", "swap"}
    assert report["variants"][0]["draws"]["count"] > 0


def test_real_games_agree_with_their_replay(tmp_path):
    spec = LabSpec("vora", games=6, seed=9, seed_effect=2, bots=["greedy", "random"])
    report, complete = play(spec, tmp_path / "v")
    assert complete
    lines = [json.loads(x) for x in (tmp_path / "v" / GAMES_FILE).read_text().splitlines()[1:]]
    assert len(lines) == 8
    from vora_host.bots import make_bot
    for s in lines:
        state = vora.new_game(2, s["seed"])
        bots = [make_bot(k, seed, "vora") for k, seed in zip(["greedy", "random"], s["bot_seeds"])]
        moves = 0
        while not state.is_over():
            state.play(bots[state.to_act()].choose(state))
            moves += 1
        assert (state.digest(), moves, state.turn_count(), state.winner(), state.scores(),
                state.end_reason()) == (s["digest"], s["moves"], s["turns"], s["winner"],
                                        s["scores"], s["end"])
        assert s["seed"] == game_seed(9, s["i"])
        assert s["bot_seeds"] == bot_seeds(9, s["i"], 2, s["r"])
    v = report["variants"][0]
    assert v["by_bot"][0]["bot"] == "greedy"
    assert report["spec"]["bots"] == ["greedy", "random"]
    assert report["options_in_full"][0]["pushed_out"] == vora.DEFAULT_PUSHED_OUT


def test_the_lab_caps_a_runaway_game(tmp_path):
    report, _ = play(LabSpec("vora", games=3, seed_effect=0, max_moves=5), tmp_path / "cap")
    ends = report["variants"][0]["ends"]
    assert [(e["reason"], e["count"], e["safeguard"]) for e in ends] == [("lab-cap", 3, True)]
    assert report["variants"][0]["moves"]["max"] == 5


def test_the_report_gives_the_command_as_typed(tmp_path):
    from vora_host.lab.run import spec_command
    spec = LabSpec("vora", games=3, bots=["greedy"], options={"max_turns": 90},
                   compare=("box", [parse_options(vora, ["box=8"])["box"], {"pig": 30}]),
                   seed_effect=0).check()
    assert spec_command(spec) == ("vora lab vora --players 2 --games 3 --seed 0 --bots greedy "
                                  "-o max_turns=90 --compare 'box=8,{\"pig\":30}' "
                                  "--seed-effect 0")


def test_the_report_printed_to_a_file_is_not_cut_at_80_columns(tmp_path, monkeypatch):
    """Issue 22: a lab report piped to a file had its tables cut to 80 columns."""
    import io
    from vora_host.lab.report import print_report
    monkeypatch.delenv("COLUMNS")
    spec = LabSpec("vora", games=4, seed_effect=0, compare=("players", [2, 4]))
    report, complete = play(spec, tmp_path / "p")
    out = io.StringIO()
    print_report(Console(file=out), report)  # not a terminal: rich assumes 80 columns
    text = out.getvalue()
    assert "\u2026" not in text and max(len(line) for line in text.splitlines()) > 80
    assert "difference: players=4" in text


def test_compare_player_counts(tmp_path):
    spec = LabSpec("vora", games=4, seed_effect=0, compare=("players", [2, 4]))
    report, complete = play(spec, tmp_path / "p")
    assert complete and [v["players"] for v in report["variants"]] == [2, 4]
    assert len(report["variants"][1]["seats"]) == 4
    metrics = [r["metric"] for r in report["comparisons"][0]["rows"]]
    assert "seat 1 wins" in metrics and "seat 2 wins" not in metrics


def test_vorcept_too(tmp_path):
    report, complete = play(LabSpec("vorcept", games=10), tmp_path / "vc")
    assert complete and report["spec"]["seed_effect"] == 0
    assert report["variants"][0]["seed_effect"] is None
    assert "move" in {k["kind"] for k in report["variants"][0]["kinds"]}


# ---------------------------------------------------------------- who plays

def test_local_processes_give_the_same_report_as_one_process(tmp_path):
    spec = dict(game="vora", games=24, seed=4, seed_effect=6, compare=("pushed_out", ["box", "pusher"]))
    one, _ = play(LabSpec(**spec), tmp_path / "one")
    many, _ = play(LabSpec(**spec), tmp_path / "many", ProcessRunner(2))
    assert same_numbers(one, many)
    assert many["run"]["runner"] == "2 local processes"

    def lines(name):
        return sorted((tmp_path / name / GAMES_FILE).read_text().splitlines()[1:])
    assert lines("one") == lines("many")


def test_ray_cluster_started_by_the_test(tmp_path):
    # A local Ray cluster started here; `vora lab --ray ADDRESS` in another process
    # connects to it, ships the code, and its report equals the one of this process.
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        address = ray.get_runtime_context().gcs_address
        done = vora_lab("--games", "16", "--seed", "2", "--seed-effect", "4", "--no-plots",
                        "--ray", address, "--out", str(tmp_path / "ray"))
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        ray.shutdown()
    here, _ = play(LabSpec("vora", games=16, seed=2, seed_effect=4), tmp_path / "here")
    there = json.loads((tmp_path / "ray" / "report.json").read_text())
    assert there["run"]["runner"] == "Ray (%s)" % address
    assert same_numbers(here, there)


def test_interrupt_keeps_the_games_and_resume_goes_on(tmp_path):
    # Ctrl-C reaches the whole foreground process group: the driver and its workers.
    out = tmp_path / "run"
    args = ["--seed-effect", "10", "--no-plots", "--out", str(out), "--workers", "2"]
    # (Under stress a run of 5,000 was once found finished: the stress script had started
    # the suite with SIGINT ignored, which its programs inherited; tests/terminal_signals.py
    # puts it back. The run is killed at the end whatever happens, so that a failure
    # leaves nothing behind.)
    proc = subprocess.Popen([sys.executable, "-m", "vora_host", "lab", "vora", "--games",
                             "5000", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=ROOT, start_new_session=True,
                            env=dict(os.environ, COLUMNS="200"))
    try:
        games = out / GAMES_FILE
        deadline = time.time() + 120
        while time.time() < deadline:
            if games.exists() and games.read_text().count("\n") > 120:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        text, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, text
    assert "Interrupted: finishing the" in text and "Partial report" in text
    kept = games.read_text().count("\n") - 1
    assert 120 <= kept < 5010
    # The first 100 games, resumed: those already played are kept, the rest are played,
    # and the numbers are those of an uninterrupted run.
    done = vora_lab("--games", "100", "--resume", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Resuming:" in done.stderr
    resumed = json.loads((out / "report.json").read_text())
    straight, _ = play(LabSpec("vora", games=100, seed_effect=10), tmp_path / "straight")
    assert same_numbers(resumed, straight)
    assert resumed["complete"] and resumed["played"] == 110


# ---------------------------------------------------------------- files

def test_the_games_file_is_read_as_untrusted(tmp_path):
    spec = LabSpec("vora", games=5, seed_effect=0)
    play(spec, tmp_path / "r")
    path = tmp_path / "r" / GAMES_FILE
    good = path.read_text()
    # A last line cut short (killed while writing) is left out; the games stay.
    path.write_text(good + '{"v":0,"i":3,"r"')
    _, count = read_games(path)
    assert count == 5
    lines = good.splitlines()
    for bad, message in [
        ("not json", "line 3: not JSON"),
        (lines[2].replace('"v":', '"v":5,"was":'), "line 3: variant 5 is not one of this run's 1"),
        (lines[2].replace('"r":', '"r":3,"was":'), "line 3: game .* \\(replica 3\\) is outside"),
        (lines[2].replace('"scores":[', '"scores":["x",'), "line 3: field 'scores'"),
        (lines[2].replace('"winner":', '"winner":7,"w":'), "line 3: field 'winner'"),
        ("x" * 70000, "line 3: longer than"),
    ]:
        path.write_text("\n".join(lines[:2] + [bad] + lines[3:]) + "\n")
        done = vora_lab("--games", "5", "--seed-effect", "0", "--no-plots", "--resume",
                        "--out", str(tmp_path / "r"))
        assert done.returncode == 1
        assert "vora lab:" in done.stderr
        import re
        assert re.search(message, done.stderr.replace("\n", "")), done.stderr
    path.write_text(good)
    with pytest.raises(LabFileError, match="seed differs"):
        read_games(path, LabSpec("vora", games=5, seed=1, seed_effect=0).check())


def test_an_existing_run_is_not_overwritten(tmp_path):
    play(LabSpec("vora", games=2, seed_effect=0), tmp_path / "r")
    done = vora_lab("--games", "2", "--no-plots", "--out", str(tmp_path / "r"))
    assert done.returncode == 1 and "add --resume" in done.stderr
    done = vora_lab("--games", "2", "--no-plots", "--resume", "--out", str(tmp_path / "none"))
    assert done.returncode == 1 and "nothing to resume" in done.stderr
    done = vora_lab("--games", "2", "--resume")
    assert done.returncode == 2 and "--resume needs --out" in done.stderr


def test_same_command_same_numbers_and_the_report_says_what_ran(tmp_path, capsys):
    argv = ["lab", "vora", "--games", "8", "--bots", "greedy,random", "-o", "max_turns=300",
            "--seed", "11", "--seed-effect", "2", "--out"]
    assert main(argv + [str(tmp_path / "a")]) == 0
    shown = capsys.readouterr().out
    assert main(argv + [str(tmp_path / "b")]) == 0
    a = json.loads((tmp_path / "a" / "report.json").read_text())
    b = json.loads((tmp_path / "b" / "report.json").read_text())
    assert same_numbers(a, b)
    from vora_host import __version__
    assert a["version"] == __version__ and a["spec"]["seed"] == 11
    assert a["spec"]["bots"] == ["greedy", "random"] and a["spec"]["options"] == {"max_turns": 300}
    assert a["options_in_full"][0]["max_turns"] == 300 and "box" in a["options_in_full"][0]
    assert a["command"].startswith("vora lab vora --players 2 --games 8 --seed 11")
    # What the terminal shows.
    for text in ("Win rate by seat", "First player's edge", "Game length and scores",
                 "How games end", "Move kinds", "Seed effect:", "by the winner",
                 "greedy", "report.html"):
        assert text in shown, text
    # Plots and one self-contained page.
    for name in ("lengths.png", "win_rates.png", "scores.png", "ends.png"):
        assert (tmp_path / "a" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (tmp_path / "a" / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 4
    assert "src='http" not in page and "<script" not in page


def test_usage_errors_name_the_problem(capsys):
    assert_usage = [
        (["--bots", "greedy", "--games", "2"], "vorcept", "'greedy' is Vora's own bot"),
        (["--compare", "pushed_out"], "vora", "give --compare as NAME=VALUE1"),
        (["-o", "max_turns=lots"], "vora", "option max_turns is a whole number"),
    ]
    for args, game, message in assert_usage:
        with pytest.raises(SystemExit) as exc:
            main(["lab", game] + args)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_progress_bar_on_a_terminal(tmp_path):
    # Under a pseudo-terminal (as a person runs it) the bar shows games per second and
    # the time left.
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vora_host", "lab", "vora", "--games",
                             "60", "--seed-effect", "0", "--no-plots", "--workers", "1",
                             "--out", str(tmp_path / "r")], stdin=slave, stdout=slave,
                            stderr=slave, cwd=ROOT, env=dict(os.environ, COLUMNS="150",
                                                             TERM="xterm"))
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0
    assert "games/s" in text and "left" in text and "60/60" in text


def test_ctrl_c_in_one_process_keeps_the_games_played(tmp_path, monkeypatch):
    from vora_host.lab import runners
    real = runners.play_chunk
    calls = []

    def interrupted_at_the_fifth(job):
        calls.append(job)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(job)
    monkeypatch.setattr(runners, "play_chunk", interrupted_at_the_fifth)
    report, complete = play(LabSpec("vora", games=10, seed_effect=0), tmp_path / "r")
    assert not complete and report["played"] == 4 and not report["complete"]
    assert (tmp_path / "r" / GAMES_FILE).read_text().count("\n") == 5  # header and 4 games


def test_a_worker_with_other_code_stops_the_run(tmp_path):
    from vora_host.lab.run import LabError

    class Impostor:
        name, workers = "impostor", 1

        def run(self, spec_dict, chunks, on_result, notice=None):
            on_result({"fingerprint": "0123456789abcdef", "games": []})
            return True
    with pytest.raises(LabError, match="a worker plays other code"):
        play(LabSpec("vora", games=2, seed_effect=0), tmp_path / "r", Impostor())


def test_a_bot_that_always_wins_is_drawn_too(tmp_path):
    # Greedy against random: one seat wins every game, the other none; the intervals hold
    # their estimates exactly (1.0 and 0.0) and the plots draw them.
    report, complete = play(LabSpec("vora", games=10, seed_effect=0, bots=["greedy", "random"]),
                            tmp_path / "r", plots=True)
    seats = report["variants"][0]["seats"]
    assert [s["rate"] for s in seats] == [1.0, 0.0]
    assert report["variants"][0]["seed_effect"] is None  # seed_effect=0: not measured
    assert seats[0]["high"] == 1.0 and seats[1]["low"] == 0.0
    assert (tmp_path / "r" / "win_rates.png").exists()
    for n in range(1, 61):
        for k in range(n + 1):
            low, high = stats.wilson(k, n)
            assert 0 <= low <= k / n <= high <= 1, (k, n)


@pytest.mark.parametrize("game", __import__("shared_rules.games").games.names())
def test_every_registered_game_runs_in_the_lab(game, tmp_path):
    # The lab takes any game from the registry: nothing in it is particular to a game.
    report, complete = play(LabSpec(game, games=3, seed_effect=1), tmp_path / game)
    v = report["variants"][0]
    assert complete and v["games"] == 3 and sum(e["count"] for e in v["ends"]) == 3
    assert all(e["reason"] for e in v["ends"]) and v["kinds"]
    assert v["moves"]["min"] >= 1


# ---------------------------------------------------------------- issue 23, finding 9

def test_a_cut_last_line_is_dropped_on_resume_and_every_resume_works(tmp_path):
    # Finding 9: the first --resume appended its header to a last line cut short, and
    # every later --resume failed ("line 21: not JSON").
    spec = LabSpec("vora", games=6, seed_effect=0)
    out = tmp_path / "r"
    play(LabSpec("vora", games=4, seed_effect=0), out)
    path = out / GAMES_FILE
    whole = path.read_text()
    path.write_text(whole + '{"v":0,"i":4,"r":0,"seed":')  # killed while writing game 5
    said = Console(file=open(tmp_path / "said.txt", "w"), width=200)
    report, complete = run_lab(spec.check(), out, InProcessRunner(), quiet(), said,
                               resume=True, plots=False)
    said.file.close()
    assert complete and report["played"] == 6
    assert "cut short" in (tmp_path / "said.txt").read_text()
    text = path.read_text()
    assert text.startswith(whole) and text.endswith("\n")
    assert all(json.loads(line) for line in text.splitlines())  # no line written into
    # Resumed again (more games): it reads the file and goes on.
    report, complete = play(LabSpec("vora", games=8, seed_effect=0), out, resume=True)
    assert complete and report["played"] == 8
    straight, _ = play(LabSpec("vora", games=8, seed_effect=0), tmp_path / "straight")
    assert same_numbers(report, straight)


def test_a_file_damaged_by_an_older_resume_is_read_again(tmp_path):
    # A games file an older vora left: a cut game with the next header glued to it.
    out = tmp_path / "r"
    play(LabSpec("vora", games=3, seed_effect=0), out)
    path = out / GAMES_FILE
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines + ['{"v":0,"i":3,"r":0,"se' + lines[0]]) + "\n")
    notes = []
    _, count = read_games(path, on_note=notes.append)
    assert count == 3 and len(notes) == 1 and "line 5: a game cut short" in notes[0]
    report, complete = play(LabSpec("vora", games=5, seed_effect=0), out, resume=True)
    assert complete and report["played"] == 5


def _descendants(pid):
    """The processes below `pid` (Linux /proc), children first."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_killing_the_lab_outright_takes_its_workers_with_it(tmp_path):
    # Finding 9: after SIGKILL of `vora lab`, its workers and the multiprocessing resource
    # tracker ran on (75 MB, 8 minutes and more).
    out = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "vora_host", "lab", "vora", "--games",
                             "100000", "--seed-effect", "0", "--no-plots", "--workers", "2",
                             "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=ROOT, start_new_session=True)
    left = []
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            games = out / GAMES_FILE
            if games.exists() and games.read_text().count("\n") > 10:
                break
            time.sleep(0.1)
        below = _descendants(proc.pid)
        assert len(below) >= 3, below  # two workers and the resource tracker
        proc.kill()
        proc.wait(timeout=60)
        deadline = time.time() + 60  # they go at once; a loaded machine may take its time
        while time.time() < deadline:
            left = [pid for pid in below if _alive(pid)]
            if not left:
                break
            time.sleep(0.1)
        assert left == [], "still running after 60 s: %s" % left
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in left:  # our own leftovers, by their ids
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


# ---------------------------------------------------------------- the ladder

def test_bradley_terry_finds_the_strengths_that_made_the_results():
    from vora_host.lab.ladder import bradley_terry
    # Wins in exact proportion to strengths 1, 2 and 4: P(i beats j) = p_i / (p_i + p_j).
    wins = [[0, 100, 100], [200, 0, 100], [400, 200, 0]]
    assert [round(x, 9) for x in bradley_terry(wins)] == [1.0, 2.0, 4.0]
    # Two kinds: the strength ratio is the win ratio; 3 wins to 1 is 191 Elo points.
    assert bradley_terry([[0, 1], [3, 0]])[1] == pytest.approx(3.0)


def test_ladder_ratings_count_draws_as_halves_and_keep_a_sweep_finite():
    from vora_host.lab.ladder import ratings
    sweep = [{"a": 0, "b": 1, "first": 0, "winner": 1} for _ in range(10)]
    r = ratings(2, sweep)
    # Ten wins and the prior's drawn game: (10 + 0.5) / 0.5 = 21 times as strong.
    assert r[0] == 0 and r[1] == pytest.approx(400 * math.log10(21))
    drawn = [{"a": 0, "b": 1, "first": 0, "winner": None} for _ in range(10)]
    assert ratings(2, drawn)[1] == pytest.approx(0.0)


def test_a_ladder_plays_each_deal_both_ways_and_rates_the_stronger_higher(monkeypatch,
                                                                          tmp_path):
    high_card.register(monkeypatch)
    out = tmp_path / "ladder"
    args = ["lab", "high-card", "--ladder", "random", "search:30", "--games", "200",
            "--seed", "3", "--workers", "1", "--out", str(out)]
    assert main(args) == 0
    report = json.loads((out / "ladder.json").read_text())
    games = report["games"]
    assert len(games) == 200 and report["games_per_pair"] == 200
    # Seats alternate, and each deal is played once each way.
    assert [g["first"] for g in games] == [0, 1] * 100
    assert [g["seed"] for g in games[::2]] == [g["seed"] for g in games[1::2]]
    assert len({g["seed"] for g in games}) == 100
    rows = {r["kind"]: r for r in report["ratings"]}
    assert rows["random"]["rating"] == 0
    # Swapping when the card is low beats saying anything at random.
    search = rows["search:30"]
    assert search["wins"] > rows["random"]["wins"]
    assert search["low"] > 0 and search["low"] <= search["rating"] <= search["high"]
    pair = report["pairs"][0]
    assert pair["games"] == 200 and pair["a_wins"] + pair["b_wins"] + pair["draws"] == 200
    assert pair["a_wins"] == rows["random"]["wins"]
    # The same command gives the same ladder.
    again = tmp_path / "again"
    assert main(args[:-1] + [str(again)]) == 0
    assert json.loads((again / "ladder.json").read_text()) == report


@pytest.mark.parametrize("extra, words", [
    (["--ladder", "random"], "name two bot kinds at least"),
    (["--ladder", "random", "random"], "a kind named twice"),
    (["--ladder", "random", "greedy"], "unknown bot 'greedy' for vorcept"),
    (["--ladder", "random", "easy", "--compare", "players=2"], "takes no --compare"),
    (["--ladder", "random", "easy", "--bots", "search:20"], "leave out --bots"),
])
def test_a_bad_ladder_is_refused_before_playing(capsys, extra, words):
    with pytest.raises(SystemExit) as done:
        main(["lab", "vorcept", "--games", "2"] + extra)
    assert done.value.code == 2
    assert words in capsys.readouterr().err


# A ladder keeps each game as it ends: stopped, it goes on with --resume and gives the
# ladder played at one go.

# --workers 1: high-card is registered in this process only (monkeypatch).
LADDER = ["lab", "high-card", "--ladder", "random", "search:5", "search:30", "--games", "6",
          "--seed", "9", "--workers", "1"]


def _counting_games(monkeypatch, stop_at=None):
    from vora_host.lab import ladder, playing
    real = playing.play_game
    played = []

    def play_game(*args):
        if stop_at is not None and len(played) == stop_at:
            raise KeyboardInterrupt
        played.append(args[5])  # the deal's seed
        return real(*args)
    monkeypatch.setattr(ladder, "play_game", play_game)
    return played


def test_a_stopped_ladder_keeps_its_games_and_resume_plays_only_the_rest(monkeypatch,
                                                                          tmp_path, capsys):
    high_card.register(monkeypatch)
    assert main(LADDER + ["--out", str(tmp_path / "whole")]) == 0
    whole = json.loads((tmp_path / "whole" / "ladder.json").read_text())
    assert len(whole["games"]) == 18
    capsys.readouterr()

    cut = tmp_path / "cut"
    _counting_games(monkeypatch, stop_at=7)
    assert main(LADDER + ["--out", str(cut)]) == 130
    err = capsys.readouterr().err
    assert "7 of 18 games kept" in err and "--resume --out" in err
    lines = (cut / "ladder-games.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 7 and not (cut / "ladder.json").exists()

    # The same command again without --resume would mix two ladders: refused.
    assert main(LADDER + ["--out", str(cut)]) == 1
    assert "already holds a ladder: add --resume" in capsys.readouterr().err

    played = _counting_games(monkeypatch)
    assert main(LADDER + ["--out", str(cut), "--resume"]) == 0
    assert "7 of 18 games played already" in capsys.readouterr().err
    assert len(played) == 11
    assert json.loads((cut / "ladder.json").read_text()) == whole


def test_a_ladder_game_cut_short_by_a_crash_is_played_again(monkeypatch, tmp_path, capsys):
    high_card.register(monkeypatch)
    assert main(LADDER + ["--out", str(tmp_path / "whole")]) == 0
    whole = json.loads((tmp_path / "whole" / "ladder.json").read_text())
    out = tmp_path / "crashed"
    _counting_games(monkeypatch, stop_at=4)
    assert main(LADDER + ["--out", str(out)]) == 130
    path = out / "ladder-games.jsonl"
    text = path.read_text()
    path.write_text(text + text.splitlines()[-1][:25])  # a fifth game, half written
    capsys.readouterr()
    played = _counting_games(monkeypatch)
    assert main(LADDER + ["--out", str(out), "--resume"]) == 0
    assert "a last game cut short (25 bytes) is played again" in capsys.readouterr().err
    assert len(played) == 14
    assert json.loads((out / "ladder.json").read_text()) == whole


def _doctor_game(line, **change):
    game = json.loads(line)
    game.update(change)
    return json.dumps(game)


@pytest.mark.parametrize("change, extra, words", [
    (lambda lines: lines, ["--seed", "10"], "holds another ladder: seed differs"),
    (lambda lines: lines, ["--ladder", "random", "search:30"], "holds another ladder: bots, kinds differ "),
    (lambda lines: [_doctor_game(lines[0], bots=["random", "search:5", "search:31"])]
     + lines[1:], [], "holds another ladder: bots differs"),  # a level's kind has changed
    (lambda lines: lines[:2] + [_doctor_game(lines[2], winner=7)] + lines[3:], [],
     "line 3: winner 7 is not of pair 0"),
    (lambda lines: lines[:2] + [_doctor_game(lines[2], winner=1.0)] + lines[3:], [],
     "line 3: winner 1.0 is not of pair 0"),
    (lambda lines: lines[:2] + [_doctor_game(lines[2], a=False)] + lines[3:], [],
     "line 3: pair 0 is kinds 0 and 1, not False and 1"),
    (lambda lines: lines[:2] + [_doctor_game(lines[2], seed=5)] + lines[3:], [],
     "line 3: seed 5 is not the deal of game 1 of pair 0"),
    (lambda lines: lines + [lines[-1]], [], "line 6: game 3 of pair 0 twice"),
    (lambda lines: lines[:1] + ["[1, 2]"] + lines[1:], [], "line 2: not a JSON object"),
    (lambda lines: lines[:1] + ["{nope"] + lines[1:], [], "line 2: not JSON"),
    (lambda lines: ['{"format": "vora-lab-games"}'] + lines[1:], [],
     "line 1: not a ladder games file"),
])
def test_a_ladder_file_that_is_not_this_ladders_is_refused_with_its_reason(
        monkeypatch, tmp_path, capsys, change, extra, words):
    high_card.register(monkeypatch)
    out = tmp_path / "run"
    _counting_games(monkeypatch, stop_at=4)
    assert main(LADDER + ["--out", str(out)]) == 130
    path = out / "ladder-games.jsonl"
    path.write_text("\n".join(change(path.read_text().splitlines())) + "\n")
    before = path.read_bytes()
    capsys.readouterr()
    args = LADDER + ["--out", str(out), "--resume"]
    if extra[:1] == ["--ladder"]:
        args = args[:2] + extra + args[args.index("--games"):]
    else:
        args += extra
    assert main(args) == 1
    assert words in capsys.readouterr().err
    assert path.read_bytes() == before  # nothing written over what was kept


def test_nothing_to_resume_is_said(monkeypatch, tmp_path, capsys):
    high_card.register(monkeypatch)
    assert main(LADDER + ["--out", str(tmp_path / "empty"), "--resume"]) == 1
    assert "nothing to resume: " in capsys.readouterr().err


def test_a_ladder_that_cannot_write_its_games_stops_and_says_so(monkeypatch, tmp_path, capsys):
    from vora_host.lab import ladder
    high_card.register(monkeypatch)
    real_add = ladder.LadderFile.add
    written = []

    def add(self, obj):
        if len(written) == 3:  # the header and two games, then the disk is full
            raise OSError(28, "No space left on device")
        written.append(obj)
        real_add(self, obj)
    monkeypatch.setattr(ladder.LadderFile, "add", add)
    assert main(LADDER + ["--out", str(tmp_path / "full")]) == 1
    err = capsys.readouterr().err
    assert "cannot write" in err and "No space left on device" in err
    assert "2 of 18 games kept" in err


# A ladder on local worker processes, as the lab's other runs (--workers, default one a
# core): it used to take --workers and play every game in one process anyway.

WORKERS_LADDER = ["lab", "vora", "--ladder", "random", "greedy", "easy", "--games", "2",
                  "--seed", "5", "--no-plots"]


def test_a_ladder_on_worker_processes_is_the_ladder_played_in_one(tmp_path, capsys):
    assert main(WORKERS_LADDER + ["--workers", "1", "--out", str(tmp_path / "one")]) == 0
    assert "Playing on this process." in capsys.readouterr().err
    assert main(WORKERS_LADDER + ["--workers", "2", "--out", str(tmp_path / "two")]) == 0
    assert "Playing on 2 local processes." in capsys.readouterr().err
    one = json.loads((tmp_path / "one" / "ladder.json").read_text())
    two = json.loads((tmp_path / "two" / "ladder.json").read_text())
    assert len(two["games"]) == 6 and two == one
    # The games file holds the same games, in the order they ended.
    lines = {name: (tmp_path / name / "ladder-games.jsonl").read_text().splitlines()
             for name in ("one", "two")}
    assert lines["one"][0] == lines["two"][0]
    assert sorted(lines["one"][1:]) == sorted(lines["two"][1:])


def test_a_ladder_on_workers_stopped_keeps_the_games_ended_and_resumes(monkeypatch, tmp_path,
                                                                       capsys):
    import concurrent.futures
    import multiprocessing
    real_wait = concurrent.futures.wait
    calls = []

    def wait(*args, **kwargs):  # Ctrl-C after the first game has ended
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)
    monkeypatch.setattr(concurrent.futures, "wait", wait)
    out = tmp_path / "stopped"
    assert main(WORKERS_LADDER + ["--workers", "2", "--out", str(out)]) == 130
    err = capsys.readouterr().err
    games = (out / "ladder-games.jsonl").read_text().splitlines()[1:]
    assert 1 <= len(games) <= 2 and "%d of 6 games kept" % len(games) in err
    # No worker is left playing.
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
    monkeypatch.setattr(concurrent.futures, "wait", real_wait)
    assert main(WORKERS_LADDER + ["--workers", "2", "--out", str(out), "--resume"]) == 0
    assert main(WORKERS_LADDER + ["--workers", "1", "--out", str(tmp_path / "whole")]) == 0
    assert json.loads((out / "ladder.json").read_text()) == \
        json.loads((tmp_path / "whole" / "ladder.json").read_text())


def _main_with_a_worker_killed(args, path, lines):
    """main(args) while a thread kills one of its worker processes (SIGKILL, as the OOM
    killer) once `path` holds `lines` lines: a game has ended, others are under way."""
    import multiprocessing
    import signal
    import threading

    def kill_a_worker():
        for _ in range(1200):
            if path.exists() and len(path.read_text().splitlines()) >= lines:
                break
            time.sleep(0.05)
        for process in multiprocessing.active_children():
            os.kill(process.pid, signal.SIGKILL)
            return
    killer = threading.Thread(target=kill_a_worker)
    killer.start()
    try:
        return main(args)
    finally:
        killer.join()


def test_a_ladder_worker_killed_is_said_and_the_games_ended_are_kept(tmp_path, capsys):
    # A worker killed outright (the OOM killer) used to end the command in a traceback.
    import multiprocessing
    out = tmp_path / "killed"
    args = ["lab", "vora", "--ladder", "random", "lookahead", "--games", "8", "--seed", "5",
            "--no-plots", "--workers", "2", "--out", str(out)]
    path = out / "ladder-games.jsonl"
    status = _main_with_a_worker_killed(args, path, 2)
    err = capsys.readouterr().err
    kept = len(path.read_text().splitlines()) - 1
    # Seven games of seconds each are left when the first ends: one is under way (or
    # about to start) when the worker dies, and the pool breaks either way.
    assert status == 1 and "a worker process ended before its game did" in err, err
    assert "%d of 8 games kept" % kept in err and "Traceback" not in err
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
    assert main(args + ["--resume"]) == 0
    assert len(json.loads((out / "ladder.json").read_text())["games"]) == 8


def test_a_lab_worker_killed_is_said_and_resume_goes_on(tmp_path, capsys):
    # The lab's own runs on local processes: a worker killed outright used to end the
    # command in a traceback (BrokenProcessPool).
    import multiprocessing
    out = tmp_path / "killed"
    # Six games of about a second each: three or so are left when the kill comes.
    args = ["lab", "vora", "--bots", "lookahead,random", "--games", "6", "--seed-effect",
            "0", "--no-plots", "--workers", "2", "--out", str(out)]
    status = _main_with_a_worker_killed(args, out / GAMES_FILE, 3)
    err = capsys.readouterr().err
    assert status == 1 and "a worker process ended before its games did" in err, err
    assert "--resume" in err and "Traceback" not in err
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
    assert main(args + ["--resume"]) == 0
    # Every game once: those kept before the kill and the rest played on resume.
    indexes = []
    read_games(out / GAMES_FILE, on_game=lambda game: indexes.append(game["i"]))
    assert sorted(indexes) == list(range(6))

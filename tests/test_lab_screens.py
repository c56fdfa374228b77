"""What the lab shows (issue 38, bug 14): its progress bar counted the seed effect's replays
with the games (40 games read "/80"), the HTML report's verdict sat below the plots, and
the legend of a run without --compare read "as given"."""

import io
import re

from rich.console import Console

from vora_host.lab.run import run_lab
from vora_host.lab.runners import InProcessRunner
from vora_host.lab.spec import LabSpec

from fakegames import high_card


def quiet():
    return Console(file=io.StringIO(), width=200)


def test_the_progress_bar_counts_the_games_asked_for_and_the_replays_apart(monkeypatch,
                                                                           tmp_path):
    high_card.register(monkeypatch)
    spec = LabSpec("high-card", games=40).check()
    assert spec.seed_effect == 40  # the default for a game with chance: all of them here
    bar = Console(file=io.StringIO(), width=200, force_terminal=True, color_system=None)
    report, complete = run_lab(spec, tmp_path / "hc", InProcessRunner(), quiet(), bar,
                               plots=False)
    assert complete and report["played"] == 80
    shown = bar.file.getvalue()
    last = [line for line in re.split(r"[\r\n]", shown) if "games/s" in line][-1]
    assert "40/40 games, 40/40 seed-effect replays" in last, last
    assert "/80" not in shown, shown


def test_without_replays_the_bar_says_only_the_games(tmp_path):
    spec = LabSpec("vora", games=3, seed_effect=0).check()
    bar = Console(file=io.StringIO(), width=200, force_terminal=True, color_system=None)
    run_lab(spec, tmp_path / "v", InProcessRunner(), quiet(), bar, plots=False)
    last = [line for line in re.split(r"[\r\n]", bar.file.getvalue()) if "games/s" in line][-1]
    assert "3/3 games" in last and "replays" not in last, last


def test_the_html_report_opens_with_its_verdict_and_names_what_was_played(tmp_path):
    spec = LabSpec("vora", games=4, seed=3, seed_effect=2).check()
    run_lab(spec, tmp_path / "v", InProcessRunner(), quiet(), quiet(), plots=True)
    page = (tmp_path / "v" / "report.html").read_text()
    verdict = page.index("<h2>Verdict</h2>")
    assert verdict < page.index("<img"), "the verdict comes before the plots"
    top = page[verdict:page.index("<img")]
    assert "First player&#x27;s edge" in top and "Seed effect:" in top
    assert "as given" not in page
    assert "2 players, house options" in page  # the plots' legend and the section


def test_the_legend_of_a_run_with_options_names_them():
    spec = LabSpec("vora", games=2, seed_effect=0, options={"max_turns": 90}).check()
    assert [label for label, _, _ in spec.variants()] == ["2 players, options max_turns=90"]


def test_a_compared_run_says_which_differences_are_significant_first(tmp_path):
    spec = LabSpec("vora", games=6, seed_effect=0, compare=("players", [2, 4])).check()
    run_lab(spec, tmp_path / "c", InProcessRunner(), quiet(), quiet(), plots=True)
    page = (tmp_path / "c" / "report.html").read_text()
    top = page[page.index("<h2>Verdict</h2>"):page.index("<img")]
    assert "players=4 against players=2" in top, top

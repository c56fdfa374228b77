"""Games logged by an earlier version still replay: tests/records/ holds games exported
(`vora games export --full --format text`) from the log of vora-board 0.1.0 at commit
d1a7188, before issue #24 changed house defaults and rules. Each must import into a new
log and verify move by move (every digest it logged). Tossing Tiger's is not here: its
rules changed (docs/rules-decisions.md, "Games logged before")."""

import pathlib

import pytest

from vora_host.cli import main

RECORDS = sorted((pathlib.Path(__file__).parent / "records").glob("*.txt"))


def test_there_is_an_old_record_of_each_game_that_should_still_replay():
    assert {p.name.split("-0.1.0")[0] for p in RECORDS} == {
        "vora", "vorcept", "gaia-vora", "boars"}


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_a_game_logged_by_an_earlier_version_imports_and_verifies(path, tmp_path, capsys):
    db = str(tmp_path / "games.sqlite3")
    assert main(["games", "--db", db, "import", str(path)]) == 0
    capsys.readouterr()
    assert main(["games", "--db", db, "verify"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "all 80 moves replay and every digest matches" in said, said

"""The game log takes any game of the registry by name (issue "Heavier games I"): store,
formats, records, `vora games` and `vora replay` work for a fake game registered in the
test, whatever its options, with or without a host package of its own."""

import io

import pytest
from rich.console import Console

from fakegames import high_card, tally
from shared_rules import games
from vora_host.bots import RandomBot
from vora_host.cli import main
from vora_host.log import formats, readers
from vora_host.log.live import LiveLog
from vora_host.log.records import load_record, new_record, replay, result_of, write_record
from vora_host.log.store import BadImport, GameLog
from vora_host.play.terminal import TerminalGame

OPTIONS = {"goal": 12, "fast": True, "label": 'say "hi" \\ there', "weights": {"1": 2},
           "mode": "sum", "end": "gong"}


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def fake(monkeypatch):
    return tally.register(monkeypatch)


def play_tally(seed, options=OPTIONS, players=2):
    state = tally.new_game(players, seed, **options)
    bot = RandomBot(seed)
    moves = []
    while not state.is_over():
        move = bot.choose(state)
        state.play(move)
        moves.append((move, state.digest()))
    return moves, state


def log_tally(log, seed=3, **start):
    moves, state = play_tally(seed)
    gid = log.start_game(game="tally", players=2, seed=seed, options=OPTIONS,
                         source="terminal", **start)
    for k, (m, d) in enumerate(moves, 1):
        log.add_move(gid, k, m, d)
    log.end_game(gid, "over", result_of(state))
    return gid, moves, state


def test_a_fake_game_is_logged_verified_and_replayed(fake, tmp_path):
    with GameLog(tmp_path / "g.sqlite3") as log:
        gid, moves, state = log_tally(log)
        info = log.game(gid)
        assert info["game"] == "tally" and info["options"] == OPTIONS
        assert log.verify(gid).ok
        record, digests = log.record(gid)
        assert games.replay(record, digests) == state
        with pytest.raises(ValueError, match="unknown option"):
            log.start_game(game="tally", players=2, seed=1, options={"box": {}},
                           source="terminal")


def test_every_kind_of_option_has_a_tag_and_round_trips(fake, tmp_path):
    with GameLog(tmp_path / "g.sqlite3") as log, GameLog(tmp_path / "h.sqlite3") as other:
        gid, moves, _ = log_tally(log)
        text = formats.export_text(log, gid)
        assert '[Game "tally"]' in text and "# Tally game" in text
        assert '[Goal "12"]' in text and '[Fast "true"]' in text
        assert '[Label "say \\"hi\\" \\\\ there"]' in text
        assert '[Weights "{\\"1\\":2}"]' in text and '[Mode "sum"]' in text
        assert '[OptionEnd "gong"]' in text and '[End "gong"]' in text  # no collision
        for importer, exported in ((readers.import_text, text),
                                   (readers.import_json, formats.export_json(log, gid))):
            new, report = importer(other, exported, force=True)
            assert report.ok and other.game(new)["options"] == OPTIONS
            assert [m["move"] for m in other.game(new)["moves"]] == [m for m, _ in moves]


@pytest.mark.parametrize("tag, value, words", [
    ("Goal", "twelve", "[Goal] must be a whole number"),
    ("Fast", "yes", "[Fast] must be true or false"),
    ("Mode", "min", "[Mode] must be one of sum, max"),
    ("Weights", "[1, 2]", "do not set up a game"),
    ("Weights", "{\\\"1\\\": 9}", "weights are"),
    ("Weights", "{not json", "[Weights]: not JSON"),
    ("Box", "P12", "unknown tag [Box]"),  # Vora's tag is no tag of Tally
])
def test_a_bad_option_tag_is_named(fake, tmp_path, tag, value, words):
    with GameLog(tmp_path / "g.sqlite3") as log:
        gid, _, _ = log_tally(log)
        text = formats.export_text(log, gid)
        lines = text.splitlines()
        done = False
        for k, line in enumerate(lines):
            if line.startswith("[%s " % tag):
                lines[k] = '[%s "%s"]' % (tag, value)
                done = True
        if not done:
            lines.insert(2, '[%s "%s"]' % (tag, value))
        with pytest.raises(BadImport) as info:
            readers.import_text(log, "\n".join(lines), force=True)
        assert words in str(info.value) and info.value.line is not None


def test_vora_games_commands_take_the_fake_game(fake, tmp_path, capsys):
    db = tmp_path / "g.sqlite3"
    with GameLog(db) as log:
        gid, moves, state = log_tally(log)
    assert main(["games", "--db", str(db), "list"]) == 0
    out = capsys.readouterr().out
    assert "Tally" in out and "over" in out
    assert main(["games", "--db", str(db), "show", str(gid)]) == 0
    out = capsys.readouterr().out
    assert "Game 1: Tally, 2 players" in out and "goal 12; fast true" in out
    assert "Every digest matches" in out and "%5d. P" % len(moves) in out
    assert main(["games", "--db", str(db), "replay", str(gid)]) == 0
    assert capsys.readouterr().out.count("matches the log") == len(moves) + 1
    for fmt in ("json", "text"):
        path = tmp_path / ("t." + fmt)
        assert main(["games", "--db", str(db), "export", str(gid), "--format", fmt,
                     "-o", str(path)]) == 0
        assert main(["replay", str(path)]) == 0  # vora replay reads both formats
        assert "every digest matches" in capsys.readouterr().out
        assert main(["games", "--db", str(db), "import", "--force", str(path)]) == 0
        assert "(Tally, %s)" % fmt in capsys.readouterr().out


def test_records_of_the_fake_game_write_load_and_replay(fake, tmp_path):
    moves, state = play_tally(5)
    record = new_record(2, 5, OPTIONS, game="tally")
    record["moves"] = [m for m, _ in moves]
    record["digests"] = [d for _, d in moves]
    record["result"] = result_of(state)
    path = tmp_path / "r.json"
    write_record(str(path), record)
    loaded = load_record(str(path))
    assert loaded["game"] == "tally" and loaded["options"] == OPTIONS
    assert replay(loaded) == state


def test_a_hidden_information_game_is_logged_through_the_terminal_game(monkeypatch, tmp_path,
                                                                       capsys):
    module, _ = high_card.register(monkeypatch)
    db = tmp_path / "g.sqlite3"
    state = module.new_game(2, seed=4)
    live = LiveLog(db, "high-card", 2, 4, state.options())
    con = Console(file=io.StringIO(), width=100, color_system=None)
    game = TerminalGame(state, [RandomBot(1), RandomBot(2)], con, game="high-card", log=live)
    assert game.run() == "over"
    live.ended("over", result_of(game.state))
    message, logged = live.finish()
    assert logged and "Logged as game 1" in message
    with GameLog(db) as log:
        assert log.verify(1).ok and log.game(1)["game"] == "high-card"
    assert main(["games", "--db", str(db), "show", "1"]) == 0
    assert "High card" in capsys.readouterr().out


def _code_without_docstrings(module):
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(module))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(getattr(body[0], "value", None), ast.Constant) \
                and isinstance(body[0].value.value, str):
            body[0] = ast.Pass()
    return ast.unparse(tree)


def test_the_log_code_names_no_game():
    # Nothing outside a game's own files says "vora" unless it is about Vora: the log's
    # code (its docs may cite Vora as an example) names no game's options, tags or
    # letters, and imports no game's rules.
    from vora_host.log import (checks, cli, database, formats as fmt, holding, live, queries,
                               readers, records, schema, session, store, verify, writes)
    for module in (cli, fmt, live, records, store, checks, database, holding, queries, readers,
                   schema, session, verify, writes):
        code = _code_without_docstrings(module)
        for word in ("seats", "pushed_out", "max_turns", "chain_lines", "PushedOut", "Seats",
                     "vora.", "import vora", "LETTERS", "box_text"):
            assert word not in code, (module.__name__, word)

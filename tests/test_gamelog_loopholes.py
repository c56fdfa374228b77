"""Loopholes of the game log's readers (issue #23, finding 10): a file that starts with a
UTF-8 byte order mark is read like the same file without it; a whole number of a JSON
record is a JSON integer (not true, false or 1.0, which Python would take for 1); a
number of the text format is plain ASCII digits (not '٣', which int() reads as 3)."""

import json
import re

import pytest

from shared_rules import vora
from vora_host.bots import RandomBot
from vora_host.cli import main
from vora_host.log import formats, readers
from vora_host.log.records import result_of
from vora_host.log.store import BadImport, GameLog

BOM = "\ufeff"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(scope="session")
def exports(tmp_path_factory):
    """(json, text) exports of a Vora game with a takeback, a board game id and a
    result: every kind of field a record has."""
    path = tmp_path_factory.mktemp("exports") / "g.sqlite3"
    state = vora.new_game(2, 5)
    bot = RandomBot(5)
    with GameLog(path) as log:
        gid = log.start_game(players=2, seed=5, source="board usb", board_game_id=9)
        n, taken_back = 0, False
        while n < 30 and not state.is_over():
            before = state.clone()
            move = bot.choose(state)
            state.play(move)
            n += 1
            log.add_move(gid, n, move, state.digest())
            if n == 4 and not taken_back:
                log.take_back(gid, n)
                state, n, taken_back = before, n - 1, True
        log.end_game(gid, "abandoned", result_of(state, "quit"))
        return formats.export_json(log, gid), formats.export_text(log, gid)


def same_parse(a, b):
    return (a.kind, a.record, a.digests, a.meta, a.history) == \
        (b.kind, b.record, b.digests, b.meta, b.history)


# ---------------------------------------------------------------- the byte order mark

@pytest.mark.parametrize("which", [0, 1], ids=["json", "text"])
def test_a_leading_byte_order_mark_is_read_like_the_file_without_it(exports, tmp_path,
                                                                    capsys, which):
    text = exports[which]
    assert same_parse(readers.parse(BOM + text), readers.parse(text))
    reader = readers.parse_json if which == 0 else readers.parse_text
    assert same_parse(reader(BOM + text), reader(text))
    path = tmp_path / "with-bom"
    path.write_bytes((BOM + text).encode("utf-8"))  # as Notepad saves it
    assert main(["replay", str(path)]) == 0
    assert main(["games", "--db", str(tmp_path / "g.sqlite3"), "import", str(path)]) == 0
    assert "Imported" in capsys.readouterr().out


def test_a_byte_order_mark_elsewhere_is_still_refused(exports):
    text = exports[1]
    with pytest.raises(BadImport):
        readers.parse(text.replace("\n[Players", "\n" + BOM + "[Players", 1))


# ---------------------------------------------------------------- JSON integers

def integer_fields(value, path=()):
    """The paths of every whole number (not a boolean) in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from integer_fields(item, path + (key,))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from integer_fields(item, path + (k,))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


def replaced(data, path, new):
    data = json.loads(json.dumps(data))
    place = data
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = new
    return data


def test_every_integer_field_of_a_json_record_refuses_booleans_and_floats(exports):
    data = json.loads(exports[0])
    paths = list(integer_fields(data))
    # format, seed, players, an option, turns, scores, the log's ids and a takeback's.
    names = set(p[-1] if isinstance(p[-1], str) else p[-2] for p in paths)
    assert {"format", "seed", "players", "max_turns", "turns_completed", "scores", "id",
            "board_game_id", "at", "number"} <= names
    accepted = []
    for path in paths:
        for new in (True, False, float(data_at(data, path))):
            try:
                readers.record_from_dict(replaced(data, path, new))
            except BadImport:
                continue
            accepted.append((path, new))
    assert accepted == []


def data_at(data, path):
    for key in path:
        data = data[key]
    return data


def test_format_true_names_the_field():
    record = {"game": "vora", "format": True, "players": 2, "seed": 1, "moves": []}
    with pytest.raises(BadImport, match="format"):
        readers.record_from_dict(record)


# ---------------------------------------------------------------- text numbers

ARABIC_3 = "\u0663"  # ARABIC-INDIC DIGIT THREE: str.isdigit() and int() take it


@pytest.mark.parametrize("old, new", [
    ('[Seed "5"]', '[Seed "%s"]' % ARABIC_3),
    ('[Players "2"]', '[Players "%s"]' % "\u0662"),
    ('[BoardGameId "9"]', '[BoardGameId "%s"]' % "\u0669"),
    ('[MaxTurns "', '[MaxTurns "%s' % ARABIC_3),
    ('[Turns "', '[Turns "%s' % ARABIC_3),
    ("\n1. P", "\n%s. P" % "\u0661"),
    ("\n1. P0", "\n1. P%s" % "\u0660"),
    ('[Box "P', '[Box "P%s' % ARABIC_3),
    ('[Seed "5"]', '[Seed "+5"]'),
    ('[Seed "5"]', '[Seed "0_5"]'),
    ('[Seed "5"]', '[Seed " 5"]'),
    ('[Players "2"]', '[Players "0_2"]'),
    ('[MaxTurns "', '[MaxTurns "+'),
    ('[MaxTurns "', '[MaxTurns "1_'),
])
def test_text_numbers_are_plain_ascii_digits(exports, old, new):
    text = exports[1]
    assert old in text
    with pytest.raises(BadImport):
        readers.parse_text(text.replace(old, new, 1))


def test_scores_in_other_digits_are_refused(exports):
    text = re.sub(r'\[Scores "[^"]*"\]', '[Scores "+%s +1"]' % ARABIC_3, exports[1])
    with pytest.raises(BadImport, match="Scores"):
        readers.parse_text(text)
    readers.parse_text(re.sub(r'\[Scores "[^"]*"\]', '[Scores "+3 +1"]', exports[1]))


def test_a_result_naming_a_player_in_other_digits_is_refused(exports):
    text = exports[1].replace('[Result "*"]', '[Result "P%s wins"]' % "\u0661")
    with pytest.raises(BadImport, match="Result"):
        readers.parse_text(text)


@pytest.mark.parametrize("text", ["+5", "0_2", "\u0663", " 7", "7 "])
def test_a_game_id_is_plain_digits(tmp_path, capsys, text):
    with pytest.raises(SystemExit) as exc:
        main(["games", "--db", str(tmp_path / "g.sqlite3"), "show", text])
    assert exc.value.code == 2
    assert "not a game id" in capsys.readouterr().err


# ---------------------------------------------------------------- control characters

CSI = "\x9b"  # the C1 control sequence introducer: "\x9b2J" clears some terminals


def test_texts_from_an_imported_file_reach_the_terminal_escaped(exports, tmp_path, capsys):
    """The readers let C1 controls through in the source and the end reason (a source
    "board 0\\x85" must round-trip, tests/test_gamelog.py); `vora games list` and `show`
    write them as escapes rather than sending them to the terminal."""
    data = json.loads(exports[0])
    data["log"]["source"] = "board usb" + CSI + "2J"
    data["result"]["end"] = "quit" + CSI + "2J"
    path = tmp_path / "c1.json"
    path.write_text(json.dumps(data))
    db = tmp_path / "g.sqlite3"
    assert main(["games", "--db", str(db), "import", str(path)]) == 0
    capsys.readouterr()
    assert main(["games", "--db", str(db), "list"]) == 0
    out = capsys.readouterr().out
    assert CSI not in out and "board usb\\x9b2J" in out and "quit\\x9b2J" in out
    assert main(["games", "--db", str(db), "show", "1"]) == 0
    out = capsys.readouterr().out
    assert CSI not in out and "board usb\\x9b2J" in out

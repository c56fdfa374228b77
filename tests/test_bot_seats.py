"""`vora play GAME --bot SEAT=KIND` and `--human` for every game: the kinds a seat takes
are those `make_bot` takes for the game (parameters included), the seats are named as the
game's screen names them, and every mistake is a usage error that says what is accepted."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared_rules import games as rules_games
from vora_host.cli import build_parser, main
from vora_host.cli.play_args import _board_play_options, _prepare_game

ROOT = Path(__file__).resolve().parents[1]
VORA = str(Path(sys.executable).with_name("vora"))


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # each message on one line


def agents_for(*argv):
    """The agents `vora play ARGV` would seat, without playing (every mistake: SystemExit)."""
    args = build_parser().parse_args(["play", *argv])
    return _prepare_game(args, args.subparser)[3]


def usage_error(capsys, *argv):
    """The message of the usage error `vora play ARGV` stops with (exit status 2)."""
    with pytest.raises(SystemExit) as done:
        agents_for(*argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


# ---------------------------------------------------------------- 1. greedy is Vora's own

@pytest.mark.parametrize("game", ["boars", "vorcept", "gaia-vora", "tossing-tiger"])
def test_greedy_at_a_seat_of_another_game_is_a_usage_error_naming_its_kinds(capsys, game):
    message = usage_error(capsys, game, "--typed", "--bots-only", "--bot", "1=greedy")
    assert "vora play: error: --bot:" in message and "'greedy'" in message
    assert "random, search" in message and "Vora's own" in message


def test_greedy_alone_in_another_game_is_the_same_error(capsys):
    # One behaviour for both spellings: a kind asked for by name is that kind or an error.
    message = usage_error(capsys, "boars", "--typed", "--bots-only", "--bot", "greedy")
    assert "'greedy'" in message and "random, search" in message


def test_a_seat_given_without_a_kind_is_shown_how_to_seat_a_bot(capsys):
    """Issue 22: `--bot Red` answered only "unknown bot 'red'"; it was a seat, most likely."""
    message = usage_error(capsys, "gaia-vora", "--typed", "--bot", "Red")
    assert "unknown bot 'red'" in message and "SEAT=KIND, e.g. --bot Red=random" in message
    message = usage_error(capsys, "boars", "--typed", "--bots-only", "--bot", "greedy")
    assert "SEAT=KIND" not in message  # a bot of another game: no seat meant


def test_a_position_refused_for_the_boards_saved_game_names_fresh():
    """Issue 22: --position on a board with a saved game said only that a game is in
    progress; --fresh starts the virtual board without it."""
    from types import SimpleNamespace
    from collections import deque
    from vora_host.play.board_play import BoardPlay, R_BUSY
    client = SimpleNamespace(refused=deque([(255, R_BUSY, "")]))
    play = BoardPlay(client, position="PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 CP/D G30")
    play._refusals()
    said = " ".join(play.messages)
    assert "a game is in progress" in said and "--fresh" in said
    client.refused.append((255, R_BUSY, ""))
    plain = BoardPlay(client)
    plain._refusals()
    assert "--fresh" not in " ".join(plain.messages)  # no position asked for: no word of it


def test_the_real_program_says_so_without_a_traceback():
    done = subprocess.run([VORA, "play", "boars", "--bot", "1=greedy", "--typed", "--no-log"],
                          capture_output=True, text=True, timeout=60, cwd=str(ROOT),
                          stdin=subprocess.DEVNULL, env=dict(os.environ, COLUMNS="200"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "--bot: unknown bot 'greedy' for boars (choose from random, search)" in done.stderr


def test_with_no_kind_given_each_game_gets_its_quick_default():
    assert [a.kind for a in agents_for("--typed", "--bots-only")] == ["greedy", "greedy"]
    for game in ("boars", "vorcept", "gaia-vora", "tossing-tiger"):
        # Gaia-Vora's and Vorcept's searches have their own settings (SEARCH), and their
        # kinds say so.
        quick = {"gaia-vora": "search:200:horizon=12:temperature=6",
                 "vorcept": "search:200:horizon=200"}.get(game, "search:200")
        assert [a.kind for a in agents_for(game, "--typed", "--bots-only")] == \
            [quick, quick], game
    # Vora's greedy at a seat is still Vora's greedy.
    assert agents_for("--typed", "--bot", "N=greedy")[1].kind == "greedy"


# ---------------------------------------------------------------- 2. kinds with parameters

@pytest.mark.parametrize("kind", ["search:500", "search:20ms", "search:50:c=1:horizon=8",
                                  "random", "search"])
def test_a_seat_takes_every_kind_make_bot_takes(kind):
    agents = agents_for("vorcept", "--typed", "--bot", "1=%s" % kind)
    # Vorcept's own horizon (SEARCH) is spelled unless the kind sets one.
    in_vorcept = kind + ":horizon=200" if kind.startswith("search") and "horizon" not in kind \
        else kind
    assert agents[1].kind == in_vorcept
    assert agents_for("--typed", "--bot", "1=%s" % kind)[1].kind == kind  # and in Vora


def test_a_bad_parameter_at_a_seat_gets_make_bots_message(capsys):
    message = usage_error(capsys, "vorcept", "--typed", "--bot", "1=search:abc")
    assert "--bot: search bot: cannot read 'abc'; write e.g. search:2000" in message
    message = usage_error(capsys, "vorcept", "--typed", "--bot", "1=clever")
    assert "unknown bot 'clever' for vorcept (choose from random, search)" in message


def test_vora_on_the_board_takes_search_kinds_at_its_seats(capsys):
    args = build_parser().parse_args(["play", "--bot", "N=search:500,0=search:20ms"])
    assert _board_play_options(args, args.subparser)["bots"] == {"N": "search:500",
                                                                 0: "search:20ms"}
    args = build_parser().parse_args(["play", "--bot", "N=search:abc"])
    with pytest.raises(SystemExit) as done:
        _board_play_options(args, args.subparser)
    assert done.value.code == 2
    assert "--bot: search bot: cannot read 'abc'" in capsys.readouterr().err


# ---------------------------------------------------------------- 3. seats as the screen names them

def test_a_seat_nobody_sits_at_says_which_seats_there_are(capsys):
    message = usage_error(capsys, "boars", "--typed", "--bot", "N=random")
    assert "nobody sits at 'N'" in message and "the seats are 0 and 1" in message
    message = usage_error(capsys, "tossing-tiger", "--typed", "--players", "3", "--bot", "7=random")
    assert "the seats are 0, 1 and 2" in message
    message = usage_error(capsys, "vorcept", "--typed", "--bot", "Green=random")
    assert "the seats are 0 (Blue) and 1 (Red)" in message
    message = usage_error(capsys, "--typed", "--bot", "E=random")
    assert "the seats are 0 (S, South) and 1 (N, North)" in message


@pytest.mark.parametrize("game", sorted(rules_games.names()))
def test_no_message_ever_shows_an_empty_list_of_seats(capsys, game):
    for option in ("--bot", "--human"):
        value = "X=random" if option == "--bot" else "X"
        message = usage_error(capsys, game, "--typed", option, value)
        assert "the seats are 0" in message, message
        assert "()" not in message and "seats )" not in message and "among )" not in message


def test_seats_go_by_the_names_the_screen_shows():
    kinds = lambda agents: [a.kind for a in agents]  # noqa: E731
    assert kinds(agents_for("vorcept", "--typed", "--bot", "red=random", "--human", "Blue")) \
        == ["human", "random"]
    assert kinds(agents_for("vorcept", "--typed", "--bot", "Blue=random", "--human", "red")) \
        == ["random", "human"]
    assert kinds(agents_for("gaia-vora", "--typed", "--players", "3", "--human", "yellow",
                            "--bot", "green=random,white=search:20")) \
        == ["human", "random", "search:20:horizon=12:temperature=6"]
    # Vora: seat letters and names; a player number (or P1, as the screen shows it) anywhere.
    assert kinds(agents_for("--typed", "--bot", "North=random")) == ["human", "random"]
    assert kinds(agents_for("--typed", "--bot", "n=random")) == ["human", "random"]
    assert kinds(agents_for("boars", "--typed", "--bot", "P1=random")) == ["human", "random"]


def test_every_player_number_of_a_big_table_is_a_seat():
    agents = agents_for("tossing-tiger", "--typed", "--players", "6", "--bot", "5=random")
    assert agents[5].kind == "random" and agents[0].kind == "human"


# ---------------------------------------------------------------- help and starting

def test_the_help_for_bot_and_human_holds_for_every_game(capsys):
    with pytest.raises(SystemExit):
        main(["play", "boars", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    bot = out.split("--bot SEAT=KIND")[-1].split("--position")[0]
    assert "search:200" in bot and "Vora" in bot and "greedy" in bot
    assert "default greedy)" not in bot  # not for the games without greedy
    human = out.split("--human LIST")[-1].split("--bots-only")[0]
    assert "Blue" in human or "screen" in human


def test_tossing_tiger_starts_with_a_bot_at_a_seat_and_a_human(tmp_path):
    done = subprocess.run([VORA, "play", "tossing-tiger", "--typed", "--seed", "1",
                           "--bot", "1=search:50", "--human", "0"], input="q\ny\n",
                          capture_output=True, text=True, timeout=60, cwd=str(ROOT),
                          env=dict(os.environ, COLUMNS="200", NO_COLOR="1"))
    assert done.returncode == 0, done.stderr
    assert "P0 (you); P1 (search:50)" in done.stdout and "P0 quits" in done.stdout


def test_tossing_tiger_bots_only_plays_to_the_end(tmp_path):
    record = tmp_path / "game.json"
    assert main(["play", "tossing-tiger", "--bots-only", "--quiet", "--seed", "1",
                 "--bot", "1=search:50,0=random", "--record", str(record)]) == 0
    rec = json.loads(record.read_text())
    assert [a["kind"] for a in rec["agents"]] == ["random", "search:50"]
    assert rec["result"]["over"] is True


def test_vora_on_the_board_takes_seat_names_too(capsys):
    args = build_parser().parse_args(["play", "--bot", "north=random"])
    assert _board_play_options(args, args.subparser)["bots"] == {"N": "random"}
    args = build_parser().parse_args(["play", "--bot", "X=random"])
    with pytest.raises(SystemExit):
        _board_play_options(args, args.subparser)
    assert "'X' is not a seat: S, W, N, E (South, West, North, East) or a player number 0 to 3" \
        in capsys.readouterr().err


def test_a_kind_alone_may_carry_settings():
    # 'search:50:c=1' is a kind with a setting, not a seat called 'search:50:c'.
    agents = agents_for("vorcept", "--typed", "--bots-only", "--bot", "search:50:c=1,1=random")
    assert [a.kind for a in agents] == ["search:50:c=1:horizon=200", "random"]


# ---------------------------------------------------------------- one seat, one player

def test_two_different_bots_at_one_seat_is_a_usage_error(capsys):
    # The last one used to win silently.
    message = usage_error(capsys, "vorcept", "--typed", "--bot", "1=random", "--bot", "1=search:50")
    assert "--bot: '1=search:50': that seat already has a bot, random; give each seat one" \
        in message
    # The same seat by its name and by its number.
    message = usage_error(capsys, "vorcept", "--typed", "--bot", "red=random,1=search:20")
    assert "that seat already has a bot, random" in message
    # Saying the same thing twice is not a contradiction.
    assert [a.kind for a in agents_for("vorcept", "--typed", "--bot", "1=random,red=random")] \
        == ["human", "random"]


def test_a_seat_named_by_human_and_by_bot_is_a_usage_error(capsys):
    # It used to seat the bot, and a bot at the seat --human had not named either.
    message = usage_error(capsys, "vorcept", "--typed", "--human", "1", "--bot", "1=random")
    assert "--human and --bot both name seat 1 (Red): a seat is a human's or a bot's" in message
    message = usage_error(capsys, "--typed", "--human", "S", "--bot", "S=random")
    assert "both name seat 0 (S, South)" in message
    # --human's default and "all" mean every seat --bot does not take.
    assert [a.kind for a in agents_for("vorcept", "--typed", "--human", "all",
                                       "--bot", "1=random")] == ["human", "random"]
    assert [a.kind for a in agents_for("vorcept", "--typed", "--bot", "0=random")] \
        == ["random", "search:200:horizon=200"]

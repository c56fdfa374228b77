"""Vora's lookahead bot (vora_host/games/vora/lookahead.py) and the levels for people
(vora_host/bots/levels.py): legal, reproducible, blind to the box's next draws, named
by kinds that make it again; levels that every entry point takes."""

import json
import os
import subprocess
import sys

import pytest

from shared_rules import games, vora
from vora_host.bots import LEVEL_NAMES, make_bot, short_kind
from vora_host.bots.levels import LEVELS, level_kind
from vora_host.cli import main
from vora_host.games.vora.lookahead import LookaheadBot, smoothed_worth


def _positions(players, seed, count=6, every=7):
    # Positions from a greedy self-play game: every `every`-th move, action or not.
    state = vora.new_game(players, seed)
    bots = [make_bot("greedy", seed + p, "vora") for p in range(players)]
    out = []
    moves = 0
    while not state.is_over() and len(out) < count:
        if moves % every == 0:
            out.append(state.clone())
        state.play(bots[state.to_act()].choose(state))
        moves += 1
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_lookahead_plays_legal_moves_and_never_changes_its_input(players):
    bot = make_bot("lookahead", 5, "vora")
    for state in _positions(players, 11):
        before = state.to_json()
        move = bot.choose(state)
        assert move in state.legal_moves()
        assert state.to_json() == before


def test_lookahead_is_reproducible_and_its_seed_matters():
    positions = _positions(2, 3, count=8, every=5)
    first = [make_bot("lookahead", 9, "vora").choose(s) for s in positions]
    assert [make_bot("lookahead", 9, "vora").choose(s) for s in positions] == first
    # The seed draws the refills it imagines: other seeds, other choices somewhere.
    others = [[make_bot("lookahead", seed, "vora").choose(s) for s in positions]
              for seed in range(10, 13)]
    assert any(o != first for o in others)


def test_lookahead_does_not_know_the_next_draws():
    # Two states that differ only in the PRNG (the cubes the box gives next) get the
    # same decision; a bot that played its look-ahead on the true state would not.
    class Peeking(LookaheadBot):
        def _after_round(self, state, move, me, weight):
            t = state.clone()  # the true draws
            t.play(move)
            self._greedy._finish_turn(t, me, state.turn)
            while not t.is_over() and t.turn < state.turn + 2:
                t.play(self._greedy.choose(t))
            return t.scores()[me] - t.scores()[1 - me]

    fair_differs = peek_differs = 0
    for state in _positions(2, 21, count=10, every=4):
        other = state.clone()
        other.rng = state.rng ^ 0x5A5A5A5A or 1
        fair_differs += (make_bot("lookahead", 1, "vora").choose(state)
                         != make_bot("lookahead", 1, "vora").choose(other))
        peek_differs += Peeking(1).choose(state) != Peeking(1).choose(other)
    assert fair_differs == 0
    assert peek_differs > 0


def test_lookahead_kinds():
    assert make_bot("lookahead", 1, "vora").kind == "lookahead"
    bot = make_bot("lookahead:Width=3:samples=4:shape=0:turns=2:reply=60", 1, "vora")
    assert (bot.width, bot.samples, bot.shape, bot.turns, bot.reply) == (3, 4, 0, 2, 60)
    assert bot.kind == "lookahead:width=3:samples=4:reply=60:turns=2:shape=0"
    assert make_bot(bot.kind, 1, "vora").kind == bot.kind
    # moves=N ranks N moves drawn at random: legal, and a different choice somewhere.
    narrow = make_bot("lookahead:width=1:moves=2", 1, "vora")
    assert narrow.kind == "lookahead:width=1:moves=2"
    positions = _positions(2, 5, count=8, every=3)
    chosen = [narrow.choose(s) for s in positions]
    assert all(m in s.legal_moves() for m, s in zip(chosen, positions))
    assert chosen != [make_bot("lookahead:width=1", 1, "vora").choose(s) for s in positions]
    for kind, words in (("lookahead:deep", "cannot read 'deep'"),
                        ("lookahead:width=x", "width takes a whole number"),
                        ("lookahead:width=0", "width must be a whole number of at least 1"),
                        ("lookahead:shape=101", "shape is a percentage")):
        with pytest.raises(ValueError, match=words):
            make_bot(kind, 1, "vora")
    with pytest.raises(ValueError, match="unknown bot 'lookahead' for vorcept"):
        make_bot("lookahead", 1, "vorcept")


def test_smoothed_worth_meets_the_rules_at_the_set_sizes():
    for n in (0, 3, 6, 9, 12):
        assert smoothed_worth(n) == vora._type_score(n)
    assert smoothed_worth(8) > smoothed_worth(7) > smoothed_worth(6)
    assert vora._type_score(8) < vora._type_score(6)  # what the smoothing is for


@pytest.mark.parametrize("game", sorted(games.names()))
def test_every_game_has_the_three_levels(game):
    for level in LEVEL_NAMES:
        bot = make_bot(level, 1, game)
        assert bot.kind == make_bot(level_kind(game, level), 1, game).kind
        assert make_bot(bot.kind, 1, game).kind == bot.kind  # records keep the concrete kind
        assert make_bot(level.upper(), 1, game).kind == bot.kind
    assert set(LEVELS) == set(games.names())


def test_levels_refuse_parameters_and_unknown_levels_are_named():
    with pytest.raises(ValueError, match="the level 'hard' takes no parameters"):
        make_bot("hard:3", 1, "vora")
    with pytest.raises(ValueError, match=r"or a level \(easy, normal, hard\)"):
        make_bot("hardest", 1, "vora")


def test_vora_play_and_the_lab_take_levels(tmp_path):
    path = tmp_path / "game.json"
    assert main(["play", "vorcept", "--bots-only", "--quiet", "--seed", "4", "--bot", "0=normal",
                 "--bot", "1=easy", "--record", str(path)]) == 0
    record = json.loads(path.read_text())
    # The record keeps the concrete kind the level stands for, as make_bot spells it out
    # (with the game's own search settings, e.g. Vorcept's horizon).
    assert [a["kind"] for a in record["agents"]] == [
        make_bot(LEVELS["vorcept"][level], 1, "vorcept").kind for level in ("normal", "easy")]
    assert all(a["kind"].startswith("search:") for a in record["agents"])
    out = tmp_path / "lab"
    assert main(["lab", "vorcept", "--bots", "easy,random", "--games", "2", "--workers", "1",
                 "--no-plots", "--out", str(out)]) == 0


@pytest.mark.parametrize("game", sorted(games.names()))
def test_a_levels_bot_is_named_by_its_level_and_other_kinds_by_their_kind(game):
    from vora_host.bots import level_of, player_title
    for level in LEVEL_NAMES:
        kind = make_bot(level, 3, game).kind  # what a record keeps
        assert level_of(game, kind) == level
        assert player_title(game, kind) == "%s, %s" % (level, short_kind(game, kind))
    assert player_title(game, "random") == "random"
    kind = make_bot("search:7", 3, game).kind
    assert level_of(game, kind) is None and player_title(game, kind) == short_kind(game, kind)


@pytest.mark.parametrize("game", sorted(games.names()))
def test_a_short_kind_makes_the_same_bot_and_drops_only_the_games_own_settings(game):
    from vora_host.bots import bot_kinds
    spelled = ["search:7", "search:7:c=1", "search:50ms:clock=cpu", "search:7:horizon=3"]
    spelled += list(LEVEL_NAMES) + sorted(bot_kinds(game))
    for asked in spelled:
        kind = make_bot(asked, 3, game).kind
        short = short_kind(game, kind)
        # Typed back to --bot, the short spelling makes the very bot the record names.
        assert make_bot(short, 3, game).kind == kind, (asked, kind, short)
        assert len(short) <= len(kind)
        # What the player chose (a budget, a setting of their own) is still said.
        for part in asked.split(":")[1:]:
            assert part in short.split(":"), (asked, short)
    assert short_kind(game, "nobody-knows-me:3") == "nobody-knows-me:3"


def test_gaia_voras_own_search_settings_are_left_out_of_the_short_kind():
    kind = make_bot("search:30", 3, "gaia-vora").kind
    assert kind == "search:30:horizon=12:temperature=6"  # what the record keeps
    assert short_kind("gaia-vora", kind) == "search:30"
    assert short_kind("gaia-vora", make_bot("search:30:temperature=2", 3, "gaia-vora").kind) \
        == "search:30:temperature=2"
    # Vora has no search settings of its own: nothing to leave out.
    assert short_kind("vora", "search:30:horizon=12") == "search:30:horizon=12"


def test_the_play_screen_names_a_bots_level(tmp_path):
    # A player who chose `--bot 1=hard` sees "hard" at the seat, not only the concrete
    # kind the record keeps (Boars' hard is search:1000:horizon=6, spelled
    # search:horizon=6 since 1,000 iterations are the default).
    done = subprocess.run(
        [sys.executable, "-m", "vora_host", "play", "boars", "--typed", "--seed", "3",
         "--bot", "1=hard", "--human", "0", "--no-log", "--save-dir", str(tmp_path)],
        input="q\ny\n", capture_output=True, text=True, timeout=60,
        env=dict(os.environ, COLUMNS="200", NO_COLOR="1"))
    assert done.returncode == 0, done.stderr
    # The list of seats at the start names both; the seat rows, narrow at 80 columns,
    # the level alone.
    assert "P0 (you); P1 (hard, search:horizon=6)" in done.stdout, done.stdout[-2000:]
    assert any(line.split()[:3] == ["P1", "(hard)", "0"] for line in done.stdout.splitlines())


def test_a_seat_chosen_by_a_long_kind_keeps_its_row_at_80_columns(tmp_path):
    # Gaia-Vora's search:30 is search:30:horizon=12:temperature=6 in the record; the seat
    # row used to wrap onto a second line at 80 columns.
    done = subprocess.run(
        [sys.executable, "-m", "vora_host", "play", "gaia-vora", "--typed", "--seed", "3",
         "--players", "4", "--bot", "1=normal", "--bot", "2=hard", "--bot", "3=search:30",
         "--human", "0", "--no-log", "--save-dir", str(tmp_path)],
        input="q\ny\n", capture_output=True, text=True, timeout=60,
        env=dict(os.environ, COLUMNS="80", NO_COLOR="1"))
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert any(row.split()[:5] == ["P3", "orange", "(search:30)", "score", "0"]
               for row in rows), done.stdout[-2000:]
    assert "P1 green (normal, search:200); P2 white (hard, search:400);" in done.stdout
    assert "temperature" not in done.stdout, done.stdout[-3000:]
    assert all(len(line) <= 80 for line in done.stdout.splitlines())

"""Issue 23, finding 1: in the hidden-information games (Boars on the Run!, Tossing Tiger)
the seed must not give the secrets away. Seeds come from the OS over a wide range, `vora
play` names them only once the game is over, the chance cannot be worked back from what a
player sees (shared_rules.secret_prng), and the bots' seeds say nothing of the game's."""

import json
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from shared_rules import boars, games, prng, secret_prng, tossing_tiger
from vora_host.cli import main
from vora_host.table import deal
from vora_host.log import formats, readers
from vora_host.log.store import GameLog

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ["boars", "tossing-tiger"]
# Quick games: random bots, and a Tiger cut short by its safeguard.
QUICK = {"boars": ["--bot", "random"],
         "tossing-tiger": ["--bot", "random", "-o", "max_turns=4"]}


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")


def play_quick(game, tmp_path, *extra, name="game.json"):
    path = tmp_path / name
    status = main(["play", game, "--bots-only", "--no-log", "--record", str(path)]
                  + QUICK[game] + list(extra))
    assert status == 0
    return json.loads(path.read_text())


# ---------------------------------------------------------------- the seed's range and source

@pytest.mark.parametrize("game", HIDDEN)
def test_hidden_games_take_seeds_of_64_bits_and_the_others_keep_the_boards(game):
    assert games.seed_max(game) == secret_prng.SEED_MAX == 2 ** 64 - 1
    assert games.load(game).new_game(2, seed=2 ** 64 - 1).digest()
    with pytest.raises(ValueError):
        games.check_seed(game, 2 ** 64)
    for board_game in ("vora", "vorcept", "gaia-vora"):
        assert games.seed_max(board_game) == prng.SEED_MAX == 2 ** 32 - 1


def test_every_game_with_hidden_information_draws_from_the_secret_generator():
    # A game added later with HIDDEN_INFORMATION must take the wide seeds too (and so
    # draw from secret_prng: xorshift32 has 32 bits of state whatever the seed).
    hidden = [name for name in games.names() if games.load(name).HIDDEN_INFORMATION]
    assert sorted(hidden) == sorted(HIDDEN)
    for name in hidden:
        module = games.load(name)
        assert games.seed_max(name) >= 2 ** 64 - 1
        state = json.loads(module.new_game(2, seed=1).to_json())
        assert state["rng"] > 2 ** 64  # a 256-bit key beside the counter


@pytest.mark.parametrize("game", HIDDEN)
def test_a_default_seed_is_drawn_from_the_os_over_the_whole_range(game, tmp_path,
                                                                   monkeypatch):
    asked = []

    def os_randbelow(n):
        asked.append(n)
        return n - 1

    monkeypatch.setattr(deal.secrets, "randbelow", os_randbelow)
    record = play_quick(game, tmp_path)
    assert asked == [2 ** 64] and record["seed"] == 2 ** 64 - 1


@pytest.mark.parametrize("game", HIDDEN)
def test_two_default_seeds_differ_and_are_past_32_bits(game, tmp_path):
    # Both at or below 2**32 by chance: about 1 in 2**62.
    seeds = [play_quick(game, tmp_path, name="%d.json" % k)["seed"] for k in range(2)]
    assert seeds[0] != seeds[1] and max(seeds) > 2 ** 32


def test_a_board_game_refuses_a_seed_past_32_bits_and_a_hidden_game_takes_it(tmp_path,
                                                                              capsys):
    with pytest.raises(SystemExit):
        main(["play", "vora", "--bots-only", "--no-log", "--seed", str(2 ** 40)])
    assert "--seed" in capsys.readouterr().err
    assert play_quick("tossing-tiger", tmp_path, "--seed", str(2 ** 40))["seed"] == 2 ** 40


# ---------------------------------------------------------------- the seed on the screen

@pytest.mark.parametrize("game", HIDDEN)
def test_play_names_the_seed_of_a_hidden_game_only_once_it_is_over(game, tmp_path, capsys):
    record = play_quick(game, tmp_path)
    out = capsys.readouterr().out
    seed = str(record["seed"])
    over = out.index("Game over")
    assert seed not in out[:over]
    assert "seed kept secret until the game is over" in out[:over]
    assert "Seed %s: deal the same game again with --seed %s." % (seed, seed) in out[over:]


def test_an_unfinished_hidden_game_keeps_its_seed_secret(tmp_path, monkeypatch, capsys):
    def interrupted(prompt=""):
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupted)
    path = tmp_path / "int.json"
    assert main(["play", "tossing-tiger", "--typed", "--no-log", "--record", str(path)]) == 130
    out = capsys.readouterr().out
    assert str(json.loads(path.read_text())["seed"]) not in out
    assert "its seed stays secret" in out


def test_a_board_game_still_names_its_seed_at_the_start(capsys):
    assert main(["play", "vora", "--bots-only", "--no-log", "--quiet", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "seed 3 (play it again with --seed 3)" in out.splitlines()[0]


def board_game(tmp_path, *extra):
    # `vora play tossing-tiger` on the virtual board, plain (no terminal): a process whose
    # output lines arrive on a queue, so that a test can wait for one without hanging.
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "vora_host", "play", "tossing-tiger", "--port", "sim",
         "--save-dir", str(tmp_path / "save"), "--fresh", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, cwd=ROOT)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)],
                     daemon=True).start()
    return proc, lines


def read_until(lines, pattern, seconds=90):
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        seen.append(line)
        if re.search(pattern, line):
            return "".join(seen)
    raise AssertionError("no line matching %r in:\n%s" % (pattern, "".join(seen)))


def test_play_on_the_board_names_a_hidden_games_seed_only_once_it_is_over(tmp_path):
    proc, lines = board_game(tmp_path, "--no-log", "--human", "none", "--bot", "random",
                             "-o", "max_turns=1", "--delay", "0")
    try:
        before = read_until(lines, r"^board over")
        after = read_until(lines, r"^Seed \d+")  # plain, it ends with the game
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert "on the board, seed kept secret until the game is over" in before
    seed = re.search(r"^Seed (\d+): deal the same game again with --seed \1\.$", after,
                     re.M).group(1)
    assert seed not in before


def test_an_unfinished_hidden_game_on_the_board_keeps_its_seed_secret(tmp_path):
    from play_session import PlaySession
    db = tmp_path / "games.sqlite3"
    with PlaySession(["play", "tossing-tiger", "--port", "sim", "--save-dir",
                      str(tmp_path / "save"), "--fresh", "--db", str(db), "--human", "0"]) \
            as play:
        play.until_the_pcs_game(tossing_tiger.TITLE)  # the game runs on the board
        out = play.quit()  # everything it said, on stdout and stderr
    assert "seed stays secret" in out
    with GameLog(db) as log:
        seed = log.game(1)["seed"]
    assert str(seed) not in out


# ---------------------------------------------------------------- the chance

def test_seeds_that_agree_on_their_low_32_bits_deal_different_secrets():
    for seed in (0, 7, 123456):
        wide = seed + (1 << 32)
        assert boars.new_game(2, seed=seed).to_json() != boars.new_game(2, seed=wide).to_json()
        assert tossing_tiger.new_game(2, seed=seed).view(0) \
            != tossing_tiger.new_game(2, seed=wide).view(0)


def draws(seed, n=12, below=1000):
    x = secret_prng.seed_state(seed)
    out = []
    for _ in range(n):
        v, x = secret_prng.below(x, below)
        out.append(v)
    return out


def test_every_bit_of_the_seed_changes_the_draws():
    rnd = random.Random(23)
    for seed in (0, rnd.getrandbits(64)):
        base = draws(seed)
        for bit in range(64):
            assert draws(seed ^ (1 << bit)) != base, bit


def test_draws_are_unbiased_and_below_n_even_when_most_blocks_are_refused():
    x = secret_prng.seed_state(5)
    counts = Counter()
    for _ in range(30000):
        v, x = secret_prng.below(x, 3)
        counts[v] += 1
    # chi-square with 2 degrees of freedom: 13.8 is the 0.1% point
    assert sum((c - 10000) ** 2 / 10000 for c in counts.values()) < 13.8
    n = 2 ** 63 + 1  # values from about 2**63 up are refused: about half the blocks
    for _ in range(200):
        v, x = secret_prng.below(x, n)
        assert 0 <= v < n
    with pytest.raises(ValueError):
        secret_prng.below(x, 0)


def test_a_state_resumes_the_same_draws_from_its_json():
    s = boars.new_game(3, seed=2 ** 62 + 9)
    rnd = random.Random(1)
    for _ in range(30):
        s.play(rnd.choice(s.legal_moves()))
    back = boars.from_json(s.to_json())
    for _ in range(30):
        move = rnd.choice(s.legal_moves())
        s.play(move)
        back.play(move)
        assert back.digest() == s.digest()


# ---------------------------------------------------------------- the bots' seeds

@pytest.mark.parametrize("game", HIDDEN)
def test_bots_of_a_hidden_game_draw_their_seeds_from_the_os(game, tmp_path, monkeypatch):
    drawn = iter(range(1000, 1010))
    monkeypatch.setattr(deal.secrets, "randbits", lambda bits: next(drawn))
    record = play_quick(game, tmp_path)
    seeds = [a["seed"] for a in record["agents"]]
    assert seeds == [1000, 1001]
    assert all(s != record["seed"] * 10 + p for p, s in enumerate(seeds))


def test_bots_seeds_derive_from_a_seed_the_user_gave_so_the_demo_replays(tmp_path):
    first = play_quick("tossing-tiger", tmp_path, "--seed", "77", name="a.json")
    again = play_quick("tossing-tiger", tmp_path, "--seed", "77", name="b.json")
    assert [a["seed"] for a in first["agents"]] == [770, 771]
    assert first["moves"] == again["moves"]


# ---------------------------------------------------------------- the log and records

def test_the_log_and_both_formats_keep_a_64_bit_seed(tmp_path):
    log = GameLog(tmp_path / "log.sqlite3")
    top = secret_prng.SEED_MAX
    gid = log.start_game(game="boars", players=2, seed=top, source="terminal")
    assert log.game(gid)["seed"] == top
    # Seeds on either side of SQLite's signed 64 bits, through every reader of the log.
    low = log.start_game(game="boars", players=2, seed=2 ** 63 - 1, source="terminal")
    assert log.game(low)["seed"] == 2 ** 63 - 1
    assert {g["id"]: g["seed"] for g in log.games()} == {gid: top, low: 2 ** 63 - 1}
    assert log.same_games({"game": "boars", "players": 2, "seed": top, "options":
                           log.game(gid)["options"], "moves": []}) == [gid]
    with pytest.raises(ValueError):
        log.start_game(game="vora", players=2, seed=2 ** 32, source="terminal")
    for text in (formats.export_json(log, gid), formats.export_text(log, gid)):
        assert readers.parse(text).record["seed"] == top
    log.close()
    record = {"game": "tossing-tiger", "players": 2, "seed": 2 ** 64, "moves": []}
    with pytest.raises(readers.BadImport, match="seed"):
        readers.record_from_dict(record)

"""The game log's public mode (issue #23, finding 4): `vora games show`, `replay` and
`export` of a hidden-information game (Boars, Tossing Tiger) tell only what the rules
revealed: no seed, no digests, secret moves as the other players saw them, positions as
a spectator sees them, scores once the game is over. `--full` gives the whole record once
the game can no longer continue (over, abandoned), never while it may (playing,
interrupted). A public export says what it is and cannot be imported or replayed. Games
without hidden information keep their whole output (tests/test_gamelog.py).

The differential tests at the end log two games whose secrets differ but whose public
histories are equal, and check that the public outputs are byte-identical."""

import json
import random
import sqlite3

import pytest

from shared_rules import boars, games, tossing_tiger
from vora_host.cli import main
from vora_host.log import formats, readers
from vora_host.log import store as gamelog
from vora_host.log.records import result_of
from vora_host.log.store import BadImport, GameLog

TIGER = "tossing-tiger"
SEED = 987654321  # a number no output would show by chance
STARTED = "2026-03-01T10:00:00.000+00:00"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite3"


def random_moves(game, seed, count, options=None, players=2, to_the_end=False):
    """`count` moves of a game between random players; unless `to_the_end`, none that
    ends the game (a game in progress), else fewer when the game ends first."""
    state = games.start({"game": game, "players": players, "seed": seed,
                         "options": options or {}})
    rnd = random.Random(seed)
    moves = []
    while len(moves) < count and not state.is_over():
        choices = sorted(state.legal_moves())
        rnd.shuffle(choices)
        for move in choices:
            after = state.clone()
            after.play(move)
            if to_the_end or not after.is_over():
                break
        else:
            break
        state = after
        moves.append(move)
    return moves


def log_game(db, game, seed, moves, status=None, options=None, players=2):
    """Log the moves as a game "playing", then ended with `status` if given: (id, the
    [(number, player, move, public text)], the digests, the final state)."""
    state = games.start({"game": game, "players": players, "seed": seed,
                         "options": options or {}})
    rules = games.load(game)
    rows, digests = [], []
    with GameLog(db) as log:
        gid = log.start_game(game=game, players=players, seed=seed, options=options or {},
                             source="terminal", started_at=STARTED)
        for k, move in enumerate(moves, 1):
            player = state.to_act()
            public = rules.public_move(state, move, None) if rules.HIDDEN_INFORMATION else move
            rows.append((k, player, move, public))
            state.play(move)
            digests.append(state.digest())
            log.add_move(gid, k, move, digests[-1])
        if status is not None:
            log.end_game(gid, status, result_of(state, None if state.is_over() else "quit"))
    return gid, rows, digests, state


def vora_games(db, *args):
    return main(["games", "--db", str(db), *args])


def secret_rows(rows):
    secret = [r for r in rows if r[2] != r[3]]
    assert secret, "the game must have secret moves for the test to mean anything"
    return secret


def assert_public(out, rows, digests, seed=SEED):
    assert str(seed) not in out
    for digest in digests:
        assert digest not in out
    for _, _, move, public in secret_rows(rows):
        assert move not in out and public in out
    assert len(digests) >= 20


# ---------------------------------------------------------------- show, replay, export

def test_show_of_a_tiger_game_in_progress_tells_only_what_was_revealed(db, capsys):
    options = {"highscore": True}
    moves = random_moves(TIGER, SEED, 24, options)
    gid, rows, digests, state = log_game(db, TIGER, SEED, moves, options=options)
    assert not state.is_over()
    assert vora_games(db, "show", str(gid)) == 0
    out = capsys.readouterr().out
    assert_public(out, rows, digests)
    for number, player, _, public in rows:
        assert "%5d. P%d %s" % (number, player, public) in out
    assert "seed hidden" in out and "Every digest matches" in out
    # With Highscore a hand's score is the value of its secret cards.
    assert "Scores" not in out and "The game is not over (status playing)" in out


def test_replay_of_a_hidden_game_in_progress_is_a_spectators(db, capsys):
    moves = random_moves(TIGER, SEED, 24)
    gid, rows, digests, _ = log_game(db, TIGER, SEED, moves, status="interrupted")
    assert vora_games(db, "replay", str(gid)) == 0
    out = capsys.readouterr().out
    assert_public(out, rows, digests)
    assert out.count("digest matches the log") == len(moves) + 1  # and the summary
    for number, player, _, public in rows:
        assert "%d. P%d %s" % (number, player, public) in out


def test_boars_in_progress_hides_its_seed_and_digests(db, capsys):
    moves = random_moves("boars", SEED, 30)
    gid, rows, digests, _ = log_game(db, "boars", SEED, moves)
    for action in ("show", "replay"):
        assert vora_games(db, action, str(gid)) == 0
        out = capsys.readouterr().out
        assert str(SEED) not in out and "seed hidden" in out
        assert not any(d in out for d in digests)
    for fmt in ("json", "text"):
        assert vora_games(db, "export", str(gid), "--format", fmt) == 0
        out = capsys.readouterr().out
        assert str(SEED) not in out and not any(d in out for d in digests)
        # Every move of Boars is made in the open: the public record lists them all.
        assert all(m in out for m in moves)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_public_export_says_so_and_cannot_be_imported(db, tmp_path, capsys, fmt):
    moves = random_moves(TIGER, SEED, 24)
    gid, rows, digests, _ = log_game(db, TIGER, SEED, moves)
    path = tmp_path / ("public." + fmt)
    assert vora_games(db, "export", str(gid), "--format", fmt, "-o", str(path)) == 0
    assert "public: it cannot be imported" in capsys.readouterr().err
    text = path.read_text()
    assert_public(text, rows, digests)
    assert "cannot be imported or replayed" in text
    if fmt == "json":
        data = json.loads(text)
        assert "seed" not in data and "digests" not in data
        assert data["moves"] == [r[3] for r in rows]
    else:
        assert "[Seed" not in text and '[Public "true"]' in text
    with pytest.raises(BadImport, match="public export"):
        readers.parse(text)
    assert vora_games(db, "import", str(path)) == 1
    assert "public export" in capsys.readouterr().err
    assert main(["replay", str(path)]) != 0
    assert "public export" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("status", [None, "interrupted"])
@pytest.mark.parametrize("action", ["show", "replay", "export"])
def test_full_is_refused_while_the_game_may_go_on(db, capsys, status, action):
    moves = random_moves(TIGER, SEED, 24)
    gid, rows, digests, _ = log_game(db, TIGER, SEED, moves, status=status)
    assert vora_games(db, action, str(gid), "--full") == 1
    captured = capsys.readouterr()
    assert "is still %s and may go on" % (status or "playing") in captured.err
    assert "only once it is over or abandoned" in captured.err
    assert str(SEED) not in captured.out + captured.err
    assert not any(m in captured.out + captured.err for _, _, m, _ in secret_rows(rows))


@pytest.mark.parametrize("status", ["abandoned", "over"])
def test_full_record_once_the_game_cannot_go_on(db, tmp_path, capsys, status):
    moves = random_moves(TIGER, SEED, 400 if status == "over" else 24,
                         to_the_end=status == "over")
    gid, rows, digests, state = log_game(db, TIGER, SEED, moves, status=status)
    assert state.is_over() == (status == "over")
    assert vora_games(db, "show", str(gid)) == 0  # public unless asked
    assert str(SEED) not in capsys.readouterr().out
    assert vora_games(db, "show", str(gid), "--full") == 0
    out = capsys.readouterr().out
    assert "seed %d" % SEED in out
    for number, player, move, _ in secret_rows(rows):
        assert "%5d. P%d %s" % (number, player, move) in out
    assert vora_games(db, "replay", str(gid), "--full") == 0
    assert digests[-1] in capsys.readouterr().out
    path = tmp_path / "full.text"
    assert vora_games(db, "export", str(gid), "--full", "--format", "text", "-o",
                      str(path)) == 0
    assert vora_games(db, "import", str(path), "--force") == 0  # the whole record replays
    capsys.readouterr()


def test_scores_of_a_hidden_game_over_are_public(db, capsys):
    moves = random_moves(TIGER, SEED, 400, {"highscore": True}, to_the_end=True)
    gid, rows, digests, state = log_game(db, TIGER, SEED, moves, status="over",
                                         options={"highscore": True})
    assert state.is_over()
    assert vora_games(db, "show", str(gid)) == 0
    out = capsys.readouterr().out
    assert "Scores: " + ", ".join("P%d %+d" % (p, s) for p, s in enumerate(state.scores())) \
        in out
    assert str(SEED) not in out


def test_list_leaves_out_the_scores_of_a_hidden_game_in_progress(db, capsys):
    options = {"highscore": True}
    moves = random_moves(TIGER, SEED, 24, options)
    log_game(db, TIGER, SEED, moves, status="interrupted", options=options)
    assert vora_games(db, "list") == 0
    out = capsys.readouterr().out
    assert "not over (quit)" in out and "not over (quit):" not in out


def test_a_game_without_hidden_information_is_shown_whole(db, capsys):
    moves = random_moves("vorcept", SEED, 12)
    gid, rows, digests, _ = log_game(db, "vorcept", SEED, moves)
    for extra in ((), ("--full",)):
        assert vora_games(db, "show", str(gid), *extra) == 0
        out = capsys.readouterr().out
        assert "seed %d" % SEED in out and "seed hidden" not in out
        assert vora_games(db, "replay", str(gid), *extra) == 0
        assert digests[-1] in capsys.readouterr().out
        assert vora_games(db, "export", str(gid), "--format", "text", *extra) == 0
        assert '[Seed "%d"]' % SEED in capsys.readouterr().out


def test_the_help_explains_the_public_mode(capsys):
    for action in ((), ("show",), ("replay",), ("export",)):
        with pytest.raises(SystemExit):
            main(["games", *action, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "--full" in out and "as a spectator sees them" in out


# ---------------------------------------------------------------- differential

def twin_histories(a, b, steps, rnd, rules):
    """Play `a` and `b` side by side for up to `steps` moves: each time a random move of
    `a` and a move of `b` that a spectator sees the same (`public_move`) and after which
    a spectator sees the same position (`view(None)`). Stops early when `b`'s secrets
    leave it no such move (a card revealed that only `a` holds)."""
    moves_a, moves_b = [], []
    for _ in range(steps):
        if a.is_over():
            break
        found = None
        for move in rnd.sample(sorted(a.legal_moves()), len(a.legal_moves())):
            text = rules.public_move(a, move, None)
            after_a = a.clone()
            after_a.play(move)
            for other in sorted(b.legal_moves()):
                if rules.public_move(b, other, None) != text:
                    continue
                after_b = b.clone()
                after_b.play(other)
                if after_b.view(None) == after_a.view(None):
                    found = (move, other, after_a, after_b)
                    break
            if found:
                break
        if found is None:
            break
        moves_a.append(found[0])
        moves_b.append(found[1])
        a, b = found[2], found[3]
    return moves_a, moves_b


def public_outputs(db, capsys):
    outputs = []
    for args in (("show", "1"), ("replay", "1"), ("export", "1", "--format", "json"),
                 ("export", "1", "--format", "text")):
        assert vora_games(db, *args) == 0
        outputs.append(capsys.readouterr().out)
    return outputs


def assert_same_public_outputs(tmp_path, capsys, game, seeds, moves, options, min_moves):
    a_db, b_db = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"
    assert len(moves[0]) >= min_moves
    for path, seed, played in zip((a_db, b_db), seeds, moves):
        log_game(path, game, seed, played, options=options)
    with GameLog(a_db) as a, GameLog(b_db) as b:
        # The logs differ in secrets: the full records tell the two games apart.
        assert formats.export_json(a, 1) != formats.export_json(b, 1)
        assert a.game(1)["moves"][-1]["digest"] != b.game(1)["moves"][-1]["digest"]
    assert public_outputs(a_db, capsys) == public_outputs(b_db, capsys)


def test_tiger_in_progress_looks_the_same_whatever_the_deal(tmp_path, capsys, monkeypatch):
    """Two Tossing Tiger games dealt from different seeds, whose moves a spectator saw
    the same and after each of which a spectator saw the same position (their secret
    cards differ: the moves adding cards face down name other cards): `show`, `replay`
    and both exports in public mode print the same bytes. So nothing they print depends
    on the seed, the digests, the hands or the secret moves. Highscore makes the scores
    secret too."""
    monkeypatch.setattr(gamelog, "_now", lambda: STARTED)  # the moves' times are equal
    options = {"highscore": True}
    seeds = (1000, 1004)
    start = [games.start({"game": TIGER, "players": 2, "seed": s, "options": options})
             for s in seeds]
    moves = twin_histories(start[0], start[1], 40, random.Random(4), tossing_tiger)
    assert moves[0] != moves[1]  # some secret moves differ
    assert_same_public_outputs(tmp_path, capsys, TIGER, seeds, moves, options, 10)


def test_boars_in_progress_looks_the_same_whatever_the_secrets(tmp_path, capsys,
                                                              monkeypatch):
    """Every move of Boars is public, and two seeds deal different displays, so two real
    seeds never share a public history. The second game is therefore the first with its
    secrets changed by hand: another seed in the log, and the order of the unseen deck
    reversed (its bags start alike, its PRNG is the first's, so the draws match); the
    moves are those that keep a spectator's view of both equal (no card comes up from the
    deck). `show`, `replay` and both exports in public mode print the same bytes for the
    two: nothing they print depends on the seed, the digests or the deck's order."""
    monkeypatch.setattr(gamelog, "_now", lambda: STARTED)
    seeds = (1000, 2000)
    first = games.start({"game": "boars", "players": 2, "seed": seeds[0], "options": {}})
    second = first.clone()
    second.deck[:second.deck_hidden] = second.deck[:second.deck_hidden][::-1]
    assert second.digest() != first.digest() and second.view(None) == first.view(None)
    real_start = games.start

    def start(record):
        if record.get("game") == "boars" and record.get("seed") == seeds[1]:
            return second.clone()
        return real_start(record)

    monkeypatch.setattr(games, "start", start)
    moves_a, moves_b = twin_histories(first, second, 40, random.Random(2), boars)
    assert moves_a == moves_b
    assert_same_public_outputs(tmp_path, capsys, "boars", seeds, (moves_a, moves_b), {}, 40)


def test_a_problem_in_public_mode_is_told_without_secrets(db, capsys):
    moves = random_moves(TIGER, SEED, 24)
    gid, rows, digests, _ = log_game(db, TIGER, SEED, moves)
    number, player, move, public = secret_rows(rows)[-1]
    with sqlite3.connect(str(db), isolation_level=None) as conn:  # as another program
        conn.execute("UPDATE moves SET digest = '00000000deadbeef' WHERE game_id = ? AND "
                     "number = ?", (gid, number))
    for action, words in (("show", "gives another digest than the log"),
                          ("replay", "the replay gives another digest than the log"),
                          ("export", "does not replay cleanly")):
        assert vora_games(db, action, str(gid)) == (0 if action == "export" else 1)
        captured = capsys.readouterr()
        both = captured.out + captured.err
        assert words in " ".join(both.split())
        assert "move %d (P%d %s)" % (number, player, public) in " ".join(both.split())
        assert move not in both and "deadbeef" not in both and digests[number - 1] not in both

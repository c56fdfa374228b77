"""The web mirror (`vora serve`, vora_host.web): every route with Starlette's TestClient,
bad input (malformed ids and move numbers, unknown games, a busy port, a log that cannot
be read), the secrecy rule (a spectator sees a Boars or Tossing Tiger game still going on
exactly as the log's public mode shows it, and two games that differ only in secrets give
the same bytes), and the live event stream on a real server (uvicorn in a thread).

The browser itself is tests/test_web_browser.py."""

import json
import random
import re
import sqlite3
import sys
import threading
import time

import httpx2
import pytest
from starlette.testclient import TestClient

from shared_rules import games, tossing_tiger, vorcept
from vora_host.cli import main
from vora_host.log import formats
from vora_host.log import store as gamelog
from vora_host.log.cli_views import game_view
from vora_host.log.records import result_of
from vora_host.log.store import GameLog
from vora_host.web import game_data, serve
from vora_host.web import app as web_app
from vora_host.web.app import create_app

from test_gamelog_public import STARTED, twin_histories
from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)

TIGER = "tossing-tiger"
SECRET_SEED = 987654321  # a number no page would show by chance


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite3"


def play_moves(game, seed, count, players=2, options=None, rnd_seed=1, to_the_end=False):
    """(moves, digests, final state) of up to `count` random moves; unless
    `to_the_end`, none that ends the game."""
    state = games.start({"game": game, "players": players, "seed": seed,
                         "options": options or {}})
    rnd = random.Random(rnd_seed)
    moves, digests = [], []
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
        digests.append(state.digest())
    return moves, digests, state


def log_game(db, game, seed, count, status=None, players=2, options=None, to_the_end=False):
    moves, digests, state = play_moves(game, seed, count, players, options,
                                       to_the_end=to_the_end)
    with GameLog(db) as log:
        gid = log.start_game(game=game, players=players, seed=seed, options=options or {},
                             source="terminal", started_at=STARTED)
        for k, (move, digest) in enumerate(zip(moves, digests), 1):
            log.add_move(gid, k, move, digest)
        if status is not None:
            log.end_game(gid, status, result_of(state, None if state.is_over() else "quit"))
    return gid, moves, digests, state


def local_client(app, **kwargs):
    """Starlette's TestClient naming the server as a browser on this computer does (its
    default name, testserver, is refused: vora_host.web.hosts)."""
    return TestClient(app, base_url="http://localhost", **kwargs)


@pytest.fixture
def client(db):
    with local_client(create_app(db, watch=False)) as c:
        yield c


# ---------------------------------------------------------------- the list

def test_the_list_puts_live_games_first_and_hides_secrets_of_hidden_games(db, client):
    over, _, _, _ = log_game(db, "vora", 11, 12, status="abandoned")
    tiger, _, _, _ = log_game(db, TIGER, SECRET_SEED, 10)
    boars_over, _, _, _ = log_game(db, "boars", SECRET_SEED + 1, 10, status="abandoned")
    data = client.get("/api/games").json()
    assert [g["id"] for g in data["games"]] == [tiger, boars_over, over]
    assert data["games"][0]["live"] and not data["games"][1]["live"]
    text = json.dumps(data)
    assert str(SECRET_SEED) not in text  # the live Tiger game's seed
    assert data["games"][1]["seed"] == str(SECRET_SEED + 1)  # abandoned: it may be seen now
    assert data["games"][2]["seed"] == "11"  # Vora hides nothing
    page = client.get("/")
    assert page.status_code == 200 and "list.js" in page.text


def test_a_postgresql_log_is_mirrored_and_its_password_never_shown(pg_url):
    """Issue 28: the mirror follows a log in PostgreSQL that many hosts write into; the
    page and the JSON name the database without the password of its URL."""
    url = pg_url.replace("postgresql://", "postgresql://vora:hunter2@", 1)  # trust: ignored
    first, _, _, _ = log_game(url, "vora", 11, 6, status="abandoned")
    second, moves, digests, _ = log_game(url, "vorcept", 12, 5)  # another host's live game
    with local_client(create_app(url, watch=False)) as c:
        data = c.get("/api/games").json()
        assert [g["id"] for g in data["games"]] == [second, first]
        position = c.get("/api/games/%d/position/%d" % (second, len(moves))).json()
        assert position["digest"] == {"ok": True, "logged": digests[-1], "replayed": digests[-1]}
        missing = c.get("/api/games/%d" % (second + 100))
        assert missing.status_code == 404
        for text in (json.dumps(data), missing.text, c.get("/").text):
            assert "hunter2" not in text


def test_the_list_of_a_log_not_yet_made_says_so(tmp_path):
    path = tmp_path / "none" / "games.sqlite3"
    with local_client(create_app(path, watch=False)) as c:
        data = c.get("/api/games").json()
        assert data["games"] == [] and "no game log at %s yet" % path in data["note"]
        answer = c.get("/api/games/1")
        assert answer.status_code == 404
        assert "there is no game log at" in answer.json()["error"]
    assert not path.exists()  # looking does not create it


def test_a_scores_of_a_hidden_game_in_progress_stay_out_of_the_list(db, client):
    gid, _, _, state = log_game(db, "boars", SECRET_SEED, 12)
    with GameLog(db) as log:
        log.end_game(gid, "interrupted", result_of(state, "interrupted"))
    game = client.get("/api/games").json()["games"][0]
    assert game["result"] == {"over": False, "end": "interrupted"}


# ---------------------------------------------------------------- a game, a position

def _rich_drawing(renderable, width, colours=True):
    """A drawing exactly as rich itself makes it (what game_data drew before issue 39's
    cache of laid-out Text): (html, text)."""
    import io
    from rich.console import Console
    if colours:
        console = Console(record=True, width=width, file=io.StringIO(),
                          color_system="truecolor", force_terminal=True,
                          legacy_windows=False)
    else:
        console = Console(record=True, width=width, file=io.StringIO(), color_system=None,
                          force_terminal=False, legacy_windows=False)
    console.print(renderable)
    text = console.export_text(clear=False, styles=False)
    return console.export_html(inline_styles=True, code_format="{code}"), text


HOSTILE = '<b>&amp;"\'</b> <script>x</script>'  # a label as hostile as a name may be


@pytest.mark.parametrize("name", games.names())
def test_panels_drawn_through_the_text_cache_are_rich_s_own_drawing_byte_for_byte(name):
    # Every position of a game to its end (or 15 moves), seen by every viewer, with the
    # labels a seat's panel gives ("you", a bot) and hostile ones, beside a history with
    # hostile text, at the seats' and the game page's widths (by turns): render_html,
    # render_html_and_text and render_text give exactly what rich's own print and export
    # give, drawing after drawing (the cache warm from the drawings before it).
    from vora_host.web import seats as web_seats
    module = games.load(name)
    players = 3 if module.HIDDEN_INFORMATION else 2  # (three: two others' secrets)
    view = game_view(name)
    palette = game_data._palette(view)
    state = games.start({"game": name, "players": players, "seed": 11, "options": {}})
    rnd = random.Random(3)
    history = []
    whos = [{}, dict((p, "browser") for p in range(players)),
            dict((p, HOSTILE) for p in range(players))]
    widths = (web_seats.PANEL_WIDTH, game_data.PANEL_WIDTH)
    before = (game_data.TEXT_SEGMENTS.drawn, game_data.TEXT_SEGMENTS.reused)
    positions = 0
    while True:
        for viewer in [None] + list(range(players)):
            for who in (whos[positions % 3], whos[2]):
                shown = dict(who)
                if viewer is not None:
                    shown[viewer] = "you"
                for width in widths if positions < 3 else [widths[positions % 2]]:
                    def panel():
                        return view.render(state, viewer, shown, history, width=width,
                                           palette=palette)
                    html, text = _rich_drawing(panel(), width)
                    assert game_data.render_html(panel(), width) == html
                    assert game_data.render_html_and_text(panel(), width) == (html, text)
                    assert game_data.render_text(panel(), width) == \
                        _rich_drawing(panel(), width, colours=False)[1]
        positions += 1
        if state.is_over() or positions > 15:
            break
        player = state.to_act()
        move = rnd.choice(sorted(state.legal_moves()))
        history.append((player, move if positions % 7 else HOSTILE))
        state.play(move)
    assert positions > 10
    if name == "vorcept":  # a game drawn as a group of Texts: they were reused
        assert game_data.TEXT_SEGMENTS.reused > before[1]
        assert game_data.TEXT_SEGMENTS.drawn > before[0]


def test_a_text_drawn_again_is_taken_from_the_cache_and_the_key_holds_all_it_depends_on():
    import io
    from rich.console import Console, Group
    from rich.text import Text
    cache = game_data.TextSegments(size=4)

    def drawn(text, width=40, justify=None):
        console = Console(width=width, file=io.StringIO(), color_system="truecolor",
                          force_terminal=True, legacy_windows=False)
        options = console.options.update(justify=justify)
        return cache.segments(text, console, options), \
            tuple(console.render(text, options))

    a = Text("the same words " * 5, style="bold")
    got, rich_s = drawn(a)
    assert got == rich_s and cache.drawn == 1 and cache.reused == 0
    got, _ = drawn(Text("the same words " * 5, style="bold"))  # equal text, another object
    assert got == rich_s and cache.reused == 1 and cache.drawn == 1
    # Whatever decides the drawing is in the key: a change of it is drawn anew.
    for other, width, justify in [(Text("the same words " * 5), 40, None),
                                  (Text("the same words " * 5, style="italic"), 40, None),
                                  (a, 30, None), (a, 40, "right"),
                                  (Text("the same words " * 5, style="bold",
                                        justify="center"), 40, None)]:
        n = cache.drawn
        got, rich_s = drawn(other, width, justify)
        assert got == rich_s and cache.drawn == n + 1
    # A Text whose every line fits and that is not justified is the same at any width
    # it fits in; one with a longer line is drawn again for another width.
    short = Text("a short line\nand another", style="bold")
    n = cache.drawn
    assert drawn(short, 72)[0] == drawn(short, 72)[1] and cache.drawn == n + 1
    assert drawn(short, 100)[0] == drawn(short, 100)[1] and cache.drawn == n + 1
    assert drawn(short, 8)[0] == drawn(short, 8)[1] and cache.drawn == n + 2
    assert drawn(short, 100, "right")[0] == drawn(short, 100, "right")[1]
    assert cache.drawn == n + 3
    long = Text("x" * 80 + "\nshort")
    assert drawn(long, 72)[0] == drawn(long, 72)[1] and cache.drawn == n + 4
    assert drawn(long, 100)[0] == drawn(long, 100)[1] and cache.drawn == n + 5
    spans = Text("ab")
    spans.stylize("red", 0, 1)
    n = cache.drawn
    assert drawn(spans)[0] == drawn(spans)[1] and cache.drawn == n + 1
    plain = Text("ab")
    assert drawn(plain)[0] == drawn(plain)[1] and cache.drawn == n + 2
    assert len(cache._items) <= 4  # bounded
    # Only a group's Texts go through it; a Text alone, which print() joins with its
    # end, is drawn by rich as it is.
    kept = game_data._kept(Group(Text("x"), Group(Text("y")), "z"))
    assert [type(r).__name__ for r in kept.renderables] == ["_KeptText", "Group", "str"]
    assert type(kept.renderables[1].renderables[0]).__name__ == "_KeptText"
    lone = Text("x")
    assert game_data._kept(lone) is lone


def test_a_key_s_colours_worked_out_once_are_the_same_as_worked_out_each_time():
    # _hex and _ink keep what they worked out (a board asks for its few colours 49 times
    # a drawing): the same answers as the formulas, for lists and tuples, whole numbers
    # and fractions, values out of range, asked again and again.
    rnd = random.Random(5)
    values = [(0, 0, 0), (255, 255, 255), (300, -4, 128), [12.7, 200.2, 99.9],
              (140, 140, 140), (141, 141, 141), (True, 0, 255)] + \
        [tuple(rnd.randint(-20, 280) for _ in range(3)) for _ in range(300)]
    for _ in range(2):
        for rgb in values:
            r, g, b = rgb
            assert game_data._hex(rgb) == "#%02x%02x%02x" % tuple(
                max(0, min(255, int(c))) for c in rgb)
            assert game_data._ink(rgb) == (
                "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff")
    assert game_data._hex((1.0, 2, 3)) == game_data._hex((1, 2, 3)) == "#010203"
    assert game_data._hex((1.9, 2, 3)) == "#010203"


class _ThisThreadsTexts(game_data.TextSegments):
    """A TextSegments for this thread's drawings alone: another thread's (a server another
    test left in this worker may draw meanwhile) go to a cache of their own, and the
    counts are this thread's."""

    def __init__(self):
        super().__init__()
        self.thread = threading.get_ident()
        self.others = game_data.TextSegments()

    def segments(self, text, console, options):
        if threading.get_ident() != self.thread:
            return self.others.segments(text, console, options)
        return super().segments(text, console, options)

    @property
    def counts(self):
        return self.drawn, self.reused


def test_the_board_of_a_position_is_laid_out_once_for_both_seats_panels(monkeypatch):
    # Issue 39: a move of Vorcept is drawn for each seat (the panel names its own player
    # "you"): the board's grid and the legend, the same Texts in both, are laid out once.
    from vora_host.web import seats as web_seats
    view = game_view("vorcept")
    _, _, state = play_moves("vorcept", 4, 30)
    cache = _ThisThreadsTexts()
    monkeypatch.setattr(game_data, "TEXT_SEGMENTS", cache)
    first = game_data.render_html_and_text(
        view.render(state, 0, {0: "you", 1: "browser"}, [], width=web_seats.PANEL_WIDTH),
        web_seats.PANEL_WIDTH)
    drawn, reused = cache.counts
    second = game_data.render_html_and_text(
        view.render(state, 1, {0: "browser", 1: "you"}, [], width=web_seats.PANEL_WIDTH),
        web_seats.PANEL_WIDTH)
    assert first != second  # each seat's own panel ("you")
    assert cache.counts[0] - drawn == 1  # the status, which names the seats
    assert cache.counts[1] - reused == 3  # the grid, the legend, the blank line between
    # The game page's position (100 columns, a spectator's) takes the grid and the blank
    # line; its status names no "you", and the legend, wider than a seat's 72 columns,
    # is laid out again at 100 (where a line does not fit, the width is in the key).
    drawn, reused = cache.counts
    game_data.render_html(view.render(state, None, {}, [], width=game_data.PANEL_WIDTH),
                          game_data.PANEL_WIDTH)
    assert (cache.counts[0] - drawn, cache.counts[1] - reused) == (2, 2)


@pytest.mark.parametrize("name", games.names())
def test_every_game_is_drawn_at_every_move_as_the_terminal_draws_it(db, client, name):
    gid, moves, digests, _ = log_game(db, name, 5, 14)
    data = client.get("/api/games/%d" % gid).json()
    assert data["playable"] == len(moves) == 14 and data["all_digests_ok"]
    view = game_view(name)
    state = games.start({"game": name, "players": 2, "seed": 5, "options": {}})
    hidden = games.load(name).HIDDEN_INFORMATION
    shown = []
    for n in range(len(moves) + 1):
        pos = client.get("/api/games/%d/position/%d" % (gid, n)).json()
        assert pos["number"] == n and len(pos["board"]) == 7
        assert all(len(row) == 7 for row in pos["board"]) and pos["legend"]
        expected = game_data.render_html(view.render(state, None, {}, shown, width=100,
                                                     palette=game_data._palette(view)))
        assert pos["panel_html"] == expected
        assert (pos["scores"] is None) == bool(hidden)  # a game in progress
        if n:
            assert pos["digest"]["ok"] is True
            assert ("replayed" in pos["digest"]) == (not hidden)
        if n < len(moves):
            player = state.to_act()
            text = formats.public_move_text(games.load(name), state, moves[n])
            state.play(moves[n])
            shown.append((player, text))
    latest = client.get("/api/games/%d/position/latest" % gid).json()
    assert latest["number"] == len(moves)
    assert client.get("/game/%d" % gid).status_code == 200


def test_the_board_shows_the_games_own_frame_and_marks(db, client):
    from vora_host.games.vorcept import BOARD
    gid, moves, _, state = log_game(db, "vorcept", 3, 6)
    pos = client.get("/api/games/%d/position/6" % gid).json()
    frame = BOARD.frame(state, None, 0)
    marks = BOARD.key_marks(state, None, ())
    # The top row of the page is the north edge (y = 6): key 42 is its west end.
    assert pos["board"][0][0]["bg"] == "#%02x%02x%02x" % frame[42]
    assert pos["board"][6][0]["name"] == "a1"
    for k, label in marks.items():
        assert pos["board"][6 - k // 7][k % 7]["label"] == label
    assert [item["text"] for item in pos["legend"]] == [w for _, w in BOARD.legend(state)]


def test_vora_is_drawn_from_its_frame_keys_with_its_palette(db, client):
    from vora_host.games.vora import view as vora_view
    gid, moves, _, state = log_game(db, "vora", 4, 5)
    pos = client.get("/api/games/%d/position/5" % gid).json()
    for row, keys in zip(pos["board"], vora_view.frame_keys(state)):
        for cell, key in zip(row, keys):
            if key.kind == "cube":
                assert cell["bg"] in vora_view.CUBE_STYLES[key.cube]
                assert key.label in cell["label"]
            elif key.kind == "edge":
                assert cell["label"] == key.name


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("path, status, words", [
    ("/api/games/abc", 400, "'abc' is not a game id"),
    ("/api/games/0", 400, "game ids start at 1"),
    ("/api/games/-3", 400, "is not a game id"),
    ("/api/games/1_0", 400, "is not a game id"),
    ("/api/games/%EF%BC%91", 400, "is not a game id"),  # a full-width digit one
    ("/api/games/9999999999999999999", 400, "is not a game id"),
    ("/api/games/42", 404, "no game 42 in"),
    ("/api/games/1/position/x", 400, "'x' is not a move number"),
    ("/api/games/1/position/-1", 400, "is not a move number"),
    ("/api/games/1/position/99999999", 400, "is not a move number"),
    ("/api/games/1/position/9", 404, "game 1 has 4 moves: its positions are 0 to 4, not 9"),
    ("/api/games/1/position/2?viewer=5", 400, "viewer '5' is neither"),
    ("/api/games/1/position/2?viewer=me", 400, "viewer 'me' is neither"),
    ("/api/games/42/position/0", 404, "the log has games 1 to 1"),
    ("/api/events?game=zero", 400, "'zero' is not a game id"),
    ("/api/nothing", 404, "no such address: /api/nothing"),
])
def test_bad_requests_get_a_clear_message(db, client, path, status, words):
    log_game(db, "vorcept", 3, 4)
    answer = client.get(path)
    assert answer.status_code == status
    assert words in answer.json()["error"]


def test_bad_pages_get_a_clear_page(db, client):
    log_game(db, "vorcept", 3, 4)
    for path, status, words in (("/game/abc", 400, "is not a game id"),
                                ("/game/7", 404, "no game 7 in"),
                                ("/nowhere", 404, "there is no page /nowhere here")):
        answer = client.get(path)
        assert answer.status_code == status and words in answer.text
        assert "<html" in answer.text
    assert client.post("/api/games").status_code == 405


def test_a_game_that_does_not_replay_shows_what_does(db, client):
    gid, moves, digests, _ = log_game(db, "vorcept", 3, 6)
    with GameLog(db) as log:
        log.add_move(gid, 7, "fly away", "0123456789abcdef")
    with sqlite3.connect(str(db), isolation_level=None) as conn:  # as another program
        conn.execute("UPDATE moves SET digest = '00000000deadbeef' WHERE game_id = ? AND "
                     "number = 3", (gid,))
    data = client.get("/api/games/%d" % gid).json()
    assert data["playable"] == 6 and not data["all_digests_ok"]
    assert "move 7 (P" in data["problem"] and "is illegal" in data["problem"]
    assert [m["digest_ok"] for m in data["moves_list"]] == [True, True, False, True, True, True]
    third = client.get("/api/games/%d/position/3" % gid).json()
    assert third["digest"] == {"ok": False, "logged": "00000000deadbeef",
                               "replayed": digests[2]}
    answer = client.get("/api/games/%d/position/7" % gid)
    assert answer.status_code == 404 and "move 7 cannot be drawn" in answer.json()["error"]
    assert client.get("/api/games/%d/position/latest" % gid).json()["number"] == 6


def test_a_game_that_cannot_be_set_up_is_said_so(db, client):
    gid, _, _, _ = log_game(db, "vorcept", 3, 2)
    with sqlite3.connect(str(db), isolation_level=None) as conn:
        conn.execute("UPDATE games SET options = '{\"size\": 2}' WHERE id = ?", (gid,))
    answer = client.get("/api/games/%d/position/0" % gid)
    assert answer.status_code == 404 and "cannot be set up" in answer.json()["error"]
    assert client.get("/api/games/%d" % gid).json()["problem"].startswith(
        "the game cannot be set up")


def test_a_log_that_is_not_one_is_said_so_and_the_server_goes_on(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"not a database at all, some bytes" * 40)
    with local_client(create_app(path, watch=False)) as c:
        answer = c.get("/api/games")
        assert answer.status_code == 503
        assert "not a Vora game log" in answer.json()["error"]
        assert c.get("/game/1").status_code == 503
    assert path.read_bytes().startswith(b"not a database")  # left as it was


def test_a_read_that_fails_once_is_tried_again_before_the_log_is_said_unreadable(
        db, client, monkeypatch):
    gid, _, _, _ = log_game(db, "vorcept", 3, 2)
    real_games, real_game = GameLog.games, GameLog.game
    failures = []

    def failing(real, times):
        def read(self, *args, **kwargs):
            if len(failures) < times:
                failures.append(1)
                raise gamelog.DatabaseError("%s cannot be used as a game log: database disk "
                                            "image is malformed (a corrupt or damaged file?)"
                                            % db)
            return real(self, *args, **kwargs)
        return read

    monkeypatch.setattr(GameLog, "games", failing(real_games, 1))
    monkeypatch.setattr(GameLog, "game", failing(real_game, 1))
    assert client.get("/api/games").status_code == 200  # the second try
    failures.clear()
    assert client.get("/api/games/%d" % gid).status_code == 200
    failures.clear()
    monkeypatch.setattr(GameLog, "game", failing(real_game, 4))
    answer = client.get("/api/games/%d" % gid)  # failing on a new connection too: said
    assert answer.status_code == 503 and "malformed" in answer.json()["error"]
    assert len(failures) == 2


def test_a_log_locked_past_the_wait_is_said_busy_not_damaged(db, client, monkeypatch):
    log_game(db, "vorcept", 3, 2)

    def locked(self, *args, **kwargs):
        raise gamelog.DatabaseLocked("%s is locked by another program (database is locked); "
                                     "try again when it has finished" % db)
    monkeypatch.setattr(GameLog, "games", locked)
    answer = client.get("/api/games")
    assert answer.status_code == 503
    assert answer.json()["error"].startswith("the game log is busy: %s is locked" % db)


def test_an_unexpected_failure_is_a_500_that_names_it(db, monkeypatch):
    log_game(db, "vorcept", 3, 2)

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(game_data, "position", broken)
    with local_client(create_app(db, watch=False), raise_server_exceptions=False) as c:
        answer = c.get("/api/games/1/position/1")
        assert answer.status_code == 500
        assert "internal error (ZeroDivisionError)" in answer.json()["error"]
        assert c.get("/api/games/1").status_code == 200  # and it goes on


# ---------------------------------------------------------------- hidden information

def _all_page_data(client, gid, total):
    listing = client.get("/api/games").json()
    listing.pop("log")  # the log's path, which the two logs of a test cannot share
    out = [client.get("/api/games/%d" % gid).text, json.dumps(listing)]
    for n in range(total + 1):
        out.append(client.get("/api/games/%d/position/%d" % (gid, n)).text)
    return out


@pytest.mark.parametrize("name", ["boars", TIGER])
def test_a_spectator_sees_a_hidden_game_in_progress_as_the_logs_public_view(db, client,
                                                                             name):
    gid, moves, digests, _ = log_game(db, name, SECRET_SEED, 24)
    with GameLog(db) as log:
        info = log.game(gid)
    record, _ = gamelog.record_of(info)
    _, public_texts = formats.public_history(record, info["history"])
    data = client.get("/api/games/%d" % gid).json()
    assert data["public"] and data["seed"] is None and data["viewers"] == []
    assert [m["text"] for m in data["moves_list"]] == public_texts
    pages = "".join(_all_page_data(client, gid, len(moves)))
    assert str(SECRET_SEED) not in pages
    assert not any(d in pages for d in digests)
    if name == TIGER:  # Boars' moves are all public; Tiger's cards are not
        secret = [m for m, t in zip(moves, public_texts) if m != t]
        assert secret and not any(json.dumps(m) in pages for m in secret)
    answer = client.get("/api/games/%d/position/3?viewer=0" % gid)
    assert answer.status_code == 403 and "still playing" in answer.json()["error"]


def test_once_over_a_hidden_game_is_shown_whole(db, client):
    gid, moves, digests, _ = log_game(db, TIGER, SECRET_SEED, 400, status="over",
                                      to_the_end=True)
    data = client.get("/api/games/%d" % gid).json()
    assert not data["public"] and data["seed"] == str(SECRET_SEED) and data["viewers"] == [0, 1]
    assert [m["text"] for m in data["moves_list"]] == moves
    pos = client.get("/api/games/%d/position/5?viewer=1" % gid).json()
    assert pos["viewer"] == 1 and pos["digest"]["replayed"] == digests[4]
    assert pos["scores"] is not None


BIG_SEED = 12424427912528688913  # issue 38.7: a browser read it as 12424427912528690000


def _no_number_past_2_53(text):
    def whole(digits):
        assert abs(int(digits)) <= 2 ** 53 - 1, "%s sent as a JSON number" % digits
        return int(digits)
    return json.loads(text, parse_int=whole)


def test_64_bit_seeds_are_sent_as_strings_and_no_number_past_2_53(db, client, server):
    over, _, _, _ = log_game(db, "boars", BIG_SEED, 5000, status="over", to_the_end=True)
    tiger, _, _, _ = log_game(db, TIGER, 2 ** 64 - 1, 30, status="abandoned")
    small, _, _, _ = log_game(db, "vora", 7, 5)
    hidden, _, _, _ = log_game(db, "boars", BIG_SEED - 1, 5)  # live: its seed is secret
    listed = _no_number_past_2_53(client.get("/api/games").text)["games"]
    seeds = dict((g["id"], g["seed"]) for g in listed)
    assert seeds == {over: str(BIG_SEED), tiger: str(2 ** 64 - 1), small: "7", hidden: None}
    for gid, seed in seeds.items():
        data = _no_number_past_2_53(client.get("/api/games/%d" % gid).text)
        assert data["seed"] == seed
        for n in (0, 1, "latest"):
            _no_number_past_2_53(client.get("/api/games/%d/position/%s" % (gid, n)).text)
    # The live events carry the same numbers.
    found, ready = [], threading.Event()
    reader = threading.Thread(target=_read_events, args=(server, "?game=%d" % hidden, found,
                                                        ready))
    reader.start()
    assert ready.wait(60)
    moves, digests, _ = play_moves("boars", BIG_SEED - 1, 6)  # the same first five
    with GameLog(db) as log:
        log.add_move(hidden, 6, moves[5], digests[5])
    reader.join(60)
    assert found and found[0][2]["position"]["number"] == 6


def test_whole_numbers_past_2_53_become_strings_anywhere():
    data = {"seed": 2 ** 64 - 1, "fine": 2 ** 53 - 1, "past": 2 ** 53, "low": -(2 ** 60),
            "flag": True, "nested": [{"n": 2 ** 70}, 3, None, "text"], "f": 0.5}
    assert web_app.json_safe(data) == {
        "seed": str(2 ** 64 - 1), "fine": 2 ** 53 - 1, "past": str(2 ** 53),
        "low": str(-(2 ** 60)), "flag": True, "nested": [{"n": str(2 ** 70)}, 3, None, "text"],
        "f": 0.5}


def test_tiger_pages_look_the_same_whatever_the_deal(tmp_path, monkeypatch):
    """Two Tossing Tiger games dealt from different seeds, whose moves a spectator saw
    the same and after each of which a spectator saw the same position: every page's
    data (the list, the game, every position) is byte-identical. So nothing a spectator
    gets depends on the seed, the digests, the hands or the secret moves."""
    monkeypatch.setattr(gamelog, "_now", lambda: STARTED)
    options = {"highscore": True}
    seeds = (1000, 1004)
    start = [games.start({"game": TIGER, "players": 2, "seed": s, "options": options})
             for s in seeds]
    moves = twin_histories(start[0], start[1], 40, random.Random(4), tossing_tiger)
    assert moves[0] != moves[1] and len(moves[0]) >= 10
    pages = []
    for k, (seed, played) in enumerate(zip(seeds, moves)):
        path = tmp_path / ("%d.sqlite3" % k)
        state = start[k].clone()
        with GameLog(path) as log:
            gid = log.start_game(game=TIGER, players=2, seed=seed, options=options,
                                 source="terminal", started_at=STARTED)
            for n, move in enumerate(played, 1):
                state.play(move)
                log.add_move(gid, n, move, state.digest())
        with local_client(create_app(path, watch=False)) as c:
            pages.append(_all_page_data(c, gid, len(played)))
    assert pages[0] == pages[1]


def test_boars_pages_look_the_same_whatever_the_secrets(tmp_path, monkeypatch):
    """Boars' second game is the first with its secrets changed by hand (another seed,
    the unseen deck reversed), its moves those that keep a spectator's view of both
    equal (as tests/test_gamelog_public.py does for the log): every page's data is
    byte-identical, so nothing shown depends on the seed, the digests or the deck."""
    from shared_rules import boars
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
    assert moves_a == moves_b and len(moves_a) >= 30
    pages, last_digests = [], []
    for k, seed in enumerate(seeds):
        path = tmp_path / ("%d.sqlite3" % k)
        state = games.start({"game": "boars", "players": 2, "seed": seed, "options": {}})
        with GameLog(path) as log:
            gid = log.start_game(game="boars", players=2, seed=seed, options={},
                                 source="terminal", started_at=STARTED)
            for n, move in enumerate(moves_a, 1):
                state.play(move)
                log.add_move(gid, n, move, state.digest())
            last_digests.append(log.game(gid)["moves"][-1]["digest"])
        with local_client(create_app(path, watch=False)) as c:
            pages.append(_all_page_data(c, gid, len(moves_a)))
    assert last_digests[0] != last_digests[1]  # the logs differ in secrets
    assert pages[0] == pages[1]


# ---------------------------------------------------------------- the server

@pytest.fixture
def server(db, request):
    if not getattr(request, "param", None) == "no log yet":
        with GameLog(db):
            pass  # the log exists before the server watches it
    sock = serve.bind("127.0.0.1", 0)
    running = serve.start_in_thread(sock, db)
    base = serve.address_of(sock)
    deadline = time.monotonic() + 60
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert running.started, "the server did not start"
    yield base
    running.should_exit = True
    running.thread.join(60)
    assert not running.thread.is_alive()


def _count_looks(monkeypatch):
    """A list that grows by one each time the log's watcher reads the games' states."""
    looks = []
    real_marks = GameLog.change_marks

    def counted(self, *args, **kwargs):
        if threading.current_thread().name == "vora-web-watcher":
            looks.append(1)
        return real_marks(self, *args, **kwargs)

    monkeypatch.setattr(GameLog, "change_marks", counted)
    return looks


def _follow_game(server, gid, monkeypatch):
    """(looks, found, reader): a page's stream following game `gid` (its events gathered
    in `found` by the thread `reader`), open, with the watcher's looks counted."""
    looks = _count_looks(monkeypatch)
    found, ready = [], threading.Event()
    reader = threading.Thread(target=_read_events, args=(server, "?game=%d" % gid, found,
                                                        ready))
    reader.start()
    assert ready.wait(60)
    return looks, found, reader


def _wait_until(check, what, timeout=60):
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "never: %s" % what
        time.sleep(0.02)


def _read_events(base, query, found, ready, count=1):
    with httpx2.Client(timeout=60) as c:
        with c.stream("GET", base + "api/events" + query) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            kind = None
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    if kind == "hello":
                        ready.set()
                    else:
                        found.append((time.monotonic(), kind, json.loads(line[6:])))
                        if len(found) >= count:
                            return


@pytest.mark.parametrize("name", ["vorcept", TIGER])
def test_a_move_logged_reaches_the_event_stream_at_once(db, server, name, monkeypatch):
    gid, moves, digests, state = log_game(db, name, SECRET_SEED, 4)
    looks, found, reader = _follow_game(server, gid, monkeypatch)
    _wait_until(lambda: len(looks) >= 2, "the watcher's first look")  # the game as it is
    move = sorted(state.legal_moves())[0]
    before = state.clone()
    state.play(move)
    with GameLog(db) as log:
        sent = time.monotonic()
        log.add_move(gid, 5, move, state.digest())
    reader.join(60)
    assert found, "no event came"
    at, kind, data = found[0]
    assert kind == "changed" and data["ids"] == [gid]
    assert at - sent < 1.0  # the figure itself (tens of ms) is in docs/web.md
    position = httpx2.get(server + "api/games/%d/position/latest" % gid).json()
    assert position["number"] == 5
    # The newest position comes with the change, as /position/latest gives it: in
    # Tossing Tiger as a spectator sees it.
    assert data["position"] == position
    assert str(SECRET_SEED) not in json.dumps(data)
    assert position["move"]["text"] == formats.public_move_text(games.load(name), before,
                                                                 move)


def test_a_second_server_on_a_busy_port_is_told_so(db, server, capsys):
    port = int(server.rsplit(":", 1)[1].strip("/"))
    with pytest.raises(serve.PortBusy) as info:
        serve.bind("127.0.0.1", port)
    assert "port %d on 127.0.0.1 is busy" % port in str(info.value)
    assert main(["serve", "--port", str(port), "--db", str(db)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "vora serve: port %d on 127.0.0.1 is busy" % port in err
    assert "--port 0 for any free one" in err
    assert httpx2.get(server + "api/games").status_code == 200  # the first one goes on


def test_serve_checks_its_options(capsys):
    for bad in (["--port", "http"], ["--port", "70000"], ["--port", "-1"]):
        with pytest.raises(SystemExit) as info:
            main(["serve", *bad])
        assert info.value.code == 2
        assert "is not a TCP port (0 to 65535)" in capsys.readouterr().err
    assert main(["serve", "--host", "no.such.host.invalid", "--port", "0"]) == 1
    assert "no such address here" in capsys.readouterr().err


def test_the_pages_ship_in_the_wheel(tmp_path):
    """An installed vora (no checkout) reads its pages from the package."""
    import shutil
    import subprocess
    import sys
    import zipfile
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, source / name)
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "node_modules")
    for folder in ("shared_rules", "host", "firmware"):
        shutil.copytree(root / folder, source / folder, ignore=skip)
    out = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "-q", "-w", str(out), str(source)], check=True, timeout=120)
    wheel, = out.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("index.html", "game.html", "app.css", "common.js", "list.js", "game.js",
                 "review.js"):
        assert "vora_host/web/static/%s" % name in names


def test_without_the_web_packages_serve_says_what_is_missing(monkeypatch, capsys):
    import builtins
    real_import = builtins.__import__

    def no_uvicorn(name, *args, **kwargs):
        if name == "uvicorn" or name.startswith("starlette"):
            raise ImportError("No module named %r" % name)
        return real_import(name, *args, **kwargs)

    import vora_host.web
    for module in [m for m in sys.modules if m.startswith("vora_host.web.")]:
        monkeypatch.delitem(sys.modules, module)
        monkeypatch.delattr(vora_host.web, module.rsplit(".", 1)[1], raising=False)
    monkeypatch.setattr(builtins, "__import__", no_uvicorn)
    assert main(["serve", "--port", "0"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "vora serve: the web mirror needs starlette and uvicorn" in err


def test_play_serve_needs_the_log_and_a_free_port(db, server, capsys):
    with pytest.raises(SystemExit) as info:
        main(["play", "vorcept", "--bots-only", "--no-log", "--serve", "0"])
    assert info.value.code == 2
    assert "--serve shows the game log: leave out --no-log" in capsys.readouterr().err
    port = int(server.rsplit(":", 1)[1].strip("/"))
    assert main(["play", "vorcept", "--bots-only", "--db", str(db), "--serve",
                 str(port)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "vora play --serve: port %d on 127.0.0.1 is busy" % port in err
    with GameLog(db) as log:
        assert log.games() == []  # no game was started


def test_a_replay_grows_with_its_game_and_starts_again_after_a_takeback(db):
    moves, digests, _ = play_moves("boars", 3, 30)
    cache = game_data.ReplayCache()

    def check(info):
        grown = cache.get(info)
        fresh = game_data.Replay(info)
        assert grown.moves == fresh.moves and grown.total == fresh.total == info["move_count"]
        assert cache.position(info, None, None) == game_data.position(info, fresh)
        return grown

    with GameLog(db) as log:
        gid = log.start_game(game="boars", players=2, seed=3, options={}, source="terminal")
        for k, (move, digest) in enumerate(zip(moves, digests), 1):
            log.add_move(gid, k, move, digest)
            replay = check(log.game(gid))
        log.take_back(gid, 30)
        log.take_back(gid, 29)
        again = check(log.game(gid))
        assert again is not replay and again.total == 28  # replayed from the start
        log.add_move(gid, 29, moves[28], digests[28])
        assert check(log.game(gid)) is again  # and grown again


def test_the_replays_of_many_games_being_played_are_all_kept_and_grown(db, monkeypatch):
    """Issue 39, 50 tables: the cache kept 16 replays, so with more games being played
    each new move of each game replayed that game from its first move (py-spy: a fifth
    of a server's time in Replay.__init__ and the whole game read). The games being
    played are all kept (up to `live`), grown move by move; the others, 16 at most."""
    made = []
    real = game_data.Replay.__init__

    def counted(self, info):
        made.append(info["id"])
        real(self, info)

    monkeypatch.setattr(game_data.Replay, "__init__", counted)
    cache = game_data.ReplayCache()
    with GameLog(db) as log:
        ids = [log.start_game(game="vorcept", players=2, seed=s, options={},
                              source="terminal") for s in range(40)]
        states = {gid: vorcept.new_game(2, s) for s, gid in enumerate(ids)}
        for k in range(1, 4):  # each game moves in turn, and is drawn after each move
            for gid in ids:
                state = states[gid]
                move = state.legal_moves()[0]
                state.play(move)
                log.add_move(gid, k, move, state.digest())
                cache.position(log.game(gid), None, None)
        assert sorted(made) == sorted(ids)  # each replayed once, then grown
        # Over games are kept 16 at most, the newest asked; a game being played that
        # ended moves among them.
        for gid in ids:
            log.end_game(gid, status="abandoned")
        for gid in ids:
            cache.get(log.game(gid))
        assert len(cache._items) + len(cache._live) <= 16


def test_ctrl_c_stops_the_server_cleanly_with_pages_open(db):
    import signal
    import subprocess
    import sys
    log_game(db, "vorcept", 3, 2)
    proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--port", "0",
                             "--db", str(db)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        first = proc.stdout.readline()
        base = re.search(r"at (http://\S+) \(Ctrl-C stops\)", first).group(1)
        ready = [threading.Event(), threading.Event()]
        readers = [threading.Thread(target=_read_events, args=(base, query, [], event),
                                    daemon=True)
                   for query, event in zip(("", "?game=1"), ready)]
        for reader in readers:
            reader.start()
        assert all(event.wait(60) for event in ready)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 130  # Ctrl-C, as every vora command says it
        rest = proc.stdout.read()
        assert "Traceback" not in rest and "ERROR" not in rest, rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("server", ["no log yet"], indirect=True)
def test_a_log_made_after_the_server_started_is_followed(db, server):
    assert not db.exists()
    found, ready = [], threading.Event()
    reader = threading.Thread(target=_read_events, args=(server, "", found, ready))
    reader.start()
    assert ready.wait(60)
    assert httpx2.get(server + "api/games").json()["games"] == []
    gid, _, _, _ = log_game(db, "gaia-vora", 2, 3)
    reader.join(60)
    assert found and found[0][2]["ids"] == [gid]
    assert [g["id"] for g in httpx2.get(server + "api/games").json()["games"]] == [gid]


def test_the_watcher_reads_no_game_while_nothing_is_committed(db, server, monkeypatch):
    # An SQLite log says whether another connection committed since the watcher's last
    # look (data_version): with a page open and nothing played, the looks every 20 ms
    # read no game but the whole list's look once a second (which also finds a log gone
    # bad); a commit is read, and told, at the next look as before.
    gid, moves, digests, state = log_game(db, "vorcept", 3, 2)
    asked = []  # the watcher's looks: each asks the log's commit mark first
    real_mark = GameLog.commit_mark

    def counted_mark(self):
        if threading.current_thread().name == "vora-web-watcher":
            asked.append(1)
        return real_mark(self)

    monkeypatch.setattr(GameLog, "commit_mark", counted_mark)
    looks, found, reader = _follow_game(server, gid, monkeypatch)
    _wait_until(lambda: len(looks) >= 2, "the watcher's first look")
    quiet, first = len(looks), len(asked)
    # 20 looks with nothing committed (waited for, not timed): none reads the games but
    # a whole-list look (once a second: two reads at most in 20 looks of 20 ms).
    _wait_until(lambda: len(asked) >= first + 20, "20 more looks at the log")
    assert len(looks) - quiet <= 2, "the watcher read the games %d times with nothing new" \
        % (len(looks) - quiet)
    move = sorted(state.legal_moves())[0]
    state.play(move)
    with GameLog(db) as log:
        log.add_move(gid, 3, move, state.digest())
    reader.join(60)
    assert found and found[0][2]["ids"] == [gid] and found[0][2]["position"]["number"] == 3


def test_the_log_is_left_alone_while_no_page_is_open(db):
    log_game(db, "vorcept", 3, 2)
    with local_client(create_app(db)) as c:
        assert c.get("/api/games").status_code == 200
        time.sleep(0.3)
        assert c.app.state.watcher.polls == 0


def test_the_watcher_survives_a_failure_and_goes_on(db, server, monkeypatch):
    gid, moves, digests, state = log_game(db, "vorcept", 3, 2)
    calls = []
    real_marks = GameLog.change_marks

    def failing_once(self, *args, **kwargs):
        if threading.current_thread().name == "vora-web-watcher":
            calls.append(1)
            if len(calls) == 3:
                raise ZeroDivisionError("a bug")
        return real_marks(self, *args, **kwargs)

    monkeypatch.setattr(GameLog, "change_marks", failing_once)
    found, ready = [], threading.Event()
    reader = threading.Thread(target=_read_events, args=(server, "?game=%d" % gid, found,
                                                        ready, 2))
    reader.start()
    assert ready.wait(60)
    _wait_until(lambda: found, "the failure said")
    assert found and "watcher failed" in found[0][2]["trouble"]
    _wait_until(lambda: len(calls) >= 4, "a look at the log after the failure")
    move = sorted(state.legal_moves())[0]
    state.play(move)
    with GameLog(db) as log:
        log.add_move(gid, 3, move, state.digest())
    reader.join(60)
    assert len(found) == 2 and found[1][2]["position"]["number"] == 3


def test_the_watcher_tells_a_trouble_only_when_it_lasts(db, server, monkeypatch):
    """One failed look at the log is tried again at once on a new connection and not told
    to the pages (a log is not called damaged on one failed read); a failure that lasts
    is."""
    gid, moves, digests, state = log_game(db, "vorcept", 3, 2)
    real = GameLog.change_marks
    failing, failed = [0], []

    def games(self, *args, **kwargs):
        if threading.current_thread().name == "vora-web-watcher" and failing[0] > 0:
            failing[0] -= 1
            failed.append(1)
            raise gamelog.DatabaseError("%s cannot be used as a game log: database disk "
                                        "image is malformed (a corrupt or damaged file?)" % db)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GameLog, "change_marks", games)
    found, ready = [], threading.Event()
    reader = threading.Thread(target=_read_events, args=(server, "", found, ready, 2))
    reader.start()
    assert ready.wait(60)
    failing[0] = 1
    deadline = time.monotonic() + 60
    while not failed and time.monotonic() < deadline:
        time.sleep(0.02)
    assert failed
    move = sorted(state.legal_moves())[0]
    state.play(move)
    with GameLog(db) as log:
        log.add_move(gid, 3, move, state.digest())  # told, and nothing else before it
    deadline = time.monotonic() + 60
    while not found and time.monotonic() < deadline:
        time.sleep(0.02)
    failing[0] = 10 ** 6  # it lasts
    reader.join(60)
    assert len(found) == 2
    assert found[0][2]["ids"] == [gid] and "trouble" not in found[0][2]
    assert "database disk image is malformed" in found[1][2]["trouble"]


def test_a_game_without_a_host_package_is_still_shown(db, client, monkeypatch):
    """A game of the registry whose host package (terminal view, board mapping) is not
    written yet: its moves and its public view as text, no board."""
    gid, moves, _, state = log_game(db, "vorcept", 3, 3)
    real = web_app.game_data.host_games.host_game

    def no_package(name):
        if name == "vorcept":
            raise ImportError("no host package")
        return real(name)

    monkeypatch.setattr(web_app.game_data.host_games, "host_game", no_package)
    monkeypatch.setattr("vora_host.log.cli_views.host_games.host_game", no_package)
    pos = client.get("/api/games/%d/position/3" % gid).json()
    assert pos["board"] == [] and pos["legend"] == []
    import html
    seen = json.dumps(state.view(None), sort_keys=True, separators=(",", ":"))
    assert html.escape(seen) in pos["panel_html"].replace("\n", "")
    assert [m["text"] for m in client.get("/api/games/%d" % gid).json()["moves_list"]] == moves


def test_the_list_may_be_limited_but_keeps_every_live_game(db, client):
    live = log_game(db, "vorcept", 3, 2)[0]
    ended = [log_game(db, "vorcept", 3 + k, 2, status="abandoned")[0] for k in range(3)]
    data = client.get("/api/games?limit=2").json()
    assert [g["id"] for g in data["games"]] == [live, ended[2], ended[1]]
    assert data["complete"] is False
    data = client.get("/api/games?limit=3").json()
    assert len(data["games"]) == 4 and data["complete"] is True
    assert client.get("/api/games").json()["complete"] is True
    for bad in ("0", "x", "-1", "100001"):
        answer = client.get("/api/games?limit=" + bad)
        assert answer.status_code == 400 and "is not a number of games" in answer.json()["error"]


# ---------------------------------------------------------------- reviews (issue 41)

def review_of(db, gid, marks=None, hints=()):
    """A review of logged game `gid` as `vora games review` keeps it: each mover's chance
    before and after their move (made up, but of the documented shape), a best move and a
    mark where `marks` ({number: mark}) says, a hint where `hints` names the move."""
    marks = marks or {}
    drops = {None: 0.02, "inaccuracy": 0.12, "mistake": 0.22, "blunder": 0.35}
    with GameLog(db) as log:
        info = log.game(gid)
    state = games.start({"game": info["game"], "players": info["players"],
                         "seed": info["seed"], "options": info["options"]})
    moves = []
    for k, m in enumerate(info["moves"], 1):
        player = state.to_act()
        state.play(m["move"])
        before = 0.4 + 0.2 * ((k * 7) % 5) / 4
        mark = marks.get(k)
        moves.append({"number": k, "player": player, "move": m["move"], "before": before,
                      "after": round(before - drops[mark], 6),
                      "best": None if mark is None else "another move",
                      "best_chance": None if mark is None else before,
                      "mark": mark, "hint": k in hints})
    return {"budget": 300, "complete": True,
            "knows_secrets": formats.hides_information(info["game"]), "moves": moves}


def test_a_finished_games_review_is_served_as_kept_without_its_seed(db, client):
    gid, moves, _, state = log_game(db, TIGER, SECRET_SEED, 400, status="over",
                                    players=3, to_the_end=True)
    assert state.is_over()
    review = review_of(db, gid, marks={2: "blunder", 5: "inaccuracy"}, hints=(3,))
    with GameLog(db) as log:
        log.save_review(gid, review)
    answer = client.get("/api/games/%d/review" % gid)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert (data["format"], data["version"], data["game_id"], data["game"]) == (
        "vora-review", 1, gid, TIGER)
    assert data["moves"] == review["moves"]  # every move, as kept
    assert [m["move"] for m in data["moves"]] == moves
    assert (data["budget"], data["complete"], data["total"]) == (300, True, len(moves))
    assert data["knows_secrets"] is True and data["hidden_information"] is True
    assert data["thresholds"] == {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3}
    assert str(SECRET_SEED) not in answer.text


def test_a_review_says_nothing_its_format_does_not_name(db, client, monkeypatch):
    """Whatever else a review's dict may hold (a seed, a state), the page is sent only the
    fields of the format."""
    gid = log_game(db, TIGER, SECRET_SEED, 400, status="over", to_the_end=True)[0]
    review = review_of(db, gid)
    kept = dict(review, format="vora-review", version=1, game_id=gid, game=TIGER,
                thresholds={"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3},
                seed=SECRET_SEED, state={"deck": [SECRET_SEED]},
                moves=[dict(m, seed=SECRET_SEED, hands=[[SECRET_SEED]])
                       for m in review["moves"]])
    monkeypatch.setattr(GameLog, "review", lambda self, g: kept)
    answer = client.get("/api/games/%d/review" % gid)
    assert answer.status_code == 200
    assert str(SECRET_SEED) not in answer.text
    assert sorted(answer.json()["moves"][0]) == sorted(game_data.REVIEW_MOVE_KEYS)


def test_a_game_without_a_review_says_how_to_make_one(db, client):
    gid = log_game(db, "vorcept", 3, 6, status="abandoned")[0]
    answer = client.get("/api/games/%d/review" % gid)
    assert answer.status_code == 404
    assert answer.json()["error"] == ("no review of game %d yet: 'vora games review %d' "
                                      "computes it" % (gid, gid))


@pytest.mark.parametrize("status, words", [
    (None, "is still playing"), ("interrupted", "was interrupted and may go on")])
def test_no_review_during_a_game(db, client, monkeypatch, status, words):
    """A game that may go on has no review, even one the log were to hold: the route
    looks at the game's status itself (a hidden game's review knows every hand)."""
    gid = log_game(db, TIGER, SECRET_SEED, 6, status=status)[0]
    review = dict(review_of(db, gid), format="vora-review", version=1, game_id=gid,
                  game=TIGER, thresholds={"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3})
    monkeypatch.setattr(GameLog, "review", lambda self, g: review)
    answer = client.get("/api/games/%d/review" % gid)
    assert answer.status_code == 403
    assert answer.json()["error"] == (
        "no review during a game: game %d %s; once it is over, 'vora games review %d' "
        "computes one" % (gid, words, gid))
    assert str(SECRET_SEED) not in answer.text


def test_a_review_in_a_postgresql_log_is_served(pg_url):  # noqa: F811
    gid = log_game(pg_url, "vorcept", 3, 8, status="abandoned")[0]
    review = review_of(pg_url, gid, marks={3: "mistake"})
    with GameLog(pg_url) as log:
        log.save_review(gid, review)
    with local_client(create_app(pg_url, watch=False)) as c:
        answer = c.get("/api/games/%d/review" % gid)
    assert answer.status_code == 200, answer.text
    assert answer.json()["moves"] == review["moves"]


@pytest.mark.parametrize("path, status, words", [
    ("/api/games/abc/review", 400, "'abc' is not a game id"),
    ("/api/games/0/review", 400, "game ids start at 1"),
    ("/api/games/1_0/review", 400, "is not a game id"),
    ("/api/games/%EF%BC%91/review", 400, "is not a game id"),
    ("/api/games/9999999999999999999/review", 400, "is not a game id"),
    ("/api/games/42/review", 404, "no game 42 in"),
])
def test_a_review_of_a_bad_id_is_refused_in_words(db, client, path, status, words):
    log_game(db, "vorcept", 3, 4, status="abandoned")
    answer = client.get(path)
    assert answer.status_code == status
    assert words in answer.json()["error"]


def _js_bodies(code):
    """{function name: its body} of a script's top-level functions, and the code that runs
    when it loads (under the name None: its immediately called functions' bodies)."""
    import re
    bodies = {}
    for found in re.finditer(r"^(?:\((?:async )?function \w*|(?:async )?function (\w+))\([^)]*\) \{",
                             code, re.M):
        depth, k = 0, found.end() - 1
        while True:
            depth += {"{": 1, "}": -1}.get(code[k], 0)
            k += 1
            if depth == 0:
                break
        name = found.group(1)
        bodies[name] = bodies.get(name, "") + code[found.end():k]
    return bodies


def test_each_page_loads_a_script_before_the_scripts_that_call_it_as_they_start():
    # game.js starts at once and, once the game's JSON is in, calls reviewGame() of
    # review.js: loaded after it, a quick answer (on a loaded machine) could come before
    # review.js ran ("reviewGame is not defined", seen in the suite under load). What a
    # script calls as it starts (its immediately called function, and what that calls in
    # the same script) must be defined by a script loaded before it.
    import re
    from importlib import resources
    static = resources.files("vora_host.web") / "static"
    bodies, home = {}, {}
    for script in static.iterdir():
        if script.name.endswith(".js"):
            bodies[script.name] = _js_bodies(script.read_text())
            for name in bodies[script.name]:
                if name is not None:
                    home[name] = script.name
    for page in static.iterdir():
        if not page.name.endswith(".html"):
            continue
        order = re.findall(r'<script src="/static/([\w.]+)"', page.read_text())
        for k, name in enumerate(order):
            own = bodies[name]
            seen, todo = set(), [None]
            while todo:
                body = own.get(todo.pop(), "")
                for called in set(re.findall(r"\b(\w+)\(", body)) - seen:
                    seen.add(called)
                    if called in own:
                        todo.append(called)
                    elif home.get(called) in order:
                        assert order.index(home[called]) < k, (
                            "%s: %s calls %s() of %s as it starts, and loads before it"
                            % (page.name, name, called, home[called]))

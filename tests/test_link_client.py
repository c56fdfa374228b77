"""The host's end of the link (vora_host.link.client.BoardClient) against a scripted board
that misbehaves on purpose: answers that never come, fields of the wrong type, a game
switch that cannot be made, unsolicited refusals, endless problems, terminal escapes.

The scripted board is a real Session (the same code as the board's), so every frame the
client sees has a valid CRC: these are the messages of a hostile or broken board, not of a
noisy line (the line is tests/test_link_campaign.py's business)."""

import pytest

from shared_rules import vora, wire
from shared_rules.session import Session
from vora_host.link import client as client_mod
from vora_host.link.client import BoardClient
from vora_host.log.store import GameLog


def played(seed=3, n=6, players=2, seats="SN"):
    """A real game: its state after n moves and the moves."""
    state = vora.new_game(players, seed=seed, seats=seats)
    moves = []
    for k in range(n):
        move = state.legal_moves()[(k * 7) % len(state.legal_moves())]
        state.play(move)
        moves.append(move)
    return state, moves


class ScriptedBoard:
    """A board made of a Session and a few rules: HELLO -> HELLO_OK with `summary`,
    STATE_REQ -> STATE, MOVES_REQ -> MOVES unless `drop_moves_req` says to ignore it."""

    def __init__(self, game=5, seed=3, n=6):
        self.to_host = []
        self.session = Session(self.to_host.append, self._deliver)
        self.session.close()
        self.state, self.moves = played(seed, n)
        self.summary = {"game": game, "name": "vora", "seed": seed, "players": 2,
                        "seats": "SN", "moves": n, "digest": self.state.digest(),
                        "over": False, "mode": 0}
        self.drop_moves_req = 0  # how many MOVES_REQ to ignore (a board that dropped them)
        self.requests = []  # (type, payload) received
        self.hello_ok_extra = {}

    def _deliver(self, t, payload):
        self.requests.append((t, bytes(payload)))
        if t == wire.HELLO:
            hello = wire.unpack_json(payload)
            self.session.reset()
            answer = dict(self.summary, proto=wire.PROTOCOL_VERSION, nonce=hello["nonce"],
                          fw="0.1.0", board="scripted")
            answer.update(self.hello_ok_extra)
            self.session.send_unreliable(wire.HELLO_OK, wire.pack_json(answer))
        elif t == wire.STATE_REQ:
            self.session.send(wire.STATE, wire.pack_json(self.summary))
        elif t == wire.MOVES_REQ:
            if self.drop_moves_req:
                self.drop_moves_req -= 1
                return
            game, first = wire.unpack_moves_req(payload)
            self.session.send(wire.MOVES, wire.pack_moves(game, first, self.moves[first - 1:])[0])

    def asked(self):
        return [wire.unpack_moves_req(p) for t, p in self.requests if t == wire.MOVES_REQ]

    def send(self, t, obj):
        payload = wire.pack_json(obj) if isinstance(obj, dict) else obj
        if t in (wire.HELLO_OK, wire.REFUSE, wire.LOG, wire.PONG):
            self.session.send_unreliable(t, payload)
        else:
            assert self.session.send(t, payload)


class Wire:
    """The client and the scripted board joined without faults, on a simulated clock."""

    def __init__(self, board, log=None):
        self.board = board
        self.to_board = []
        self.client = BoardClient(self.to_board.append, log=log, source="virtual board")
        self.now = 0

    def run(self, ms, step=5):
        end = self.now + ms
        while self.now < end:
            self.now += step
            for frame in self.to_board[:]:
                self.to_board.remove(frame)
                self.board.session.feed(frame, self.now)
            for frame in self.board.to_host[:]:
                self.board.to_host.remove(frame)
                self.client.feed(frame, self.now)
            self.board.session.poll(self.now)
            self.client.poll(self.now)


# ---- finding 1: catch-up never stalls -----------------------------------------------------

def test_the_host_asks_again_when_an_answer_never_comes():
    # Finding 1: the board dropped its answer to a MOVES_REQ; the host remembered that it
    # had asked and never asked again.
    board = ScriptedBoard(n=6)
    board.drop_moves_req = 2
    w = Wire(board)
    w.run(300)
    assert w.client.connected and board.asked() == [(5, 1)]
    w.run(20000)
    assert len(board.asked()) == 3, board.asked()  # asked again, and again: answered then
    assert w.client.moves == board.moves and w.client.problems == []


def test_asking_again_backs_off():
    board = ScriptedBoard(n=6)
    board.drop_moves_req = 1000  # never answered
    w = Wire(board)
    times = []
    send = w.client.session.send

    def spy(t, payload=b""):
        if t == wire.MOVES_REQ:
            times.append(w.now)
        return send(t, payload)

    w.client.session.send = spy
    w.run(60000, step=10)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(times) >= 6
    assert gaps == sorted(gaps) and gaps[-1] > 3 * gaps[0]  # slower and slower ...
    assert gaps[-1] <= client_mod.ASK_MAX_MS + 100  # ... up to a ceiling: never gives up


def test_a_fresh_hello_asks_again():
    # "... not even after a fresh hello": a request of the old session is gone with it.
    board = ScriptedBoard(n=6)
    board.drop_moves_req = 1
    w = Wire(board)
    w.run(300)
    assert board.asked() == [(5, 1)]
    w.client.hello(w.now)
    w.run(300)
    assert board.asked() == [(5, 1), (5, 1)]
    assert w.client.moves == board.moves


def test_a_game_the_board_no_longer_has_stops_the_asking_and_says_so():
    board = ScriptedBoard(n=6)
    board.drop_moves_req = 1000
    w = Wire(board)
    w.run(300)
    board.send(wire.GAME, {"event": "unknown", "game": 5})
    board.summary = {"game": None, "mode": 0}  # a board that lost its game
    w.run(30000)
    assert len(board.asked()) == 1
    assert any("no longer has game 5" in p for p in w.client.problems)


# ---- finding 5: every field validated, a bad message reported and dropped -----------------

BAD_SUMMARIES = [
    ("moves", "6"), ("moves", -1), ("moves", 70000), ("moves", 2.5), ("moves", True),
    ("players", 9), ("players", "2"), ("players", None),
    ("seed", -1), ("seed", 2 ** 40), ("seed", "3"), ("seed", None), ("seed", 1.0),
    ("game", -5), ("game", 2 ** 32), ("game", "5"), ("game", [5]),
    ("seats", "SX"), ("seats", "SS"), ("seats", 7), ("seats", "SNW"),
    ("digest", 12), ("digest", "xyz"), ("digest", "0" * 17),
    ("mode", 7), ("mode", "1"), ("over", "no"), ("name", 5),
    ("board_bots", 3), ("board_bots", "NN"), ("board_bots", "W"), ("board_bots", "SX"),
    ("board_levels", 5), ("board_levels", "h"), ("board_levels", "hh"),
]


@pytest.mark.parametrize("field,value", BAD_SUMMARIES, ids=lambda v: repr(v))
@pytest.mark.parametrize("kind", ["GAME new", "STATE", "HELLO_OK"])
def test_a_message_with_a_field_of_the_wrong_type_is_reported_and_dropped(kind, field, value):
    board = ScriptedBoard(game=5, seed=3, n=2)
    w = Wire(board)
    w.run(300)
    assert w.client.moves == board.moves
    before = (w.client.game_id, w.client.seed, list(w.client.moves))
    bad = dict(board.summary, game=6)
    bad[field] = value
    if kind == "GAME new":
        board.send(wire.GAME, dict(bad, event="new"))
    elif kind == "STATE":
        board.send(wire.STATE, bad)
    else:
        board.hello_ok_extra = bad
        w.client.hello(w.now)
    w.run(100)  # feed() did not raise: the run went through
    assert any(field in p for p in w.client.problems), (field, value, w.client.problems)
    assert (w.client.game_id, w.client.seed, list(w.client.moves)) == before
    if kind != "HELLO_OK":
        assert w.client.connected  # the link stays up


@pytest.mark.parametrize("t,payload", [
    (wire.GAME, {"event": "over", "game": 5, "scores": "x"}),
    (wire.GAME, {"event": "over", "game": 5, "scores": [1, 2], "winner": 7}),
    (wire.GAME, {"event": 5, "game": 5}),
    (wire.GAME, {"game": 5}),
    (wire.STATE, {"game": 5, "mode": 0, "state": 12}),
    (wire.MOVES, b"\x00\x00\x00\x05\x00\x01" + b"push\x01"),
    (wire.MOVE, b"\x00\x00\x00\x05\x00\x03" + bytes(8)),
    (wire.KEY, b"\x40\x01"),
    (wire.LOG, b"\xff\xfe"),
], ids=lambda v: str(v)[:30])
def test_other_malformed_messages_are_reported_and_dropped(t, payload):
    board = ScriptedBoard(n=2)
    w = Wire(board)
    w.run(300)
    board.send(t, payload)
    w.run(100)
    assert w.client.problems and w.client.connected and w.client.moves == board.moves


def test_a_move_number_past_the_end_of_the_rules_is_not_a_crash():
    board = ScriptedBoard(n=2)
    w = Wire(board)
    w.run(300)
    board.send(wire.MOVE, wire.pack_move(5, 3, "0" * 16, "not a move"))
    board.send(wire.MOVES, wire.pack_moves(5, 3, ["nonsense", "more"])[0])
    w.run(200)
    assert any("refused by the rules" in p for p in w.client.problems)
    # Issue 23, finding 6: a move the replay here refuses is kept as the board reported
    # it (the board's state is asked for), never a reason to stop following the board.
    assert w.client.moves == board.moves + ["not a move", "more"] and w.client.connected
    assert not w.client.in_step and (wire.STATE_REQ, b"") in board.requests


# ---- finding 6: a game switch is all or nothing -------------------------------------------

def test_a_game_switch_with_an_invalid_seed_changes_nothing(tmp_path):
    with GameLog(tmp_path / "g.sqlite3") as log:
        board = ScriptedBoard(game=5, seed=3, n=2)
        w = Wire(board, log=log)
        w.run(300)
        first_log = w.client.log_id
        assert [m["move"] for m in log.game(first_log)["moves"]] == board.moves
        board.send(wire.GAME, dict(board.summary, event="new", game=6, seed=-1, moves=0))
        w.run(100)
        assert (w.client.game_id, w.client.log_id) == (5, first_log)
        # The old game goes on, and its next move is logged into it, not anywhere else.
        state = board.state
        move = state.legal_moves()[0]
        state.play(move)
        board.moves.append(move)
        board.send(wire.MOVE, wire.pack_move(5, 3, state.digest(), move))
        w.run(100)
        assert [m["move"] for m in log.game(first_log)["moves"]] == board.moves
        assert len(log.games()) == 1


def test_a_game_switch_that_the_rules_refuse_changes_nothing(tmp_path):
    with GameLog(tmp_path / "g.sqlite3") as log:
        board = ScriptedBoard(game=5, seed=3, n=2)
        w = Wire(board, log=log)
        w.run(300)
        before = (w.client.game_id, w.client.seed, w.client.log_id, w.client.state.digest())
        # 3 players on 2 seats: well-typed fields that do not make a game.
        board.send(wire.GAME, dict(board.summary, event="new", game=6, players=3, seats="SN"))
        w.run(100)
        assert (w.client.game_id, w.client.seed, w.client.log_id,
                w.client.state.digest()) == before
        assert len(log.games()) == 1 and w.client.problems


# ---- finding 7: REFUSE, and problems kept bounded -----------------------------------------

def test_an_unsolicited_refuse_does_not_stop_the_host():
    board = ScriptedBoard(n=2)
    w = Wire(board)
    w.run(300)
    board.send(wire.REFUSE, wire.pack_text("go away"))
    w.run(100)
    assert w.client.refusal is None and w.client.connected
    assert any("go away" in p for p in w.client.problems)
    # The host keeps following: a new move still arrives.
    state = board.state
    move = state.legal_moves()[0]
    state.play(move)
    board.moves.append(move)
    board.send(wire.MOVE, wire.pack_move(5, 3, state.digest(), move))
    w.run(100)
    assert w.client.moves == board.moves


def test_a_refusal_of_our_hello_is_shown_and_the_host_tries_again_later():
    board = ScriptedBoard(n=2)
    w = Wire(board)

    def refusing(t, payload):
        board.requests.append((t, bytes(payload)))
        if t == wire.HELLO:
            board.session.send_unreliable(wire.REFUSE, wire.pack_text(
                "protocol version 2 not supported: this side speaks version 9"))

    board.session._deliver = refusing
    w.run(300)
    assert w.client.refusal and "version 9" in w.client.status_line()
    hellos = sum(1 for t, _ in board.requests if t == wire.HELLO)
    board.session._deliver = board._deliver  # the board was updated meanwhile
    w.run(client_mod.REFUSED_RETRY_MS + 1000)
    assert sum(1 for t, _ in board.requests if t == wire.HELLO) > hellos
    assert w.client.connected and w.client.refusal is None


def test_problems_are_kept_bounded_with_counts():
    board = ScriptedBoard(n=2)
    w = Wire(board)
    w.run(300)
    for k in range(3000):
        board.session.send_unreliable(wire.LOG, wire.pack_text("noise %d" % k))
        if k % 50 == 0:
            w.run(10)
    w.run(50)
    c = w.client
    assert len(c.problems) <= client_mod.PROBLEMS_KEPT
    assert c.problems[-1] == "the board says: noise 2999"
    assert c.problem_count == 3000 and c.problem_kinds["board log"] == 3000


# ---- finding 8: text from the board is shown escaped ---------------------------------------

def test_text_from_the_board_reaches_the_terminal_escaped():
    board = ScriptedBoard(n=2)
    board.hello_ok_extra = {"board": "evil\x1b[2J\x1b]0;owned\x07", "fw": "1\x1b[31m\r\n2"}
    w = Wire(board)
    w.run(300)
    board.session.send_unreliable(wire.LOG, wire.pack_text("clear\x1b[2J\x9b1m done\u202e"))
    w.run(50)
    shown = w.client.status_line() + "".join(w.client.problems)
    for bad in ("\x1b", "\x07", "\r", "\n", "\x9b", "\u202e"):
        assert bad not in shown, repr(bad)
    assert "evil\\x1b[2J" in shown and "clear\\x1b[2J" in shown


# ---- issue 23, finding 6: one bad MOVE must not stop the log ------------------------------

class FaultyBoard(ScriptedBoard):
    """A board that plays on its own: after move `wrong_after` its state goes wrong (its
    PRNG and two cells change, as a flipped bit of RAM would), and it goes on playing and
    reporting every move with its (CRC-valid) digest. STATE_REQ gets its whole state."""

    def __init__(self, wrong_after=3, only_the_digest=False):
        super().__init__(n=0)
        self.state = vora.new_game(2, seed=3, seats="SN")
        self.wrong_after = wrong_after
        self.only_the_digest = only_the_digest

    def _deliver(self, t, payload):
        if t == wire.STATE_REQ:
            self.requests.append((t, bytes(payload)))
            self.session.send(wire.STATE, wire.pack_json(dict(self.summary,
                                                            state=self.state.to_json())))
            return
        super()._deliver(t, payload)

    def play(self):
        legal = self.state.legal_moves()
        move = legal[(len(self.moves) * 7) % len(legal)]
        self.state.play(move)
        self.moves.append(move)
        n = len(self.moves)
        digest = self.state.digest()
        if n == self.wrong_after:
            if self.only_the_digest:
                digest = "0123456789abcdef"
            else:
                self.state.rng ^= 0x5A5A5
                self.state.grid[0], self.state.grid[12] = self.state.grid[12], self.state.grid[0]
                digest = self.state.digest()
        self.summary.update(moves=n, digest=self.state.digest())
        self.send(wire.MOVE, wire.pack_move(self.summary["game"], n, digest, move))


def play_on(w, board, moves):
    for _ in range(moves):
        if board.state.is_over():
            break
        board.play()
        w.run(50)


@pytest.mark.parametrize("only_the_digest", [False, True], ids=["state", "digest"])
def test_a_wrong_digest_resyncs_and_no_later_move_is_lost(tmp_path, only_the_digest):
    # Finding 6: a CRC-valid MOVE with a legal move and a wrong digest (a faulty board)
    # was logged, and nothing after it: the board played 26 moves, the log kept 8.
    with GameLog(tmp_path / "games.sqlite3") as log:
        board = FaultyBoard(wrong_after=8, only_the_digest=only_the_digest)
        w = Wire(board, log=log)
        w.run(300)
        play_on(w, board, 26)
        w.run(3000)
        c = w.client
        info = log.game(c.log_id)
        assert [m["move"] for m in info["moves"]] == board.moves[:26]
        assert c.moves == board.moves and c.in_step and c.resyncs == 1
        # The game is marked as needing attention, saying where and why.
        assert info["attention"] and "move 8" in info["attention"]
        assert c.problem_kinds.get("mismatch") == 1 and c.problem_kinds.get("resync") == 1
        if only_the_digest:
            assert "only what it reported was wrong" in info["attention"]
        else:
            # The host follows the board's state now: later moves are checked against it.
            assert c.state.to_json() == board.state.to_json()
            assert "follows the board's state" in info["attention"]


def test_after_a_wrong_digest_the_log_holds_the_real_one_and_the_game_verifies(tmp_path,
                                                                               capsys):
    # Issue 43: after a wrong digest the log kept the false move, so that game never
    # verified. After the resync the log holds the digest of the board's real state (the
    # one replayed here), keeps the false one as an event, and `games verify` passes.
    with GameLog(tmp_path / "games.sqlite3") as log:
        board = FaultyBoard(wrong_after=8, only_the_digest=True)
        w = Wire(board, log=log)
        w.run(300)
        play_on(w, board, 26)
        w.run(3000)
        gid = w.client.log_id
        assert w.client.resyncs == 1
        assert log.verify(gid).ok
        state = vora.new_game(2, seed=3, seats="SN")
        for move in board.moves[:8]:
            state.play(move)
        info = log.game(gid)
        assert [m["move"] for m in info["moves"]] == board.moves[:26]
        assert info["moves"][7]["digest"] == state.digest() != "0123456789abcdef"
        events = log.events(gid)
        assert [(e["kind"], e["number"]) for e in events] == [("correction", 8)]
        assert events[0]["data"]["digest"] == "0123456789abcdef"
        assert events[0]["data"]["move"] == board.moves[7]
        assert "kept as an event" in info["attention"]
    from vora_host.cli import main
    assert main(["games", "show", str(gid), "--db", str(tmp_path / "games.sqlite3")]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "move 8 was first logged as %s with digest 0123456789abcdef" % board.moves[7] \
        in shown
    assert main(["games", "verify", str(gid), "--db", str(tmp_path / "games.sqlite3")]) == 0


def test_after_a_resync_a_later_mismatch_is_found_again(tmp_path):
    with GameLog(tmp_path / "games.sqlite3") as log:
        board = FaultyBoard(wrong_after=4)
        w = Wire(board, log=log)
        w.run(300)
        play_on(w, board, 10)
        assert w.client.in_step and w.client.resyncs == 1
        board.wrong_after = 14
        play_on(w, board, 10)
        w.run(3000)
        info = log.game(w.client.log_id)
        assert [m["move"] for m in info["moves"]] == board.moves
        assert w.client.resyncs == 2 and "move 4" in info["attention"] \
            and "move 14" in info["attention"]


def test_the_state_is_asked_for_again_until_it_comes(tmp_path):
    with GameLog(tmp_path / "games.sqlite3") as log:
        board = FaultyBoard(wrong_after=3)
        w = Wire(board, log=log)
        w.run(300)
        answer = board._deliver
        dropped = []

        def drop_state_requests(t, payload):
            if t == wire.STATE_REQ and len(dropped) < 3:
                dropped.append(w.now)
                return
            answer(t, payload)
        board.session._deliver = drop_state_requests
        play_on(w, board, 6)
        w.run(20000)
        assert len(dropped) == 3 and w.client.in_step and w.client.resyncs == 1
        assert [m["move"] for m in log.game(w.client.log_id)["moves"]] == board.moves

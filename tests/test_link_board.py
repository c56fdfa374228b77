"""The board's end of the link (firmware/vora_fw/link.py) when its send queue is full: no
answer is dropped, every move reaches the host in order once room comes back, and the
board never blocks or raises for it.

The host here is a script of frames (HELLO, requests, acknowledgements), so the test
decides exactly when the board's queue is full and when room comes back."""

from shared_rules import vora, wire, wire_host
from vora_fw.link import BoardLink
from vora_fw.store import Store
from vora_fw.vora_ui import VoraUI


class Board:
    def __init__(self, store=None):
        self.out = []
        self.link = BoardLink(self.out.append, board="test")
        self.ui = VoraUI(store, seed_fn=lambda: 3, id_fn=lambda: 77,
                         listener=self.link.game_event)
        self.link.attach(self.ui)
        self.now = 0
        self.reader = wire.FrameReader()
        self.seen = []  # (type, seq, payload) of every frame the board wrote
        self.host_seq = 0

    def frames(self):
        new = []
        for data in self.out:
            for item in self.reader.feed(data):
                assert not isinstance(item, wire.WireError)
                new.append((item[0], item[1], item[3]))
        self.out.clear()
        self.seen += new
        return new

    def hello(self):
        self.link.receive(wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json(
            {"proto": wire.PROTOCOL_VERSION, "nonce": 1})), self.now)
        assert self.link.connected

    def request(self, t, payload=b""):
        self.host_seq += 1
        self.link.receive(wire.encode_frame(t, self.host_seq, 0, payload), self.now)

    def ack_all(self):
        # Acknowledge, in order, every reliable frame seen so far.
        seqs = [seq for _, seq, _ in self.seen if seq]
        if seqs:
            self.link.receive(wire.encode_frame(wire.ACK, 0, seqs[-1]), self.now)

    def time_passes(self, ms=50):
        self.now += ms
        self.link.poll(self.now)

    def exchange(self, rounds=40):
        """The host acknowledges all it has seen and time passes, `rounds` times."""
        for _ in range(rounds):
            self.ack_all()
            self.time_passes()
            self.frames()

    def play(self, n):
        for _ in range(n):
            self.ui.play(self.ui.legal[0], self.now)


def fill_the_queue(b):
    b.hello()
    b.ui.new_game("SN", 3)
    b.play(40)  # 1 GAME + 40 MOVE reports, nothing acknowledged: the queue is full
    for k in range(20):
        b.link.key_event(k, True)
    b.frames()
    assert b.link.session.room() == 0


def test_an_answer_waits_for_room_instead_of_being_dropped():
    # Finding 1: when the board's send queue was full it dropped its answer to MOVES_REQ.
    b = Board()
    fill_the_queue(b)
    b.request(wire.MOVES_REQ, wire_host.pack_moves_req(77, 1))
    b.request(wire.STATE_REQ)
    b.exchange(40)
    moves = [wire_host.unpack_moves(p) for t, _, p in b.seen if t == wire.MOVES]
    got = []
    for game, first, part in moves:
        assert game == 77 and first == len(got) + 1 or first <= len(got) + 1
        got = got[:first - 1] + part
    assert got == b.ui.moves
    states = [wire.unpack_json(p) for t, _, p in b.seen if t == wire.STATE]
    assert states and states[-1]["moves"] == 40


def test_move_reports_refused_by_a_full_queue_follow_later_in_order():
    b = Board()
    fill_the_queue(b)
    b.exchange(40)
    got = []
    for t, _, p in b.seen:
        if t == wire.MOVE:
            game, n, digest, move = wire_host.unpack_move(p)
            assert n == len(got) + 1, "move %d after %d" % (n, len(got))
            got.append(move)
        elif t == wire.MOVES:
            game, first, part = wire_host.unpack_moves(p)
            assert first == len(got) + 1
            got += part
    assert got == b.ui.moves


def test_an_answer_for_a_game_the_board_does_not_have_is_never_dropped_either():
    b = Board()
    fill_the_queue(b)
    b.request(wire.MOVES_REQ, wire_host.pack_moves_req(12345, 1))
    b.exchange(40)
    unknown = [wire.unpack_json(p) for t, _, p in b.seen if t == wire.GAME]
    assert {"event": "unknown", "game": 12345} in unknown


def a_game_to_its_end_counting(monkeypatch, method):
    """A game of two played to its end with a PC that acknowledges everything, counting the
    calls of the state's `method`: (board, calls, the method itself, the GAME "over"s)."""
    b = Board()
    b.hello()
    b.ui.new_game("SN", 3)
    kind = type(b.ui.state)
    real = getattr(kind, method)
    calls = []
    monkeypatch.setattr(kind, method, lambda self: calls.append(1) or real(self))
    while not b.ui.state.is_over():
        b.play(1)
        b.ack_all()
        b.frames()
    over = [d for d in (wire.unpack_json(p) for t, _, p in b.seen if t == wire.GAME)
            if d.get("event") == "over"]
    return b, calls, real, over


def test_the_last_moves_digest_is_hashed_once_for_its_move_and_the_games_end(monkeypatch):
    # A digest is the state's JSON hashed: with a PC the last move's step made it twice (its
    # MOVE, then the GAME "over" summary), the costliest step of a game on the board's heap.
    b, calls, real, over = a_game_to_its_end_counting(monkeypatch, "digest")
    reports = [wire_host.unpack_move(p) for t, _, p in b.seen if t == wire.MOVE]
    assert len(reports) == b.ui.moves_played and len(over) == 1
    assert over[0]["digest"] == reports[-1][2] == real(b.ui.state)
    assert over[0]["moves"] == reports[-1][1] == b.ui.moves_played
    assert len(calls) == b.ui.moves_played  # one per move, none more for the end


def test_the_games_end_works_out_its_winner_once_for_the_keys_and_the_pc(monkeypatch):
    # The last move's key event is the costliest of a game on the board's heap (issue 40):
    # the end's scroll and the PC's GAME "over" each ranked the farms again.
    b, calls, real, over = a_game_to_its_end_counting(monkeypatch, "winner")
    assert len(over) == 1 and len(calls) == 1
    assert over[0]["winner"] == real(b.ui.state) == b.ui.winner_player
    assert over[0]["scores"] == b.ui.state.scores()


def test_a_move_saved_and_reported_makes_the_states_json_once(tmp_path, monkeypatch):
    # Issue 40: the save and the MOVE report's digest each made the state's JSON, a whole
    # text each (3 KB of garbage a move on the board's heap). The digest is now hashed from
    # the save's own pieces, and stays the rules' digest, move after move.
    b = Board(Store(str(tmp_path)))
    b.hello()
    kind = type(b.ui.new_game("SN", 3) or b.ui.state)
    made = []
    for name in ("to_json", "json_pieces"):
        real = getattr(kind, name)
        monkeypatch.setattr(kind, name, lambda self, *a, real=real, name=name: (
            made.append(name), real(self, *a))[1])
    replay = vora.new_game(2, 3, seats="SN")
    while not b.ui.state.is_over():
        b.play(1)
        b.ack_all()
        b.frames()
        n = b.ui.moves_played
        replay.play(b.ui.moves[n - 1])
        assert made == ["json_pieces"], (n, made)
        _, number, digest, _ = wire_host.unpack_move(
            [p for t, _, p in b.seen if t == wire.MOVE][-1])
        assert (number, digest) == (n, replay.digest()), n
        del made[:]  # the replay's own JSON above
    over = [d for d in (wire.unpack_json(p) for t, _, p in b.seen if t == wire.GAME)
            if d.get("event") == "over"]
    assert over[0]["digest"] == replay.digest()
    assert replay.to_json() in Store(str(tmp_path)).load()

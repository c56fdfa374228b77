"""Board and host over the framed link (in memory, with faults): the host follows every
move, logs it once and only once, and catches up after a disconnect or a restart of
either side. The same over a real pseudo-terminal is in test_link_pty.py."""

import pytest

from shared_rules import games, wire
from vora_fw import layout
from vora_fw.app import App
from vora_fw.hal_sim import default_pinmap
from vora_fw.link import BoardLink
from vora_host.link.client import BoardClient
from vora_host.log.store import GameLog

from link_harness import Rig, random_moves


def logged_moves(log, client):
    return [m["move"] for m in log.game(client.log_id)["moves"]]


def play_moves(rig, count, seed):
    choose = random_moves(seed)
    for _ in range(count):
        if rig.app.ui.state.is_over():
            break
        rig.play(choose(rig.app.ui.state))


@pytest.fixture
def log(tmp_path):
    with GameLog(tmp_path / "games.sqlite3") as log:
        yield log


def check_in_step(rig, log):
    ui = rig.app.ui
    client = rig.client
    assert client.problems == []
    assert client.moves == ui.moves
    assert client.state == ui.state
    assert logged_moves(log, client) == ui.moves  # every move, once, in order
    report = log.verify(client.log_id)
    assert report.ok, report.message
    # The digests logged are the board's own after each move.
    record, digests = log.record(client.log_id)
    assert games.replay(record, digests) == ui.state


def test_a_whole_game_is_followed_and_logged(log):
    rig = Rig(log=log, game_seed=3)
    rig.run(300)
    assert rig.client.connected and rig.client.board["board"] == "rig"
    rig.deal()
    rig.run(100)
    play_moves(rig, 1000, seed=3)
    rig.run(500)
    assert rig.app.ui.state.is_over()
    check_in_step(rig, log)
    assert log.game(rig.client.log_id)["status"] == "over"


@pytest.mark.parametrize("rate", [0.01, 0.05, 0.2], ids=["1pct", "5pct", "20pct"])
def test_no_move_is_lost_or_logged_twice_on_a_faulty_line(log, rate):
    # `rate` of the frames each way are hit: a third flipped, a third dropped, a third sent
    # twice.
    rig = Rig(log=log, seed=int(rate * 1000), game_seed=5,
              faults=(rate / 3, rate / 3, rate / 3))
    rig.run(1500)
    rig.deal()
    play_moves(rig, 80, seed=5)
    rig.run(3000)
    check_in_step(rig, log)
    faults = sum(rig.to_host.stats[k] + rig.to_board.stats[k]
                 for k in ("flipped", "dropped", "duplicated"))
    assert rate < 0.02 or faults > 10  # the faults did happen


def test_moves_played_while_the_cable_is_out_are_fetched_after(log):
    rig = Rig(log=log, game_seed=7)
    rig.run(300)
    rig.deal()
    play_moves(rig, 10, seed=7)
    rig.run(200)
    assert len(rig.client.moves) == 10
    rig.cut()
    play_moves(rig, 15, seed=8)  # the board plays on alone
    rig.run(5000)  # the host's session fails, it keeps saying HELLO
    assert not rig.client.connected and len(rig.client.moves) == 10
    rig.cut(False)
    rig.run(2000)
    check_in_step(rig, log)
    assert len(rig.client.moves) == 25


def test_a_restarted_host_continues_the_logged_game(log):
    rig = Rig(log=log, game_seed=9)
    rig.run(300)
    rig.deal()
    play_moves(rig, 12, seed=9)
    rig.run(200)
    first_id = rig.client.log_id
    # The PC program restarts: a new client, the same log; the board played on meanwhile.
    rig.client = BoardClient(rig.to_board.write, log=log, source="virtual board")
    play_moves(rig, 6, seed=10)
    rig.run(1500)
    assert rig.client.log_id == first_id
    check_in_step(rig, log)


def test_a_board_that_restarts_resumes_and_the_host_follows(log):
    from test_board_ui import MemoryStore
    store = MemoryStore()
    rig = Rig(log=log, game_seed=11, store=store)
    rig.run(300)
    rig.deal()
    play_moves(rig, 10, seed=11)
    rig.run(200)
    # Power cut: a new App on the same save; the host's session fails, it says HELLO again.
    rig.link = BoardLink(rig.to_host.write, board="rig")
    rig.app = App(rig.hw, default_pinmap(), store=store, link=rig.link, seed_fn=lambda: 11)
    assert rig.app.ui.moves_played == 10
    play_moves(rig, 5, seed=12)
    rig.run(6000)
    check_in_step(rig, log)
    assert len(rig.client.moves) == 15


def test_the_whole_state_on_request(log):
    rig = Rig(log=log, game_seed=13)
    rig.run(300)
    rig.deal()
    play_moves(rig, 4, seed=13)
    got = []
    rig.client.on_change = got.append
    assert rig.client.request_state()
    rig.run(200)
    assert rig.client.state.digest() == rig.app.ui.state.digest()


def test_a_host_of_another_protocol_version_is_refused_clearly():
    rig = Rig()
    client = rig.client
    client.poll = lambda now: None  # no HELLO of its own: only the one below
    client.session.close()
    other = wire.PROTOCOL_VERSION + 1
    client.session.send_unreliable(wire.HELLO, wire.pack_json({"proto": other, "nonce": 1}))
    refused = []
    client.session._deliver = lambda t, p: refused.append((t, bytes(p)))
    rig.run(100)
    assert refused and refused[0][0] == wire.REFUSE
    assert b"protocol version %d not supported" % other in refused[0][1]
    assert not rig.link.connected


def test_terminal_mode_the_host_draws_and_gets_the_keys():
    rig = Rig(game_seed=15)
    rig.run(300)
    rig.deal()
    rig.run(100)
    before = rig.app.ui.state.to_json()
    assert rig.client.set_mode(wire.MODE_TERMINAL)
    rig.run(100)
    assert rig.app.terminal()
    frame = bytearray(147)
    frame[3 * 24:3 * 24 + 3] = bytes((255, 0, 0))  # c3 red, all else dark
    assert rig.client.show(frame)
    rig.run(100)
    shown = rig.hw.frame_rgb()
    assert shown[3 * 24] > 0 and sum(shown) == shown[3 * 24]
    assert rig.client.show_changes([(0, 0, 255, 0)])
    rig.run(100)
    assert rig.hw.frame_rgb()[1] > 0  # cS green now
    rig.client.keys.clear()
    rig.press("cS")  # a key goes to the host, not to the game
    assert (layout.key_index("cS"), True) in list(rig.client.keys)
    assert rig.app.ui.state.to_json() == before and rig.app.ui.view_for == ""
    assert rig.client.set_mode(wire.MODE_STANDALONE)
    rig.run(100)
    assert not rig.app.terminal()


def test_the_host_can_send_the_board_to_the_repl():
    rig = Rig()
    rig.run(300)
    assert rig.client.ask_repl()
    rig.run(100)
    assert rig.app.stopping()


def test_the_host_refuses_a_board_of_another_protocol_version():
    client = BoardClient(lambda data: None)
    client.hello(0)
    answer = wire.encode_frame(wire.HELLO_OK, 0, 0, wire.pack_json(
        {"proto": 9, "nonce": client.nonce, "fw": "9.0"}))
    client.feed(answer, 10)
    assert not client.connected
    assert "protocol 9" in client.refusal and "this host %d" % wire.PROTOCOL_VERSION in client.refusal
    assert "refused" in client.status_line()


def test_a_digest_that_differs_is_reported_not_hidden(log):
    rig = Rig(log=log, game_seed=17)
    rig.run(300)
    rig.deal()
    play_moves(rig, 3, seed=17)
    rig.run(200)
    assert rig.client.problems == []
    # A MOVE whose digest is not what the rules give after that move.
    ui = rig.app.ui
    bad = wire.pack_move(ui.game_id, ui.moves_played + 1, "0123456789abcdef", ui.legal[0])
    rig.link.session.send(wire.MOVE, bad)
    rig.run(300)
    assert len(rig.client.problems) == 1
    assert "the board's digest 0123456789abcdef" in rig.client.problems[0]


def test_state_requests_before_any_game_and_bad_messages_do_not_stop_the_board():
    rig = Rig()
    rig.run(300)
    assert rig.client.request_state()  # no game dealt yet
    rig.client.send(wire.MODE, b"\x07")  # a mode that does not exist
    rig.client.send(wire.MOVES_REQ, b"\x01")  # a malformed payload
    rig.run(300)
    assert any("refused MODE" in p for p in rig.client.problems)
    assert any("refused MOVES_REQ" in p for p in rig.client.problems)
    rig.deal()  # the board plays on
    rig.run(200)
    assert rig.client.state is not None and rig.client.connected

"""Vora on a board at a table on another computer (issue 39, "Remote play": "Vora's
referee on a remote table is the server; a board that disagrees is resynchronised from
it, and the disagreement logged"): vora_host.remote.remote_vora keeps the board's own
game in step with a copy of the table, through the link's BOTS, BOT_MOVE and RESYNC.

Here the table is a Table in this process behind a seat client (test_remote_board's
FakeClient), the board the firmware's App behind a link (link_harness.Rig): every move
crosses the same code as at two homes, the network aside."""

import itertools

import pytest

from shared_rules import vora, wire
from vora_fw.vora_ui_keys import R_BAD_POSITION
from vora_host.remote.remote_table import RemoteTable
from vora_host.remote.remote_vora import RemoteVoraPlay
from vora_host.remote.seat_client import Refused as TableRefused
from vora_host.table import Human, Table

from test_board_play import rig
from test_remote_board import FakeClient

STEPS = 600  # polls of 20 ms of the board's time: a deadline, in the board's own clock


class Events:
    """The copy's log, as far as the copy and the board's play use it."""

    def __init__(self):
        self.events = []
        self.moves = []

    def moved(self, number, move, digest, *rest):
        self.moves.append(move)

    def event(self, kind, data):
        self.events.append((kind, data))
        return True

    def took_back(self, number):
        del self.moves[number - 1:]

    def ended(self, status, result):
        pass


def _setup(seed=5, log=None):
    there = Table("vora", vora.new_game(2, seed), [Human(), Human()], seed=seed)
    client = FakeClient(there, 1)
    here = RemoteTable(client, client.view(), log=log)
    board = rig()
    ids = itertools.count(7001)
    play = RemoteVoraPlay(board.client, here, new_id=lambda: next(ids))
    return there, client, here, board, play


def _until(board, play, check, what):
    for _ in range(STEPS):
        play.poll()
        board.run(20)
        if check():
            return
    raise AssertionError("%s; said: %s" % (what, list(play.messages)))


def _in_step(there, board, play):
    ui = board.app.ui
    return play.settled() and ui.state is not None and ui.state.digest() == there.state.digest() \
        and board.client.state is not None \
        and board.client.state.digest() == there.state.digest()


def _turn_there(there, client, here):
    """P0 plays a whole turn at the table (its first legal moves); the copy hears it."""
    while there.state.to_act() == 0 and not there.state.is_over():
        there.play(there.state.legal_moves()[0], player=0, number=there.number)
    here.sync(client.view())


def _at_p1s_turn(seed):
    """_setup's, once the board has the table's game and P0's first turn: P1 to act."""
    there, client, here, board, play = _setup(seed=seed)
    _until(board, play, lambda: _in_step(there, board, play), "the board never took the game")
    _turn_there(there, client, here)
    _until(board, play, lambda: _in_step(there, board, play), "P0's turn never reached the board")
    return there, client, here, board, play


def test_the_board_takes_the_tables_game_and_both_seats_play_through_it():
    there, client, here, board, play = _setup()
    ui = board.app.ui
    assert ui.state is None  # the board in its setup: no game of its own
    _until(board, play, lambda: _in_step(there, board, play), "the board never took the game")
    assert ui.host_bots == "S" and play.seats() == "S"  # P0 plays elsewhere
    assert board.client.start_position == there.state.position()
    for _ in range(3):
        _turn_there(there, client, here)
        # P0's moves reach the board as the PC's: previewed, then played there.
        _until(board, play, lambda: _in_step(there, board, play), "P0's turn never reached the board")
        assert there.state.to_act() == 1
        # P1 plays on the board's keys; each move goes to the table, which takes it.
        while ui.state.seats[ui.state.active] == "N" and not ui.state.is_over():
            before = there.number
            board.play(ui.legal[0])
            _until(board, play, lambda: there.number > before and play.settled(),
                   "the table never got it")
        _until(board, play, lambda: _in_step(there, board, play), "the board left the table's game")
    assert play.resyncs == 1  # set once, never set back
    # The board's record is the table's, from the position it was set at.
    assert there.moves[play.base:] == list(ui.moves) and play.base == 0


def test_a_move_the_table_refuses_is_taken_off_the_board_and_the_disagreement_logged(
        monkeypatch):
    log = Events()
    there, client, here, board, play = _setup(seed=8, log=log)
    ui = board.app.ui
    _until(board, play, lambda: _in_step(there, board, play), "the board never took the game")
    _turn_there(there, client, here)
    _until(board, play, lambda: _in_step(there, board, play), "P0's turn never reached the board")
    real_post = client.post

    def post(action, body=None):
        if action == "move":
            raise TableRefused("move %d was played already" % body["number"], 409)
        return real_post(action, body)
    monkeypatch.setattr(client, "post", post)
    moves = list(ui.moves)
    board.play(ui.legal[0])  # played on the board, refused by the table
    _until(board, play, lambda: play.resyncs == 2 and _in_step(there, board, play),
           "the board kept a move the table refused")
    assert list(ui.moves) == moves[len(moves) - len(ui.moves):] or ui.moves == []
    assert there.moves == here.moves and len(there.moves) == play.base + len(ui.moves)
    said = " ".join(play.messages)
    assert "the table refused the board's move" in said and "was played already" in said
    (kind, data), = [e for e in log.events if e[0] == "resync"]
    assert "the table refused the board's move" in data["why"]
    # Taken off, and the board plays on from the table's game.
    monkeypatch.setattr(client, "post", real_post)
    before = there.number
    board.play(ui.legal[0])
    _until(board, play, lambda: there.number > before, "the table never got the next one")


def test_a_takeback_at_the_table_sets_the_board_back_mid_turn():
    there, client, here, board, play = _at_p1s_turn(seed=11)
    ui = board.app.ui
    first = there.number
    board.play(ui.legal[0])
    _until(board, play, lambda: there.number > first and play.settled(),
           "the table never got it")
    # P1's turn is under way (an action played); the table takes moves back to P0's turn.
    there.request_takeback(1)
    there.answer_takeback(0, True)
    here.sync(client.view())
    assert there.number < first + 1
    _until(board, play, lambda: _in_step(there, board, play), "the board kept the moves taken back")
    assert "taken back at the table" in " ".join(play.messages)
    # Set from the start of the turn under way, with that turn's moves.
    start = play.base
    assert vora.new_game(2, 0, position=board.client.start_position).digest() == \
        (there.before[start] if start < len(there.before) else there.state).digest()


def test_a_game_of_the_boards_own_is_never_replaced():
    there, client, here, board, play = _setup(seed=3)
    board.press("c3")  # a game dealt on the board, played a little
    board.play(board.app.ui.legal[0])
    board.run(400)
    own = board.app.ui.game_id
    for _ in range(50):
        play.poll()
        board.run(20)
    assert board.app.ui.game_id == own and play.resyncs == 0
    assert "the board has a game of its own under way" in " ".join(play.messages)


def test_a_game_the_pc_sends_that_the_rules_refuse_is_refused_and_nothing_changes():
    board = rig()
    board.press("c3")
    board.play(board.app.ui.legal[0])
    board.run(400)
    ui = board.app.ui
    game, moves = ui.game_id, list(ui.moves)
    state = vora.new_game(2, 1)
    text = '{"game_id":9,"seed":1,"start":null,"moves":["push pig Sa"],"state":%s}' % (
        state.to_json())  # its moves do not lead to its state
    assert board.client.send_resync(text)
    board.run(400)
    assert ui.game_id == game and list(ui.moves) == moves
    refused = [(k, why) for k, why, _ in board.client.refused]
    assert (255, R_BAD_POSITION) in refused


@pytest.mark.parametrize("text", ["", "x" * (wire.MAX_PAYLOAD + 1)])
def test_a_resync_text_out_of_bounds_is_refused_by_the_codec(text):
    if not text:
        assert wire.unpack_text(wire.pack_text(text)) == ""
        return
    with pytest.raises(wire.BadPayload):
        wire.pack_text(text)


def test_hint_and_resign_typed_beside_the_board_go_to_the_table_and_its_words_come_back():
    there, client, here, board, play = _setup(seed=4)
    _until(board, play, lambda: _in_step(there, board, play), "the board never took the game")
    _turn_there(there, client, here)
    _until(board, play, lambda: _in_step(there, board, play), "P0's turn never reached the board")
    assert play.command("hint") == ["ok"]
    _until(board, play, lambda: any(m.startswith("hint for P1") for m in play.messages),
           "no hint came")
    assert play.command("what?") is None  # not the table's: the board's line takes it
    assert play.command("resign") == ["ok"]
    _until(board, play, lambda: there.stopped is not None, "the table never heard it")
    here.sync(client.view())
    _until(board, play, lambda: "the table's game is over: q leaves" in play.messages,
           "the end was never said")
    assert any("resign" in m for m in play.messages)


def test_the_boards_own_takeback_is_asked_of_the_table_which_decides():
    from vora_fw import layout
    from vora_fw.vora_ui import HOLD_MS
    there, client, here, board, play = _at_p1s_turn(seed=9)
    ui = board.app.ui
    while ui.state.seats[ui.state.active] == "N" and not ui.state.is_over():
        before = there.number
        board.play(ui.legal[0])
        _until(board, play, lambda: there.number > before and play.settled(),
                   "the table never got it")
    _turn_there(there, client, here)
    _until(board, play, lambda: _in_step(there, board, play), "P0's turn never reached the board")
    played = there.number
    # North holds its corner (the menu) and presses the centre key: the takeback.
    k = layout.key_index("cN")
    board.hw.press(k)
    board.run(HOLD_MS + 100)
    board.hw.release(k)
    board.run(60)
    board.press("c3")
    # Asked of the table, where P0 answers; the board shows the table's game meanwhile.
    _until(board, play, lambda: there.takeback is not None and _in_step(there, board, play),
           "the takeback was not asked of the table")
    assert there.number == played and there.takeback["waiting"] == [0]
    assert "a takeback is asked of the table" in " ".join(play.messages)
    there.answer_takeback(0, True)
    here.sync(client.view())
    _until(board, play, lambda: there.number < played and _in_step(there, board, play),
           "the table's takeback never reached the board")
    assert "taken back at the table" in " ".join(play.messages)


def test_the_seats_are_named_as_they_are_played():
    # At a table elsewhere every other seat is "at another computer"; at this PC's table
    # (vora play vora --port sim --web 1) a browser's seat and a bot's are named as such,
    # the bot as the PC's bots are, so the board marks its corner a bot's.
    there = Table("vora", vora.new_game(3, 4), [Human(), Human(), Human()], seed=4)
    client = FakeClient(there, 0)
    here = RemoteTable(client, client.view())
    board = rig()
    elsewhere = RemoteVoraPlay(board.client, here)
    seats = here.state.seats
    assert elsewhere.who() == {1: "plays at another computer", 2: "plays at another computer"}
    assert elsewhere.names() == {seats[1]: "played at another computer",
                                 seats[2]: "played at another computer"}
    local = RemoteVoraPlay(board.client, here, played={
        1: ("plays in a browser", "played in a browser"), 2: ("random (PC)", "random")})
    assert local.who() == {1: "plays in a browser", 2: "random (PC)"}
    assert local.names() == {seats[1]: "played in a browser", seats[2]: "random"}


def _compact_seat_lines(client, play, width=26):
    """The seats' lines of the mirror's narrow column beside the virtual board at 80
    columns (80 - the board's 54), as plain text."""
    import re
    from types import SimpleNamespace
    from vora_host.link.mirror import ansi_lines, mirror_renderable
    follower = SimpleNamespace(client=client, status="open", path="sim")
    lines = ansi_lines(mirror_renderable(follower, width, meadow=False, compact=True,
                                         play=play), width)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    return dict((int(m.group(1)), line) for line in plain
                for m in [re.match(r"[> ]P(\d) ", line)] if m)


def test_who_plays_each_seat_is_said_whole_in_the_mirrors_narrow_column():
    # At 80 columns the mirror beside the virtual board is 26 wide: "P1 West -1 plays in
    # a bro" and "P1 North +0 board bot, ha" were cut mid-word. There each seat says who
    # plays it in a word that fits.
    from test_board_play import rig_with_a_hard_board_bot
    from vora_host.play.board_play import BoardPlay
    board = rig_with_a_hard_board_bot()
    assert BoardPlay(board.client).who() == {1: "board bot, hard"}  # the wide mirror's
    assert _compact_seat_lines(board.client, BoardPlay(board.client))[1].rstrip() \
        .endswith(" board bot")
    there = Table("vora", vora.new_game(2, 4), [Human(), Human()], seed=4)
    client = FakeClient(there, 0)
    here = RemoteTable(client, client.view())
    for play, word in ((RemoteVoraPlay(board.client, here), "remote"),
                       (RemoteVoraPlay(board.client, here, played={
                           1: ("plays in a browser", "played in a browser", "browser")}),
                        "browser"),
                       (RemoteVoraPlay(board.client, here, played={
                           1: ("random (PC)", "random")}), "random (PC)")):
        line = _compact_seat_lines(board.client, play)[1].rstrip()
        assert line.endswith(" " + word), line

"""A board that plays alone does not load its link; a PC that comes mid-game gets it.

The firmware as vora_fw.start starts it (make_app, run_app in real time) under MicroPython's
Unix port, its link on the process's stdin and stdout as on the board's USB serial port
(tests/mp_scripts/board_alone.py). The PC here is the host's own BoardClient."""

import queue
import threading
import time

import pytest

from mpy import REPO_ROOT, firmware_tree, unix_micropython

from shared_rules import vora
from vora_host.link.client import BoardClient

DRIVERS = [REPO_ROOT / "tests" / "board_player.py",
           REPO_ROOT / "tests" / "mp_scripts" / "board_alone.py"]
SEED, MOVES_ALONE, MOVES_WITH_PC = 4, 6, 4
# The board's process stands still for 150 ms after every third key press, as on a loaded
# machine (the suite once failed so: "the board previews None", a key lost): the keys are
# held until the board has seen them, not for a fixed time.
STALL_EVERY = 3


def ticks():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


class Board:
    """The Unix port running board_alone: bytes from its stdout come in on a thread."""

    def __init__(self, tree, tmp):
        import os
        import subprocess
        env = dict(os.environ, MICROPYPATH=".frozen:" + str(tree))
        self.proc = subprocess.Popen(
            [unix_micropython(), "-X", "heapsize=1M", "-m", "board_alone", str(SEED),
             str(MOVES_ALONE), str(MOVES_WITH_PC), str(STALL_EVERY)], cwd=str(tmp), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.chunks = queue.Queue()
        self.ended = threading.Event()  # its stdout closed: all it wrote is in chunks
        threading.Thread(target=self._read, daemon=True).start()
        self.text = b""

    def _read(self):
        while True:
            data = self.proc.stdout.read1(4096)
            if not data:
                break
            self.chunks.put(data)
        self.ended.set()

    def write(self, data):
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except BrokenPipeError:  # the board ended: say how, not just that the pipe broke
            self.proc.wait(timeout=60)
            raise AssertionError("the board ended (exit %s); stdout %r; stderr %r" % (
                self.proc.returncode, self.text[-1000:],
                self.proc.stderr.read().decode("utf-8", "replace")[-3000:]))

    def take(self, wait=0.01):
        try:
            return self.chunks.get(timeout=wait)
        except queue.Empty:
            return b""

    def line(self, prefix, timeout=60):
        """The board's next line of text from prefix on (it prints before the PC talks and
        after the REPL is asked for, so frames may precede it)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            at = self.text.find(prefix)
            if at >= 0 and b"\n" in self.text[at:]:
                line, self.text = self.text[at:].split(b"\n", 1)
                return line.decode()
            if self.ended.is_set() and self.chunks.empty():
                break  # the board ended without it: say why now, not at the deadline
            self.text += self.take(0.1)
        self.proc.kill()
        raise AssertionError("no %r line from the board; stdout %r; stderr %r" % (
            prefix, self.text[-2000:], self.proc.stderr.read()[-2000:]))


@pytest.fixture
def board(tmp_path):
    b = Board(firmware_tree(tmp_path / "tree", DRIVERS), tmp_path)
    yield b
    if b.proc.poll() is None:
        b.proc.kill()
    b.proc.wait(timeout=60)


def test_a_board_alone_never_loads_the_link_and_a_pc_that_comes_mid_game_follows_it(board):
    _, moves, digest, loaded = board.line(b"alone ").split()
    assert int(moves) == MOVES_ALONE
    assert loaded == "-", "a board that played alone loaded %s" % loaded
    hellos = []
    client = BoardClient(board.write, source="test")
    say_hello = client.hello

    def hello(now):
        hellos.append(now)
        say_hello(now)
    client.hello = hello
    # The first HELLO's first byte comes alone, the rest 0.2 s later: the link is made
    # between the two, and neither part may be lost in the handover.
    first = []
    client.session._write = first.append
    client.poll(ticks())
    client.session._write = board.write
    board.write(first[0][:1])
    time.sleep(0.2)
    board.write(first[0][1:])
    end = time.monotonic() + 60
    while time.monotonic() < end and (not client.connected
                                      or len(client.moves) < MOVES_ALONE + MOVES_WITH_PC):
        data = board.take()
        if data:
            client.feed(data, ticks())
        client.poll(ticks())
    assert client.connected and len(hellos) == 1, "the first HELLO was not answered"
    assert client.board["moves"] >= MOVES_ALONE and client.board["game"] == client.game_id
    assert len(client.moves) == MOVES_ALONE + MOVES_WITH_PC, client.problems
    assert not client.problems
    replay = vora.new_game(2, seed=client.seed, seats="SN")
    for n, move in enumerate(client.moves, 1):
        replay.play(move)
        if n == MOVES_ALONE:
            assert replay.digest() == digest  # the moves played alone, as the board had them
    client.ask_repl()  # the application stops; the board prints its last words as text
    end = time.monotonic() + 60
    while client.session.room() < 1 or b"done " not in board.text:
        data = board.take(0.1)
        board.text += data
        client.feed(data, ticks())
        client.poll(ticks())
        if time.monotonic() > end:
            raise AssertionError("the board did not stop for the REPL: %r" % board.text[-500:])
    _, total, last = board.line(b"done ").split()
    assert int(total) == MOVES_ALONE + MOVES_WITH_PC and last == replay.digest()
    assert board.proc.wait(timeout=60) == 0, board.proc.stderr.read().decode()[-2000:]


def test_a_link_made_late_after_running_out_of_memory_loses_none_of_the_pcs_bytes():
    # On CPython, App's side of the handover: the board resumed a saved game with no link;
    # the PC's first bytes come while the link cannot be made (MemoryError): the game goes
    # on, the bytes wait, and at the next bytes the link is made and hears both parts.
    from shared_rules import wire
    from test_board_ui import MemoryStore
    from vora_fw.app import App
    from vora_fw.hal_sim import SimHardware, default_pinmap
    from vora_fw.link import BoardLink

    store = MemoryStore()
    first = App(SimHardware(), default_pinmap(), store=store, seed_fn=lambda: 8, id_fn=lambda: 77)
    first.ui.new_game("SN", 8)
    first.ui.play(first.ui.legal[0], 0)
    to_board, to_host, made = [], [], []

    def make_link():
        if not made:
            made.append(None)
            raise MemoryError("no room for the link's code")
        link = BoardLink(to_host.append, board="late")
        made.append(link)
        return link

    app = App(SimHardware(), default_pinmap(), store=store)  # power-up: the game resumes
    app.link_on_demand(lambda: to_board.pop(0) if to_board else b"", make_link)
    assert app.link is None and app.ui.moves_played == 1
    hello = wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json(
        {"proto": wire.PROTOCOL_VERSION, "nonce": 5}))
    to_board.append(hello[:7])
    app.step(5)
    assert app.link is None and app.memory_errors == 1 and app.link_pending == hello[:7]
    to_board.append(hello[7:])
    app.step(10)
    assert app.link is made[1] and app.link.ui is app.ui and app.link.connected
    frames = [f for chunk in to_host for f in wire.FrameReader().feed(chunk)]
    (kind, _, _, payload), = frames
    info = wire.unpack_json(payload)
    assert kind == wire.HELLO_OK and info["nonce"] == 5
    assert (info["game"], info["moves"]) == (77, 1)
    assert info["digest"] == app.ui.state.digest() == first.ui.state.digest()


def test_a_board_with_no_pc_hashes_no_digest_and_one_a_move_once_a_pc_listens(monkeypatch):
    # Issue 40: the save hashes the state's digest from its own pieces for the PC's MOVE
    # report. The application always listens to its game (for a link that may come), so
    # the save hashed a digest at every move for nobody on a board that plays alone: a
    # SHA-256 and its garbage a move. Only a connected link's game wants one.
    from shared_rules import wire, wire_host
    from test_board_ui import MemoryStore
    from vora_fw.app import App
    from vora_fw.hal_sim import SimHardware, default_pinmap
    from vora_fw.link import BoardLink
    hashed = []
    real = vora.digest_pieces
    monkeypatch.setattr(vora, "digest_pieces", lambda *a: hashed.append(1) or real(*a))
    app = App(SimHardware(), default_pinmap(), store=MemoryStore(), seed_fn=lambda: 8)
    app.ui.new_game("SN", 8)
    for _ in range(3):
        app.ui.play(app.ui.legal[0], 0)
    assert app.ui.moves_played == 3 and hashed == []
    to_host = []
    link = BoardLink(to_host.append, board="late")
    app.attach_link(link)
    assert hashed == []  # made, not yet connected: the resume it hears needs no digest
    link.receive(wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json(
        {"proto": wire.PROTOCOL_VERSION, "nonce": 5})), 0)
    assert link.connected
    del hashed[:]  # the HELLO_OK's own digest of the position
    app.ui.play(app.ui.legal[0], 0)
    assert len(hashed) == 1
    moved = [f for chunk in to_host for f in wire.FrameReader().feed(chunk)
             if f[0] == wire.MOVE]
    assert wire_host.unpack_move(moved[-1][3])[2] == app.ui.state.digest()

"""The board's link endpoint on the simulated board, driven by a scripted host: runs on
CPython and MicroPython, printing what the board sends so the two can be compared.

The host here is minimal on purpose (frames built with shared_rules.wire, acks sent by
hand): HELLO, a game dealt and played by keys, STATE_REQ, MOVES_REQ, terminal mode, and a
malformed message. Each line printed is "<type> <payload summary>".
"""

import sys

_ROOT = __file__.rsplit("/", 3)[0]
sys.path.append(_ROOT + "/tests")
sys.path.append(_ROOT + "/firmware")

from shared_rules import prng, wire, wire_host  # noqa: E402
from vora_fw import layout  # noqa: E402
from vora_fw.app import App  # noqa: E402
from vora_fw.hal_sim import SimHardware, default_pinmap  # noqa: E402
from vora_fw.link import BoardLink  # noqa: E402
import board_player  # noqa: E402

out = []
link = BoardLink(out.append, board="script")
hw = SimHardware()
app = App(hw, default_pinmap(), link=link, seed_fn=lambda: 4, id_fn=lambda: 77)
reader = wire.FrameReader()
now = [0]
host_seq = [0]
last_in = [0]


def show(item):
    if isinstance(item, wire.WireError):
        print("error", item.kind)
        return
    t, seq, ack, payload = item
    name = wire.type_name(t)
    if t == wire.MOVE:
        print(name, seq, wire_host.unpack_move(payload))
    elif t == wire.MOVES:
        game, first, moves = wire_host.unpack_moves(payload)
        print(name, seq, game, first, len(moves), moves[:2])
    elif t in (wire.HELLO_OK, wire.GAME, wire.STATE):
        d = wire.unpack_json(payload)
        print(name, seq, sorted((k, d[k]) for k in d if k not in ("state", "caps")))
    elif t == wire.KEY:
        print(name, seq, wire_host.unpack_key(payload))
    elif t == wire.ACK:
        pass
    else:
        print(name, seq, bytes(payload))
    if seq:
        last_in[0] = seq


def run(ms):
    end = now[0] + ms
    while now[0] < end:
        now[0] += 5
        app.step(now[0])
        while out:
            for item in reader.feed(out.pop(0)):
                show(item)
        # the host acknowledges what it got
        link.receive(wire.encode_frame(wire.ACK, 0, last_in[0]), now[0])


def send(t, payload=b"", reliable=True):
    seq = 0
    if reliable:
        host_seq[0] = host_seq[0] % 255 + 1
        seq = host_seq[0]
    link.receive(wire.encode_frame(t, seq, last_in[0], payload), now[0])


def press(name):
    k = layout.key_index(name)
    hw.press(k)
    run(60)
    hw.release(k)
    run(60)


send(wire.HELLO, wire.pack_json({"proto": wire.PROTOCOL_VERSION, "nonce": 5}), reliable=False)
run(50)
press("c3")
chooser = prng.seed_state(9)
for _ in range(6):
    i, chooser = prng.below(chooser, len(app.ui.legal))
    board_player.enter_move(app.ui, app.ui.legal[i], press)
send(wire.STATE_REQ)
run(50)
send(wire.MOVES_REQ, wire_host.pack_moves_req(77, 2))
run(50)
send(wire.MODE, wire_host.pack_mode(wire.MODE_TERMINAL))
run(50)
press("a1")
send(wire.PIXELS_DIFF, wire_host.pack_pixels_diff([(24, 255, 0, 0)]))
run(50)
print("pixel", hw.frame_rgb()[3 * 24] > 0)
send(wire.MODE, b"\x09")  # no such mode: refused with a LOG, the board goes on
run(50)
send(wire.HELLO, wire.pack_json({"proto": 3, "nonce": 6}), reliable=False)
run(50)
print("moves", app.ui.moves_played, "connected", link.connected, "mode", link.mode)

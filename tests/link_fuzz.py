"""Fuzzing the link's decoders and message handlers and the board's save loader with
mutated valid inputs, for tests/test_link_fuzz.py (hypothesis) and bench/fuzz_link.py (a
million inputs).

Every target takes a random.Random and makes one input from a valid one: a frame, a
message or a save file as the other end really writes it, then damaged by one to three
mutations, either of its bytes (a bit flipped, a byte replaced, inserted or deleted, a
slice repeated, the end cut off) or, for JSON, of its fields (a value replaced by one of
another type, out of range, huge or deeply nested; a field removed or added). Frames are
re-encoded around a mutated payload with a valid CRC and the sequence number expected,
so the mutation reaches the message handler instead of stopping at the CRC.

Each target returns None, or raises the exception that escaped where only the documented
ones may:
- wire decoders (decode_frame, decode_body, cobs_decode, FrameReader.feed): nothing, they
  return WireError values;
- payload helpers (unpack_*, check_pixels): wire.BadPayload only;
- the host's BoardClient.feed and the board's BoardLink.receive: nothing;
- the save loader: saved_game.parse_game raises saved_game.BadSave only; Store.load, VoraUI.resume
  and the game after it: nothing.
"""

import json

from shared_rules import vora, wire, wire_host
from vora_fw import saved_game, store as store_mod
from vora_fw.link import BoardLink
from vora_fw.store import Store
from vora_fw.vora_ui import VoraUI
from vora_host.link.client import PROBLEMS_KEPT, BoardClient


# ---- mutations ----------------------------------------------------------------------------

def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(7)
        i = rng.randrange(len(data) + 1)
        if kind == 0 and data and i < len(data):
            data[i] ^= 1 << rng.randrange(8)
        elif kind == 1 and i < len(data):
            data[i] = rng.choice((0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5B, 0x7B, rng.randrange(256)))
        elif kind == 2:
            data[i:i] = bytes((rng.randrange(256),))
        elif kind == 3 and i < len(data):
            del data[i]
        elif kind == 4 and data:
            j = rng.randrange(len(data))
            k = min(len(data), j + rng.randint(1, 32))
            data[i:i] = data[j:k] * rng.randint(1, 4)
        elif kind == 5:
            del data[i:]
        else:
            data[i:i] = rng.choice((b"\x1b[2J", b"\xff\xfe", b"\\u0000", b"\xc3", b"9" * 30))
    return bytes(data)


def odd_value(rng, depth=0):
    """A JSON value a careless or hostile peer might put anywhere."""
    k = rng.randrange(14)
    if k == 0:
        return None
    if k == 1:
        return rng.choice((True, False))
    if k == 2:
        return rng.choice((-1, 0, 1, 2, 3, 4, 5, 9, 255, 256, 65535, 65536, 2 ** 31, 2 ** 32,
                           2 ** 40, -2 ** 63, 10 ** 30))
    if k == 3:
        return rng.choice((0.5, -0.0, 1e308, 3.0))
    if k == 4:
        return rng.choice(("", "6", "3", "SN", "SS", "vora", "\x1b[2J", "x" * 300, "0" * 16,
                           "push crow Sc", "\u202e", "abandon", "over", "new"))
    if k == 5 and depth < 3:
        return [odd_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if k == 6 and depth < 3:
        return {"a": odd_value(rng, depth + 1)}
    if k == 7:
        return rng.getrandbits(rng.choice((8, 16, 32, 33)))
    if k == 8:
        value = 0
        for _ in range(rng.randint(10, 40)):
            value = [value]
        return value
    return rng.randrange(-5, 70000)


def mutate_json(rng, obj):
    obj = json.loads(json.dumps(obj))
    for _ in range(rng.randint(1, 3)):
        keys = sorted(obj)
        k = rng.randrange(4)
        if k == 0 and keys:
            obj[rng.choice(keys)] = odd_value(rng)
        elif k == 1 and keys:
            del obj[rng.choice(keys)]
        elif k == 2:
            obj[rng.choice(("extra", "game", "seed", "moves", "event", "nonce", "state"))] = \
                odd_value(rng)
        elif keys:
            key = rng.choice(keys)
            if isinstance(obj[key], str) and obj[key].startswith("{"):
                try:  # a JSON text inside (the STATE's state): mutate inside it
                    inner = json.loads(obj[key])
                    obj[key] = json.dumps(mutate_json(rng, inner) if isinstance(inner, dict)
                                          else inner)
                except ValueError:
                    pass
            else:
                obj[key] = odd_value(rng)
    return obj


def mutated_payload(rng, payload):
    """A payload's JSON mutated field-wise, or its bytes mutated, within MAX_PAYLOAD."""
    if payload[:1] == b"{" and rng.random() < 0.7:
        try:
            out = json.dumps(mutate_json(rng, json.loads(payload)), separators=(",", ":")).encode()
        except (ValueError, RecursionError):
            out = mutate_bytes(rng, payload)
    else:
        out = mutate_bytes(rng, payload)
    return out[:wire.MAX_PAYLOAD]


# ---- valid inputs -------------------------------------------------------------------------

def _real_game(seed=11, n=12):
    state = vora.new_game(2, seed=seed, seats="SN")
    moves, digests = [], []
    for k in range(n):
        legal = state.legal_moves()
        move = legal[(k * 5) % len(legal)]
        state.play(move)
        moves.append(move)
        digests.append(state.digest())
    return state, moves, digests


GAME_ID = 4242
STATE, MOVES, DIGESTS = _real_game()
SUMMARY = {"game": GAME_ID, "name": "vora", "seed": 11, "players": 2, "seats": "SN",
           "moves": len(MOVES), "digest": STATE.digest(), "over": False, "mode": 0}


def board_messages():
    """(type, payload) the board sends to a host, valid."""
    over = dict(SUMMARY, event="over", scores=[3, 5], winner=1)
    return [
        (wire.GAME, wire.pack_json(dict(SUMMARY, event="new", moves=0))),
        (wire.GAME, wire.pack_json(dict(SUMMARY, event="resume"))),
        (wire.GAME, wire.pack_json(over)),
        (wire.GAME, wire.pack_json({"event": "abandon", "game": GAME_ID})),
        (wire.GAME, wire.pack_json({"event": "unknown", "game": GAME_ID})),
        (wire.STATE, wire.pack_json(dict(SUMMARY, state=STATE.to_json()))),
        (wire.MOVE, wire.pack_move(GAME_ID, len(MOVES), DIGESTS[-1], MOVES[-1])),
        (wire.MOVE, wire.pack_move(GAME_ID, 3, DIGESTS[2], MOVES[2])),
        (wire.MOVES, wire.pack_moves(GAME_ID, 1, MOVES)[0]),
        (wire.MOVES, wire.pack_moves(GAME_ID, 5, MOVES[4:])[0]),
        (wire.KEY, wire.pack_key(24, True)),
        (wire.LOG, wire.pack_text("saving the game fails: no space left on the flash")),
        (wire.REFUSE, wire.pack_text("protocol version 9 not supported")),
        (wire.PONG, b"ping"),
        (wire.HELLO_OK, None),  # made by HostTarget with the nonce of the moment
    ]


UNRELIABLE = (wire.HELLO, wire.HELLO_OK, wire.REFUSE, wire.PING, wire.PONG, wire.LOG)


# ---- targets ------------------------------------------------------------------------------

class HostTarget:
    """A BoardClient connected to a board that follows game GAME_ID: fed one valid
    message after another, some of them mutated."""

    def __init__(self, log=None):
        self.out = []
        self.client = BoardClient(self.out.append, log=log, source="virtual board")
        self.now = 0
        self.seq = 0
        self.messages = board_messages()
        self.client.hello(0)
        self.send(wire.HELLO_OK, None)

    def hello_ok(self):
        return wire.pack_json(dict(SUMMARY, proto=wire.PROTOCOL_VERSION, nonce=self.client.nonce,
                                   fw="0.1.0", board="fuzz", caps=["standalone"]))

    def send(self, t, payload):
        if payload is None:
            payload = self.hello_ok()
        if t in UNRELIABLE:
            seq = 0
        else:
            self.seq = self.seq % 255 + 1
            seq = self.seq
        if t == wire.HELLO_OK:
            self.seq = 0  # the client resets its session on it
        self.now += 7
        self.client.feed(wire.encode_frame(t, seq, 0, payload), self.now)
        self.client.poll(self.now)
        if not self.client.connected and t != wire.HELLO_OK:
            self.client.hello(self.now)
            self.send(wire.HELLO_OK, None)

    def one(self, rng):
        t, payload = rng.choice(self.messages)
        if payload is None:
            payload = self.hello_ok()
        if rng.random() < 0.8:
            payload = mutated_payload(rng, payload)
        self.send(t, payload)
        assert len(self.client.problems) <= PROBLEMS_KEPT


def fuzz_host(rng, target=None, count=8):
    target = target or HostTarget()
    for _ in range(count):
        target.one(rng)


def host_frames():
    """(type, payload) a host sends to the board, valid."""
    return [
        (wire.HELLO, wire.pack_json({"proto": wire.PROTOCOL_VERSION, "minor": 0, "nonce": 7,
                                     "role": "host", "caps": ["standalone"]})),
        (wire.STATE_REQ, b""),
        (wire.MOVES_REQ, wire_host.pack_moves_req(77, 1)),
        (wire.MODE, wire_host.pack_mode(1)),
        (wire.MODE, wire_host.pack_mode(0)),
        (wire.PIXELS, bytes(range(147))),
        (wire.PIXELS_DIFF, wire_host.pack_pixels_diff([(3, 1, 2, 3), (40, 9, 9, 9)])),
        (wire.PING, b"x"),
        (wire.LOG, b"hello board"),
    ]


class BoardTarget:
    def __init__(self):
        self.out = []
        self.link = BoardLink(self.out.append, board="fuzz")
        self.ui = VoraUI(seed_fn=lambda: 3, id_fn=lambda: 77, listener=self.link.game_event)
        self.link.attach(self.ui)
        self.ui.new_game("SN", 3)
        for _ in range(5):
            self.ui.play(self.ui.legal[0], 0)
        self.now = 0
        self.seq = 0
        self.frames = host_frames()

    def one(self, rng):
        t, payload = rng.choice(self.frames)
        if rng.random() < 0.8:
            payload = mutated_payload(rng, payload)
        if t in UNRELIABLE:
            seq = 0
        else:
            self.seq = self.seq % 255 + 1
            seq = self.seq
        if t == wire.HELLO:
            self.seq = 0
        self.now += 7
        self.link.receive(wire.encode_frame(t, seq, 0, payload), self.now)
        self.link.poll(self.now)
        self.link.repl_requested = False
        del self.out[:]


def fuzz_board(rng, target=None, count=8):
    target = target or BoardTarget()
    for _ in range(count):
        target.one(rng)


UNPACKERS = (wire_host.unpack_move, wire.unpack_moves_req, wire_host.unpack_moves, wire_host.unpack_key,
             wire.unpack_mode, wire.unpack_pixels_diff, wire.check_pixels, wire.unpack_json,
             wire.unpack_text)


def fuzz_decoders(rng):
    """Damaged frames of every kind through every decoder: only values come back from the
    frame decoders, only BadPayload from the payload helpers."""
    messages = [m for m in board_messages() + host_frames() if m[1] is not None]
    t, payload = rng.choice(messages)
    frame = wire.encode_frame(t, rng.randrange(256), rng.randrange(256), payload)
    if rng.random() < 0.5:
        frame = mutate_bytes(rng, frame)
    else:  # a valid frame around a damaged payload
        payload = mutated_payload(rng, payload)
        frame = wire.encode_frame(t, rng.randrange(256), rng.randrange(256), payload)
    for result in (wire_host.decode_frame(frame), wire_host.decode_body(frame), wire_host.cobs_decode(frame[:-1])):
        assert isinstance(result, (tuple, bytes, wire.WireError)), result
    got = wire.FrameReader().feed(frame)
    for item in got:
        assert isinstance(item, (tuple, wire.WireError)), item
    for unpack in UNPACKERS:
        try:
            unpack(payload)
        except wire.BadPayload:
            pass


class MemoryStore:
    def __init__(self, text):
        self.text = text

    def save(self, text):
        self.text = text

    def load(self):
        return self.text

    def clear(self):
        self.text = None


def _saved_game():
    flash = MemoryStore(None)
    ui = VoraUI(store=flash, seed_fn=lambda: 5, id_fn=lambda: 99)
    ui.new_game("SWN", 5)
    for k in range(9):
        ui.play(ui.legal[(k * 3) % len(ui.legal)], 0)
    return flash.text


SAVE_TEXT = _saved_game()


class _Files:
    """Just enough of a filesystem for Store: whole files in a dict."""

    def __init__(self, files):
        self.files = files

    def open(self, path, mode="rb"):
        import io
        if "w" in mode:
            raise OSError(30, "read-only here")
        if path not in self.files:
            raise OSError(2, "no such file")
        return io.BytesIO(self.files[path])

    def stat(self, path):
        if path not in self.files:
            raise OSError(2, "no such file")
        return (0, 0, 0, 0, 0, 0, len(self.files[path]), 0, 0, 0)

    def rename(self, src, dst):
        self.files[dst] = self.files.pop(src)

    def remove(self, path):
        self.files.pop(path, None)

    def mkdir(self, path):
        pass

    def listdir(self, path):
        return []


def save_file(text):
    """The bytes of a save file holding `text`, its header and CRC right."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return ("VSAVE1 %d %08x\n" % (len(data), store_mod.crc32(data))).encode() + data


def fuzz_save(rng):
    """A save file with a valid checksum around mutated contents: the board loads it,
    resumes it or ignores it, and plays on. Returns True when it resumed a game."""
    if rng.random() < 0.6:
        text = json.dumps(mutate_json(rng, json.loads(SAVE_TEXT)), separators=(",", ":"))
        data = text.encode()
    else:
        data = mutate_bytes(rng, SAVE_TEXT.encode())
    try:
        saved_game.parse_game(data.decode("utf-8"))
    except saved_game.BadSave:
        pass
    except UnicodeDecodeError:
        pass  # not text: Store.load never hands such a payload over
    files = {"/save/game.json": save_file(data)}
    if rng.random() < 0.3:
        files["/save/game.json"] = mutate_bytes(rng, files["/save/game.json"])
    text = Store("/save", fs=_Files(files)).load()
    flash = MemoryStore(text)
    ui = VoraUI(store=flash, seed_fn=lambda: 1, id_fn=lambda: 2)
    ui.resume()
    if ui.state is not None and ui.legal:
        ui.play(ui.legal[rng.randrange(len(ui.legal))], 10)  # and the next save works
        assert json.loads(flash.text)["moves"][-1] == ui.moves[-1]
    return ui.state is not None


TARGETS = {"decoders": fuzz_decoders, "host": fuzz_host, "board": fuzz_board, "save": fuzz_save}

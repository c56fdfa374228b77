"""The board's side of a firmware update, message by message, through its link endpoint:
runs on CPython and, with `--steps step`, under real MicroPython (tools/mpy_run.mjs).

The flash is a folder (FLASH, below the first argument); the bundle is the folder given
as second argument (manifest.json and the files it lists, as the host sends them). A
scripted host says HELLO, offers the bundle, sends every UPD_DATA chunk, asks, commits,
and acknowledges whatever the board sends. Each step() is one message. It prints the
board's statuses ("status <state> <file> <offset>") and at the end the measures:
- peak_bytes: heap in use while the board handles one message (collector held off: an
  upper bound), code aside; alloc_bytes: the most one message allocated (worst_message
  says which); chunk_alloc_bytes: the most one chunk of a module allocated;
- code_bytes: the modules' code on the heap.
Usage: update_board.py FLASH_DIR BUNDLE_DIR
"""

import gc
import sys

MICRO = sys.implementation.name == "micropython"


def collect():
    # The heap is measured on MicroPython only; on CPython a full collection at every
    # step was 93% of the run's time (the same moves either way).
    if not MICRO:
        return 0
    gc.collect()
    return gc.mem_alloc()


BASE = collect()
_ROOT = __file__.rsplit("/", 3)[0]
sys.path.insert(0, _ROOT + "/firmware")  # vora_fw from the repository, not from the bundle
import hashlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

from shared_rules import wire, wire_host  # noqa: E402
from vora_fw import boot  # noqa: E402
from vora_fw.link import BoardLink  # noqa: E402
from vora_fw.maker import MakerService  # noqa: E402
# The makers' service imports the updater at the first update message: imported here, so
# that its code counts as code, not as the heap a message needs.
from vora_fw import update  # noqa: E402,F401

FLASH = sys.argv[1]
BUNDLE = sys.argv[2]
IDENTITY = {"micropython": "1.27.0", "mpy": 6, "mpy_sub": 3, "arch": "armv6m",
            "platform": "rp2"}


class Run:
    pass


R = Run()
R.code = 0
R.ready = False


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def setup(code):
    R.code = code
    R.ready = True
    try:
        os.mkdir(FLASH)
    except OSError:
        pass
    rec = boot.empty_record()
    rec["slot"] = "a"
    fs = boot.Fs()
    boot.write_record(fs, FLASH, rec)
    slot, mode, rec = boot.decide(fs, FLASH)
    b = boot.Boot(fs, FLASH, slot, mode, rec, "0.1.0")
    b.identity = IDENTITY
    R.out = []
    R.link = BoardLink(R.out.append, board="script")
    R.link.maker = MakerService(R.link, None, {"port": "rp2"}, b, IDENTITY, "0.1.0",
                                lambda: None, getattr(os, "statvfs", None))
    R.reader = wire.FrameReader()
    R.seq = 0
    R.last_in = 0
    R.now = 0
    R.manifest = _read(BUNDLE + "/manifest.json")
    R.files = [e[0] for e in json.loads(R.manifest)["files"]]
    R.id = hashlib.sha256(R.manifest).digest()
    R.link.receive(wire.encode_frame(wire.HELLO, 0, 0,
                                     wire.pack_json({"proto": wire.PROTOCOL_VERSION})), 0)
    assert R.link.connected, "the scripted host must be connected: the update goes over it"
    # The messages, made one at a time: a list of them all (a tuple per chunk) stood on
    # the heap beside the board's objects and counted in its peak, which then grew with
    # every 256 bytes a file of the bundle gained.
    R.plan = plan()
    R.item = next(R.plan)
    R.peak = 0
    R.alloc = 0
    R.messages = 0
    R.worst = ""
    R.chunk_alloc = 0
    R.statuses = []


def plan():
    yield ("offer",)
    pieces = [None] + R.files
    for k in range(len(pieces)):
        size = len(R.manifest) if k == 0 else os.stat(BUNDLE + "/" + pieces[k])[6]
        for o in range(0, size, wire_host.UPD_CHUNK):
            yield ("data", k, o)
    # Then another bundle offered (busy: the switched one waits for its first boot) and
    # an abort: the trial slot must stay whole.
    for item in (("query",), ("commit",), ("offer_other",), ("abort",)):
        yield item


def frame_for(item):
    kind = item[0]
    if kind == "offer":
        t, p = wire.UPD_OFFER, wire_host.pack_upd_offer(len(R.manifest), R.id)
    elif kind == "offer_other":
        t, p = wire.UPD_OFFER, wire_host.pack_upd_offer(len(R.manifest), b"\x55" * 32)
    elif kind == "abort":
        t, p = wire.UPD_ABORT, b""
    elif kind == "query":
        t, p = wire.UPD_QUERY, b""
    elif kind == "commit":
        t, p = wire.UPD_COMMIT, wire_host.pack_upd_commit(R.id)
    else:
        k, o = item[1], item[2]
        if k == 0:
            data = R.manifest[o:o + wire_host.UPD_CHUNK]
        else:
            with open(BUNDLE + "/" + R.files[k - 1], "rb") as f:
                f.seek(o)
                data = f.read(wire_host.UPD_CHUNK)
        t, p = wire.UPD_DATA, wire_host.pack_upd_data(k, o, data)
    R.seq = R.seq % 255 + 1
    return wire.encode_frame(t, R.seq, R.last_in, p)


def answers():
    for chunk in R.out:
        for item in R.reader.feed(chunk):
            if isinstance(item, wire.WireError):
                continue
            t, seq, ack, payload = item
            if seq:
                R.last_in = seq
            if t == wire.UPD_STATUS:
                st = wire.unpack_json(payload)
                R.statuses.append(st["state"])
                print("status", st["state"], st.get("file"), st.get("offset"), st.get("code", ""))
    del R.out[:]


def count_files(p):
    try:
        names = os.listdir(p)
    except OSError:
        return 0
    n = 0
    for name in names:
        if os.stat(p + "/" + name)[0] & 0x4000:
            n += count_files(p + "/" + name)
        else:
            n += 1
    return n


def step():
    live = collect()
    if not R.ready:
        setup(live)  # imports done and (under --steps) collected: that is code
        return True
    if R.item is None:
        rec = boot.read_record(boot.Fs(), FLASH)
        print("record", " ".join("%s=%s" % (k, rec[k]) for k in sorted(rec)))
        print("trial_slot_files", count_files(FLASH + "/fw/" + str(rec["trial"])))
        print("messages", R.messages)
        if MICRO:
            print("peak_bytes", R.peak)
            print("alloc_bytes", R.alloc)
            print("chunk_alloc_bytes", R.chunk_alloc)
            print("worst_message", R.worst)
            print("code_bytes", R.code - BASE)
        return False
    item = R.item
    R.item = next(R.plan, None)
    frame = frame_for(item)
    live = collect()
    if MICRO:
        gc.disable()
    R.now += 5
    R.link.receive(frame, R.now)
    R.link.poll(R.now)
    used = gc.mem_alloc() - live if MICRO else 0
    if MICRO:
        gc.enable()
        if used > R.alloc:
            R.worst = "%s %s" % (item[0], item[1] if len(item) > 1 else "")
        R.alloc = max(R.alloc, used)
        if item[0] == "data" and item[1] > 0:
            R.chunk_alloc = max(R.chunk_alloc, used)
        R.peak = max(R.peak, live - R.code + used)
    R.messages += 1
    frame = None
    answers()
    return True


if not MICRO:
    while step():
        pass

"""The heap's block map after the board's start with a PC (the soak's start), for the
fragmentation figures of docs/benchmarks.md ("Fragmentation at start"):

    VORA_MICROPYTHON_UNIX=... .venv/bin/python -c "import sys; sys.path.insert(0, 'tests');
    from mpy import *; t = firmware_tree('/tmp/sm', [REPO_ROOT / 'bench/mp_start_map.py']);
    print(run_unix_micropython('mp_start_map', t, heap=200 << 10).stdout)"
"""

import gc
import micropython
import os

from shared_rules import prng, wire
from vora_fw import VERSION, boot
from vora_fw.app import App
from vora_fw.hal_sim import SimHardware, default_pinmap
from vora_fw.link import BoardLink
from vora_fw.start import MAKER_REQUEST, attach
from vora_fw.store import Store

try:
    os.mkdir("flash")
except OSError:
    pass
rec = boot.empty_record()
rec["slot"] = "a"
boot.write_record(boot.Fs(), "flash", rec)
fs = boot.Fs()
slot, mode, rec = boot.decide(fs, "flash")
b = boot.Boot(fs, "flash", slot, mode, rec, VERSION)
b.identity = {"micropython": "1.27.0", "mpy": 6, "mpy_sub": 3, "arch": "armv6m", "platform": "rp2"}
out = []
link = BoardLink(out.append, board="map")
app = App(SimHardware(), default_pinmap(), Store("save"), link, seed_fn=lambda: prng.seed_state(1))
attach(app, link, default_pinmap(), b, b.identity, VERSION, lambda: None, None,
       maker_mode=MAKER_REQUEST)
link.receive(wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json({"proto": wire.PROTOCOL_VERSION})), 0)
gc.collect()
micropython.mem_info(1)

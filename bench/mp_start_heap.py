import gc, sys, os, micropython
def a(label, last=[0]):
    gc.collect(); m = gc.mem_alloc(); print("%-28s %7d %+7d" % (label, m, m - last[0])); last[0] = m
a("baseline")
from vora_fw import VERSION, layout
from vora_fw import boot
a("boot")
from vora_fw.app import App
a("app+vora_ui+rules")
from vora_fw.hal_sim import SimHardware, default_pinmap
from vora_fw.store import Store
a("hal_sim, store")
import board_player
a("board_player")
from shared_rules import wire
from vora_fw.link import BoardLink
from vora_fw.start import attach
a("wire, link, start")
try: os.mkdir("flash")
except OSError: pass
rec = boot.empty_record(); rec["slot"] = "a"; boot.write_record(boot.Fs(), "flash", rec)
fs = boot.Fs(); slot, mode, rec = boot.decide(fs, "flash")
B = boot.Boot(fs, "flash", slot, mode, rec, VERSION); B.identity = {"micropython": "1.27.0", "mpy": 6, "mpy_sub": 3, "arch": "armv6m", "platform": "rp2"}
hw = SimHardware()
a("boot obj, hw")
out = []
link = BoardLink(out.append, board="soak")
a("BoardLink")
app = App(hw, default_pinmap(), Store("save"), link, seed_fn=lambda: 5)
a("App")
micropython.qstr_info()
attach(app, link, default_pinmap(), B, B.identity, VERSION, lambda: 0, None)
a("attach (maker, intern_names)")
micropython.qstr_info()
link.receive(wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json({"proto": wire.PROTOCOL_VERSION, "caps": ["play"]})), 0)
a("hello")
app.ui.new_game("SWNE", 5)
a("new game 4p")
micropython.mem_info()
import sys
print(sorted(k for k in sys.modules))

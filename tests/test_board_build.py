"""What goes on the board: tools/build_board.py's tree (the layout vora flash installs) runs
under real MicroPython; the USB port turns Ctrl-C off while the link runs. The boot path
itself (main.py, vora_boot) is tested in test_boot.py."""

import json
import subprocess
import sys
from pathlib import Path

from mpy import run_micropython
from test_keyscan import pico_pinmap

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import build_board  # noqa: E402


def test_the_board_tree_holds_compiled_modules_main_and_the_pin_map(tmp_path):
    out = build_board.build(tmp_path / "board", ROOT / "hardware" / "pinmap-rp2-pico.json")
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert {"main.py", "pinmap.json", "vora_boot.mpy", "boot.json"} <= set(names)
    assert "fw/a/shared_rules/vora.mpy" in names and "fw/a/vora_fw/vora_ui.mpy" in names
    assert "fw/a/manifest.json" in names and "fw/a/vora_fw/boot.mpy" not in names
    assert not [n for n in names if n.endswith(".py") and n != "main.py"]
    assert json.loads((out / "pinmap.json").read_text()) == pico_pinmap()
    for n in names:
        if n.endswith(".mpy"):
            assert (out / n).read_bytes()[:1] == b"M", n  # the .mpy magic
    from vora_fw import boot
    assert boot.read_record(boot.Fs(), str(out))["trial"] == "a"  # it confirms itself


def test_the_compiled_tree_plays_under_micropython(tmp_path):
    out = build_board.build(tmp_path / "board", ROOT / "hardware" / "pinmap-rp2-pico.json")
    script = '''
import json, sys
sys.path[:0] = ["/board/fw/a"]
import shared_rules.vora as vora
assert vora.__file__.endswith(".mpy"), vora.__file__
import vora_boot
assert vora_boot.__file__.endswith(".mpy")
from vora_fw.app import App
from vora_fw.hal_sim import SimHardware
from vora_fw import layout
pinmap = json.load(open("/board/pinmap.json"))
hw = SimHardware(pinmap)
app = App(hw, pinmap, seed_fn=lambda: 5)
now = 0
def press(name):
    global now
    k = layout.key_index(name)
    hw.press(k)
    for _ in range(12):
        now += 5
        app.step(now)
    hw.release(k)
    for _ in range(12):
        now += 5
        app.step(now)
press("c3")
ui = app.ui
press("cN")  # the other player's farm: a peek, nothing played
press("Nc")  # an edge with no cube picked: refused
print(ui.state.digest(), ui.moves_played, ui.refused_key == layout.key_index("Nc"))
'''
    done = run_micropython(script, mounts=[(out, "/board")], check=True)
    digest, played, refused = done.stdout.split()
    from shared_rules import vora
    assert digest == vora.new_game(2, seed=5).digest() and played == "0" and refused == "True"


def test_the_usb_port_turns_ctrl_c_off_and_back_on(monkeypatch):
    # A 0x03 in a frame must be data: the port disables the keyboard interrupt while open.
    import os
    import types
    from vora_fw.start import StdioPort

    calls = []
    fake = types.ModuleType("micropython")
    fake.kbd_intr = calls.append
    monkeypatch.setitem(sys.modules, "micropython", fake)
    r, w = os.pipe()
    reader = os.fdopen(r, "rb", buffering=0)
    writer = os.fdopen(w, "wb", buffering=0)
    stdin = types.SimpleNamespace(buffer=reader, fileno=reader.fileno)
    out = []
    stdout = types.SimpleNamespace(buffer=types.SimpleNamespace(write=out.append))
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    port = StdioPort()
    assert calls == [-1]
    assert port.read() == b""  # nothing waiting: no blocking
    writer.write(b"\x03\x00ab")
    assert port.read() == b"\x03\x00ab"
    port.write(b"frame")
    assert out == [b"frame"]
    port.close()
    assert calls == [-1, 3]
    reader.close()
    writer.close()


def test_build_board_command_line(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "build_board.py"), "--out",
                           str(tmp_path / "b")], capture_output=True, text=True, check=True)
    assert "vora flash" in done.stdout and "mpremote cp -r" in done.stdout
    bad = subprocess.run([sys.executable, str(ROOT / "tools" / "build_board.py"), "--pinmap",
                          str(tmp_path / "none.json")], capture_output=True, text=True)
    assert bad.returncode == 2 and "no pin map" in bad.stderr

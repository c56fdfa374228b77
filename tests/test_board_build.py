"""What goes on the board: tools/build_board.py's tree runs under real MicroPython, and
firmware/main.py starts the application or, with a corner held at power-up, safe mode."""

import json
import runpy
import subprocess
import sys
from pathlib import Path

from mpy import run_micropython
from test_keyscan import fake_rp2, pico_pinmap  # noqa: F401  (a fixture and its helper)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import build_board  # noqa: E402


def test_the_board_tree_holds_compiled_modules_main_and_the_pin_map(tmp_path):
    out = build_board.build(tmp_path / "board", ROOT / "hardware" / "pinmap-rp2-pico.json")
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert "main.py" in names and "pinmap.json" in names
    assert "shared_rules/vora.mpy" in names and "vora_fw/vora_ui.mpy" in names
    assert not [n for n in names if n.endswith(".py") and n != "main.py"]
    assert json.loads((out / "pinmap.json").read_text()) == pico_pinmap()
    for n in names:
        if n.endswith(".mpy"):
            assert (out / n).read_bytes()[:1] == b"M", n  # the .mpy magic


def test_the_compiled_tree_plays_under_micropython(tmp_path):
    out = build_board.build(tmp_path / "board", ROOT / "hardware" / "pinmap-rp2-pico.json")
    script = '''
import json, sys
sys.path[:0] = ["/board"]
import shared_rules.vora as vora
assert vora.__file__.endswith(".mpy"), vora.__file__
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


def load_main():
    return runpy.run_path(str(ROOT / "firmware" / "main.py"), run_name="vora_main")


def test_a_corner_held_at_power_up_starts_safe_mode(fake_rp2, tmp_path, capsys):  # noqa: F811
    pinmap_file = tmp_path / "pinmap.json"
    pinmap_file.write_text(json.dumps(pico_pinmap()))
    hw, matrix = fake_rp2(pico_pinmap())
    matrix.closed.add((6, 6))  # the North corner
    main = load_main()["main"]
    assert main(str(pinmap_file), str(tmp_path / "save")) == "safe"
    assert "safe mode" in capsys.readouterr().out


def test_main_starts_the_application_otherwise(fake_rp2, tmp_path, monkeypatch):  # noqa: F811
    pinmap_file = tmp_path / "pinmap.json"
    pinmap_file.write_text(json.dumps(pico_pinmap()))
    fake_rp2(pico_pinmap())
    started = []

    def fake_run(coroutine):
        started.append(coroutine.cr_code.co_qualname)
        coroutine.close()

    import asyncio
    from vora_fw import link

    closed = []

    class FakePort:  # the USB serial port; its close() gives Ctrl-C back
        def read(self):
            return b""

        def write(self, data):
            pass

        def close(self):
            closed.append(True)

    monkeypatch.setattr(asyncio, "run", fake_run)
    monkeypatch.setattr(link, "StdioPort", FakePort)
    main = load_main()["main"]
    assert main(str(pinmap_file), str(tmp_path / "save")) == "repl"
    assert started == ["App.run"] and closed == [True]


def test_the_usb_port_turns_ctrl_c_off_and_back_on(monkeypatch):
    # A 0x03 in a frame must be data: the port disables the keyboard interrupt while open.
    import os
    import types
    from vora_fw.link import StdioPort

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
    assert "mpremote cp -r" in done.stdout
    bad = subprocess.run([sys.executable, str(ROOT / "tools" / "build_board.py"), "--pinmap",
                          str(tmp_path / "none.json")], capture_output=True, text=True)
    assert bad.returncode == 2 and "no pin map" in bad.stderr

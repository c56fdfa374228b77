"""The makers' commands against the virtual board, for real: `vora flash` through stock
mpremote onto a board with stock MicroPython, `vora update` over the framed link (cut in
the middle and resumed), safe mode as the way back, `vora doctor`; and the refusals that
leave a board as it was (a full filesystem, the wrong kind of board, an old MicroPython).
"""

import io
import json
import subprocess
import sys
import time

import pytest
from rich.console import Console

from shared_rules import wire, wire_host
from vora_fw import boot
from vora_host.maker import bundle as bundles
from vora_host.maker.doctor import clean_diag
from vora_host import resources
from vora_host.maker.flash import FlashFailed, check_board, pinmap_for
from vora_host.maker.update import Updater

from maker_support import full_bundle, snapshot
from test_repl_sim import mpremote
from test_sim import ROOT, Host, SimProcess


def vora(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "vora_host", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=str(ROOT))


def record_of(flash):
    return boot.read_record(boot.Fs(), str(flash))


def test_flash_a_stock_board_update_it_through_a_disconnect_safe_mode_and_flash_again(
        tmp_path):
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash), "--seed", "5")
    try:
        # A board with stock MicroPython: its REPL, no game.
        assert not (flash / "main.py").exists()
        done = vora("flash", sim.path, "--no-progress")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "The firmware says hello: Vora Board 0.1.0" in done.stderr
        assert "confirmed" in done.stderr and "armv6m" in done.stderr
        assert "The pin map: pinmap-rp2-pico.json, for a Raspberry Pi Pico (RP2040)" in \
            " ".join(done.stderr.split())  # no --pinmap: the one for what the board says
        assert record_of(flash) == dict(boot.empty_record(), slot="a")
        assert (flash / "vora_boot.mpy").is_file()
        assert json.loads((flash / "pinmap.json").read_text()) == \
            json.loads((ROOT / "hardware" / "pinmap-rp2-pico.json").read_text())
        # A game, saved on the board's flash.
        sim.cmd("press c3")
        saved = (flash / "save" / "game.json").read_bytes()

        # vora update, the USB cut after 20 chunks: it waits, resumes, finishes.
        new = full_bundle("0.2.0")
        up = Updater(sim.path, progress=False, wait_s=30)
        sent = []
        real_send = up.conn.send

        def unplug_once(type, payload=b"", timeout=10.0):
            if type == wire.UPD_DATA:
                sent.append(1)
                if len(sent) == 20:
                    up.conn.ser.close()  # the cable, pulled
            return real_send(type, payload, timeout)

        up.conn.send = unplug_once
        result = up.run(new)
        assert result["from"] == "0.1.0" and result["to"] == "0.2.0"
        assert result["reconnects"] == 1 and result["resumed"] and result["resumed"][0] != (0, 0)
        assert result["sent"] < new.size + 2 * wire_host.UPD_CHUNK * 20  # resumed, not restarted
        assert result["boot"]["state"] == "confirmed" and result["boot"]["slot"] == "b"
        assert record_of(flash) == dict(boot.empty_record(), slot="b", prev="a")
        assert (flash / "save" / "game.json").read_bytes() == saved

        # An older bundle is refused without --allow-downgrade; nothing changes.
        old_file = tmp_path / "old.vbundle"
        bundles.write_bundle(full_bundle("0.1.0"), old_file)
        before = snapshot(flash)
        done = vora("update", sim.path, "--from", str(old_file), "--no-progress")
        assert done.returncode == 1 and "--allow-unsigned" in done.stderr  # not signed
        done = vora("update", sim.path, "--from", str(old_file), "--no-progress",
                    "--allow-unsigned")
        assert done.returncode == 1 and "--allow-downgrade" in done.stderr
        assert snapshot(flash) == before

        # The doctor sees the new version.
        done = vora("doctor", sim.path, "--info", "--json", "-")
        info = json.loads(done.stdout)
        assert info["firmware"] == "0.2.0" and info["boot"]["state"] == "confirmed"
        assert info["micropython"] and info["flash_free"] < info["flash_total"] == 848 * 1024

        # Safe mode: a corner held at power-up leaves the REPL free, whatever is installed;
        # a reset without the corner brings the game back.
        sim.cmd("down cS")
        sim.cmd("reset")
        sim.cmd("wait 300")
        sim.cmd("up cS")
        done = mpremote(sim.path, "exec", "print('safe', 6 * 7)")
        assert done.stdout.split() == ["safe", "42"], done.stderr
        assert mpremote(sim.path, "reset").returncode == 0
        host = Host(sim.path)
        try:
            assert host.connected().board["fw"] == "0.2.0"
        finally:
            host.close()

        # vora flash over the running firmware (it asks it for the REPL over the link)
        # installs this checkout's version into the other slot; the saved game is kept.
        done = vora("flash", sim.path, "--no-progress")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "asking it to stop for the REPL" in done.stderr
        assert record_of(flash) == dict(boot.empty_record(), slot="a", prev="b")
        assert (flash / "save" / "game.json").read_bytes() == saved
        host = Host(sim.path)
        try:
            c = host.connected()
            assert c.board["fw"] == "0.1.0" and c.board["game"] is not None
        finally:
            host.close()
    finally:
        sim.kill()


def test_the_doctor_takes_nothing_from_a_diag_on_trust():
    d = clean_diag({"mem_free": "lots", "keys_down": [3, 99, "x", 3, True], "fw": 5,
                    "boot": {"slot": ["a"], "state": "confirmed"}, "frame_ma": True,
                    "brightness_cap": 2 ** 60})
    assert d["mem_free"] is None and d["keys_down"] == [3]
    assert d["fw"] is None and d["frame_ma"] is None and d["brightness_cap"] is None
    assert d["boot"] == {"state": "confirmed"}
    assert clean_diag({"boot": "x", "keys_down": "all"})["keys_down"] == []


def test_flash_romfs_on_a_board_without_romfs_says_so_and_installs_the_files(tmp_path):
    # The virtual board's MicroPython (the WebAssembly port) has no vfs.rom_ioctl unless it
    # is given a partition, as most stock builds: vora flash --romfs says so and goes on as
    # without --romfs. On a 64 KB filesystem the firmware's files do not fit: the refusal
    # shows the files were chosen, without copying them (the first test copies them all).
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash), "--flash-size", "64")
    try:
        done = vora("flash", sim.path, "--no-progress", "--romfs")
        words = " ".join(done.stderr.split())
        assert done.returncode == 1, done.stdout + done.stderr
        assert "No ROMFS for the firmware on this board: its MicroPython is built without " \
               "ROMFS" in words and "Installing it as files instead" in words
        assert "too full: the firmware needs" in words and "Nothing was written" in words
        assert snapshot(flash, skip=("save",)) == {}
    finally:
        sim.kill()


def test_flash_romfs_on_a_board_with_a_partition_boots_from_it_and_updates_over_it(
        tmp_path, monkeypatch):
    # A virtual board with a ROMFS partition (vora sim --romfs-size): mpremote's query and
    # deploy talk to its MicroPython's vfs.rom_ioctl, the image lands in flash.romfs, and
    # the board boots the slot's manifest against the image (/rom after the slot).
    from vora_host.maker import romfs
    from vora_host.maker.flash import Flasher
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash), "--romfs-size", "256")
    written = {}
    real_deploy = romfs.deploy

    def deploy(t, image, partition=0):
        # Nothing else written yet: a failed image leaves the board as it was.
        written["before"] = snapshot(flash, skip=("save",))
        real_deploy(t, image, partition)

    monkeypatch.setattr(romfs, "deploy", deploy)
    out = io.StringIO()
    try:
        result = Flasher(sim.path, ROOT / "hardware" / "pinmap-rp2-pico.json",
                         console=Console(file=out, width=200), progress=False,
                         romfs=True).run()
        files_now = snapshot(flash, skip=("save",))
        image = romfs.build_image(full_bundle())
        assert (tmp_path / "flash.romfs").read_bytes()[:len(image)] == image
        assert written["before"] == {}
        assert result["romfs"] == len(image) and result["boot"]["state"] == "confirmed"
        assert "The firmware says hello: Vora Board 0.1.0" in out.getvalue()
        assert sorted(n for n in files_now if n.startswith("fw/")) == ["fw/a/manifest.json"]
        assert {"main.py", "vora_boot.mpy", "pinmap.json", "boot.json"} <= set(files_now)
        assert record_of(flash) == dict(boot.empty_record(), slot="a")

        # An update writes a whole slot of files, which come first.
        result = Updater(sim.path, progress=False, wait_s=30).run(full_bundle("0.2.0"))
        assert result["boot"]["state"] == "confirmed" and result["boot"]["slot"] == "b"
        assert (flash / "fw" / "b" / "vora_fw" / "__init__.mpy").is_file()
        assert (tmp_path / "flash.romfs").read_bytes()[:len(image)] == image  # untouched
    finally:
        sim.kill()


def test_a_virtual_board_boots_a_romfs_slot_only_when_the_image_matches(tmp_path):
    # The manifest-only slot is checked against /rom: a partition holding another image
    # (or none) is a damaged install, as importing it on a board would fail or run
    # something else.
    from vora_host.maker import romfs
    from vora_host.virtual import flash as sim_flash
    folder = tmp_path / "flash"
    (folder / "fw" / "a").mkdir(parents=True)
    (folder / "fw" / "a" / "manifest.json").write_bytes(full_bundle().manifest_bytes)
    part = tmp_path / "flash.romfs"
    part.write_bytes(b"\xff" * 4096)
    assert "neither in the slot nor in /rom" in sim_flash.slot_problem(folder, "a", part)
    part.write_bytes(romfs.build_image(full_bundle("0.2.0")))
    assert "does not match its manifest" in sim_flash.slot_problem(folder, "a", part)
    part.write_bytes(romfs.build_image(full_bundle()) + b"\0" * 100)
    assert sim_flash.slot_problem(folder, "a", part) is None
    assert sim_flash.slot_problem(folder, "a") is not None  # a board without ROMFS


@pytest.mark.parametrize("frozen, words", [
    ("0.1.0", "has Vora firmware 0.1.0 frozen in: the slot gets only its manifest"),
    ("0.0.9", "has Vora firmware 0.0.9 frozen in; this vora installs 0.1.0, as files"),
])
def test_a_micropython_with_the_firmware_frozen_in_gets_only_the_slot_manifest(
        tmp_path, monkeypatch, frozen, words):
    # Where `import vora_fw` leads is asked with romfs.probe_code (tests/test_romfs.py runs it
    # in real MicroPython against a frozen package); here the board's answer is stood for.
    # A 64 KB filesystem: the manifest and the root files fit, the firmware's files do not
    # (which shows the choice without copying them).
    from vora_host.maker import romfs
    from vora_host.maker.flash import Flasher
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash), "--flash-size", "64")
    asked = []
    monkeypatch.setattr(romfs, "firmware_in_micropython", lambda t: ("frozen", frozen))
    monkeypatch.setattr(romfs, "query", lambda t: asked.append("query") or
                        {"size": 512 * 1024, "block": 4096, "image": 0})
    monkeypatch.setattr(romfs, "deploy", lambda t, image: asked.append("deploy"))
    monkeypatch.setattr(Flasher, "_wait_hello", lambda self, version: {"boot": None})
    out = io.StringIO()
    flasher = Flasher(sim.path, ROOT / "hardware" / "pinmap-rp2-pico.json",
                      console=Console(file=out, width=200), progress=False, romfs=True)
    try:
        if frozen == "0.1.0":  # this very version: its code runs from the firmware
            flasher.run()
            assert sorted(n for n in snapshot(flash) if n.startswith("fw/")) == \
                ["fw/a/manifest.json"]
            assert asked == []
        else:  # another: the files (first on sys.path), and no ROMFS (after .frozen)
            with pytest.raises(FlashFailed, match="too full"):
                flasher.run()
            assert "frozen in, which comes before /rom" in flasher.romfs_refusal
            assert asked == ["query"]
    finally:
        sim.kill()
    assert words in " ".join(out.getvalue().split())
    assert flasher.frozen == frozen and flasher.romfs_image is None


def test_a_failed_romfs_write_stops_before_anything_else_is_written(tmp_path, monkeypatch):
    from vora_host.maker import romfs
    from vora_host.maker.flash import Flasher
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash))

    def deploy(t, image, partition=0):
        raise romfs.RomfsFailed("the ROMFS partition differs from the image after writing")

    monkeypatch.setattr(romfs, "query", lambda t: {"size": 512 * 1024, "block": 4096,
                                                   "image": 0})
    monkeypatch.setattr(romfs, "deploy", deploy)
    try:
        before = snapshot(flash)
        with pytest.raises(FlashFailed) as err:
            Flasher(sim.path, ROOT / "hardware" / "pinmap-rp2-pico.json",
                    console=Console(file=io.StringIO()), progress=False, romfs=True).run()
        assert snapshot(flash) == before
        done = mpremote(sim.path, "exec", "print('as it was')")  # still its REPL
        assert done.stdout.strip() == "as it was"
    finally:
        sim.kill()
    assert "differs from the image after writing. Run vora flash --romfs again" in str(err.value)
    assert "main.py and the boot record were not changed" in str(err.value)


def test_a_full_filesystem_is_refused_before_anything_is_written(tmp_path):
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash), "--flash-size", "64")
    try:
        big = tmp_path / "big.bin"
        big.write_bytes(b"\x55" * 20000)
        assert mpremote(sim.path, "fs", "cp", str(big), ":big.bin").returncode == 0
        before = snapshot(flash)
        done = vora("flash", sim.path, "--no-progress")
        assert done.returncode == 1
        assert "too full" in done.stderr and "Nothing was written" in done.stderr
        assert snapshot(flash) == before
        done = mpremote(sim.path, "exec", "print('as it was')")  # still its REPL
        assert done.stdout.strip() == "as it was"
    finally:
        sim.kill()


@pytest.mark.parametrize("machine, name", [
    ("Raspberry Pi Pico with RP2040", "pinmap-rp2-pico.json"),
    ("Raspberry Pi Pico W with RP2040", "pinmap-rp2-pico.json"),
    ("Raspberry Pi Pico2 with RP2350", "pinmap-rp2-pico2.json"),  # MicroPython's RPI_PICO2
    ("Raspberry Pi Pico 2 W with RP2350", "pinmap-rp2-pico2.json"),
    ("Raspberry Pi Pico2 with RP2350-RISCV", "pinmap-rp2-pico2.json"),  # its RISCV variant
    ("Generic ESP32S3 module with ESP32S3", "pinmap-rp2-pico.json"),  # then refused: esp32
    ("", "pinmap-rp2-pico.json"),
    (None, "pinmap-rp2-pico.json"),  # what a board said is any value: never a TypeError
    (2350, "pinmap-rp2-pico.json"),
])
def test_without_a_pin_map_vora_flash_takes_the_one_for_what_the_board_says(machine, name):
    assert pinmap_for(machine) == name
    assert name in resources.SHIPPED  # the package carries it


def test_flash_without_a_pin_map_gives_a_pico_2_its_own(tmp_path, monkeypatch):
    # MicroPython for a Pico 2 says "Raspberry Pi Pico2 with RP2350" (sys.implementation.
    # _machine); the virtual board says a Pico's, so that one answer is changed on the way.
    # The rest is real: the map chosen is the one installed as /pinmap.json, from which a
    # board's firmware names itself to the PC (vora_fw.start; the virtual board names itself
    # from its own --pinmap).
    from vora_host.maker import flash as flash_module
    monkeypatch.setattr(flash_module, "IDENTITY_EXPR", flash_module.IDENTITY_EXPR.replace(
        "getattr(_i, '_machine', '')", "'Raspberry Pi Pico2 with RP2350'"))
    assert "RP2350" in flash_module.IDENTITY_EXPR
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash))
    out = io.StringIO()
    try:
        flash_module.Flasher(sim.path, None, console=Console(file=out, width=200),
                             progress=False).run()
        words = " ".join(out.getvalue().split())
        assert "(Raspberry Pi Pico2 with RP2350)" in words
        assert "The pin map: pinmap-rp2-pico2.json, for a Raspberry Pi Pico 2 (RP2350)" in words
        assert json.loads((flash / "pinmap.json").read_text()) == \
            json.loads((ROOT / "hardware" / "pinmap-rp2-pico2.json").read_text())
        assert record_of(flash) == dict(boot.empty_record(), slot="a")  # and it confirmed
    finally:
        sim.kill()


def test_the_wrong_kind_of_board_is_refused_before_anything_is_written(tmp_path):
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash))
    try:
        before = snapshot(flash)
        done = vora("flash", sim.path, "--no-progress", "--pinmap",
                    str(ROOT / "hardware" / "pinmap-esp32-s3.json"))
        assert done.returncode == 1
        assert "wrong board" in done.stderr and "rp2" in done.stderr
        assert snapshot(flash) == before
    finally:
        sim.kill()


PICO = ("micropython", (1, 24, 1), 6 | 3 << 8 | 4 << 10, "rp2", "Raspberry Pi Pico",
        (4096, 4096, 212, 200, 200, 0, 0, 0, 0, 255))


@pytest.mark.parametrize("change, words", [
    ({1: (1, 19, 1), 2: 6 | 1 << 8 | 4 << 10}, "MicroPython 1.19.1 (.mpy v6.1)"),
    ({2: 5 | 4 << 10}, "needs MicroPython 1.23.0 or later"),
    ({0: "circuitpython"}, "runs circuitpython, not MicroPython"),
    ({3: "esp32"}, "wrong board: it runs MicroPython for esp32"),
])
def test_boards_that_cannot_take_the_firmware_are_named_clearly(change, words):
    ident = list(PICO)
    for i, v in change.items():
        ident[i] = v
    with pytest.raises(FlashFailed) as err:
        check_board(tuple(ident), {"port": "rp2"})
    assert words in str(err.value)
    assert check_board(PICO, {"port": "rp2"}) == ("armv6m", (6, 3), 200 * 4096)


def test_vora_update_bundle_writes_a_file_for_many_boards(tmp_path):
    out = tmp_path / "fw.vbundle"
    done = vora("update", "--bundle", str(out))
    assert done.returncode == 0, done.stderr
    assert "vora update --from" in done.stderr
    b = bundles.read_bundle(out)
    assert b.board == "rp2" and b.manifest["arch"] == "armv6m"
    done = vora("update", "--from", str(tmp_path / "missing.vbundle"), "--port", "x")
    assert done.returncode == 1 and "missing.vbundle" in done.stderr  # read before the board
    bad = tmp_path / "bad.vbundle"
    bad.write_bytes(b"PK\x03\x04 not ours")
    done = vora("update", "/dev/null", "--from", str(bad))
    assert done.returncode == 1 and "not a Vora Board firmware bundle" in done.stderr


class _QuietBoard:
    """The doctor's link to a board where nobody presses a key; `on_frame(payload)` sees
    every frame the doctor shows."""

    def __init__(self, on_frame):
        self.client = type("Client", (), {"set_mode": lambda self, mode: None, "keys": []})()
        self.on_frame = on_frame

    def drain(self, seconds):
        pass

    def send(self, kind, payload):
        self.on_frame(payload)

    def pump(self, seconds):
        time.sleep(seconds)


def test_enter_ends_the_doctors_key_test_at_once(tmp_path):
    """Issue 22: the key test said "then Enter", but Enter alone was taken for no answer
    and the doctor waited out its 60 s."""
    import io
    import os
    from vora_host.maker import doctor as doctor_mod
    read_end, write_end = os.pipe()
    key_test = doctor_mod._frame(lambda k: doctor_mod.DIM)

    def shown(frame):
        if bytes(frame) == bytes(key_test):
            os.write(write_end, b"\n")  # Enter, as the key test begins

    with os.fdopen(read_end) as typed:
        doctor = doctor_mod.Doctor("/dev/null", console=Console(file=io.StringIO()),
                                   colour_s=0.01, keys_s=300.0, interactive=True, stdin=typed)
        doctor.conn = _QuietBoard(shown)
        doctor.diag = lambda: {"keys_down": [], "ghosts_ignored": 0}
        start = time.monotonic()
        result = doctor.guided({"keys_down": [], "ghosts_ignored": 0})
        assert time.monotonic() - start < 60  # not the key test's 300 s
    os.close(write_end)
    assert len(result["keys_missing"]) == 49 and not result["ok"]


def _shown(sim, names, colour):
    """Wait until the doctor's key test shows every key of `names` as `colour` ("seen":
    green, "held": yellow) on the virtual board's pixels: what the doctor has taken in."""
    from vora_fw import layout
    end = time.monotonic() + 60
    while True:
        pixels = sim.cmd("frame")[0].split()
        shown = [bytes.fromhex(pixels[layout.key_index(n)]) for n in names]
        if all((r == 0 if colour == "seen" else r > 0) and g > 0 and b == 0 for r, g, b in shown):
            return
        assert time.monotonic() < end, "the doctor never showed %s %s: %s" % (
            " ".join(names), colour, [p.hex() for p in shown])
        time.sleep(0.05)


def _said(lines, needle, proc):
    """Wait for a line holding `needle` among what a program writes (read by a thread)."""
    end = time.monotonic() + 60
    while not any(needle in line for line in lines):
        assert proc.poll() is None, "it ended without %r: %s" % (needle, "".join(lines))
        assert time.monotonic() < end, "it never said %r: %s" % (needle, "".join(lines))
        time.sleep(0.05)


def test_the_doctor_finds_stuck_missing_and_ghosting_keys(tmp_path):
    import os
    import threading
    sim = SimProcess("--save-dir", str(tmp_path / "save"), "--ghosting")
    # The doctor at a terminal (a pty), as a maker runs it: Enter ends its key test when
    # the keys are done, rather than a time limit the presses must fit in.
    typist, typed = os.openpty()
    try:
        sim.cmd("down a1")  # stuck before the test begins
        out = tmp_path / "doctor.json"
        doctor = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "doctor", sim.path, "--colour-s", "0.05",
             "--keys-s", "60", "--json", str(out)], stdin=typed, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, cwd=str(ROOT))
        said = []
        reader = threading.Thread(target=lambda: said.extend(doctor.stderr), daemon=True)
        reader.start()
        try:
            _said(said, "Keys: press every key once", doctor)  # the colours are done
            for key in ("b2", "c3", "Sc", "cN"):
                sim.cmd("press %s" % key)
            # Three corners of a rectangle held together: a ghost at the fourth (no diodes).
            # Down in the same instant (one write): the scanner never sees one alone.
            sim.cmds("down d4", "down e4", "down d5")
            sim.cmd("wait 200")  # held a while, as fingers would
            sim.cmds("up d4", "up e4", "up d5")
            # Two keys down together (no rectangle): reported, and named.
            sim.cmd("down b3")
            _shown(sim, ["b3"], "held")
            sim.cmd("down c4")
            _shown(sim, ["b3", "c4"], "held")
            sim.cmds("up b3", "up c4")
            _shown(sim, ["b2", "c3", "Sc", "cN", "b3", "c4"], "seen")
            os.write(typist, b"\n")  # Enter: every key meant is pressed
            stdout = doctor.communicate(timeout=60)[0]
            reader.join(60)
            stderr = "".join(said)
        finally:
            if doctor.poll() is None:
                doctor.kill()
        assert doctor.returncode == 1, stderr  # not all well
        result = json.loads(out.read_text())
        assert result["firmware"] == "0.1.0" and result["protocol"] == "%d.%d" % (
            wire.PROTOCOL_VERSION, wire.PROTOCOL_MINOR)
        assert result["keys_stuck"] == ["a1"]
        assert {"b2", "c3", "Sc", "cN"} <= set(result["keys_pressed"])
        assert "a2" in result["keys_missing"] and "a1" not in result["keys_missing"]
        assert result["ghost_patterns_ignored"] >= 1  # the scanner saw the rectangle
        assert result["keys_ghosting"] == ["b3", "c4"]  # down together
        assert [c["colour"] for c in result["colours"]] == ["red", "green", "blue", "white"]
        white = result["colours"][-1]
        assert white["estimated_ma"] <= result["current_budget_ma"] and white["current_scale"] < 1
        assert "stuck keys" in stdout and "a1" in stdout and "missing keys" in stdout
    finally:
        sim.kill()
        os.close(typist)
        os.close(typed)

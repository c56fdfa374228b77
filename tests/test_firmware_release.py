"""`vora release`: the firmware of a release as a bundle file and as the folder that
mpremote alone installs; the folder, copied with stock mpremote onto a virtual board with
stock MicroPython, boots the firmware and confirms it."""

import json
import subprocess
import sys
import time

from vora_fw import boot
from vora_host import versions
from vora_host.maker import bundle as bundles
from vora_host.maker import release
from vora_host.maker import romfs

from test_sim import ROOT, SimProcess


def vora(*args, cwd=ROOT, timeout=300):
    return subprocess.run([sys.executable, "-m", "vora_host", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=str(cwd))


def test_one_command_writes_the_bundle_file_and_the_board_folder(tmp_path):
    done = vora("release", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    name = "vora-firmware-%s-rp2" % versions.FIRMWARE
    made = bundles.read_bundle(tmp_path / (name + ".vbundle"))
    assert made.id == bundles.build().id
    board = tmp_path / name / "board"
    written = sorted(p.relative_to(board).as_posix() for p in board.rglob("*") if p.is_file())
    pinmap = json.loads((ROOT / "hardware" / "pinmap-rp2-pico.json").read_text())
    expected = release.board_files(made, bundles.root_files(pinmap, "armv6m"))
    assert written == sorted(path for path, _ in expected)
    for path, data in expected:
        assert (board / path).read_bytes() == data, path
    assert [path for path, _ in expected][-1] == "main.py"  # last: a cut copy stays stock
    assert boot.decode_record((board / "boot.json").read_bytes()) == dict(
        boot.empty_record(), trial="a")
    text = (tmp_path / name / "INSTALL.txt").read_text()
    assert "mpremote connect PORT cp -r fw : + " in text and "--allow-unsigned" in text
    # The ROMFS form: the image, and the same files without the slot's modules.
    romfs_board = tmp_path / name / "romfs" / "board"
    written = sorted(p.relative_to(romfs_board).as_posix() for p in romfs_board.rglob("*")
                     if p.is_file())
    assert written == sorted(["fw/a/manifest.json", "vora_boot.mpy", "pinmap.json",
                              "boot.json", "main.py"])
    assert (tmp_path / name / "romfs" / "firmware.romfs").read_bytes() == \
        romfs.build_image(made)
    assert "romfs deploy ../firmware.romfs + cp -r fw : + " in text
    # Never over an earlier release.
    again = vora("release", "--out", str(tmp_path))
    assert again.returncode == 1 and "exists already" in again.stderr


def test_mpremote_alone_installs_the_folder_on_a_stock_board(tmp_path):
    out = tmp_path / "out"
    b, _, folder = release.write_release(out)
    command = (folder / "INSTALL.txt").read_text().split("mpremote connect PORT ", 1)[1]
    command = command.splitlines()[0].split()
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash), "--seed", "5")
    try:
        assert not (flash / "main.py").exists()  # stock MicroPython: its REPL
        done = subprocess.run([sys.executable, "-m", "mpremote", "connect", sim.path, *command],
                              capture_output=True, text=True, timeout=120,
                              cwd=str(folder / "board"))
        assert done.returncode == 0, done.stdout + done.stderr
        doctor = vora("doctor", sim.path, "--info", "--json", "-", timeout=60)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        said = json.loads(doctor.stdout)
        assert said["firmware"] == b.version == versions.FIRMWARE
        assert said["versions_ok"] is True and "the same firmware" in said["versions"]
        # Tried at its first start, it confirms itself once it has run CONFIRM_MS.
        deadline = time.monotonic() + boot.CONFIRM_MS / 1000 + 60
        while True:
            record = boot.read_record(boot.Fs(), str(flash))
            if record["slot"] == "a" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert record == dict(boot.empty_record(), slot="a"), record
    finally:
        sim.proc.kill()


def test_mpremote_alone_installs_the_romfs_form_on_a_board_with_a_partition(tmp_path):
    out = tmp_path / "out"
    b, _, folder = release.write_release(out)
    text = (folder / "INSTALL.txt").read_text()
    command = text.split("cd %s/romfs/board" % folder.name, 1)[1]
    command = command.split("mpremote connect PORT ", 1)[1].splitlines()[0].split()
    flash = tmp_path / "flash"
    sim = SimProcess("--flash", str(flash), "--romfs-size", "256")
    try:
        done = subprocess.run([sys.executable, "-m", "mpremote", "connect", sim.path, *command],
                              capture_output=True, text=True, timeout=120,
                              cwd=str(folder / "romfs" / "board"))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "ROMFS image deployed" in done.stdout
        image = (folder / "romfs" / "firmware.romfs").read_bytes()
        assert (tmp_path / "flash.romfs").read_bytes()[:len(image)] == image
        doctor = vora("doctor", sim.path, "--info", "--json", "-", timeout=60)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        assert json.loads(doctor.stdout)["firmware"] == b.version
        assert not (flash / "fw" / "a" / "vora_fw").exists()  # the code is in the image
    finally:
        sim.proc.kill()


def test_a_signed_release_for_esp32_boards(tmp_path):
    from vora_host.maker import signing
    public, _ = signing.new_key(tmp_path / "ada.key", "ada")
    b, bundle_file, folder = release.write_release(tmp_path / "out", board="esp32",
                                                   sign=tmp_path / "ada.key")
    assert bundle_file.name == "vora-firmware-%s-esp32.vbundle" % versions.FIRMWARE
    read = bundles.read_bundle(bundle_file)
    assert read.signer == public and read.manifest["arch"] == "xtensawin"
    text = (folder / "INSTALL.txt").read_text()
    assert "--allow-unsigned" not in text and "vora flash --port PORT --pinmap esp32-s3" in text
    shipped = json.loads((ROOT / "hardware" / "pinmap-esp32-s3.json").read_text())
    assert json.loads((folder / "board" / "pinmap.json").read_text()) == shipped

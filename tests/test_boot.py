"""The board's boot path (firmware/vora_fw/boot.py, /vora_boot.mpy on the board): the boot
record survives a power cut at any step, a new version is tried once and then confirmed or
reverted, safe mode reads the corner keys with nothing but machine.Pin, and main() starts
the slot's firmware or leaves the REPL free."""

import json
import sys
import types
from pathlib import Path

import pytest

from vora_fw import boot
from vora_fw.pixels import wired_cell
from test_keyscan import fake_rp2, pico_pinmap  # noqa: F401  (a fixture and its helper)

ROOT = Path(__file__).resolve().parents[1]


class PowerCut(Exception):
    pass


class CutFs(boot.Fs):
    """The real filesystem under a tmp folder, with the power cut before mutating step N
    (opening for writing, each write, rename, remove, mkdir, rmdir). What was written before
    the cut stays, as on a board's flash after a cut mid-file."""

    def __init__(self, cut_at=None):
        super().__init__()
        self.cut_at = cut_at
        self.steps = 0
        real_open = open
        fs = self

        class File:
            def __init__(self, f):
                self.f = f

            def write(self, data):
                fs.step()
                return self.f.write(data)

            def __getattr__(self, name):
                return getattr(self.f, name)

            def __enter__(self):
                return self

            def __exit__(self, *a):
                self.f.close()

        def opener(path, mode="r"):
            if "w" in mode or "a" in mode:
                self.step()
                return File(real_open(path, mode))
            return real_open(path, mode)

        self.open = opener
        for name in ("rename", "remove", "mkdir", "rmdir"):
            setattr(self, name, self._cutting(getattr(self, name)))

    def _cutting(self, fn):
        def run(*args):
            self.step()
            return fn(*args)
        return run

    def step(self):
        if self.cut_at is not None and self.steps >= self.cut_at:
            raise PowerCut()
        self.steps += 1


def record(**changes):
    rec = boot.empty_record()
    rec.update(changes)
    return rec


@pytest.fixture
def root(tmp_path):
    return str(tmp_path)


# ---------------------------------------------------------------- the record

def test_a_record_round_trips_and_anything_else_is_not_one():
    rec = record(slot="a", trial="b", tries=1, prev=None, reverted=None)
    data = boot.encode_record(rec)
    assert data.startswith(b"VBOOT1 ") and data.endswith(b"\n")
    assert boot.decode_record(data) == rec
    assert boot.decode_record(data[:-1]) is None  # torn: no newline
    assert boot.decode_record(data.replace(b'"a"', b'"b"')) is None  # CRC
    assert boot.decode_record(b"VBOOT1 00000000 {}\n") is None
    for bad in ({"slot": "c"}, {"slot": "a", "trial": "a"}, {"tries": -1}, {"tries": True}, []):
        with pytest.raises(ValueError):
            boot.check_record(bad)
    assert boot.decode_record(b"\xff" * 40 + b"\n") is None
    assert boot.decode_record(b"x" * 600 + b"\n") is None


def test_no_record_means_no_firmware_and_a_whole_new_record_counts(root):
    fs = boot.Fs()
    assert boot.decide(fs, root) == (None, boot.MODE_NONE, None)
    # A first record cut after writing boot.new but before its rename is taken.
    Path(root, boot.RECORD_NEW).write_bytes(boot.encode_record(record(slot="a")))
    assert boot.decide(fs, root)[:2] == ("a", boot.MODE_CONFIRMED)


def test_a_trial_is_tried_once_then_confirmed(root):
    fs = boot.Fs()
    boot.write_record(fs, root, record(slot="a"))
    assert boot.staging_slot(boot.read_record(fs, root)) == "b"
    boot.switch(fs, root, "b")
    assert boot.staging_slot(boot.read_record(fs, root)) is None  # no second update meanwhile
    slot, mode, rec = boot.decide(fs, root)
    assert (slot, mode) == ("b", boot.MODE_TRIAL)
    assert boot.read_record(fs, root)["tries"] == 1  # counted before the new version runs
    b = boot.Boot(fs, root, slot, mode, rec)
    assert b.confirm() and b.mode == boot.MODE_CONFIRMED
    assert boot.read_record(fs, root) == record(slot="b", prev="a")
    assert boot.decide(fs, root)[:2] == ("b", boot.MODE_CONFIRMED)
    assert not b.confirm()  # nothing left to confirm


def test_a_trial_that_never_confirms_is_reverted_at_the_next_boot(root):
    fs = boot.Fs()
    boot.write_record(fs, root, record(slot="a"))
    boot.switch(fs, root, "b")
    assert boot.decide(fs, root)[:2] == ("b", boot.MODE_TRIAL)
    # ... it crashed, hung until unplugged, or the power went: no confirm.
    slot, mode, rec = boot.decide(fs, root)
    assert (slot, mode) == ("a", boot.MODE_REVERTED) and rec["reverted"] == "b"
    assert boot.decide(fs, root)[:2] == ("a", boot.MODE_CONFIRMED)
    assert boot.confirm(fs, root, "b") is False  # a late confirm cannot bring it back


def test_a_first_install_that_fails_its_trial_leaves_no_firmware(root):
    fs = boot.Fs()
    boot.write_record(fs, root, record(trial="a"))  # what vora flash writes
    assert boot.decide(fs, root)[:2] == ("a", boot.MODE_TRIAL)
    assert boot.decide(fs, root)[:2] == (None, boot.MODE_REVERTED)
    assert boot.decide(fs, root)[:2] == (None, boot.MODE_NONE)


def test_switching_to_the_running_slot_is_refused(root):
    fs = boot.Fs()
    boot.write_record(fs, root, record(slot="a"))
    with pytest.raises(ValueError):
        boot.switch(fs, root, "a")
    with pytest.raises(ValueError):
        boot.switch(fs, root, "../x")


def test_a_power_cut_at_any_step_of_a_record_write_leaves_the_old_or_the_new(root):
    old = record(slot="a")
    new = record(slot="a", trial="b")
    boot.write_record(boot.Fs(), root, old)
    steps = CutFs()
    boot.write_record(steps, root, new)
    total = steps.steps
    assert total >= 3
    for cut in range(total + 1):
        boot.write_record(boot.Fs(), root, old)
        Path(root, boot.RECORD_NEW).unlink(missing_ok=True)
        try:
            boot.write_record(CutFs(cut), root, new)
        except PowerCut:
            pass
        assert boot.read_record(boot.Fs(), root) in (old, new), cut


def test_a_filesystem_whose_rename_does_not_replace_still_gets_the_record(root):
    class Fat(boot.Fs):
        def __init__(self):
            super().__init__()
            import os

            def rename(a, b):
                if os.path.exists(b):
                    raise OSError(17, "exists")
                os.rename(a, b)
            self.rename = rename

    fs = Fat()
    boot.write_record(fs, root, record(slot="a"))
    boot.write_record(fs, root, record(slot="a", trial="b"))
    assert boot.read_record(fs, root)["trial"] == "b"


def test_manifest_version_reads_only_a_sane_version(root):
    fs = boot.Fs()
    d = Path(root, "fw", "a")
    d.mkdir(parents=True)
    assert boot.manifest_version(fs, root, "a") == ""
    (d / "manifest.json").write_text(json.dumps({"firmware": "0.2.0"}))
    assert boot.manifest_version(fs, root, "a") == "0.2.0"
    (d / "manifest.json").write_text("not json")
    assert boot.manifest_version(fs, root, "a") == ""


# ---------------------------------------------------------------- safe mode and main()

@pytest.mark.parametrize("wiring", ["col2row", "row2col"])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_safe_mode_reads_each_corner_with_machine_pin_only(fake_rp2, wiring, rotation):  # noqa: F811
    pinmap = pico_pinmap(diode_direction=wiring, rotation=rotation)
    _, matrix = fake_rp2(pinmap)
    assert boot.corner_held(pinmap) is False
    for corner in ((0, 0), (6, 0), (0, 6), (6, 6)):
        matrix.closed = {wired_cell(corner[0], corner[1], rotation)}
        assert boot.corner_held(pinmap) is True, corner
    matrix.closed = {wired_cell(3, 3, rotation), wired_cell(1, 0, rotation)}  # not corners
    assert boot.corner_held(pinmap) is False
    assert matrix.low_lines() == []  # every line released


def _board_root(tmp_path):
    (tmp_path / "pinmap.json").write_text(json.dumps(pico_pinmap()))
    return tmp_path


def test_main_in_safe_mode_runs_nothing_from_the_slots(fake_rp2, tmp_path, capsys, monkeypatch):  # noqa: F811
    root = _board_root(tmp_path)
    boot.write_record(boot.Fs(), str(root), record(slot="a"))
    _, matrix = fake_rp2(pico_pinmap())
    matrix.closed.add((6, 6))
    monkeypatch.setitem(sys.modules, "vora_fw.start", None)  # importing it would fail
    assert boot.main(str(root), str(root / "pinmap.json"), str(root / "save")) == "safe"
    assert "safe mode" in capsys.readouterr().out
    assert boot.read_record(boot.Fs(), str(root)) == record(slot="a")  # untouched


def test_main_without_firmware_leaves_the_repl_free(fake_rp2, tmp_path, capsys):  # noqa: F811
    root = _board_root(tmp_path)
    fake_rp2(pico_pinmap())
    assert boot.main(str(root), str(root / "pinmap.json")) == "none"
    assert "no firmware" in capsys.readouterr().out


def test_main_starts_the_slot_and_a_failing_trial_resets_the_board(fake_rp2, tmp_path,
                                                                   monkeypatch):  # noqa: F811
    root = _board_root(tmp_path)
    fake_rp2(pico_pinmap())
    fs = boot.Fs()
    boot.write_record(fs, str(root), record(slot="a"))
    from vora_fw import start
    seen = []
    monkeypatch.setattr(start, "run", lambda pinmap, b, save: seen.append(
        (b.slot, b.mode, b.identity["micropython"], save)) or "repl")
    path_before = list(sys.path)
    try:
        assert boot.main(str(root), str(root / "pinmap.json"), "/save") == "repl"
        assert sys.path[0] == str(root) + "/fw/a"  # the slot's modules come first
    finally:
        sys.path[:] = path_before
    assert seen == [("a", "confirmed", boot.identity()["micropython"], "/save")]

    boot.switch(fs, str(root), "b")
    resets = []
    machine = sys.modules["machine"]
    monkeypatch.setattr(machine, "reset", lambda: resets.append(1), raising=False)

    def broken(pinmap, b, save):
        raise ImportError("no module named 'vora_fw.app'")

    monkeypatch.setattr(start, "run", broken)
    try:
        with pytest.raises(ImportError):
            boot.main(str(root), str(root / "pinmap.json"))
    finally:
        sys.path[:] = path_before
    assert resets == [1]
    assert boot.decide(fs, str(root))[:2] == ("a", boot.MODE_REVERTED)


def test_main_py_only_hands_over_to_vora_boot(monkeypatch):
    import runpy
    called = []
    fake = types.ModuleType("vora_boot")
    fake.main = lambda: called.append(1)
    monkeypatch.setitem(sys.modules, "vora_boot", fake)
    runpy.run_path(str(ROOT / "firmware" / "main.py"), run_name="__main__")
    assert called == [1]


def test_identity_decodes_the_mpy_word(monkeypatch):
    impl = types.SimpleNamespace(name="micropython", version=(1, 24, 1, ""),
                                 _mpy=6 | 3 << 8 | 4 << 10)
    monkeypatch.setattr(sys, "implementation", impl)
    monkeypatch.setattr(sys, "platform", "rp2")
    assert boot.identity() == {"micropython": "1.24.1", "mpy": 6, "mpy_sub": 3,
                               "arch": "armv6m", "platform": "rp2"}

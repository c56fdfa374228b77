"""vora_fw.store: the saved game survives a power cut at any instant.

The heart of it is FaultFS, an in-memory filesystem that simulates a power cut: it counts
primitive write steps (create/truncate, every chunk of a write, flush, close, rename, remove,
mkdir, sync) and after N of them every further operation raises PowerCut, while the "disk"
keeps exactly what had been written, a half-written file included. Writes are cut into small
chunks so a cut can land inside the header or the payload. For EVERY N from 0 to the number of
steps of a whole save, a save of a new game over an old one is cut, the board "reboots" (a new
Store on the same disk) and load() must give exactly the old text or the new text.
"""

import binascii
import errno
import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "firmware"))

from vora_fw import store as store_mod  # noqa: E402
from vora_fw.store import Store  # noqa: E402

DIR = "/save"


class PowerCut(Exception):
    """The board lost power: nothing after this point happens."""


class Disk:
    """What the flash holds: files (path -> bytes) and directories. Survives reboots."""

    def __init__(self):
        self.files = {}
        self.dirs = {"/"}

    def copy(self):
        other = Disk()
        other.files = dict(self.files)
        other.dirs = set(self.dirs)
        return other


def _parent(path):
    return path.rsplit("/", 1)[0] or "/"


class _Reader:
    def __init__(self, fs, data):
        self.fs, self.data, self.pos = fs, data, 0

    def readline(self, limit=-1):
        self.fs.check()
        end = self.data.find(b"\n", self.pos)
        end = len(self.data) if end < 0 else end + 1
        if limit is not None and limit >= 0:
            end = min(end, self.pos + limit)
        out, self.pos = self.data[self.pos:end], end
        return out

    def read(self, n=-1):
        self.fs.check()
        end = len(self.data) if n is None or n < 0 else min(len(self.data), self.pos + n)
        out, self.pos = self.data[self.pos:end], end
        return out

    def readinto(self, buf):
        got = self.read(len(buf))
        buf[:len(got)] = got
        return len(got)

    def seek(self, pos):
        self.fs.check()
        self.pos = pos
        return pos

    def tell(self):
        return self.pos

    def close(self):
        self.fs.open_files.discard(self)


class _Writer:
    def __init__(self, fs, path):
        self.fs, self.path = fs, path

    def write(self, buf):
        buf = bytes(buf)
        chunk = self.fs.chunk
        for i in range(0, len(buf), chunk):
            piece = buf[i:i + chunk]
            if self.fs.capacity is not None and self.fs.used() + len(piece) > self.fs.capacity:
                raise self.fs._oserror(errno.ENOSPC, self.path)  # the flash is full
            try:
                self.fs.step()
            except PowerCut:
                if self.fs.junk_on_cut:
                    # The file's size reached the disk but its data did not (FAT can do
                    # this): the torn chunk reads back as erased flash.
                    self.fs.disk.files[self.path] += b"\xff" * len(piece)
                raise
            self.fs.disk.files[self.path] += piece
        return len(buf)

    def flush(self):
        self.fs.step()

    def close(self):
        self.fs.step()
        self.fs.open_files.discard(self)


class FaultFS:
    """The `fs` of a Store: in memory, with a power cut after `budget` write steps.

    rename_replaces: True like littlefs/POSIX (rename onto an existing name replaces it
    atomically); False like FAT (rename onto an existing name fails with EEXIST).
    capacity: bytes the flash holds in all files (None: no limit); a write past it raises
    OSError(ENOSPC) and writes nothing of that chunk.
    """

    def __init__(self, disk, budget=None, rename_replaces=True, chunk=7, junk_on_cut=False,
                 capacity=None):
        self.disk = disk
        self.capacity = capacity
        self.budget = budget
        self.rename_replaces = rename_replaces
        self.chunk = chunk
        self.junk_on_cut = junk_on_cut
        self.steps = 0
        self.cut = False
        self.open_files = set()
        self.log = []

    def check(self):
        if self.cut:
            raise PowerCut()

    def used(self):
        return sum(len(data) for data in self.disk.files.values())

    def step(self):
        self.check()
        if self.budget is not None and self.steps >= self.budget:
            self.cut = True
            raise PowerCut()
        self.steps += 1

    def _oserror(self, code, path):
        return OSError(code, os.strerror(code), path)

    def open(self, path, mode="r"):
        self.check()
        if "w" in mode:
            if _parent(path) not in self.disk.dirs:
                raise self._oserror(errno.ENOENT, path)
            self.step()
            self.log.append(("open", path))
            self.disk.files[path] = b""
            f = _Writer(self, path)
        else:
            assert "b" in mode, "the store reads bytes"
            if path not in self.disk.files:
                raise self._oserror(errno.ENOENT, path)
            f = _Reader(self, self.disk.files[path])
        self.open_files.add(f)
        return f

    def rename(self, src, dst):
        self.step()
        self.log.append(("rename", src, dst))
        if src not in self.disk.files:
            raise self._oserror(errno.ENOENT, src)
        if dst in self.disk.files and not self.rename_replaces:
            raise self._oserror(errno.EEXIST, dst)
        self.disk.files[dst] = self.disk.files.pop(src)

    def remove(self, path):
        self.step()
        self.log.append(("remove", path))
        if path not in self.disk.files:
            raise self._oserror(errno.ENOENT, path)
        del self.disk.files[path]

    def stat(self, path):
        self.check()
        if path in self.disk.files:
            return (0o100644, 0, 0, 1, 0, 0, len(self.disk.files[path]), 0, 0, 0)
        if path in self.disk.dirs:
            return (0o040755, 0, 0, 2, 0, 0, 0, 0, 0, 0)
        raise self._oserror(errno.ENOENT, path)

    def listdir(self, path):
        self.check()
        prefix = path.rstrip("/") + "/"
        return sorted(p[len(prefix):] for p in self.disk.files if p.startswith(prefix))

    def mkdir(self, path):
        self.step()
        self.log.append(("mkdir", path))
        if path in self.disk.dirs or path in self.disk.files:
            raise self._oserror(errno.EEXIST, path)
        if _parent(path) not in self.disk.dirs:
            raise self._oserror(errno.ENOENT, path)
        self.disk.dirs.add(path)

    def sync(self):
        self.step()


def game_text(moves, pad):
    """About 1 KB of rules-engine-like JSON; non-ASCII so characters != bytes."""
    return json.dumps({"game": "vora", "seed": 7, "moves": moves,
                       "note": "Säule über der Wiese " * pad, "over": False},
                      ensure_ascii=False, separators=(",", ":"))


OLD_TEXT = game_text(["a1", "push pig W2", "b3"], 40)
NEW_TEXT = game_text(["a1", "push pig W2", "b3", "c4"], 41)
NEXT_TEXT = game_text(["a1", "push pig W2", "b3", "c4", "Sc"], 39)

FS_KINDS = [pytest.param(True, id="rename-replaces"), pytest.param(False, id="rename-refuses")]


def disk_with(text, rename_replaces, chunk=7):
    disk = Disk()
    Store(DIR, FaultFS(disk, rename_replaces=rename_replaces, chunk=chunk)).save(text)
    return disk


def full_steps(disk, text, rename_replaces, chunk=7):
    """Write steps of one uninterrupted save of `text` on (a copy of) `disk`."""
    fs = FaultFS(disk.copy(), rename_replaces=rename_replaces, chunk=chunk)
    Store(DIR, fs).save(text)
    return fs.steps


def cut_save(disk, text, budget, rename_replaces, chunk=7, junk_on_cut=False):
    """Save `text` with a power cut after `budget` steps; True when the save completed."""
    fs = FaultFS(disk, budget, rename_replaces, chunk, junk_on_cut)
    try:
        Store(DIR, fs).save(text)
    except PowerCut:
        return False
    assert not fs.open_files, "a completed save leaves no file open"
    return True


def reboot_load(disk, rename_replaces=True):
    return Store(DIR, FaultFS(disk, rename_replaces=rename_replaces)).load()


def files(disk):
    return sorted(p.rsplit("/", 1)[1] for p in disk.files)


# ---- the power-cut sweep ------------------------------------------------------------------


@pytest.mark.parametrize("junk_on_cut", [False, True], ids=["torn", "junk"])
@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_cut_at_every_step_of_a_save_keeps_old_or_new(rename_replaces, junk_on_cut):
    base = disk_with(OLD_TEXT, rename_replaces)
    total = full_steps(base, NEW_TEXT, rename_replaces)
    # header + payload in 7-byte chunks, plus open/flush/close/sync/rename...
    assert total > len(NEW_TEXT.encode()) // 7
    seen = set()
    for n in range(total + 1):
        disk = base.copy()
        done = cut_save(disk, NEW_TEXT, n, rename_replaces, junk_on_cut=junk_on_cut)
        assert done == (n == total), n
        got = reboot_load(disk, rename_replaces)
        assert got in (OLD_TEXT, NEW_TEXT), f"cut after {n} of {total} steps loaded {got!r:.80}"
        seen.add(got)
        if n == 0:
            assert got == OLD_TEXT
        if n == total:
            assert got == NEW_TEXT and files(disk) == ["game.json"]
        # load() tidied: one file holds what it returned, and it keeps returning it.
        assert files(disk) == ["game.json"]
        assert reboot_load(disk, rename_replaces) == got
    assert seen == {OLD_TEXT, NEW_TEXT}


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_fallback_path_is_taken_only_where_rename_refuses(rename_replaces):
    disk = disk_with(OLD_TEXT, rename_replaces)
    fs = FaultFS(disk, rename_replaces=rename_replaces)
    Store(DIR, fs).save(NEW_TEXT)
    renames = [entry[1:] for entry in fs.log if entry[0] == "rename"]
    j, n, o = DIR + "/game.json", DIR + "/game.new", DIR + "/game.old"
    if rename_replaces:
        assert renames == [(n, j)]
    else:
        assert renames == [(n, j), (j, o), (n, j)]
    assert files(disk) == ["game.json"]


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_cut_first_save_gives_nothing_or_the_game(rename_replaces):
    total = full_steps(Disk(), NEW_TEXT, rename_replaces)
    for n in range(total + 1):
        disk = Disk()
        cut_save(disk, NEW_TEXT, n, rename_replaces)
        got = reboot_load(disk, rename_replaces)
        assert got in (None, NEW_TEXT), n
        if n == total:
            assert got == NEW_TEXT


def _states_after_one_cut(rename_replaces, chunk):
    """Every disk a cut save of NEW over OLD can leave (not tidied by a load)."""
    base = disk_with(OLD_TEXT, rename_replaces, chunk)
    total = full_steps(base, NEW_TEXT, rename_replaces, chunk)
    for n in range(total + 1):
        disk = base.copy()
        cut_save(disk, NEW_TEXT, n, rename_replaces, chunk)
        yield n, disk


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_cut_save_over_the_leftovers_of_a_cut_save(rename_replaces):
    # Leftovers of the first cut (game.new, game.old) are NOT tidied by a load in between,
    # so the second save has to cope with them itself.
    chunk = 97
    checked = 0
    for n1, disk1 in _states_after_one_cut(rename_replaces, chunk):
        before = reboot_load(disk1.copy(), rename_replaces)
        assert before in (OLD_TEXT, NEW_TEXT)
        total = full_steps(disk1, NEXT_TEXT, rename_replaces, chunk)
        for n2 in range(total + 1):
            disk = disk1.copy()
            cut_save(disk, NEXT_TEXT, n2, rename_replaces, chunk)
            got = reboot_load(disk, rename_replaces)
            assert got in (before, NEXT_TEXT), (n1, n2)
            if n2 == total:
                assert got == NEXT_TEXT
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_cut_while_load_tidies_changes_nothing(rename_replaces):
    for n, disk0 in _states_after_one_cut(rename_replaces, 7):
        want = reboot_load(disk0.copy(), rename_replaces)
        probe = FaultFS(disk0.copy(), rename_replaces=rename_replaces)
        Store(DIR, probe).load()
        for m in range(probe.steps + 1):
            disk = disk0.copy()
            try:
                Store(DIR, FaultFS(disk, m, rename_replaces)).load()
            except PowerCut:
                pass
            assert reboot_load(disk, rename_replaces) == want, (n, m)


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_cut_while_clearing_gives_the_game_or_nothing(rename_replaces):
    for n, disk0 in _states_after_one_cut(rename_replaces, 7):
        before = reboot_load(disk0.copy(), rename_replaces)
        probe = FaultFS(disk0.copy(), rename_replaces=rename_replaces)
        Store(DIR, probe).clear()
        for m in range(probe.steps + 1):
            disk = disk0.copy()
            try:
                Store(DIR, FaultFS(disk, m, rename_replaces)).clear()
            except PowerCut:
                pass
            got = reboot_load(disk, rename_replaces)
            assert got in (before, None), (n, m)
            if m == probe.steps:
                assert got is None and disk.files == {}


# ---- corrupt files ------------------------------------------------------------------------


def _file_bytes(text):
    data = text.encode("utf-8")
    return b"VSAVE1 %d %08x\n" % (len(data), binascii.crc32(data)) + data


def _corruptions():
    good = _file_bytes(NEW_TEXT)
    nl = good.index(b"\n")
    flipped = bytearray(good)
    flipped[nl + 100] ^= 0x20
    bad_utf8 = b"\xff\xfe" + NEW_TEXT.encode()
    return {
        "flipped payload byte": bytes(flipped),
        "truncated payload": good[:-5],
        "extra bytes": good + b"x",
        "truncated header": good[:nl - 3],
        "header without payload": good[:nl + 1],
        "empty": b"",
        "wrong checksum": good[:nl - 8] + b"%08x" % (binascii.crc32(good[nl + 1:]) ^ 1)
        + good[nl:],
        "bad magic": b"VSAVE9" + good[6:],
        "negative length": b"VSAVE1 -5 00000000\n",
        "huge length": b"VSAVE1 99999999999 00000000\n" + good[nl + 1:],
        "no newline at all": b"x" * 5000,
        "erased flash": b"\xff" * 1200,
        "checksum ok but not UTF-8": b"VSAVE1 %d %08x\n" % (len(bad_utf8), binascii.crc32(bad_utf8))
        + bad_utf8,
    }


CORRUPTIONS = _corruptions()


def test_the_file_format_is_what_the_corruptions_assume():
    disk = disk_with(NEW_TEXT, True)
    assert disk.files[DIR + "/game.json"] == _file_bytes(NEW_TEXT)


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupt_game_json_falls_back_to_game_old(name):
    disk = disk_with(OLD_TEXT, True)
    disk.files[DIR + "/game.old"] = disk.files[DIR + "/game.json"]
    disk.files[DIR + "/game.json"] = CORRUPTIONS[name]
    store = Store(DIR, FaultFS(disk))
    assert store.exists()
    assert store.load() == OLD_TEXT
    assert files(disk) == ["game.json"] and reboot_load(disk) == OLD_TEXT


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupt_only_file_loads_nothing_and_never_raises(name):
    disk = Disk()
    disk.dirs.add(DIR)
    for leaf in ("game.json", "game.old", "game.new"):
        disk.files[DIR + "/" + leaf] = CORRUPTIONS[name]
    store = Store(DIR, FaultFS(disk))
    assert not store.exists()
    assert store.load() is None
    # A new save still works over the wreckage, on both kinds of filesystem.
    for replaces in (True, False):
        d = disk.copy()
        Store(DIR, FaultFS(d, rename_replaces=replaces)).save(NEW_TEXT)
        assert reboot_load(d, replaces) == NEW_TEXT and files(d) == ["game.json"]


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_a_save_file_that_holds_no_save_is_named_not_dropped_silently(name):
    """Issue 22: load() gave None for a torn or damaged save as for no save at all, so the
    board started afresh without a word; `last_error` says which file it dropped."""
    disk = Disk()
    disk.dirs.add(DIR)
    disk.files[DIR + "/game.json"] = CORRUPTIONS[name]
    store = Store(DIR, FaultFS(disk))
    assert store.load() is None
    assert store.last_error.startswith(DIR + "/game.json is not a whole save")
    disk.files[DIR + "/game.old"] = _file_bytes(OLD_TEXT)  # a save to fall back on
    assert store.load() == OLD_TEXT
    store.clear()
    assert store.load() is None and store.last_error is None  # no file: nothing dropped


def test_a_valid_game_new_is_used_only_when_nothing_else_is_valid():
    disk = Disk()
    disk.dirs.add(DIR)
    disk.files[DIR + "/game.new"] = _file_bytes(NEW_TEXT)
    disk.files[DIR + "/game.json"] = CORRUPTIONS["truncated payload"]
    assert reboot_load(disk) == NEW_TEXT and files(disk) == ["game.json"]
    disk.files[DIR + "/game.new"] = _file_bytes(NEXT_TEXT)
    assert reboot_load(disk) == NEW_TEXT and files(disk) == ["game.json"]


# ---- the API ------------------------------------------------------------------------------


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_first_save_with_no_previous_file_creates_the_directory(rename_replaces):
    disk = Disk()
    store = Store(DIR, FaultFS(disk, rename_replaces=rename_replaces))
    assert not store.exists() and store.load() is None
    store.save(NEW_TEXT)
    assert DIR in disk.dirs and files(disk) == ["game.json"]
    assert store.exists() and store.load() == NEW_TEXT
    store.save(NEXT_TEXT)
    assert Store(DIR + "/", FaultFS(disk)).load() == NEXT_TEXT


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_clear_removes_the_save(rename_replaces):
    disk = disk_with(OLD_TEXT, rename_replaces)
    disk.files[DIR + "/game.old"] = disk.files[DIR + "/game.json"]
    disk.files[DIR + "/game.new"] = b"torn"
    store = Store(DIR, FaultFS(disk, rename_replaces=rename_replaces))
    assert store.exists()
    store.clear()
    assert disk.files == {} and not store.exists() and store.load() is None
    store.clear()  # clearing nothing is fine
    store.save(NEW_TEXT)
    assert reboot_load(disk) == NEW_TEXT


def test_save_does_not_swallow_real_errors():
    disk = Disk()
    disk.files["/save"] = b"a file where the directory should be"
    with pytest.raises(OSError):
        Store(DIR, FaultFS(disk)).save(NEW_TEXT)


def test_empty_and_unicode_text_round_trip():
    disk = Disk()
    store = Store(DIR, FaultFS(disk, rename_replaces=False))
    for text in ("", "{}", "ü" * 3000, OLD_TEXT):
        store.save(text)
        assert Store(DIR, FaultFS(disk)).load() == text


def test_real_directory_round_trip(tmp_path):
    directory = tmp_path / "save"
    store = Store(str(directory))
    assert not store.exists() and store.load() is None
    store.save(OLD_TEXT)
    store.save(NEW_TEXT)
    assert sorted(os.listdir(directory)) == ["game.json"]
    assert Store(str(directory)).load() == NEW_TEXT
    (directory / "game.new").write_bytes(b"VSAVE1 12")  # a leftover torn save
    assert Store(str(directory)).load() == NEW_TEXT
    assert sorted(os.listdir(directory)) == ["game.json"]
    store.clear()
    assert os.listdir(directory) == [] and Store(str(directory)).load() is None


class _RefusingOs:
    """The real os, but rename refuses an existing target the way FAT does."""

    def __init__(self):
        self.open = open
        self.remove, self.stat, self.listdir, self.mkdir = os.remove, os.stat, os.listdir, os.mkdir

    def rename(self, src, dst):
        if os.path.exists(dst):
            raise OSError(errno.EEXIST, "exists", dst)
        os.rename(src, dst)


def test_real_directory_with_a_rename_that_refuses(tmp_path):
    directory = str(tmp_path / "save")
    store = Store(directory, _RefusingOs())
    store.save(OLD_TEXT)
    store.save(NEW_TEXT)
    assert sorted(os.listdir(directory)) == ["game.json"]
    assert Store(directory).load() == NEW_TEXT


def test_real_directory_skips_unreadable_entries(tmp_path):
    directory = tmp_path / "save"
    Store(str(directory)).save(OLD_TEXT)
    os.rename(directory / "game.json", directory / "game.old")
    (directory / "game.json").mkdir()  # not even a file
    assert Store(str(directory)).load() == OLD_TEXT


def test_soft_crc32_matches_binascii():
    samples = [b"", b"a", b"123456789", bytes(range(256)) * 5, NEW_TEXT.encode()]
    for data in samples:
        assert store_mod._crc32_soft(data) == binascii.crc32(data)
    assert store_mod._crc32_soft(b"123456789") == 0xCBF43926


def test_soft_crc32_is_used_when_binascii_lacks_it(monkeypatch):
    from shared_rules import checks
    monkeypatch.setattr(checks, "_crc32_c", None)  # the store's CRC is the link's
    disk = Disk()
    Store(DIR, FaultFS(disk)).save(NEW_TEXT)
    monkeypatch.undo()
    assert reboot_load(disk) == NEW_TEXT  # both CRCs agree on the same file


def test_under_real_micropython(tmp_path):
    """The module runs on MicroPython's own os and files (the WebAssembly port)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mpy import run_micropython

    script = """
import sys
sys.path.insert(0, "/app/firmware")
from vora_fw.store import Store, crc32, _crc32_soft
s = Store("/save_test")
assert s.load() is None and not s.exists()
s.save("x" * 10)
text = '{"moves":["a1","b2"],"note":"\\u00fcber"}' * 30
s.save(text)
import os
assert sorted(os.listdir("/save_test")) == ["game.json"], os.listdir("/save_test")
assert Store("/save_test").load() == text
f = open("/save_test/game.json", "rb"); raw = f.read(); f.close()
f = open("/save_test/game.json", "wb"); f.write(raw[:-3]); f.close()
assert Store("/save_test").load() is None
assert crc32(b"123456789") == _crc32_soft(b"123456789") == 0xCBF43926
s.clear()
assert os.listdir("/save_test") == []
print("ok")
"""
    result = run_micropython(script, check=True)
    assert result.stdout.strip().endswith("ok")


# ---- issue 23, finding 10: the header takes only what save() writes ---------------------

@pytest.mark.parametrize("length, crc", [
    ("+{n}", "{crc}"), ("0_{n}", "{crc}"), ("{n}\t", "{crc}"), ("0_0_{n}", "{crc}"),
    ("{n}", "{CRC}"), ("{n}", "+{crc7}"), ("{n}", "0x{crc6}"), ("{n}", "{crc4}_{crc3}"),
], ids=repr)
def test_a_header_not_written_as_save_writes_it_is_not_a_save(length, crc):
    # Finding 10: the header was read with int(), which also takes "+5", "0_2", "5\t"
    # and, in base 16, "+", "0x", "_" and capitals: a file save() never wrote, with the
    # right length and checksum in another spelling, passed as a save.
    data = NEW_TEXT.encode("utf-8")
    value = "%08x" % binascii.crc32(data)
    # The payload is padded until its CRC starts with two zeros (so that "+", "0x" and "_"
    # can spell the same number in 8 characters) and holds a letter (to be capitalised).
    pad = 0
    while not value.startswith("00") or value.isdigit():
        pad += 1
        data = (NEW_TEXT + " " * pad).encode("utf-8")
        value = "%08x" % binascii.crc32(data)
    fields = {"n": str(len(data)), "crc": value, "CRC": value.upper(), "crc7": value[1:],
              "crc6": value[2:], "crc4": value[1:5], "crc3": value[5:]}
    head = "VSAVE1 %s %s\n" % (length.format(**fields), crc.format(**fields))
    assert int(head.split(" ")[1]) == len(data) and int(head.split(" ")[2], 16) == int(value, 16)
    disk = Disk()
    disk.dirs.add(DIR)
    disk.files[DIR + "/game.json"] = head.encode() + data
    store = Store(DIR, FaultFS(disk))
    assert store.load() is None
    assert store.last_error and "game.json" in store.last_error


def test_the_header_save_writes_still_loads_and_last_error_is_clear():
    disk = disk_with(NEW_TEXT, True)
    store = Store(DIR, FaultFS(disk))
    assert store.load() == NEW_TEXT and store.last_error is None


def test_last_error_says_why_a_save_was_skipped():
    for name, words in [("truncated payload", "cut short"), ("wrong checksum", "checksum fails"),
                        ("truncated header", "header is cut short"),
                        ("checksum ok but not UTF-8", "not UTF-8")]:
        disk = Disk()
        disk.dirs.add(DIR)
        disk.files[DIR + "/game.json"] = CORRUPTIONS[name]
        store = Store(DIR, FaultFS(disk))
        assert store.load() is None
        assert store.last_error.startswith(DIR + "/game.json is not a whole save: ")
        assert words in store.last_error, (name, store.last_error)


def test_set_aside_keeps_the_save_out_of_the_next_games_way(tmp_path):
    directory = tmp_path / "save"
    store = Store(str(directory))
    assert store.set_aside() is None  # nothing to keep
    store.save(OLD_TEXT)
    assert store.set_aside() == str(directory / "game.bad")
    assert store.load() is None
    store.save(NEW_TEXT)
    assert sorted(os.listdir(directory)) == ["game.bad", "game.json"]
    assert (directory / "game.bad").read_bytes() == _file_bytes(OLD_TEXT)
    assert store.set_aside() and (directory / "game.bad").read_bytes() == _file_bytes(NEW_TEXT)


def test_the_checks_of_a_save_under_real_micropython():
    """Finding 10 on MicroPython itself: the strict header, last_error, the replay check
    of parse_game and set_aside, on the WebAssembly port's own os and files."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mpy import run_micropython

    script = """
import sys, json, os
sys.path.insert(0, "/app/firmware")
from shared_rules import vora
from vora_fw.store import Store, crc32
from vora_fw.saved_game import BadSave, parse_game
st = vora.new_game(2, 5, seats="SN")
moves = []
for k in range(12):
    legal = st.legal_moves()
    m = legal[(k * 5) % len(legal)]
    st.play(m)
    moves.append(m)
def save_text(state):
    return '{"game_id":9,"seed":5,"start":null,"bots":"","moves":%s,"state":%s}' % (
        json.dumps(moves), state.to_json())
text = save_text(st)
assert parse_game(text)["moves"] == moves
further = vora.from_json(st.to_json())
further.play(further.legal_moves()[0])
try:
    parse_game(save_text(further))
    raise AssertionError("a save whose moves and state disagree was taken")
except BadSave as exc:
    assert "another state" in str(exc), str(exc)
s = Store("/save_mp")
s.save(text)
assert s.load() == text and s.last_error is None
data = text.encode()
f = open("/save_mp/game.json", "wb")
f.write(b"VSAVE1 +%d %08x\\n" % (len(data), crc32(data)) + data)
f.close()
assert Store("/save_mp").load() is None
t = Store("/save_mp")
t.exists()
assert "plain decimal digits" in t.last_error, t.last_error
s.save(text)
assert s.set_aside() == "/save_mp/game.bad" and s.load() is None
assert sorted(os.listdir("/save_mp")) == ["game.bad"], os.listdir("/save_mp")
print("ok")
"""
    result = run_micropython(script, check=True)
    assert result.stdout.strip().endswith("ok")

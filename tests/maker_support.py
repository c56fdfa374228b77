"""Helpers for the makers' tests (not a test file): bundles compiled once per session, a
flash folder with an installed version, the board's update driven in-process, and power
cuts between any two steps of the flash."""

import functools
import shutil
from pathlib import Path

from shared_rules import wire, wire_host
from vora_fw import boot, update
from vora_fw.store import Store
from vora_host.maker import bundle as bundles
from vora_host.virtual import flash as sim_flash

ROOT = Path(__file__).resolve().parents[1]
IDENTITY = sim_flash.identity("1.27.0")
SAVED = '{"a saved game": [1, 2, 3]}'
SMALL = ("vora_fw/__init__.mpy", "vora_fw/start.mpy", "vora_fw/clock.mpy",
         "shared_rules/errors.mpy", "shared_rules/prng.mpy")


@functools.lru_cache(maxsize=None)
def compiled(version=None):
    return tuple(bundles.compile_tree("armv6m", version))


@functools.lru_cache(maxsize=None)
def full_bundle(version="0.1.0"):
    return bundles.make_bundle(list(compiled(version)), "rp2", bundles.mpy_cross_version(),
                               "armv6m", version)


@functools.lru_cache(maxsize=None)
def small_bundle(version="0.2.0"):
    files = [f for f in compiled(version) if f[0] in SMALL]
    return bundles.make_bundle(files, "rp2", bundles.mpy_cross_version(), "armv6m", version)


def install(folder, b, slot="a", save=SAVED):
    """A flash folder as vora flash leaves it once the version confirmed itself, with a
    saved game."""
    folder = Path(folder)
    where = folder / boot.FW_DIR / slot
    for name, data in b.files:
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_bytes(data)
    (where / boot.MANIFEST).write_bytes(b.manifest_bytes)
    for name, data in bundles.root_files(ROOT / "hardware" / "pinmap-rp2-pico.json", "armv6m"):
        (folder / name).write_bytes(data)
    rec = boot.empty_record()
    rec["slot"] = slot
    boot.write_record(boot.Fs(), str(folder), rec)
    if save is not None:
        Store(str(folder / "save")).save(save)
    return folder


def snapshot(folder, skip=()):
    """{relative path: bytes} of every file, except under the folders in `skip`."""
    folder = Path(folder)
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_file() and not any(rel == s or rel.startswith(s + "/") for s in skip):
            out[rel] = p.read_bytes()
    return out


def copy_flash(src, dst):
    shutil.copytree(src, dst)
    return dst


class PowerCut(Exception):
    pass


class CuttingFs:
    """A filesystem (vora_fw.boot.Fs or the virtual board's SimFs) with the power cut
    before mutating step number `cut_at`: opening a file for writing, each write, rename,
    remove, mkdir, rmdir. What was written before the cut stays (a torn file included)."""

    def __init__(self, fs, cut_at=None):
        self.fs = fs
        self.cut_at = cut_at
        self.steps = 0
        self.stat = fs.stat
        self.listdir = fs.listdir
        self.statvfs = fs.statvfs
        for name in ("rename", "remove", "mkdir", "rmdir"):
            setattr(self, name, self._cutting(getattr(fs, name)))

    def _cutting(self, fn):
        def run(*args):
            self.step()
            return fn(*args)
        return run

    def step(self):
        if self.cut_at is not None and self.steps >= self.cut_at:
            raise PowerCut()
        self.steps += 1

    def open(self, path, mode="r"):
        if "w" in mode or "a" in mode:
            self.step()
            return _CutFile(self, self.fs.open(path, mode))
        return self.fs.open(path, mode)


class _CutFile:
    def __init__(self, fs, f):
        self._fs = fs
        self._f = f

    def write(self, data):
        self._fs.step()
        return self._f.write(data)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def power_on(fs, root):
    """The boot path, then the firmware: a Boot, confirmed if it was the trial (it ran)."""
    slot, mode, rec = boot.decide(fs, root)
    b = boot.Boot(fs, root, slot, mode, rec, boot.manifest_version(fs, root, slot) if slot else "")
    b.identity = IDENTITY
    return b


def push(up, b, chunk=wire_host.UPD_CHUNK, corrupt=None, stop_after=None, allow_downgrade=False):
    """The host's side in-process: offer, send from where the board stands, query, commit.
    corrupt(file, offset, data) may change a chunk in transit; stop_after N chunks stops
    early (a disconnect). Returns the last status."""
    st = up.offer(len(b.manifest_bytes), b.id, allow_downgrade)
    if st["state"] == "staged":
        return up.commit(b.id)  # all there already (resumed after a cut)
    if st["state"] != "receiving":
        return st
    pieces = [b.manifest_bytes] + [d for _, d in b.files]
    sent = 0
    for k in range(st["file"], len(pieces)):
        data = pieces[k]
        o = st["offset"] if k == st["file"] else 0
        while o < len(data):
            part = data[o:o + chunk]
            if corrupt is not None:
                part = corrupt(k, o, part)
            answer = up.data(k, o, memoryview(wire_host.pack_upd_data(k, o, part))[5:])
            if answer is not None and answer["state"] == "staged":
                return up.commit(b.id)  # the board says so with its last chunk
            if answer is not None:
                return answer
            o += len(part)
            sent += 1
            if stop_after is not None and sent >= stop_after:
                return up.query()
    st = up.query()
    if st["state"] != "staged":
        return st
    return up.commit(b.id)


def update_to(fs, root, b, version_running, chunk=512):
    """One life of the board: boot, receive the whole bundle, switch, reset into it and
    confirm. A PowerCut may end it anywhere."""
    running = power_on(fs, root)
    if running.mode == boot.MODE_TRIAL:
        running.confirm()
    up = update.Updater(running, "rp2", IDENTITY, running.version or version_running)
    st = push(up, b, chunk=chunk)
    assert st["state"] == "switched", st
    after = power_on(fs, root)
    assert after.mode == boot.MODE_TRIAL
    after.confirm()
    return after

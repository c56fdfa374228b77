"""The bundle mutation campaign: a real firmware bundle file with 1 to 4 of its bits
flipped, again and again, each damaged copy given to the PC's check (read_bundle's
parse_bundle) and, as a host that checks nothing would send it, to the board's update on a
simulated flash. A damaged copy is *accepted* when the PC takes it or the board switches to
it (passes every check of the board; whether it then boots and confirms is counted too).
The campaign passes with none accepted. Damage only to the file's magic never reaches the
board (the host sends the manifest and files, not the magic): the PC must refuse it.

Shared by tests/test_bundle.py (a few hundred mutations, in CI) and
bench/bench_bundle_mutation.py (20,000, its figure in docs/benchmarks.md).

Where the bits go: half of the mutations anywhere in the file (most land in the modules'
bytes), half in its header and manifest (the names, sizes, hashes and version: where one
flipped bit used to install a slot without vora_fw/doctor.mpy). The flipped bits of one
mutation are distinct, so a damaged copy is never the bundle itself. Everything comes from
the seed.
"""

import hashlib
import json
import random
import struct
import tempfile
from pathlib import Path

from vora_fw import boot, update
from vora_host.maker import bundle as bundles
from vora_host.virtual.flash import SimFs, slot_problem

from maker_support import IDENTITY, full_bundle, install, power_on, push


class Damaged:
    """What a host that checks nothing sends for a damaged file: the manifest as the header
    says, its SHA-256 as the offer, and the files cut by the sizes the manifest lists."""

    def __init__(self, data):
        head = len(bundles.MAGIC) + 4
        n = struct.unpack(">I", data[len(bundles.MAGIC):head])[0]
        self.manifest_bytes = bytes(data[head:head + n])
        self.id = hashlib.sha256(self.manifest_bytes).digest()
        self.files = []
        try:
            listed = json.loads(self.manifest_bytes)["files"]
            at = head + n
            for name, size, _ in listed:
                self.files.append((name, bytes(data[at:at + size])))
                at += size
        except (ValueError, KeyError, TypeError):
            pass  # not a manifest the board can read: it refuses it before any file


def mutate(good, rng, manifest_end):
    """A copy of `good` with 1 to 4 distinct bits flipped: anywhere, or (half the time)
    in the header and manifest (bytes below manifest_end). Returns (bytes, region)."""
    region = "manifest" if rng.random() < 0.5 else "anywhere"
    span = manifest_end if region == "manifest" else len(good)
    data = bytearray(good)
    for bit in rng.sample(range(span * 8), rng.randint(1, 4)):
        data[bit // 8] ^= 1 << (bit % 8)
    return bytes(data), region


def campaign(count, seed=0, workdir=None):
    """Run `count` mutations; returns a dict of counts: tried and accepted per region, how
    the damaged copies were refused, how many the board switched to and then confirmed,
    and the accepted ones (their index in the campaign) if any."""
    rng = random.Random(seed)
    old, new = full_bundle("0.1.0"), full_bundle("0.2.0")
    good = bundles.to_bytes(new)
    manifest_end = len(bundles.MAGIC) + 4 + len(new.manifest_bytes)
    genuine = (new.manifest_bytes, list(new.files))
    result = {"tried": {"anywhere": 0, "manifest": 0}, "accepted": {"anywhere": 0, "manifest": 0},
              "pc_refused": 0, "board_refused": {}, "confirmed": 0, "accepted_at": [], "bytes": len(good)}
    with tempfile.TemporaryDirectory(prefix="vora-mutation-", dir=workdir) as tmp:
        pristine = install(Path(tmp) / "pristine", old)
        flash = Path(tmp) / "flash"
        _restore(pristine, flash)
        for k in range(count):
            data, region = mutate(good, rng, manifest_end)
            result["tried"][region] += 1
            pc_ok = _pc_accepts(data)
            if not pc_ok:
                result["pc_refused"] += 1
            board_ok, code = _board_accepts(data, flash, genuine)
            if board_ok:
                result["confirmed"] += bool(code)
            else:
                result["board_refused"][code] = result["board_refused"].get(code, 0) + 1
            if pc_ok or board_ok:
                result["accepted"][region] += 1
                result["accepted_at"].append(k)
                _restore(pristine, flash)
    return result


def control(workdir=None):
    """The undamaged bundle through the same two checks: both must take it (else the
    campaign's zero would prove nothing)."""
    new = full_bundle("0.2.0")
    with tempfile.TemporaryDirectory(prefix="vora-mutation-", dir=workdir) as tmp:
        flash = install(Path(tmp) / "flash", full_bundle("0.1.0"))
        return (_pc_accepts(bundles.to_bytes(new)),
                _board_accepts(bundles.to_bytes(new), flash, None))


def _pc_accepts(data):
    try:
        bundles.parse_bundle(data)
    except bundles.BundleError:
        return False
    return True


def _board_accepts(data, flash, genuine):
    """(True, whether it then booted and confirmed itself) when the board switched to it
    (it passed every check of the board); else (False, the board's refusal code, or
    "unreadable" when no host could cut the file into a manifest and files)."""
    if len(data) < len(bundles.MAGIC) + 4:
        return False, "unreadable"
    damaged = Damaged(data)
    if not 1 <= len(damaged.manifest_bytes) <= update.MAX_MANIFEST:
        return False, "unreadable"
    if (damaged.manifest_bytes, damaged.files) == genuine:
        return False, "not reached"  # only the file's magic was hit: the board gets the bundle
    fs = SimFs(flash, 848 * 1024)
    running = power_on(fs, str(flash))
    up = update.Updater(running, "rp2", IDENTITY, running.version)
    st = push(up, damaged)
    if st["state"] != "switched":
        up.abort()  # the next copy starts afresh, not from the good files this one staged
        return False, st.get("code") or st["state"]
    trial = power_on(fs, str(flash))
    return True, (trial.mode == boot.MODE_TRIAL and trial.confirm()
                  and slot_problem(flash, trial.slot) is None)


def _restore(pristine, flash):
    import shutil
    shutil.rmtree(flash, ignore_errors=True)
    shutil.copytree(pristine, flash)

"""A new firmware version received while the game runs: staged, verified, switched.

The host (`vora update`, host/vora_host/maker/update.py) offers a bundle by its manifest's
SHA-256 and sends the manifest, then every file, in UPD_DATA chunks (docs/protocol.md,
"Updating the firmware"). This module writes them into the slot that is not running
(vora_fw.boot: neither the confirmed slot nor a pending trial), hashing as it goes:

- the manifest first, as manifest.part; once whole and matching the offered SHA-256 it is
  parsed and checked (check_manifest: the project's format, this board's kind and .mpy
  version, safe file names, sizes, the bundle hash, no downgrade unless allowed, room on
  the flash) and only then renamed manifest.json;
- then the files in the manifest's order, each checked against its SHA-256 when whole (a
  file that fails is removed and asked for again);
- UPD_COMMIT reads manifest.json and every file back from the flash, checks the manifest
  against the offered SHA-256 and its bundle hash, and each file against its hash, and only
  then switches (vora_fw.boot.switch: the next boot tries the new slot).

The bundle hash (format 2, seal()) is the SHA-256 of a text that names every field of the
manifest: the format, version, protocol, board kind, .mpy version, architecture and each
file's name, size and SHA-256. The offered SHA-256 only says the manifest arrived as the
host has it; the bundle hash says it is the manifest that was built: a manifest damaged
since (a renamed file, another version number) is refused before anything is written.
The board does not check a maker's signature (docs/makers.md): the PC does.

Resume: the state is the file and offset expected next, so after a disconnect the host
offers the same bundle again and the board answers where it stands. After a power cut the
board finds it from the flash: a manifest.json that hashes to the offered SHA-256 is kept,
whole files that still match are kept, a partial file continues from its size (and is
hashed whole when it completes). Anything else in the staging slot is removed first.

Bundles are untrusted: sizes are checked before any work, every field is validated, file
names are a package and a module name (no paths), and every problem becomes an error
status with a short code (UpdateError) instead of an exception out of the link. The
running version, its slot, /main.py, /vora_boot.mpy and /save are never written here.
"""

import binascii
import hashlib
import json

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

FORMAT = "vora-bundle"
FORMAT_VERSION = const(2)  # 1: the bundle hash covered the files' bytes only
MAX_MANIFEST = const(16384)  # bytes; a manifest of 30 files is about 3 KB
MAX_FILES = const(64)
MAX_FILE = const(262144)
MAX_TOTAL = const(1048576)
BLOCK = const(4096)  # a littlefs block: what each file costs at least, for the space check
PACKAGES = ("vora_fw", "shared_rules")
REQUIRED = ("vora_fw/__init__", "vora_fw/start")  # the loader imports vora_fw.start
MANIFEST = "manifest.json"  # in the slot: vora_fw.boot reads the version from it
MANIFEST_PART = "manifest.part"

IDLE = "idle"
RECEIVING = "receiving"
STAGED = "staged"
SWITCHED = "switched"
ERROR = "error"

_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_HEX = "0123456789abcdef"
# Every field a format 2 manifest has; any other is refused (a damaged or foreign key).
FIELDS = ("format", "format_version", "firmware", "protocol", "board", "mpy", "arch", "files",
          "bundle")


class UpdateError(Exception):
    """A refused bundle or a failed step: `code` is a short fixed word (docs/protocol.md
    lists them), str() says what exactly."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def parse_version(text, what="version"):
    """"1.2.3" as (1, 2, 3); UpdateError("format") for anything else."""
    if not isinstance(text, str) or not 5 <= len(text) <= 20:
        raise UpdateError("format", "%s %r is not MAJOR.MINOR.PATCH" % (what, text))
    parts = text.split(".")
    if len(parts) != 3:
        raise UpdateError("format", "%s %r is not MAJOR.MINOR.PATCH" % (what, text))
    out = []
    for p in parts:
        if not p or len(p) > 5 or any(c not in "0123456789" for c in p):
            raise UpdateError("format", "%s %r is not MAJOR.MINOR.PATCH" % (what, text))
        out.append(int(p))
    return tuple(out)


def _check_name(name):
    # "vora_fw/app.mpy": a known package, one module name, .mpy or .py; nothing else.
    if not isinstance(name, str) or len(name) > 48:
        raise UpdateError("format", "file name %r is not a module of the firmware" % (name,))
    parts = name.split("/")
    if len(parts) != 2 or parts[0] not in PACKAGES:
        raise UpdateError("format", "file name %r is not in %s" % (name, " or ".join(PACKAGES)))
    module = parts[1]
    if module.endswith(".mpy"):
        stem = module[:-4]
    elif module.endswith(".py"):
        stem = module[:-3]
    else:
        raise UpdateError("format", "file %r is neither .mpy nor .py" % name)
    if not stem or any(c not in _NAME_CHARS for c in stem) or stem[0] in "0123456789":
        raise UpdateError("format", "file name %r is not a module name" % name)
    return parts[0] + "/" + stem


def _check_hex(what, text):
    if not isinstance(text, str) or len(text) != 64 or any(c not in _HEX for c in text):
        raise UpdateError("format", "%s is not a SHA-256 in 64 lowercase hex digits" % what)
    return binascii.unhexlify(text)


def _check_word(what, text, most):
    if (not isinstance(text, str) or len(text) > most
            or any(c not in _NAME_CHARS for c in text)):
        raise UpdateError("format", "%s %r is not a short lowercase word" % (what, text))
    return text


def _check_pair(what, v):
    if (not isinstance(v, list) or len(v) != 2
            or any(not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < 1000
                   for n in v)):
        raise UpdateError("format", "the bundle does not give its %s as [major, minor]" % what)
    return v


def seal(version, protocol, kind, mpy, arch, files):
    """The bundle hash (32 bytes) of a format 2 manifest's fields; files [(name, size,
    SHA-256 in lowercase hex)] as the manifest lists them. One line per field, in a fixed
    order; every value is a checked version, lowercase word, number or hex digest, so no
    two manifests give the same text."""
    h = hashlib.sha256()
    h.update(("%s %d\nfirmware %s\nprotocol %d %d\nboard %s\nmpy %d %d\narch %s\nfiles %d\n"
              % (FORMAT, FORMAT_VERSION, version, protocol[0], protocol[1], kind, mpy[0],
                 mpy[1], arch, len(files))).encode())
    for e in files:  # "name size sha\n", without a string per line (the heap, on a board)
        _feed(h, e[0])
        h.update(b" ")
        _feed(h, str(e[1]))
        h.update(b" ")
        _feed(h, e[2])
        h.update(b"\n")
    return h.digest()


def _feed(h, text):
    try:
        h.update(text)  # MicroPython hashes a str's bytes in place
    except TypeError:
        h.update(text.encode())  # CPython wants bytes


# ARM Thumb code, oldest first: a core runs the code of every one up to its own, as
# MicroPython's .mpy loader takes it (MPY_FEATURE_ARCH_TEST). A Pico 2 (RP2350) says
# armv7emsp, and takes the Pico's armv6m bundles.
_THUMB = ("armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp")


def runs_on(arch, board_arch):
    """True when code compiled for `arch` loads on a board whose MicroPython is
    `board_arch` (sys.implementation._mpy's architecture)."""
    if arch == board_arch:
        return True
    return arch in _THUMB and board_arch in _THUMB and \
        _THUMB.index(arch) <= _THUMB.index(board_arch)


def check_manifest(m, board_kind, identity):
    """Validate a parsed manifest for this board; returns (version, files, bundle hash)
    with files [(name, size, sha256 bytes)] in order. UpdateError says what is wrong:
    "format" (not the project's bundle), "foreign" (another kind of board or MicroPython),
    "hash" (the fields are not the ones the bundle hash was made of: damaged)."""
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise UpdateError("format", "not a Vora Board firmware bundle (no format %r)" % FORMAT)
    got = m.get("format_version")
    if got != FORMAT_VERSION:
        if got == 1:
            raise UpdateError("format", "bundle format version 1 (an older vora wrote it: its "
                              "hash does not cover the file names or the version); this "
                              "firmware reads version %d: build the bundle again" % FORMAT_VERSION)
        raise UpdateError("format", "bundle format version %r; this firmware reads version %d"
                          % (got, FORMAT_VERSION))
    for key in m:
        if key not in FIELDS:
            raise UpdateError("format", "the manifest has an unknown field %r" % (key,))
    version = m.get("firmware")
    parse_version(version, "firmware version")
    protocol = _check_pair("protocol version", m.get("protocol"))
    kind = m.get("board")
    if not isinstance(kind, str) or not kind:
        raise UpdateError("format", "the bundle does not say which board it is for")
    _check_word("board kind", kind, 32)
    if kind != board_kind:
        raise UpdateError("foreign", "the bundle is for %s boards; this board is %s"
                          % (kind, board_kind))
    mpy = _check_pair(".mpy version", m.get("mpy"))
    if mpy[0] != identity["mpy"] or mpy[1] > identity["mpy_sub"]:
        raise UpdateError("foreign", "the bundle's modules are .mpy v%d.%d; this board's "
                          "MicroPython %s loads v%d.%d" % (mpy[0], mpy[1], identity["micropython"],
                                                           identity["mpy"], identity["mpy_sub"]))
    arch = _check_word("architecture", m.get("arch", ""), 16)
    if arch and identity.get("arch") and not runs_on(arch, identity["arch"]):
        raise UpdateError("foreign", "the bundle is compiled for %s; this board is %s"
                          % (arch, identity["arch"]))
    entries = m.get("files")
    if not isinstance(entries, list) or not 1 <= len(entries) <= MAX_FILES:
        raise UpdateError("format", "the bundle lists %s files (1 to %d)"
                          % (len(entries) if isinstance(entries, list) else "no", MAX_FILES))
    files = []
    seen = []
    total = 0
    for e in entries:
        if not isinstance(e, list) or len(e) != 3:
            raise UpdateError("format", "a file entry is [name, size, sha256]")
        name, size, sha = e
        module = _check_name(name)
        if module in seen:
            raise UpdateError("format", "module %s is in the bundle twice" % module)
        seen.append(module)
        if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_FILE:
            raise UpdateError("format", "file %s: size %r (1 to %d bytes)" % (name, size, MAX_FILE))
        total += size
        files.append((name, size, _check_hex("the hash of " + name, sha)))
    if total > MAX_TOTAL:
        raise UpdateError("format", "the bundle holds %d bytes; at most %d" % (total, MAX_TOTAL))
    for module in REQUIRED:
        if module not in seen:
            raise UpdateError("format", "the bundle has no %s module" % module)
    bundle = _check_hex("the bundle hash", m.get("bundle"))
    if seal(version, protocol, kind, mpy, arch, entries) != bundle:
        raise UpdateError("hash", "the manifest does not match its bundle hash: it is damaged "
                          "(a file name, size or hash, or the version, changed since it was "
                          "built)")
    return version, files, bundle


class Updater:
    """The staging state machine. `boot` is the vora_fw.boot.Boot of the running version
    (its fs, root, slots and record); board_kind the pin map's "port"; identity the
    MicroPython (vora_fw.boot.identity()); version the running firmware version."""

    def __init__(self, boot, board_kind, identity, version):
        self.boot = boot
        self.fs = boot.fs
        self.board_kind = board_kind
        self.identity = identity
        self.running = version
        self._reset_state(IDLE)

    def _reset_state(self, state):
        self.state = state
        self.id = None  # type: Any
        self.size = 0
        self.slot = None  # type: Any
        self.dir = ""
        self.files = []  # type: list
        self.version = None  # type: Any
        self.bundle = None  # type: Any
        self._sealed = None  # type: Any  # (protocol, board, mpy, arch) of the manifest
        self.file = 0
        self.offset = 0
        self.allow_downgrade = False
        self.code = None  # type: Any
        self.error = None  # type: Any
        self._f = None  # type: Any
        self._h = None  # type: Any
        self._told = False  # a status about an unexpected chunk went out already
        self._buf = None  # type: Any

    # ---- messages

    def offer(self, size, digest, allow_downgrade=False):
        self._close()
        if size > MAX_MANIFEST:
            return self._fail("format", "a manifest of %d bytes is not a Vora bundle's (at most %d)"
                              % (size, MAX_MANIFEST))
        if digest == self.id and self.state in (RECEIVING, STAGED, SWITCHED):
            self.allow_downgrade = allow_downgrade
            self._told = False
            return self.status()
        slot = self.boot.staging_slot()
        if slot is None:
            return self._fail("busy", "the board has a new version waiting to boot or on trial; "
                              "it confirms itself a few seconds after it starts, or is reverted")
        self._reset_state(RECEIVING)
        self.id = digest
        self.size = size
        self.slot = slot
        self.dir = self.boot.slot_dir(slot)
        self.allow_downgrade = allow_downgrade
        try:
            if not self._resume():
                self._clear_dir()
            return self.status()
        except UpdateError as exc:
            return self._fail(exc.code, exc.message)
        except OSError as exc:
            return self._fail("io", "the flash refused the staging: %r" % (exc,))

    def data(self, file, offset, chunk):
        """Take one chunk; returns a status to send, or None (the usual case)."""
        if self.state != RECEIVING or file != self.file or offset != self.offset:
            if self.state == ERROR or self._told:
                return None  # said once; the host re-offers or asks
            self._told = True
            return self.status()
        self._told = False
        n = len(chunk)
        limit = self.size if file == 0 else self.files[file - 1][1]
        if offset + n > limit:
            return self._fail("size", "file %d: %d bytes at offset %d, but it has %d"
                              % (file, n, offset, limit))
        try:
            f = self._f
            if f is None:
                f = self._f = self.fs.open(self._path(file), "wb" if offset == 0 else "ab")
                if offset == 0:
                    self._h = hashlib.sha256()
            w = f.write(chunk)
            if w is not None and w != n:
                raise OSError(28)
            f.flush()
            self._h.update(chunk)
            self.offset += n
            if self.offset == limit:
                self._finish_file()
        except UpdateError as exc:
            return self._fail(exc.code, exc.message)
        except OSError as exc:
            self._close()
            if exc.args and exc.args[0] == 28:
                return self._fail("space", "the board's flash is full")
            return self._fail("io", "writing file %d failed: %r" % (file, exc))
        return self.status() if self.state != RECEIVING else None

    def query(self):
        return self.status()

    def commit(self, digest):
        if digest == self.id and self.state == SWITCHED:
            return self.status()  # a COMMIT sent again after a reconnect
        if self.state != STAGED or digest != self.id:
            return self._fail("order", "no whole verified bundle with that SHA-256 to switch to")
        try:
            # Every byte the slot will hold, from the flash: the manifest (as offered, and
            # matching its bundle hash), then each file.
            final = self.dir + "/" + MANIFEST
            h = hashlib.sha256()
            if self._hash_file(final, (h,)) != self.size or h.digest() != self.id:
                raise UpdateError("hash", "the manifest changed on the flash after it was "
                                  "received; offer the bundle again")
            # Those bytes passed check_manifest when they arrived; their fields are in
            # memory (parsing the manifest again would double the heap this message needs).
            protocol, kind, mpy, arch = self._sealed
            listed = [(n, size, binascii.hexlify(sha).decode()) for n, size, sha in self.files]
            if seal(self.version, protocol, kind, mpy, arch, listed) != self.bundle:
                raise UpdateError("hash", "the manifest does not match its bundle hash")
            for k in range(len(self.files)):
                name, size, sha = self.files[k]
                h = hashlib.sha256()
                got = self._hash_file(self._path(k + 1), (h,))
                if got != size or h.digest() != sha:
                    self._remove(self._path(k + 1))
                    self.state = RECEIVING
                    self.file = k + 1
                    self.offset = 0
                    raise UpdateError("retry", "file %s changed on the flash after it was "
                                      "received; send it again" % name)
            self.boot.switch(self.slot)
        except UpdateError as exc:
            if exc.code == "retry":  # the host sends that file again and commits
                return self._fail("hash", exc.message, keep=True)
            return self._fail(exc.code, exc.message)
        except OSError as exc:
            return self._fail("io", "verifying or switching failed: %r" % (exc,))
        self.state = SWITCHED
        return self.status()

    def abort(self):
        self._close()
        if self.state in (RECEIVING, STAGED, ERROR) and self.dir:
            try:
                # Only a slot an update may still overwrite: after a switch (even one
                # followed by a refused offer) boot.json names this slot for the trial,
                # and emptying it would leave the next start an empty slot to boot.
                if self.slot is not None and self.slot == self.boot.staging_slot():
                    self._clear_dir()
            except OSError:
                pass
        self._reset_state(IDLE)
        return self.status()

    def status(self):
        d = {"state": self.state, "running": self.running, "boot": self.boot.info()}
        if self.id is not None:
            d.update({"id": binascii.hexlify(self.id).decode(), "file": self.file,
                      "offset": self.offset, "files": len(self.files), "slot": self.slot,
                      "version": self.version})
        if self.code is not None:
            d["code"] = self.code
            d["error"] = self.error
        return d

    # ---- staging

    def _path(self, file):
        if file == 0:
            return self.dir + "/" + MANIFEST_PART
        return self.dir + "/" + self.files[file - 1][0]

    def _finish_file(self):
        f = self._f
        self._f = None
        f.close()
        digest = self._h.digest()
        self._h = None
        if self.file == 0:
            part = self._path(0)
            if digest != self.id:
                self._remove(part)
                self.offset = 0
                raise UpdateError("hash", "the manifest does not match the SHA-256 offered")
            try:
                self._take_manifest(self._load_manifest(part))
            except UpdateError:
                self._remove(part)  # a refused bundle leaves nothing behind
                raise
            self.fs.rename(part, self.dir + "/" + MANIFEST)
        else:
            name, size, sha = self.files[self.file - 1]
            if digest != sha:
                self._remove(self._path(self.file))
                self.offset = 0
                raise UpdateError("hash", "file %s does not match its SHA-256; send it again"
                                  % name)
        self.file += 1
        self.offset = 0
        if self.file > len(self.files):
            self.state = STAGED

    def _load_manifest(self, p):
        # Read what the file holds, not MAX_MANIFEST: MicroPython allocates read(n)'s whole
        # buffer first, and a heap in play has room but seldom 16 KB in one piece.
        size = self.fs.stat(p)[6]
        if size > MAX_MANIFEST:
            raise UpdateError("format", "the manifest is over %d bytes: not a Vora bundle"
                              % MAX_MANIFEST)
        f = self.fs.open(p, "rb")
        try:
            data = f.read(size)
        finally:
            f.close()
        try:
            return json.loads(data)
        except (ValueError, UnicodeError):
            raise UpdateError("format", "the manifest is not JSON: not a Vora bundle")

    def _take_manifest(self, m):
        version, files, bundle = check_manifest(m, self.board_kind, self.identity)
        if not self.allow_downgrade and parse_version(version) < parse_version(self.running):
            raise UpdateError("downgrade", "version %s is older than the running %s; "
                              "vora update --allow-downgrade installs it anyway"
                              % (version, self.running))
        need = 0
        for name, size, sha in files:
            need += (size + BLOCK - 1) // BLOCK * BLOCK
        free = self._free()
        if free is not None:
            free += self._usage(self.dir)  # what a resumed staging already holds
        if free is not None and need > free:
            raise UpdateError("space", "the new version needs %d KB of flash, %d KB are free"
                              % (need // 1024, free // 1024))
        self.version = version
        self.files = files
        self.bundle = bundle
        self._sealed = (m["protocol"], m["board"], m["mpy"], m.get("arch", ""))
        for package in PACKAGES:
            for name, size, sha in files:
                if name.startswith(package + "/"):
                    self._mkdir(self.dir + "/" + package)
                    break

    def _free(self):
        statvfs = self.fs.statvfs
        if statvfs is None:
            return None
        st = statvfs(self.dir)
        return st[0] * st[4]  # f_bsize * f_bavail

    def _usage(self, p):
        """Bytes the files under p take, in whole blocks."""
        fs = self.fs
        try:
            st = fs.stat(p)
        except OSError:
            return 0
        if not st[0] & 0x4000:
            return (st[6] + BLOCK - 1) // BLOCK * BLOCK
        n = 0
        for name in fs.listdir(p):
            n += self._usage(p + "/" + name)
        return n

    def _resume(self):
        """Pick up a staging of the same bundle left on the flash; False when there is none."""
        fs = self.fs
        final = self.dir + "/" + MANIFEST
        try:
            size = fs.stat(final)[6]
        except OSError:
            return False
        if size != self.size:
            return False
        h = hashlib.sha256()
        self._hash_file(final, (h,))
        if h.digest() != self.id:
            return False
        self._take_manifest(self._load_manifest(final))
        for k in range(len(self.files)):
            name, size, sha = self.files[k]
            p = self._path(k + 1)
            try:
                have = fs.stat(p)[6]
            except OSError:
                have = 0
            self.file = k + 1
            if have == size:
                h = hashlib.sha256()
                self._hash_file(p, (h,))
                if h.digest() == sha:
                    continue
                have = 0
            if have > size:
                have = 0
            if have:
                self._h = hashlib.sha256()
                self._hash_file(p, (self._h,))
            else:
                self._remove(p)
            self.offset = have
            return True
        self.file = len(self.files) + 1
        self.offset = 0
        self.state = STAGED
        return True

    def _hash_file(self, p, hashes):
        """Feed file p to every hash object; returns its length. One buffer for all files,
        and no slice but for a file's last piece: verifying 25 files must not allocate per
        block (the collector may not run during one message)."""
        buf = self._buf
        if buf is None:
            buf = self._buf = bytearray(1024)
        n = 0
        f = self.fs.open(p, "rb")
        try:
            while True:
                k = f.readinto(buf)
                if not k:
                    return n
                n += k
                part = buf if k == len(buf) else memoryview(buf)[:k]
                for h in hashes:
                    h.update(part)
        finally:
            f.close()

    def _clear_dir(self):
        self._remove_tree(self.dir)
        self._mkdir(self.boot.root + "/fw")
        self._mkdir(self.dir)

    def _remove_tree(self, p):
        fs = self.fs
        try:
            mode = fs.stat(p)[0]
        except OSError:
            return
        if mode & 0x4000:
            for name in fs.listdir(p):
                self._remove_tree(p + "/" + name)
            fs.rmdir(p)
        else:
            fs.remove(p)

    def _mkdir(self, p):
        try:
            self.fs.mkdir(p)
        except OSError:
            try:
                self.fs.stat(p)
            except OSError:
                raise

    def _remove(self, p):
        try:
            self.fs.remove(p)
        except OSError:
            pass

    def _close(self):
        f = self._f
        self._f = None
        if f is not None:
            try:
                f.close()
            except OSError:
                pass

    def _fail(self, code, message, keep=False):
        self._close()
        if not keep:
            self.state = ERROR
        self.code = code
        self.error = message
        d = self.status()
        if keep:
            self.code = self.error = None
        return d

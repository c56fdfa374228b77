"""Save the game in progress to flash after every move; resume it at power-up.

The promise: a power cut at ANY instant leaves a save that load() reads back as either the
game before the move or the game after it, never a torn mix and never nothing (once a first
save has completed).

How, in three files in one directory:
- game.json  the current save.
- game.new   a save being written. It only becomes game.json by a rename, so game.json is
             never a half-written file.
- game.old   the previous game.json, kept only for the few steps of the fallback below.

Every file is a header line and the payload:  b"VSAVE1 <length> <crc32 as 8 hex>\\n" + payload,
length in BYTES of the UTF-8 payload, written in plain decimal digits (no sign, no "_", no
spaces: what int() would also take is not a header). A file whose header is torn, whose size
disagrees with the header or whose CRC-32 fails is simply not a save (load skips it, never
raises); `last_error` then says why, for the board to show.

save(text):
  1. write game.new completely, flush, close (and sync where the platform offers it);
     a piece of it may be a span of the committed save (game.json) copied as it is: a long
     game's moves, which the board then need not keep on its heap (save_pieces);
  2. rename game.new -> game.json. On littlefs (the rp2 default) and POSIX this replaces the old
     file atomically and the save is done.
  3. Filesystems like FAT refuse to rename onto an existing name. Then:
     remove any stale game.old, rename game.json -> game.old, rename game.new -> game.json,
     remove game.old. At every step in between, game.json or game.old holds a whole save.

load() reads game.json, then game.old, then game.new and returns the first valid payload (that
order is newest-committed first: game.old only exists while game.json is missing or is the newer
one; game.new is only trusted when nothing else is left). Then it tidies, so the one save left is
game.json; each tidy step keeps the answer load() just gave, so a cut while tidying is harmless.

A full flash: save() raises the OSError (ENOSPC) after removing its torn game.new, so the
blocks it took are free again and game.json still holds the previous save. The caller keeps
playing and tries again later (vora_ui.VoraUI: "saving fails" on the pixels and to the host).

The checksum says a file is whole, not that it holds a game: vora_fw.saved_game checks what
a save holds (parse_game, loaded only when a save is read). A save refused that way is kept
aside (set_aside(): game.bad, never overwritten by the next game's saves) for a person to
look at.

Runs unchanged on MicroPython and CPython and uses only what MicroPython's os has. All file
access goes through `fs` so tests can inject power cuts. Errors are detected by looking (stat)
rather than by errno numbers, because ports disagree: MicroPython's WebAssembly port reports a
missing file as errno 44, the board and CPython as 2.
"""

import os
import sys

# The CRC-32 of the link (binascii's in C, or a nibble-table fallback on a port without
# it): one implementation for frames and saves, in shared_rules.checks, not the link's
# codec (wire), which a board that plays alone does not load.
from shared_rules.checks import (  # noqa: F401
    crc32, crc32_soft as _crc32_soft, utf8 as _utf8)

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

try:  # type hints only for tools; MicroPython has no typing module
    from typing import Optional  # noqa: F401
except ImportError:
    pass


JSON = "game.json"
NEW = "game.new"
OLD = "game.old"
BAD = "game.bad"  # a save set aside: whole, but not a game to resume (set_aside)

_MAGIC = "VSAVE1"
# The header is "VSAVE1 <length> <8 hex>\n": 6 + 1 + up to 10 + 1 + 8 + 1 bytes. Reading at
# most this much for it means a garbage file without a newline costs a tiny read, not the file.
_HEADER_MAX = const(32)
# A saved game is about 1 KB. Anything far bigger is not ours, and reading it could exhaust the
# board's heap (MicroPython allocates the whole read(n) buffer up front), so it is skipped.
MAX_FILE = const(64 * 1024)
_CHUNK = const(256)  # bytes of a span copied at a time (save_pieces)


class _OsFs:
    """The real filesystem: the `os` functions the store needs, plus the builtin open."""

    def __init__(self):
        self.open = open
        self.rename = os.rename
        self.remove = os.remove
        self.stat = os.stat
        self.listdir = os.listdir
        self.mkdir = os.mkdir
        # os.sync() flushes every mounted filesystem (MicroPython has it on most ports).
        # On CPython it would flush the whole machine's page cache on every move, so there
        # only the written file is fsync'ed (the store calls fs.fsync(file) when present).
        if sys.implementation.name != "micropython":
            self.fsync = _fsync_file
        elif hasattr(os, "sync"):
            self.sync = os.sync


def _fsync_file(f):
    os.fsync(f.fileno())


class Store:
    """The saved game in progress, kept in `directory` (created on the first save)."""

    def __init__(self, directory="/save", fs=None):
        # directory: str; fs: an object with open/rename/remove/stat/listdir/mkdir and
        # optionally sync() (like os) or fsync(file) (default: the real filesystem).
        self._fs = fs if fs is not None else _OsFs()
        if directory.endswith("/") and len(directory) > 1:
            directory = directory[:-1]
        self.directory = directory
        base = "" if directory == "/" else directory
        self._json = base + "/" + JSON
        self._new = base + "/" + NEW
        self._old = base + "/" + OLD
        self._bad = base + "/" + BAD
        self._dir_ready = False
        self._buf = None  # a chunk of a span being copied (save_pieces), made at the first span
        # Why the last load() found no save, or skipped a file on its way to one (None:
        # nothing to say). Text for people: the board shows it, the host gets it.
        self.last_error = None  # type: Optional[str]

    # ---- saving -------------------------------------------------------------------------

    def save(self, text):
        # text: str -> None. Raises OSError if the save could not be made (disk full, ...);
        # whatever happens, the previous save stays loadable.
        self.save_pieces((text,))

    def save_pieces(self, pieces, on_commit=None):
        # The payload as a sequence of str or bytes-like pieces (UTF-8) whose concatenation
        # is the save. Pieces keep a long game's save from needing one block of heap as big
        # as the whole file: after hundreds of moves a fixed heap has plenty free, but in
        # holes smaller than that (tests/test_micropython_unix.py). Bytes are written as
        # they are, and so is a str on MicroPython (its UTF-8 read in place); CPython
        # encodes it, twice: for the CRC, then for the file (shared_rules.checks.utf8).
        # A piece may also be a span, a tuple (start, length): those bytes of the committed
        # save's payload, copied (read twice: for the CRC, then for the file), so that what
        # the last save holds need not be kept in memory (vora_fw.movelog). on_commit() is
        # called as soon as game.json is the new save (it must not fail: the caller's
        # bookkeeping of where its spans are).
        fs = self._fs
        self._ensure_dir()
        src = None  # the committed save, open while its spans are copied
        try:
            size = 0
            crc = 0
            for piece in pieces:
                if isinstance(piece, tuple):
                    if src is None:
                        src = self._open_committed()
                    crc = self._span(src, piece, crc, None)
                    size += piece[1]
                    continue
                data = _utf8(piece)
                size += len(data)
                crc = crc32(data, crc)
            data = None
            header = "%s %d %08x\n" % (_MAGIC, size, crc)
            f = fs.open(self._new, "wb")  # "wb" truncates a leftover game.new from a cut save
            try:
                try:
                    self._write_all(f, header.encode("utf-8"))
                    for piece in pieces:
                        if isinstance(piece, tuple):
                            self._span(src, piece, 0, f)
                        else:
                            self._write_all(f, _utf8(piece))
                    f.flush()
                    fsync = getattr(fs, "fsync", None)
                    if fsync is not None:
                        fsync(f)
                finally:
                    f.close()
            except OSError:
                # Most likely the flash is full: give the torn copy's blocks back, so that
                # the next try (and anything else) has them. game.json is untouched.
                try:
                    self._remove_if_exists(self._new)
                except OSError:
                    pass
                raise
        finally:
            if src is not None:
                src[0].close()  # before the renames: game.json is replaced
        # game.new must be durable BEFORE it can become game.json, or a cut could leave a
        # game.json naming blocks that were never written.
        self._sync()
        try:
            fs.rename(self._new, self._json)
        except OSError:
            if not self._exists(self._json):
                raise  # not the "target exists" refusal: a real failure
            self._replace_by_steps(on_commit)
        else:
            if on_commit is not None:
                on_commit()
        self._sync()

    def _span(self, src, span, crc, out):
        # The bytes span = (start, length) of the committed save's payload (src, from
        # _open_committed): their CRC-32 continued from `crc` (out None), or written to the
        # file `out`. Read in chunks through one buffer of the store's. OSError when the
        # save on the flash does not hold them.
        f, at, total = src
        start, length = span
        if start < 0 or length < 0 or start + length > total:
            raise OSError(5, "the saved game is cut short")  # EIO
        buf = self._buf
        if buf is None:
            buf = self._buf = bytearray(_CHUNK)
        f.seek(at + start)
        while length > 0:
            # The whole buffer where it can be: a slice of it is a new object.
            n = f.readinto(buf if length >= _CHUNK else memoryview(buf)[:length])
            if not n:
                raise OSError(5, "the saved game is cut short")
            data = buf if n == _CHUNK else memoryview(buf)[:n]
            if out is None:
                crc = crc32(data, crc)
            else:
                self._write_all(out, data)
            length -= n
        return crc

    def read_committed(self, at, buf):
        """Reads into `buf` the committed save's payload from byte `at` on (up to len(buf)
        bytes) and returns how many it read (0 at the end). OSError when there is no save
        to read (vora_fw.movelog reads its moves here)."""
        f, head, total = self._open_committed()
        try:
            if at >= total:
                return 0
            f.seek(head + at)
            return min(f.readinto(buf) or 0, total - at)
        finally:
            f.close()

    def _open_committed(self):
        # (file, where its payload starts, payload length) of game.json, the save on the
        # flash. Its header is checked, not its checksum (each save computes its own).
        f = self._fs.open(self._json, "rb")  # OSError when there is none
        try:
            head = f.readline(_HEADER_MAX)
            return f, len(head), _parse_header(head)[0]
        except ValueError:
            f.close()
            raise OSError(5, "the saved game's header is torn")  # EIO

    def _replace_by_steps(self, on_commit=None):
        # For filesystems whose rename will not overwrite (FAT). Invariant at every step: a
        # whole save is in game.json, or (game.json missing) in game.old, and game.new is whole.
        fs = self._fs
        # A game.old left by an earlier cut would block the next rename. game.json is whole
        # here (it exists, and only ever appears by renaming a whole game.new), so that older
        # game.old is not needed.
        self._remove_if_exists(self._old)
        fs.rename(self._json, self._old)  # now: game.old = before, game.new = after
        fs.rename(self._new, self._json)  # now: game.json = after
        if on_commit is not None:
            on_commit()
        self._remove_if_exists(self._old)

    def _write_all(self, f, buf):
        n = f.write(buf)
        # Files on the board write everything or raise; a short count would mean a torn
        # file, so do not let it go on to become game.json.
        if n is not None and n != len(buf):
            raise OSError(28)  # ENOSPC is the usual reason

    # ---- loading ------------------------------------------------------------------------

    def load(self):
        # -> Optional[str]: the saved game's text, or None when there is no valid save.
        path, text = self._find()
        if text is not None:
            try:
                self._tidy(path)
            except OSError:
                pass  # leftovers are harmless: the next load or save copes with them
        return text

    def _find(self):
        # -> (path, text) of the first valid save in load's order, or (None, None).
        # last_error: why game.json (the save load() looks for first) was skipped.
        self.last_error = None
        for path in (self._json, self._old, self._new):
            payload = self._read_valid(path)
            if payload is None:
                continue
            try:
                return path, str(payload, "utf-8")
            except ValueError:  # not UTF-8 despite the checksum; UnicodeError is a ValueError
                self._skipped(path, "not UTF-8 text")
                continue
        return None, None

    def _skipped(self, path, why):
        if self.last_error is None:
            self.last_error = "%s is not a whole save: %s" % (path, why)

    def _tidy(self, found):
        # Leave only game.json, holding what load() just returned. Order matters: every
        # intermediate state must still load the same text. Files ahead of `found` in load's
        # order are invalid, so removing them first is safe; `found` is then promoted.
        if found == self._json:
            self._remove_if_exists(self._new)
            self._remove_if_exists(self._old)
            return
        self._remove_if_exists(self._json)  # invalid (or missing): not a save
        if found == self._old:
            self._fs.rename(self._old, self._json)  # game.json absent: renames everywhere
            self._remove_if_exists(self._new)
        else:  # found in game.new, game.old is invalid
            self._remove_if_exists(self._old)
            self._fs.rename(self._new, self._json)
        self._sync()

    def _read_valid(self, path):
        # -> bytes or None: the payload of `path` if the file is whole and its checksum holds.
        fs = self._fs
        try:
            size = fs.stat(path)[6]
        except OSError:
            return None  # missing: not a save, nothing to say
        try:
            if size > MAX_FILE:
                self._skipped(path, "%d bytes, more than a save's %d" % (size, MAX_FILE))
                return None
            f = fs.open(path, "rb")
        except OSError:
            self._skipped(path, "it cannot be read")
            return None
        try:
            head = f.readline(_HEADER_MAX)
            length, crc = _parse_header(head)
            if len(head) + length != size:
                # torn (cut mid-write) or grown: not what the header promised
                self._skipped(path, "%d bytes where its header promises %d (cut short?)"
                              % (size, len(head) + length))
                return None
            payload = f.read(length)
            if len(payload) != length or crc32(payload) != crc:
                self._skipped(path, "its checksum fails")
                return None
            return payload
        except (OSError, ValueError) as exc:
            self._skipped(path, str(exc))
            return None
        finally:
            try:
                f.close()
            except OSError:
                pass

    # ---- the rest -----------------------------------------------------------------------

    def set_aside(self):
        """Keep the save load() returned aside as game.bad (replacing an older game.bad),
        for a person to look at: it is whole but not a game to resume (saved_game refused
        it), and the next game's saves must not overwrite it. -> the path it went to, or
        None when there was no save. Raises OSError when the flash refuses."""
        path, text = self._find()
        if text is None:
            return None
        self._remove_if_exists(self._bad)
        self._fs.rename(path, self._bad)
        self._sync()
        return self._bad

    def exists(self):
        # -> bool: True exactly when load() would return a game, so "resume?" is honest.
        return self._find()[1] is not None

    def clear(self):
        # Forget the save (the game is finished). Removed in the reverse of load's order, so
        # a cut part-way leaves either what load() returned before or nothing, never an older
        # game coming back.
        self._remove_if_exists(self._new)
        self._remove_if_exists(self._old)
        self._remove_if_exists(self._json)
        self._sync()

    def _exists(self, path):
        try:
            self._fs.stat(path)
            return True
        except OSError:
            return False

    def _remove_if_exists(self, path):
        try:
            self._fs.remove(path)
        except OSError:
            # Decide by looking, not by errno (its number for "missing" differs by port).
            if self._exists(path):
                raise

    def _ensure_dir(self):
        if self._dir_ready or self.directory in ("", "/", "."):
            return
        try:
            self._fs.mkdir(self.directory)
        except OSError:
            if not self._exists(self.directory):
                raise
        self._dir_ready = True

    def _sync(self):
        sync = getattr(self._fs, "sync", None)
        if sync is not None:
            sync()


_DIGITS = "0123456789"
_HEX = "0123456789abcdef"


def _parse_header(head):
    # bytes -> (length, crc); ValueError when it is not a whole header line. Only what
    # save() writes is taken: int() alone would also read "+5", "0_2", " 5" or "0x1f".
    if not head.endswith(b"\n"):
        raise ValueError("its header is cut short")
    parts = str(head[:-1], "utf-8").split(" ")
    if len(parts) != 3 or parts[0] != _MAGIC:
        raise ValueError("no save header")
    length, crc = parts[1], parts[2]
    if not 0 < len(length) <= 10 or any(c not in _DIGITS for c in length):
        raise ValueError("its header's length %r is not plain decimal digits" % length[:12])
    if len(crc) != 8 or any(c not in _HEX for c in crc):
        raise ValueError("its header's checksum %r is not 8 hex digits" % crc[:12])
    return int(length), int(crc, 16)

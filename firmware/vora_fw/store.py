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
length in BYTES of the UTF-8 payload. A file whose header is torn, whose size disagrees with the
header or whose CRC-32 fails is simply not a save (load skips it, never raises).

save(text):
  1. write game.new completely, flush, close (and sync where the platform offers it);
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

The checksum says a file is whole, not that it holds a game: parse_game() checks what a save
holds, as the link checks what a host sends (sizes and nesting before parsing, then every
field), and raises BadSave for anything else.

Runs unchanged on MicroPython and CPython and uses only what MicroPython's os has. All file
access goes through `fs` so tests can inject power cuts. Errors are detected by looking (stat)
rather than by errno numbers, because ports disagree: MicroPython's WebAssembly port reports a
missing file as errno 44, the board and CPython as 2.
"""

import json
import os
import sys

# The CRC-32 of the link (binascii's in C, or wire's nibble-table fallback on a port
# without it): one implementation for frames and saves.
from shared_rules.wire import crc32, crc32_soft as _crc32_soft, json_too_deep  # noqa: F401

try:  # type hints only for tools; MicroPython has no typing module
    from typing import Optional  # noqa: F401
except ImportError:
    pass


JSON = "game.json"
NEW = "game.new"
OLD = "game.old"

_MAGIC = "VSAVE1"
# The header is "VSAVE1 <length> <8 hex>\n": 6 + 1 + up to 10 + 1 + 8 + 1 bytes. Reading at
# most this much for it means a garbage file without a newline costs a tiny read, not the file.
_HEADER_MAX = 32
# A saved game is about 1 KB. Anything far bigger is not ours, and reading it could exhaust the
# board's heap (MicroPython allocates the whole read(n) buffer up front), so it is skipped.
_MAX_FILE = 64 * 1024


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
        self._dir_ready = False
        # Why the last load() found no save although a save file was there (None: nothing
        # to say), so that the board can say its game was dropped, not drop it silently.
        self.last_error = None  # type: Optional[str]

    # ---- saving -------------------------------------------------------------------------

    def save(self, text):
        # text: str -> None. Raises OSError if the save could not be made (disk full, ...);
        # whatever happens, the previous save stays loadable.
        fs = self._fs
        self._ensure_dir()
        data = text.encode("utf-8")  # the one copy of the payload this needs
        header = "%s %d %08x\n" % (_MAGIC, len(data), crc32(data))
        f = fs.open(self._new, "wb")  # "wb" truncates a leftover game.new from a cut save
        try:
            try:
                self._write_all(f, header.encode("utf-8"))
                self._write_all(f, data)
                f.flush()
                fsync = getattr(fs, "fsync", None)
                if fsync is not None:
                    fsync(f)
            finally:
                f.close()
        except OSError:
            # Most likely the flash is full: give the torn copy's blocks back, so that the
            # next try (and anything else) has them. game.json is untouched.
            try:
                self._remove_if_exists(self._new)
            except OSError:
                pass
            raise
        data = None  # let the GC have it before the renames
        # game.new must be durable BEFORE it can become game.json, or a cut could leave a
        # game.json naming blocks that were never written.
        self._sync()
        try:
            fs.rename(self._new, self._json)
        except OSError:
            if not self._exists(self._json):
                raise  # not the "target exists" refusal: a real failure
            self._replace_by_steps()
        self._sync()

    def _replace_by_steps(self):
        # For filesystems whose rename will not overwrite (FAT). Invariant at every step: a
        # whole save is in game.json, or (game.json missing) in game.old, and game.new is whole.
        fs = self._fs
        # A game.old left by an earlier cut would block the next rename. game.json is whole
        # here (it exists, and only ever appears by renaming a whole game.new), so that older
        # game.old is not needed.
        self._remove_if_exists(self._old)
        fs.rename(self._json, self._old)  # now: game.old = before, game.new = after
        fs.rename(self._new, self._json)  # now: game.json = after
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
        self.last_error = None
        for path in (self._json, self._old, self._new):
            payload = self._read_valid(path)
            if payload is None:
                continue
            try:
                return path, str(payload, "utf-8")
            except ValueError:  # not UTF-8 despite the checksum; UnicodeError is a ValueError
                continue
        self.last_error = self._unreadable()
        return None, None

    def _unreadable(self):
        # -> Optional[str]: the first save file that is there yet holds no save, in words.
        for path in (self._json, self._old, self._new):
            try:
                size = self._fs.stat(path)[6]
            except OSError:
                continue
            return "%s is not a whole save: %d bytes, cut short, damaged or not a save" % (
                path, size)
        return None

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
            if size > _MAX_FILE:
                return None
            f = fs.open(path, "rb")
        except OSError:
            return None  # missing (or unreadable): not a save
        try:
            head = f.readline(_HEADER_MAX)
            length, crc = _parse_header(head)
            if length < 0 or len(head) + length != size:
                return None  # torn (cut mid-write) or grown: not what the header promised
            payload = f.read(length)
            if len(payload) != length or crc32(payload) != crc:
                return None
            return payload
        except (OSError, ValueError):
            return None
        finally:
            try:
                f.close()
            except OSError:
                pass

    # ---- the rest -----------------------------------------------------------------------

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


def _parse_header(head):
    # bytes -> (length, crc); ValueError when it is not a whole header line.
    if not head.endswith(b"\n"):
        raise ValueError("torn header")
    parts = str(head[:-1], "utf-8").split(" ")
    if len(parts) != 3 or parts[0] != _MAGIC or len(parts[2]) != 8:
        raise ValueError("not a save header")
    return int(parts[1]), int(parts[2], 16)


# ---- what a save holds -------------------------------------------------------------------

MAX_SAVED_MOVES = 0xFFFF  # move numbers are u16 on the link
MAX_MOVE_TEXT = 64
_MAX_DEPTH = 8  # a save nests 3 levels deep (the state's farms); deeper is not a save


class BadSave(ValueError):
    """A save whose checksum holds but whose contents are not a game this firmware wrote."""


def _whole(d, key, lo, hi):
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadSave("%s must be a whole number from %d to %d, not %r" % (key, lo, hi, v))
    return v


MAX_START_TEXT = 200  # a position text: 25 letters and a few short fields


def parse_game(text):
    # str -> dict {"game_id", "seed", "moves", "state"} with every field checked (the state
    # still a dict: vora.from_json checks it), or BadSave naming what is wrong.
    if not isinstance(text, str) or len(text) > _MAX_FILE:
        raise BadSave("not a save of at most %d bytes" % _MAX_FILE)
    if json_too_deep(text.encode("utf-8"), _MAX_DEPTH):
        # Before json.loads: CPython's parser recurses, and a deep enough text raises
        # RecursionError instead of a clear error.
        raise BadSave("nested deeper than %d levels" % _MAX_DEPTH)
    try:
        d = json.loads(text)
    except ValueError:
        raise BadSave("not JSON")
    if not isinstance(d, dict):
        raise BadSave("not a JSON object")
    _whole(d, "game_id", 0, 0xFFFFFFFF)
    _whole(d, "seed", 0, 0xFFFFFFFF)  # shared_rules.prng.SEED_MAX
    moves = d.get("moves")
    if not isinstance(moves, list) or len(moves) > MAX_SAVED_MOVES:
        raise BadSave("moves must be a list of at most %d moves" % MAX_SAVED_MOVES)
    for m in moves:
        if not isinstance(m, str) or not 0 < len(m) <= MAX_MOVE_TEXT:
            raise BadSave("a move is text of 1 to %d characters, not %r" % (MAX_MOVE_TEXT, m))
        for c in m.encode("utf-8"):
            if c < 0x20 or c > 0x7E:
                raise BadSave("a move is printable ASCII, not %r" % m)
    if not isinstance(d.get("state"), dict):
        raise BadSave("state must be a JSON object")
    start = d.get("start")  # the position the game started from, or None for a deal
    if start is not None and (not isinstance(start, str) or len(start) > MAX_START_TEXT):
        raise BadSave("start must be a position text of at most %d characters" % MAX_START_TEXT)
    bots = d.get("bots", "")  # the seats the board's own bot plays
    if not isinstance(bots, str) or len(bots) > 4 or any(b not in "SWNE" for b in bots):
        raise BadSave("bots must be seat letters (S, W, N, E), not %r" % (bots,))
    return d

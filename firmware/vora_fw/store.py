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
field), replays its moves from the seed and compares the result with the saved state, and
raises BadSave for anything else. A save refused that way is kept aside (set_aside():
game.bad, never overwritten by the next game's saves) for a person to look at.

Runs unchanged on MicroPython and CPython and uses only what MicroPython's os has. All file
access goes through `fs` so tests can inject power cuts. Errors are detected by looking (stat)
rather than by errno numbers, because ports disagree: MicroPython's WebAssembly port reports a
missing file as errno 44, the board and CPython as 2.
"""

import json
import os
import sys

# The CRC-32 of the link (binascii's in C, or a nibble-table fallback on a port without
# it): one implementation for frames and saves, in shared_rules.checks, not the link's
# codec (wire), which a board that plays alone does not load.
from shared_rules.checks import (  # noqa: F401
    crc32, crc32_soft as _crc32_soft, json_too_deep, utf8 as _utf8)

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
_MAX_FILE = const(64 * 1024)


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
        # Why the last load() found no save, or skipped a file on its way to one (None:
        # nothing to say). Text for people: the board shows it, the host gets it.
        self.last_error = None  # type: Optional[str]

    # ---- saving -------------------------------------------------------------------------

    def save(self, text):
        # text: str -> None. Raises OSError if the save could not be made (disk full, ...);
        # whatever happens, the previous save stays loadable.
        self.save_pieces((text,))

    def save_pieces(self, pieces):
        # The payload as a sequence of str or bytes-like pieces (UTF-8) whose concatenation
        # is the save. Pieces keep a long game's save from needing one block of heap as big
        # as the whole file: after hundreds of moves a fixed heap has plenty free, but in
        # holes smaller than that (tests/test_micropython_unix.py). Bytes are written as
        # they are, and so is a str on MicroPython (its UTF-8 read in place); CPython
        # encodes it, twice: for the CRC, then for the file (shared_rules.checks.utf8).
        fs = self._fs
        self._ensure_dir()
        size = 0
        crc = 0
        for piece in pieces:
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
                    self._write_all(f, _utf8(piece))
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
            if size > _MAX_FILE:
                self._skipped(path, "%d bytes, more than a save's %d" % (size, _MAX_FILE))
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
        for a person to look at: it is whole but not a game to resume (parse_game refused
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


# ---- what a save holds -------------------------------------------------------------------

MAX_SAVED_MOVES = const(0xFFFF)  # move numbers are u16 on the link
MAX_MOVE_TEXT = const(64)
_MAX_DEPTH = const(8)  # a save nests 3 levels deep (the state's farms); deeper is not a save


class BadSave(ValueError):
    """A save whose checksum holds but whose contents are not a game this firmware wrote."""


def _whole(d, key, lo, hi):
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadSave("%s must be a whole number from %d to %d, not %r" % (key, lo, hi, v))
    return v


MAX_START_TEXT = const(200)  # a position text: 25 letters and a few short fields


def parse_game(text):
    # str -> dict {"game_id", "seed", "moves", "state"} with every field checked (the state
    # still a dict), its moves replayed from the seed to the saved state (check_replay), or
    # BadSave naming what is wrong.
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
    check_replay(d)
    return d


def check_replay(d):
    # A save's parts must agree: its moves, played from the game's start (the seed, or the
    # position it started from), lead to exactly its state. A save whose move list says
    # one game and whose state another (a fault under a valid checksum, a bug) is not
    # resumed: the board would play on from a state the record (what the host replays and
    # logs) does not give. BadSave says where they part.
    from shared_rules import vora
    from shared_rules.errors import RulesError
    try:
        saved = vora.from_json(d["state"])
    except RulesError as exc:
        raise BadSave("its state is not a Vora state: %s" % exc)
    try:
        if d.get("start") is not None:
            state = vora.new_game(saved.players, d["seed"], seats=saved.seats,
                                  pushed_out=saved.pushed_out, max_turns=saved.max_turns,
                                  chain_lines=saved.chain_lines, position=d["start"])
        else:
            state = vora.new_game(saved.players, d["seed"], seats=saved.seats,
                                  pushed_out=saved.pushed_out, max_turns=saved.max_turns,
                                  chain_lines=saved.chain_lines)
    except RulesError as exc:
        raise BadSave("its game cannot be set up again: %s" % exc)
    n = 0
    for move in d["moves"]:
        n += 1
        try:
            state.play(move)
        except RulesError as exc:
            raise BadSave("its move %d %r does not replay: %s" % (n, move, exc))
    if state.to_json() != saved.to_json():
        raise BadSave("its %d moves lead to another state than the one saved (digest %s, "
                      "saved %s)" % (n, state.digest(), saved.digest()))

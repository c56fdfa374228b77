"""The game's record of moves, as a list of strings to its readers, kept in a few buffers.

A list of move strings keeps one small object per move alive for the whole game, each
wherever the heap had room when the move's legal list was made: after a few hundred moves
they pin the board's fixed heap into holes of a few KB, though most of it is free, and an
allocation of 5 KB fails (tests/test_micropython_unix.py measured the largest free block
fall to 8 KB of 350 KB free after one long game). One bytearray of the whole game's text
has the opposite trouble: it grows by reallocation, each time needing one free block
bigger than itself, and in a 192 KiB heap (a 32-bit build, code in ROMFS) game 32 of a soak
could not find 3,673 bytes in one piece with 66 KB free (docs/benchmarks.md). So the moves
are kept in pieces, each a bytearray of their text.

Each piece's buffer is made whole when the piece starts (TEXT_BYTES of text; a move that
would not fit starts the next piece) and never grows: a bytearray that grows by extend()
is made again at each move a byte longer, and in a 192 KiB heap (32-bit, code from .mpy
files) game 9 of a soak failed there, "allocating 794 bytes" with 15 KB free in blocks of
770 bytes at most, after hundreds of moves that had each made a block a little bigger than
the last (docs/benchmarks.md). Now a piece needs its 512 bytes in one block once, and no
buffer of the record is made again. Where each move ends is not kept (an array of ends a
piece was a sixth of the record): a read finds it by the move's closing quote.

Each buffer holds its moves as the JSON a save writes (`"m1","m2"`), so that the save is
written from the buffers themselves (json_pieces) rather than from a string per move made
again at every move (on the WebAssembly port, the save of a 327-move game allocated 45 KB
that way; docs/benchmarks.md). Moves are the rules' text (letters, digits, spaces), which
JSON takes as it is; anything else (escapes, bytes outside printable ASCII) is refused.

The moves a save has written stay on the flash, not here (issue 40: the record was the
biggest thing a long game kept on the heap, 5 KB at 327 moves). The save's payload opens
with the moves (SAVE_HEAD), so they sit at a known place in it; a save after that copies
them from the save before it (a span, (start, length) of its payload: vora_fw.store) and
adds the moves made since, which are all this log keeps in its pieces. The store tells the
log when a save has become the one on the flash (committed(), called right after its
rename); a save that fails leaves the log as it was, the moves since the last one still
here for the next try. Reading the moves from the save (a PC catching up, a takeback, the
record asked for) opens it a chunk at a time; an OSError there is the caller's to report.
A log with no store, or whose store never commits, keeps every move here.

Reads like a list: len(), log[i] (negative too), log[a:b] (a list), iteration, == with a
list; append(); del log[n:] (the only deletion the board needs: a takeback).
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

TEXT_BYTES = const(512)  # a piece's text: a move is at most about 16 bytes and 3 of JSON
CHUNK_BYTES = const(256)  # read from the save at a time (a file opened for each)
MOVE_BYTES = const(64)  # the longest move a save holds (vora_fw.saved_game.MAX_MOVE_TEXT)
_QUOTE = const(34)
_COMMA = const(44)
# How a save's payload opens: its moves come first, at byte REGION_AT.
SAVE_HEAD = '{"moves":['
REGION_AT = const(10)


class MoveLog:
    def __init__(self, moves=(), flash=None):
        # flash: the store whose committed save may hold the first moves (vora_fw.store.Store:
        # read_committed); None, or a store that never commits, keeps them all here.
        self.flash = flash
        self.base = 0  # the first `base` moves are in the committed save, not here
        self.kept = 0  # the bytes of their JSON there, from REGION_AT on
        self.texts = []  # one bytearray(TEXT_BYTES) a piece: its moves' JSON, then unused
        self.used = []  # for each, how many bytes of it its moves take
        self.firsts = []  # for each, the number of its first move
        self.n = 0
        for move in moves:
            self.append(move)

    def append(self, move):
        data = move.encode()
        if b'"' in data or b"\\" in data or any(b < 32 or b > 126 for b in data):
            raise ValueError("a move is printable ASCII that JSON takes as it is, not %r" % move)
        if len(data) + 2 > TEXT_BYTES:
            raise ValueError("a move of %d bytes: longer than a piece of the record" % len(data))
        piece = len(self.texts) - 1
        used = self.used[piece] if piece >= 0 else TEXT_BYTES
        if used + len(data) + 3 > TEXT_BYTES:  # the move, its quotes and a comma
            self.texts.append(bytearray(TEXT_BYTES))
            self.used.append(0)
            self.firsts.append(self.n)
            piece, used = piece + 1, 0
        text = self.texts[piece]
        if used:
            text[used] = _COMMA
            used += 1
        text[used] = _QUOTE
        used += 1
        for b in data:  # byte by byte: a slice assignment would allocate a slice
            text[used] = b
            used += 1
        text[used] = _QUOTE
        self.used[piece] = used + 1
        self.n += 1

    def json_pieces(self):
        """The record as the save writes it after SAVE_HEAD: the span of the committed save
        that holds its first moves, (REGION_AT, bytes), if any, then the buffers themselves
        (views, not copies), each its moves as JSON strings joined by commas. Joined by
        commas, the items of the game's list of moves in JSON."""
        out = [(REGION_AT, self.kept)] if self.kept else []  # type: list
        for p in range(len(self.texts)):
            if self.used[p]:
                out.append(memoryview(self.texts[p])[:self.used[p]])
        return out

    def committed(self):
        """The save just written from json_pieces() is now the one on the flash: its moves
        are read from there, and the buffers here are let go but one, kept for the next
        moves. Called by the store right after its rename; allocates nothing."""
        kept = self.kept
        for p in range(len(self.texts)):
            if self.used[p]:
                kept += self.used[p] + (1 if kept else 0)  # and the comma before it
        self._empty_from(0)
        self.kept = kept
        self.base = self.n

    def _empty_from(self, piece):
        # The pieces from `piece` on hold no move; the first of them stays, empty, for the
        # next moves (no buffer made again). By pops, which allocate nothing (a slice to
        # delete would be an object): committed() must not fail half-way.
        while len(self.texts) > piece + 1:
            self.texts.pop()
            self.used.pop()
            self.firsts.pop()
        if piece < len(self.texts):
            self.used[piece] = 0
            self.firsts[piece] = self.n

    def __len__(self):
        return self.n

    def _piece_of(self, i):
        piece = len(self.firsts) - 1
        while self.firsts[piece] > i:
            piece -= 1
        return piece

    def _walk(self, start):
        # Yields the moves from `start` (0 <= start) on, as str, in order: those of the
        # committed save read from the flash a chunk at a time (no file is open between
        # two moves), then the pieces'. Where a move ends is found by its closing quote (a
        # move has none inside): no table of ends is kept, the record being read seldom.
        i = 0
        if start < self.base:
            buf = bytearray(CHUNK_BYTES)
            move = bytearray(MOVE_BYTES)
            k = -1  # bytes of the move being read; -1 between two moves
            at = 0
            while at < self.kept:
                n = min(self.flash.read_committed(REGION_AT + at, buf), self.kept - at)
                if n <= 0:
                    raise OSError(5, "the saved game is cut short")  # EIO
                for j in range(n):
                    b = buf[j]
                    if b == _QUOTE:
                        if k < 0:
                            k = 0
                            continue
                        if i >= start:
                            yield str(memoryview(move)[:k], "utf-8")
                        i += 1
                        k = -1
                    elif k >= 0:
                        # Checked as the save's loader checks a move: the header was, the
                        # checksum is not read here, and a decode would raise UnicodeError.
                        if k == MOVE_BYTES or b < 32 or b > 126:
                            raise OSError(5, "the saved game holds not a move at byte %d"
                                          % (REGION_AT + at + j))
                        move[k] = b
                        k += 1
                at += n
        i = self.base
        for piece in range(len(self.texts)):
            text = self.texts[piece]
            end = self.used[piece]
            k = 1  # just past the opening quote of the piece's first move
            while k < end:
                e = k
                while text[e] != _QUOTE:
                    e += 1
                if i >= start:
                    yield str(memoryview(text)[k:e], "utf-8")
                i += 1
                k = e + 3  # past the closing quote, the comma and the next opening quote

    def _moves(self, start, stop):
        # The moves start..stop-1 (0 <= start, stop <= n) as a list of str.
        out = []  # type: list[str]
        if start < stop:
            for move in self._walk(start):
                out.append(move)
                if len(out) == stop - start:
                    break
        return out

    def _index(self, i, n):
        if i is None:
            return n
        if i < 0:
            i += n
        return 0 if i < 0 else n if i > n else i

    def __getitem__(self, i):
        n = self.n
        if isinstance(i, slice):
            if i.step is not None and i.step != 1:
                raise ValueError("a move log slices with step 1 only")
            start = 0 if i.start is None else self._index(i.start, n)
            return self._moves(start, self._index(i.stop, n))
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("move log index out of range")
        return self._moves(i, i + 1)[0]

    def __delitem__(self, i):
        n = self.n
        if not isinstance(i, slice) or i.stop is not None or i.step is not None:
            raise TypeError("a move log only deletes its end: del log[n:]")
        keep = 0 if i.start is None else self._index(i.start, n)
        if keep >= n:
            return
        if keep < self.base:
            # Into the committed save's moves: the next save copies fewer of them, and
            # the pieces here hold none. Read before anything changes (an OSError leaves
            # the log whole).
            kept = -1
            for j, move in enumerate(self._walk(0)):
                if j == keep:
                    break
                kept += len(move) + 3  # its quotes and the comma before it (ASCII: checked)
            self.kept = kept if keep else 0
            self.base = self.n = keep
            self._empty_from(0)
            return
        piece = self._piece_of(keep)
        count = keep - self.firsts[piece]  # the moves the piece keeps
        text = self.texts[piece]
        k = 0
        for _ in range(count):
            k += 1
            while text[k] != _QUOTE:
                k += 1
            k += 2  # past the closing quote and the comma
        self.n = keep
        self._empty_from(piece)
        if count:
            self.used[piece] = k - 1  # just after the last closing quote kept
            self.firsts[piece] = keep - count

    def __iter__(self):
        return self._walk(0)

    def __eq__(self, other):
        if len(self) != len(other):
            return False
        return self._moves(0, self.n) == list(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "MoveLog(%r)" % (self._moves(0, self.n),)

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
JSON takes as it is; anything that would need escaping is refused.

Reads like a list: len(), log[i] (negative too), log[a:b] (a list), iteration, == with a
list; append(); del log[n:] (the only deletion the board needs: a takeback).
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

TEXT_BYTES = const(512)  # a piece's text: a move is at most about 16 bytes and 3 of JSON
_QUOTE = const(34)
_COMMA = const(44)


class MoveLog:
    def __init__(self, moves=()):
        self.texts = []  # one bytearray(TEXT_BYTES) a piece: its moves' JSON, then unused
        self.used = []  # for each, how many bytes of it its moves take
        self.firsts = []  # for each, the number of its first move
        self.n = 0
        for move in moves:
            self.append(move)

    def append(self, move):
        data = move.encode()
        if b'"' in data or b"\\" in data or any(b < 32 for b in data):
            raise ValueError("a move JSON would need to escape: %r" % move)
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
        """The buffers themselves (views, not copies), each its moves as JSON strings joined
        by commas: joined by commas, the items of the game's list of moves in JSON."""
        return [memoryview(self.texts[p])[:self.used[p]] for p in range(len(self.texts))]

    def __len__(self):
        return self.n

    def _piece_of(self, i):
        piece = len(self.firsts) - 1
        while self.firsts[piece] > i:
            piece -= 1
        return piece

    def _moves(self, start, stop):
        # The moves start..stop-1 (0 <= start, stop <= n) as a list of str, read in order
        # through the pieces. Where a move ends is found by its closing quote (a move has
        # none inside): the record keeps no table of ends, read seldom (a PC catching up,
        # a takeback, the record asked for).
        out = []  # type: list[str]
        if start >= stop:
            return out
        piece = self._piece_of(start)
        skip = start - self.firsts[piece]
        i = start
        while i < stop:
            text = self.texts[piece]
            end = self.used[piece]
            k = 1  # just past the opening quote of the piece's first move
            while k < end and i < stop:
                e = k
                while text[e] != _QUOTE:
                    e += 1
                if skip:
                    skip -= 1
                else:
                    out.append(str(memoryview(text)[k:e], "utf-8"))
                    i += 1
                k = e + 3  # past the closing quote, the comma and the next opening quote
            piece += 1
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
        if keep < n:
            piece = self._piece_of(keep)
            count = keep - self.firsts[piece]  # the moves the piece keeps
            if not count:  # the piece goes whole
                piece -= 1
            else:
                text = self.texts[piece]
                k = 0
                for _ in range(count):
                    k += 1
                    while text[k] != _QUOTE:
                        k += 1
                    k += 2  # past the closing quote and the comma
                self.used[piece] = k - 1  # just after the last closing quote kept
            del self.texts[piece + 1:]
            del self.used[piece + 1:]
            del self.firsts[piece + 1:]
            self.n = keep

    def __iter__(self):
        return iter(self._moves(0, self.n))

    def __eq__(self, other):
        if len(self) != len(other):
            return False
        return self._moves(0, self.n) == list(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "MoveLog(%r)" % (self._moves(0, self.n),)

"""The game's record of moves, as a list of strings to its readers, kept in a few buffers.

A list of move strings keeps one small object per move alive for the whole game, each
wherever the heap had room when the move's legal list was made: after a few hundred moves
they pin the board's fixed heap into holes of a few KB, though most of it is free, and an
allocation of 5 KB fails (tests/test_micropython_unix.py measured the largest free block
fall to 8 KB of 350 KB free after one long game). One bytearray of the whole game's text
has the opposite trouble: it grows by reallocation, each time needing one free block
bigger than itself, and in a 192 KiB heap (a 32-bit build, code in ROMFS) game 32 of a soak
could not find 3,673 bytes in one piece with 66 KB free (docs/benchmarks.md). So the moves
are kept in pieces, each a bytearray of their text and an array of where each ends.

Each piece's buffers are made whole when the piece starts (TEXT_BYTES of text, at most
PIECE_MOVES moves; a move that would not fit starts the next piece) and never grow: a
bytearray that grows by extend() is made again at each move a byte longer, and in a
192 KiB heap (32-bit, code from .mpy files) game 9 of a soak failed there, "allocating
794 bytes" with 15 KB free in blocks of 770 bytes at most, after hundreds of moves that
had each made a block a little bigger than the last (docs/benchmarks.md). Now a piece
needs its 512 bytes in one block once, and no buffer of the record is made again.

Each buffer holds its moves as the JSON a save writes (`"m1","m2"`), so that the save is
written from the buffers themselves (json_pieces) rather than from a string per move made
again at every move (on the WebAssembly port, the save of a 327-move game allocated 45 KB
that way; docs/benchmarks.md). Moves are the rules' text (letters, digits, spaces), which
JSON takes as it is; anything that would need escaping is refused.

Reads like a list: len(), log[i] (negative too), log[a:b] (a list), iteration, == with a
list; append(); del log[n:] (the only deletion the board needs: a takeback).
"""

from array import array

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

TEXT_BYTES = const(512)  # a piece's text: a move is at most about 16 bytes and 3 of JSON
PIECE_MOVES = const(48)  # a piece's moves at most (its array of ends, made whole)


class MoveLog:
    def __init__(self, moves=()):
        self.texts = []  # one bytearray(TEXT_BYTES) a piece: its moves' JSON, then unused
        self.ends = []  # for each, where each of its moves ends in it (PIECE_MOVES places)
        self.firsts = []  # for each, the number of its first move
        self.n = 0
        for move in moves:
            self.append(move)

    def _count(self, piece):
        # How many moves the piece holds.
        last = piece + 1 == len(self.firsts)
        return (self.n if last else self.firsts[piece + 1]) - self.firsts[piece]

    def _used(self, piece):
        # How many bytes of the piece's text its moves take.
        count = self._count(piece)
        return self.ends[piece][count - 1] if count else 0

    def append(self, move):
        data = move.encode()
        if b'"' in data or b"\\" in data or any(b < 32 for b in data):
            raise ValueError("a move JSON would need to escape: %r" % move)
        if len(data) + 2 > TEXT_BYTES:
            raise ValueError("a move of %d bytes: longer than a piece of the record" % len(data))
        piece = len(self.texts) - 1
        count = self._count(piece) if piece >= 0 else PIECE_MOVES
        used = self._used(piece) if piece >= 0 else 0
        if count == PIECE_MOVES or used + len(data) + 3 > TEXT_BYTES:
            self.texts.append(bytearray(TEXT_BYTES))
            self.ends.append(array("H", bytes(2 * PIECE_MOVES)))
            self.firsts.append(self.n)
            piece, count, used = piece + 1, 0, 0
        text = self.texts[piece]
        if count:
            text[used] = 44  # ,
            used += 1
        text[used] = 34  # "
        used += 1
        for b in data:  # byte by byte: a slice assignment would allocate a slice
            text[used] = b
            used += 1
        text[used] = 34
        self.ends[piece][count] = used + 1  # just after the move's closing quote
        self.n += 1

    def json_pieces(self):
        """The buffers themselves (views, not copies), each its moves as JSON strings joined
        by commas: joined by commas, the items of the game's list of moves in JSON."""
        return [memoryview(self.texts[p])[:self._used(p)] for p in range(len(self.texts))]

    def __len__(self):
        return self.n

    def _piece_of(self, i):
        piece = len(self.firsts) - 1
        while self.firsts[piece] > i:
            piece -= 1
        return piece

    def _get(self, i):
        piece = self._piece_of(i)
        j = i - self.firsts[piece]
        ends = self.ends[piece]
        start = ends[j - 1] + 2 if j else 1  # past the comma and the opening quote
        return str(memoryview(self.texts[piece])[start:ends[j] - 1], "utf-8")

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
            return [self._get(k) for k in range(start, self._index(i.stop, n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("move log index out of range")
        return self._get(i)

    def __delitem__(self, i):
        n = self.n
        if not isinstance(i, slice) or i.stop is not None or i.step is not None:
            raise TypeError("a move log only deletes its end: del log[n:]")
        keep = 0 if i.start is None else self._index(i.start, n)
        if keep < n:
            piece = self._piece_of(keep)
            if self.firsts[piece] == keep:  # the piece goes whole
                piece -= 1
            del self.texts[piece + 1:]
            del self.ends[piece + 1:]
            del self.firsts[piece + 1:]
            self.n = keep  # what the last piece held past it is not read again

    def __iter__(self):
        for i in range(self.n):
            yield self._get(i)

    def __eq__(self, other):
        if len(self) != len(other):
            return False
        for i in range(self.n):
            if self._get(i) != other[i]:
                return False
        return True

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "MoveLog(%r)" % (list(self),)

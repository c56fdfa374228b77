"""The game's record of moves, as a list of strings to its readers, kept in a few buffers.

A list of move strings keeps one small object per move alive for the whole game, each
wherever the heap had room when the move's legal list was made: after a few hundred moves
they pin the board's fixed heap into holes of a few KB, though most of it is free, and an
allocation of 5 KB fails (tests/test_micropython_unix.py measured the largest free block
fall to 8 KB of 350 KB free after one long game). One bytearray of the whole game's text
has the opposite trouble: it grows by reallocation, each time needing one free block
bigger than itself, and in a 192 KiB heap (a 32-bit build, code in ROMFS) game 32 of a soak
could not find 3,673 bytes in one piece with 66 KB free (docs/benchmarks.md). So the moves
are kept in pieces of PIECE moves, each a bytearray of their text and an array of where
each ends: no buffer grows past one piece (about 1 KB), however long the game.

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

PIECE = const(64)  # moves per buffer: a move is at most about 16 bytes of text


class MoveLog:
    def __init__(self, moves=()):
        self.texts = []  # one bytearray per PIECE moves, the last one filling
        self.ends = []  # for each, where each of its moves ends in it
        self.n = 0
        for move in moves:
            self.append(move)

    def append(self, move):
        data = move.encode()
        if b'"' in data or b"\\" in data or any(b < 32 for b in data):
            raise ValueError("a move JSON would need to escape: %r" % move)
        if self.n % PIECE == 0:
            self.texts.append(bytearray())
            self.ends.append(array("H"))
        text = self.texts[-1]
        if text:
            text.extend(b',"')
        else:
            text.extend(b'"')
        text.extend(data)
        text.extend(b'"')
        self.ends[-1].append(len(text))  # just after the move's closing quote
        self.n += 1

    def json_pieces(self):
        """The buffers themselves (not copies), each its moves as JSON strings joined by
        commas: joined by commas, the items of the game's list of moves in JSON."""
        return self.texts

    def __len__(self):
        return self.n

    def _get(self, i):
        piece, j = divmod(i, PIECE)
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
            pieces, left = (keep + PIECE - 1) // PIECE, keep % PIECE
            del self.texts[pieces:]
            del self.ends[pieces:]
            if left:
                self.texts[-1] = self.texts[-1][:self.ends[-1][left - 1]]
                self.ends[-1] = self.ends[-1][:left]
            self.n = keep

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

"""The game's record of moves, as a list of strings to its readers, kept in two buffers.

A list of move strings keeps one small object per move alive for the whole game, each
wherever the heap had room when the move's legal list was made: after a few hundred moves
they pin the board's fixed heap into holes of a few KB, though most of it is free, and an
allocation of 5 KB fails (tests/test_micropython_unix.py measured the largest free block
fall to 8 KB of 350 KB free after one long game). Here the moves are one bytearray of their
text and one array of where each ends: two objects, whatever the length of the game.

Reads like a list: len(), log[i] (negative too), log[a:b] (a list), iteration, == with a
list; append(); del log[n:] (the only deletion the board needs: a takeback).
"""

from array import array


class MoveLog:
    def __init__(self, moves=()):
        self.text = bytearray()
        self.ends = array("I")
        for move in moves:
            self.append(move)

    def append(self, move):
        self.text.extend(move.encode())
        self.ends.append(len(self.text))

    def __len__(self):
        return len(self.ends)

    def _get(self, i):
        start = self.ends[i - 1] if i else 0
        return str(memoryview(self.text)[start:self.ends[i]], "utf-8")

    def _index(self, i, n):
        if i is None:
            return n
        if i < 0:
            i += n
        return 0 if i < 0 else n if i > n else i

    def __getitem__(self, i):
        n = len(self.ends)
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
        n = len(self.ends)
        if not isinstance(i, slice) or i.stop is not None or i.step is not None:
            raise TypeError("a move log only deletes its end: del log[n:]")
        keep = 0 if i.start is None else self._index(i.start, n)
        if keep < n:
            end = self.ends[keep - 1] if keep else 0
            self.text = self.text[:end]
            self.ends = self.ends[:keep]

    def __iter__(self):
        for i in range(len(self.ends)):
            yield self._get(i)

    def __eq__(self, other):
        if len(self) != len(other):
            return False
        for i in range(len(self.ends)):
            if self._get(i) != other[i]:
                return False
        return True

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "MoveLog(%r)" % (list(self),)

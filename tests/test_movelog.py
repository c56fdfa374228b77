"""vora_fw.movelog: the game's record of moves reads as the list it stands for, and keeps no
buffer that grows with the game (a fixed heap seldom has one big free block: a growing
buffer of the whole game's text could not find 3,673 bytes in one piece in a 192 KiB heap
with 66 KB free, docs/benchmarks.md)."""

import json
import random
from array import array

import pytest

from vora_fw.movelog import MoveLog


def random_move(rng):
    return "".join(rng.choice("abcde12345+-xP") for _ in range(rng.randint(1, 14)))


def random_step(rng, log, moves, takeback_rate, spill=0):
    """A move appended to both, or (at takeback_rate) both cut at the same random point,
    up to `spill` past either end."""
    if rng.random() < takeback_rate and moves:
        keep = rng.randint(-spill, len(moves) + spill)
        del log[keep:]
        del moves[keep:]
    else:
        move = random_move(rng)
        log.append(move)
        moves.append(move)


@pytest.mark.parametrize("seed", range(20))
def test_a_move_log_reads_as_the_list_it_stands_for(seed):
    rng = random.Random(seed)
    log, moves = MoveLog(), []
    for _ in range(600):
        random_step(rng, log, moves, 0.05, spill=3)
        assert len(log) == len(moves)
    assert log == moves and not (log != moves) and list(log) == moves
    assert [log[i] for i in range(-len(moves), len(moves))] == moves + moves
    a, b = sorted(rng.randint(-10, len(moves) + 10) for _ in range(2))
    assert log[a:b] == moves[a:b] and log[a:] == moves[a:] and log[:b] == moves[:b]
    assert MoveLog(moves) == moves and log != moves + ["x"]
    with pytest.raises(IndexError):
        log[len(moves)]
    with pytest.raises(TypeError):
        del log[0:1]


def buffers(log):
    """Every buffer the log keeps (bytearrays, arrays), in lists or not."""
    for value in vars(log).values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (bytearray, array)):
                yield item


def test_no_buffer_of_a_long_game_grows_past_about_a_kilobyte():
    log = MoveLog()
    for i in range(1000):
        log.append("e5-d4+c3x%d" % i)  # 12 to 13 bytes, longer than most moves
    assert len(log) == 1000 and log[999] == "e5-d4+c3x999"
    sizes = [len(buf) * getattr(buf, "itemsize", 1) for buf in buffers(log)]
    assert sizes and max(sizes) <= 1024, max(sizes)


def test_the_record_keeps_its_moves_json_and_little_else():
    # A long game's record is the largest thing the board keeps (5 KB of its heap after a
    # 327-move game, docs/benchmarks.md): its buffers hold the moves' JSON, and apart
    # from the last piece's unused end, next to nothing more (no table of where each
    # move ends: 112 bytes a piece were a sixth of it).
    rng = random.Random(11)
    log, moves = MoveLog(), []
    for _ in range(330):
        move = "%s %s %s" % (rng.choice(("push", "take", "mole", "ladybug")),
                             rng.choice(("pig", "a1", "e5")), rng.choice(("Sa", "c3", "W1")))
        log.append(move)
        moves.append(move)
    json_bytes = len(json.dumps(moves, separators=(",", ":"))) - 2
    kept = sum(len(buf) * getattr(buf, "itemsize", 1) for buf in buffers(log))
    assert kept <= json_bytes * 1.05 + 512, (kept, json_bytes)
    assert log == moves


def test_a_buffer_is_made_whole_once_and_never_made_again():
    # A bytearray that grows by extend() is made again a little bigger at each move: on a
    # board's fixed heap, hundreds of such blocks split the free memory until one move's
    # buffer found no block (docs/benchmarks.md, "The setup lets go of the last game").
    rng = random.Random(7)
    log, moves, made = MoveLog(), [], {}
    for i in range(700):
        if rng.random() < 0.04 and moves:
            keep = rng.randint(0, len(moves))
            del log[keep:]
            del moves[keep:]
        move = random_move(rng)
        log.append(move)
        moves.append(move)
        for buf in buffers(log):
            size = len(buf) * getattr(buf, "itemsize", 1)
            assert made.setdefault(id(buf), (buf, size))[1] == size, "a buffer grew"
    assert log == moves
    # The save's pieces are the JSON of the list of moves, read from those buffers.
    pieces = log.json_pieces()
    assert all(isinstance(p, memoryview) for p in pieces)
    assert json.loads("[" + b",".join(bytes(p) for p in pieces).decode() + "]") == moves


def test_a_move_that_json_would_escape_or_no_piece_could_hold_is_refused():
    log = MoveLog(["a1"])
    # Not printable ASCII either: a save holds only that (vora_fw.saved_game), and a takeback
    # into the saved moves counts their bytes as characters.
    for bad in ('say "hi"', "back\\slash", "tab\there", "x" * 600, "caf\u00e9", "del\x7f"):
        with pytest.raises(ValueError):
            log.append(bad)
    assert log == ["a1"]

"""The game's record of moves off the board's heap (issue 40): once a save holds a move, the
board reads it back from the flash and no longer keeps it; each save copies the moves of
the one before it (a span of vora_fw.store) and adds those made since.

What must hold, whatever happens: the record reads as every move played, in order; a save
holds the whole game; a power cut at any step of a save that copies leaves the game before
the move or after it; a save that fails keeps the moves since the last one on the heap for
the next; a takeback into the moves on the flash copies fewer of them; a flash that cannot
be read back is said so, and the game goes on."""

import json
import random

import pytest

from mpy import run_micropython
from shared_rules import wire, wire_host
from vora_fw import layout, link as link_mod, movelog as movelog_mod
from vora_fw.movelog import SAVE_HEAD, MoveLog
from vora_fw.saved_game import parse_game
from vora_fw.store import Store
from vora_fw.vora_ui import VoraUI
from vora_fw.vora_ui_frames import MODE_PLAY, MODE_UNDO

from test_link_board import Board
from test_movelog import buffers, random_move, random_step
from test_store import DIR, FS_KINDS, Disk, FaultFS, PowerCut


def save(log, store):
    """A save as the board makes it: the record first (SAVE_HEAD), then the rest."""
    pieces = [SAVE_HEAD]
    for i, piece in enumerate(log.json_pieces()):
        if i:
            pieces.append(",")
        pieces.append(piece)
    pieces.append('],"n":%d}' % len(log))
    store.save_pieces(pieces, log.committed)


def saved_moves(store):
    return json.loads(store.load())["moves"]


def heap_bytes(log):
    return sum(len(buf) for buf in buffers(log))


def test_moves_once_saved_are_read_from_the_flash_and_not_kept(tmp_path):
    # Before: the record kept every move on the heap, 5 KB after 327 moves, the biggest
    # thing a long game kept (docs/benchmarks.md).
    store = Store(str(tmp_path / "save"))
    log, moves = MoveLog(flash=store), []
    rng = random.Random(1)
    for _ in range(400):
        move = random_move(rng)
        log.append(move)
        moves.append(move)
        save(log, store)
        assert heap_bytes(log) <= movelog_mod.TEXT_BYTES
    assert log.base == 400 and log == moves and list(log) == moves
    assert saved_moves(store) == moves
    assert log[0] == moves[0] and log[-1] == moves[-1] and log[123:131] == moves[123:131]


@pytest.mark.parametrize("seed", range(12))
def test_the_record_reads_as_its_list_through_saves_failures_and_takebacks(seed):
    # A model of the board's day: moves, saves (some refused by a full flash), takebacks
    # into the moves on the flash or those since, each checked against a plain list.
    rng = random.Random(seed)
    disk = Disk()
    fs = FaultFS(disk)
    store = Store(DIR, fs)
    log, moves, saved = MoveLog(flash=store), [], None
    for _ in range(300):
        random_step(rng, log, moves, 0.06)
        full = rng.random() < 0.15
        fs.capacity = fs.used() if full else None
        try:
            save(log, store)
        except OSError:
            assert full
            assert Store(DIR, FaultFS(disk.copy())).load() == saved  # the last one stands
        else:
            saved = store.load()
            assert json.loads(saved)["moves"] == moves
        assert len(log) == len(moves) and log == moves
        assert log.base <= len(moves)
    a, b = sorted(rng.randint(-5, len(moves) + 5) for _ in range(2))
    assert log[a:b] == moves[a:b] and [log[i] for i in range(len(moves))] == moves


def test_a_save_that_fails_keeps_the_moves_since_the_last_one_and_the_next_has_all():
    disk = Disk()
    fs = FaultFS(disk)
    store = Store(DIR, fs)
    log, moves = MoveLog(flash=store), []
    for i in range(60):
        moves.append("m%d" % i)
        log.append(moves[-1])
        save(log, store)
    fs.capacity = fs.used()  # the flash is full
    for i in range(60, 100):
        moves.append("m%d" % i)
        log.append(moves[-1])
        with pytest.raises(OSError):
            save(log, store)
    assert log.base == 60 and log == moves and saved_moves(store) == moves[:60]
    fs.capacity = None
    save(log, store)
    assert log.base == 100 and saved_moves(store) == moves and log == moves
    assert heap_bytes(log) <= movelog_mod.TEXT_BYTES


@pytest.mark.parametrize("rename_replaces", FS_KINDS)
def test_a_power_cut_at_every_step_of_a_save_that_copies_gives_before_or_after(rename_replaces):
    base = Disk()
    store = Store(DIR, FaultFS(base, rename_replaces=rename_replaces, chunk=64))
    log = MoveLog(flash=store)
    for i in range(80):
        log.append("move %d" % i)
        save(log, store)
    before = store.load()
    moves = list(log)
    # How many steps one whole save takes, on a copy.
    probe = base.copy()
    fs = FaultFS(probe, rename_replaces=rename_replaces, chunk=64)
    log2 = MoveLog(moves, flash=Store(DIR, fs))
    save(log2, log2.flash)
    log2.append("move 80")
    start = fs.steps
    save(log2, log2.flash)
    total = fs.steps - start
    after = Store(DIR, FaultFS(probe)).load()
    assert json.loads(after)["moves"] == moves + ["move 80"]
    seen = set()
    for n in range(total + 1):
        disk = base.copy()  # the flash as it was before the move's save
        cut = FaultFS(disk, budget=n, rename_replaces=rename_replaces, chunk=64)
        log3 = MoveLog(moves, flash=Store(DIR, cut))
        log3.committed()  # as the board is after its last save: the moves on the flash
        log3.append("move 80")
        try:
            save(log3, log3.flash)
        except PowerCut:
            pass
        got = Store(DIR, FaultFS(disk, rename_replaces=rename_replaces)).load()
        assert got in (before, after), "cut after %d of %d steps" % (n, total)
        seen.add(got)
    assert seen == {before, after}


def test_a_takeback_into_the_saved_moves_copies_fewer_of_them(tmp_path):
    store = Store(str(tmp_path / "save"))
    log = MoveLog(flash=store)
    moves = ["a%d" % i for i in range(50)]
    for move in moves:
        log.append(move)
    save(log, store)
    assert log.base == 50
    del log[20:]
    assert log == moves[:20] and log.base == 20
    assert saved_moves(store) == moves  # not saved yet: the flash still holds 50
    log.append("b")
    save(log, store)
    assert saved_moves(store) == moves[:20] + ["b"] and log == moves[:20] + ["b"]
    del log[0:]
    save(log, store)
    assert saved_moves(store) == [] and len(log) == 0 and list(log) == []


def thirty_saved(tmp_path):
    """A log of moves m0..m29, all in the save on the flash (tmp_path/save/game.json)."""
    store = Store(str(tmp_path / "save"))
    log = MoveLog(flash=store)
    for i in range(30):
        log.append("m%d" % i)
    save(log, store)
    return log


def test_a_flash_that_cannot_be_read_back_is_an_oserror_and_the_record_stays_whole(tmp_path):
    log = thirty_saved(tmp_path)
    (tmp_path / "save" / "game.json").write_bytes(b"VSAVE1 5 00000000\n{\"mo")  # cut short
    with pytest.raises(OSError, match="cut short"):
        log[3]
    with pytest.raises(OSError):
        del log[10:]
    assert len(log) == 30 and log.base == 30  # nothing changed
    (tmp_path / "save" / "game.json").unlink()
    with pytest.raises(OSError):
        list(log)
    log.append("m30")
    with pytest.raises(OSError):
        save(log, log.flash)  # a save cannot copy what is not there: it fails, nothing written
    assert not (tmp_path / "save" / "game.new").exists()


def test_a_save_copies_only_from_a_save_that_holds_the_span(tmp_path):
    store = Store(str(tmp_path / "save"))
    store.save('{"moves":[]}')
    with pytest.raises(OSError, match="cut short"):
        store.save_pieces([SAVE_HEAD, (10, 500), "]}"])
    assert store.load() == '{"moves":[]}'


# ---- the board's game, played and read back --------------------------------------------

def played(tmp_path, n, seed=3):
    store = Store(str(tmp_path / "save"))
    events = []
    ui = VoraUI(store=store, seed_fn=lambda: seed, id_fn=lambda: 11,
                listener=lambda e, s, d: events.append((e, d)))
    ui.new_game("SWNE", seed)
    moves = []
    for k in range(n):
        if ui.state.is_over():
            break
        move = ui.legal[(k * 7) % len(ui.legal)]
        ui.play(move, k)
        moves.append(move)
    return ui, store, moves, events


def test_the_board_keeps_one_piece_of_a_long_game_and_its_save_is_the_whole_game(tmp_path):
    ui, store, moves, _ = played(tmp_path, 250)
    assert len(moves) > 150
    assert heap_bytes(ui.moves) <= movelog_mod.TEXT_BYTES
    game = parse_game(store.load())  # replays from the seed to the saved state
    assert game["moves"] == moves == ui.moves and game["game_id"] == 11
    again = VoraUI(store=store, seed_fn=lambda: 1)
    again.resume()
    assert again.moves == moves and again.state.to_json() == ui.state.to_json()
    again.play(again.legal[0], 0)
    assert parse_game(store.load())["moves"] == moves + [again.moves[-1]]


def test_a_takeback_reads_the_record_from_the_flash(tmp_path):
    ui, store, moves, events = played(tmp_path, 40)
    ui.snap = None  # as after a power cut: the takeback replays the record
    assert ui.request_takeback("", 100) == 0
    assert ui.mode == MODE_UNDO and ui.undo_wait
    for seat in ui.undo_wait:
        ui.key(layout.CORNER_OF_SEAT[seat], True, 200)
        ui.key(layout.CORNER_OF_SEAT[seat], False, 260)
    kept = len(ui.moves)
    assert kept < len(moves) and ui.moves == moves[:kept]
    assert parse_game(store.load())["moves"] == moves[:kept]


def test_a_takeback_the_flash_cannot_read_is_refused_and_the_game_goes_on(tmp_path):
    ui, store, moves, events = played(tmp_path, 30)
    ui.snap = None
    (tmp_path / "save" / "game.json").write_bytes(b"not a save")
    assert ui.request_takeback("", 100) != 0
    refused = [d for e, d in events if e == "refused"][-1]
    assert "record cannot be read" in refused[2]
    assert ui.mode == MODE_PLAY and len(ui.moves) == len(moves)
    # The moves before are gone from the flash: the game goes on unsaved, and says so.
    ui.play(ui.legal[0], 200)
    assert ui.save_error and len(ui.moves) == len(moves) + 1


# ---- the PC catching up from the flash -------------------------------------------------

class Reads(MoveLog):
    """The board's move log, noting the slices asked of it."""

    asked = []

    def __getitem__(self, i):
        if isinstance(i, slice):
            Reads.asked.append((i.start, i.stop))
        return MoveLog.__getitem__(self, i)


def caught_up(b):
    b.exchange(60)
    got = []
    for t, _, p in b.seen:
        if t == wire.MOVES:
            game, first, part = wire_host.unpack_moves(p)
            got = got[:first - 1] + part
    return got


def test_a_pc_catching_up_reads_the_moves_from_the_flash_a_frame_at_a_time(tmp_path):
    b = Board(Store(str(tmp_path / "save")))
    b.hello()
    b.ui.new_game("SN", 3)
    b.ui.moves = Reads(flash=b.ui.store)
    b.play(200)
    b.exchange(20)
    assert b.ui.moves.base >= 199
    Reads.asked.clear()
    b.request(wire.MOVES_REQ, wire_host.pack_moves_req(77, 1))
    assert caught_up(b) == b.ui.moves
    # Each MOVES read no more moves than a frame can hold, not the whole rest of the game.
    assert Reads.asked and all(stop is not None and stop - start <= link_mod.MOVES_READ
                               for start, stop in Reads.asked), Reads.asked


def test_a_pc_asking_for_moves_the_flash_cannot_give_hears_why(tmp_path):
    b = Board(Store(str(tmp_path / "save")))
    b.hello()
    b.ui.new_game("SN", 3)
    b.play(30)
    (tmp_path / "save" / "game.json").write_bytes(b"VSAVE1 3 00000000\n{\"m")
    b.request(wire.MOVES_REQ, wire_host.pack_moves_req(77, 1))
    caught_up(b)
    logs = [wire.unpack_text(p) for t, _, p in b.seen if t == wire.LOG]
    assert any("record cannot be read" in text for text in logs), logs
    b.play(1)  # the game goes on
    assert len(b.ui.moves) == 31


COMMIT_ALLOCATES = """
import gc
import sys
sys.path.append("/app/firmware")
from vora_fw.movelog import MoveLog
log = MoveLog()
for i in range(200):
    log.append("move %d" % i)
pieces = len(log.texts)
gc.collect()
gc.disable()
before = gc.mem_alloc()
log.committed()
grew = gc.mem_alloc() - before
gc.enable()
print(pieces, len(log.texts), log.base, log.kept, log.used[0], grew)
"""


def test_the_log_learns_of_a_save_without_allocating():
    # committed() runs right after the save's rename: a MemoryError half-way would leave
    # the log counting moves twice. Under MicroPython it makes no object (deleting the
    # pieces by slices made three slice objects, 48 bytes); its lists only shrink.
    out = run_micropython(COMMIT_ALLOCATES, check=True).stdout.split()
    pieces, left, base, kept, used, grew = map(int, out)
    assert pieces > 2 and left == 1 and base == 200 and used == 0
    assert kept == len(",".join('"move %d"' % i for i in range(200)))
    assert grew <= 0, grew


def test_a_damaged_byte_among_the_saved_moves_is_an_oserror_not_a_unicode_error(tmp_path):
    # Reads of the saved moves check the header, not the checksum: a byte the flash got
    # wrong must still come out as the documented OSError (the link and the takeback report
    # it), never as a UnicodeError out of a decode, which nothing above catches.
    log = thirty_saved(tmp_path)
    path = tmp_path / "save" / "game.json"
    data = bytearray(path.read_bytes())
    at = data.index(b'"m7"') + 1
    data[at] = 0xC3  # the first byte of a two-byte UTF-8 sequence, not followed by one
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="not a move"):
        log[7]
    with pytest.raises(OSError):
        list(log)
    assert log[:7] == ["m%d" % i for i in range(7)]  # what comes before it still reads

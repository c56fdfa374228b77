"""The move log makes its buffers once, at their full size, and keeps them (issue 40): play
grows no buffer and, after the board's first long game, makes none. A bytearray grown move
by move was moved to a new block at most of its growths, each move leaving a hole in a
fixed heap that the next long allocation could not use (docs/benchmarks.md,
"Fragmentation in play"); and every new game made new buffers wherever the heap had room."""

from vora_fw.movelog import PIECE_BYTES, MoveLog
from vora_fw.store import Store
from vora_fw.vora_ui import VoraUI


def identities(log):
    return [(id(t), id(e)) for t, e in zip(log.texts, log.ends)]


def test_buffers_are_made_whole_and_kept_through_takebacks_and_new_games(tmp_path):
    ui = VoraUI(Store(str(tmp_path / "save")), lambda: 5)
    ui.new_game("SWNE", 5)
    log = ui.moves
    while len(ui.moves) < 300 and not ui.state.is_over():
        before = [bytes(b) for b in log.texts]
        sizes = [len(b) for b in log.texts]
        kept = identities(log)
        ui.play(ui.legal[len(ui.legal) // 2], 0)
        assert identities(log)[:len(kept)] == kept  # no buffer replaced ...
        assert all(len(b) == PIECE_BYTES for b in log.texts) and \
            [len(b) for b in log.texts][:len(sizes)] == sizes  # ... nor grown
        assert [bytes(b) for b in log.texts][:len(before) - 1] == before[:-1]
    played = list(ui.moves)
    made = identities(log)
    del log[100:]  # a takeback's cut: the buffers stay for the moves played next
    assert list(log) == played[:100] and identities(log) == made
    for move in played[100:]:
        log.append(move)
    assert list(log) == played and identities(log) == made
    ui.new_game("SN", 6)  # a new game reuses them
    assert ui.moves is log and len(log) == 0
    while len(ui.moves) < 200 and not ui.state.is_over():
        ui.play(ui.legal[0], 0)
    assert identities(log)[:len(made)] == made and len(log.texts) <= len(made)
    # The save is still the game's (the buffers' views, the state's JSON).
    resumed = VoraUI(Store(str(tmp_path / "save")), lambda: 5)
    resumed.resume()
    assert list(resumed.moves) == list(ui.moves)
    assert resumed.state.digest() == ui.state.digest()


def test_a_move_that_does_not_fit_the_last_buffer_starts_the_next():
    log = MoveLog()
    long = "x" * 200
    for i in range(12):
        log.append(long + str(i % 10))
    assert len(log.texts) == 3 and log.counts[:log.used] == [5, 5, 2]
    assert list(log) == [long + str(i % 10) for i in range(12)]
    assert b",".join(bytes(p) for p in log.json_pieces()) == \
        b",".join(b'"%s"' % (long + str(i % 10)).encode() for i in range(12))

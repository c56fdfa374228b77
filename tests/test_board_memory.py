"""A board low on memory does not lose the game (vora_fw.app.App._guarded): an allocation
that fails in play is retried once after a collection; failing again, the game is saved
and the keys show the error until memory comes back. Here MemoryError is injected on
CPython where the firmware allocates most (the legal moves, the copy of the state);
tests/test_micropython_unix.py provokes a real one under a hard heap."""

import json

from board_player import move_keys
from vora_fw import layout, palette
from vora_fw.app import App
from vora_fw.hal_sim import SimHardware, default_pinmap
from vora_fw.store import Store
from vora_fw.vora_ui import SAVE_RETRY_MS


class Failing:
    """Wraps a state: its method `name` raises MemoryError the next `times` calls."""

    def __init__(self, ui, name, times):
        self.ui, self.name, self.times = ui, name, times
        cls = type(ui.state)
        # The method may live on a mixin (VoraState takes its meadow from vora_meadow):
        # shadow it on the class itself and take the shadow away afterwards.
        self.own = name in cls.__dict__
        self.orig = getattr(cls, name)
        me = self

        def failing(state, *args):
            if me.times > 0:
                me.times -= 1
                raise MemoryError("injected")
            return me.orig(state, *args)
        setattr(cls, name, failing)

    def restore(self):
        if self.own:
            setattr(type(self.ui.state), self.name, self.orig)
        else:
            delattr(type(self.ui.state), self.name)


def board(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    app = App(SimHardware(), default_pinmap(), Store(str(tmp_path / "save")), seed_fn=lambda: 7)
    app.ui.new_game("SN", 7)
    return app


def press(app, name, now):
    k = layout.key_index(name)
    app._guarded(now, k, True)
    app._guarded(now + 30, k, False)


def play_by_keys(app, move, now, fail=None):
    """Press the keys of `move`; `fail` = (method, times) is armed before the last key."""
    for name in move_keys(app.ui, move):  # each key worked out from what the board shows
        if app.ui.preview != move or not fail:
            press(app, name, now)
            continue
        injected = Failing(app.ui, *fail)  # the confirming key
        try:
            press(app, name, now)
        finally:
            injected.restore()


def saved_moves(tmp_path):
    text = (tmp_path / "save" / "game.json").read_bytes().split(b"\n", 1)[1]
    return json.loads(text)["moves"]


def test_one_failure_is_collected_and_retried_unseen(tmp_path):
    for method in ("legal_codes", "clone"):  # after the move is played / before
        app = board(tmp_path / method)
        ui = app.ui
        move = ui.legal[0]
        digest = ui.state.clone()
        digest.play(move)
        play_by_keys(app, move, 1000, (method, 1))
        assert list(ui.moves) == [move] and ui.state.digest() == digest.digest()
        assert list(ui.legal) == ui.state.legal_moves() and ui.unsettled is None
        assert not ui.memory_error and app.out_of_memory == 0 and app.reserve is not None
        assert app.memory_errors == 1
        assert saved_moves(tmp_path / method) == [move]


def test_failing_twice_saves_the_game_shows_the_error_and_recovers(tmp_path):
    app = board(tmp_path)
    ui = app.ui
    first = ui.legal[0]
    play_by_keys(app, first, 1000)
    reserve = app.reserve
    move = ui.legal[len(ui.legal) // 2]
    play_by_keys(app, move, 2000, ("legal_codes", 2))
    # The move was played once; the state, the record and the save agree; the keys show it.
    assert list(ui.moves) == [first, move] and saved_moves(tmp_path) == [first, move]
    # The reserve was given back to save the game, and made again once memory allowed.
    assert ui.memory_error and app.out_of_memory == 1 and app.reserve is not reserve
    assert app.memory_errors == 2
    frame = bytearray(147)
    ui.render(frame, 2100)  # the first half of the blink
    edges = [k for k in range(49) if layout.is_edge(k)]
    assert all(tuple(frame[3 * k:3 * k + 3]) == palette.STOP for k in edges + [24])
    # Keys wait (no legal moves yet); once the retry time has come, the move settles.
    app._guarded(2200)
    assert ui.unsettled == move and ui.memory_error
    app._guarded(2000 + SAVE_RETRY_MS + 10)
    assert ui.unsettled is None and not ui.memory_error and list(ui.legal) == ui.state.legal_moves()
    play_by_keys(app, ui.legal[0], 9000)
    assert len(ui.moves) == 3 and len(saved_moves(tmp_path)) == 3


def test_a_board_started_on_a_heap_in_pieces_plays_and_makes_its_reserve_later(
        tmp_path, monkeypatch):
    # A board restarted without a reset (the soak's power cut, a soft reset) may find no
    # 4 KB block for the reserve: it starts without one instead of failing, and makes it
    # once a key goes through with memory to spare.
    from vora_fw import app as app_module
    made = []

    def no_big_block(n):
        if n >= app_module.RESERVE_BYTES and not made:
            made.append(n)
            raise MemoryError("memory allocation failed, allocating %d bytes" % n)
        return bytearray(n)
    monkeypatch.setattr(app_module, "bytearray", no_big_block, raising=False)
    app = board(tmp_path)
    assert app.reserve is None and made == [app_module.RESERVE_BYTES]
    move = app.ui.legal[0]
    play_by_keys(app, move, 1000)
    assert list(app.ui.moves) == [move] and app.memory_errors == 0
    assert app.reserve is not None and len(app.reserve) == app_module.RESERVE_BYTES

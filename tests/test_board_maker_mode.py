"""The maker mode (issue 40): an update offered while the game runs restarts the board into
a mode that holds only the link, the updater and the doctor (vora_fw.maker_mode), where
the update is taken; the game, saved at its last move, resumes at the next start.

In process on CPython, on a flash folder of the simulated board (tests/test_update.py has
the updater's own checks; tests/test_micropython_unix.py runs the same path under a hard
heap). A power cut at every step from the offer in the game to the new version confirmed
leaves a board that boots a whole version with its save; the update, offered again, ends
switched and confirmed."""

import pytest

from shared_rules import wire, wire_host
from vora_fw import boot, link as link_module, start, vora_ui
from vora_fw.hal_sim import SimHardware, default_pinmap
from vora_fw.maker import MakerService
from vora_fw.maker_mode import IDLE_MS, MakerMode
from vora_fw.store import Store
from vora_host.virtual.flash import SimFs, slot_problem

from link_harness import Rig
from maker_support import (IDENTITY, SAVED, CuttingFs, PowerCut, copy_flash, full_bundle,
                           install, power_on, small_bundle, snapshot)


def fs_of(folder, capacity=848 * 1024):
    return SimFs(folder, capacity)


@pytest.fixture
def flash(tmp_path):
    return install(tmp_path / "flash", full_bundle("0.1.0"))


class Wire:
    """The makers' service's side of a link, recorded: what it sends, acks, resets."""

    def __init__(self):
        self.sent = []
        self.resets = 0
        self.session = self
        self.frames_received = 0

    def send(self, type, payload):
        self.sent.append((type, wire.unpack_json(payload)))
        return True

    def ack_now(self):
        pass

    def reset(self):
        self.resets += 1

    def last(self):
        return self.sent[-1][1]


class NoApp:
    def release_reserve(self):
        pass


def messages(b, downgrade=False):
    """The host's messages for bundle b, in order, with no resume (the board says where
    it stands at the offer; the tests below send from there)."""
    pieces = [b.manifest_bytes] + [d for _, d in b.files]
    out = []
    for k, data in enumerate(pieces):
        for o in range(0, len(data), wire_host.UPD_CHUNK):
            out.append((k, o, data[o:o + wire_host.UPD_CHUNK]))
    return out


def one_life(fs, root, b):
    """One start of the board, as vora_fw.start runs it, and what the PC does with it:
    returns "restart" (the game sent it to the maker mode), "switched" (the maker mode
    took the update), "confirmed" (the new version ran) or "game" (nothing to do). A
    PowerCut may end it anywhere."""
    running = power_on(fs, root)
    link = Wire()
    if start.take_maker_request(running):
        svc = MakerService(link, NoApp(), default_pinmap(), running, IDENTITY,
                           running.version, link.reset)
        svc.updater = svc._make_updater()
        svc.handle(wire.UPD_OFFER, wire_host.pack_upd_offer(len(b.manifest_bytes), b.id))
        st = link.last()
        assert st["state"] in ("receiving", "staged"), st  # staged: resumed from the flash
        for k, o, data in messages(b):
            if st["state"] == "receiving" and (k, o) >= (st["file"], st["offset"]):
                svc.handle(wire.UPD_DATA, wire_host.pack_upd_data(k, o, data))
        svc.handle(wire.UPD_COMMIT, wire_host.pack_upd_commit(b.id))
        assert link.last()["state"] == "switched", link.last()
        svc.handle(wire.UPD_RESET, b"")
        assert link.resets == 1
        return "switched"
    if running.mode == boot.MODE_TRIAL:
        running.confirm()
    if running.version == b.version and running.mode == boot.MODE_CONFIRMED:
        return "confirmed"
    svc = MakerService(link, NoApp(), default_pinmap(), running, IDENTITY, running.version,
                       link.reset, maker_mode=start.MAKER_REQUEST)
    svc.handle(wire.UPD_OFFER, wire_host.pack_upd_offer(len(b.manifest_bytes), b.id))
    assert link.last()["state"] == "restart" and link.resets == 1, link.sent
    assert svc.updater is None  # the game never loaded the updater
    return "restart"


def test_an_offer_in_the_game_restarts_into_the_maker_mode_and_writes_nothing_else(flash):
    before = snapshot(flash)
    assert one_life(fs_of(flash), str(flash), small_bundle("0.2.0")) == "restart"
    after = snapshot(flash)
    assert set(after) - set(before) == {start.MAKER_REQUEST}
    assert {k: v for k, v in after.items() if k != start.MAKER_REQUEST} == before
    # The next start is the maker mode, once: the request is gone when it starts.
    b = power_on(fs_of(flash), str(flash))
    assert start.take_maker_request(b) and not start.take_maker_request(b)
    assert snapshot(flash) == before


def test_the_whole_way_game_maker_mode_trial_confirmed_with_the_save(flash):
    new = small_bundle("0.2.0")
    lives = [one_life(fs_of(flash), str(flash), new) for _ in range(3)]
    assert lives == ["restart", "switched", "confirmed"]
    b = power_on(fs_of(flash), str(flash))
    assert (b.version, b.mode) == ("0.2.0", boot.MODE_CONFIRMED)
    assert Store(str(flash / "save")).load() == SAVED


def test_a_trial_never_starts_in_the_maker_mode(flash):
    new = small_bundle("0.2.0")
    assert [one_life(fs_of(flash), str(flash), new) for _ in range(2)] == ["restart", "switched"]
    (flash / start.MAKER_REQUEST).write_bytes(b"update\n")  # however it got there
    trial = power_on(fs_of(flash), str(flash))
    assert trial.mode == boot.MODE_TRIAL
    assert not start.take_maker_request(trial)  # the trial runs the game, to confirm itself
    assert not (flash / start.MAKER_REQUEST).exists()


def test_a_power_cut_at_every_step_from_the_offer_to_the_confirmation(tmp_path):
    base = install(tmp_path / "base", full_bundle("0.1.0"))
    new = small_bundle("0.2.0")

    def whole_way(fs, folder):
        said = []
        for _ in range(3):
            said.append(one_life(fs, str(folder), new))
        assert said == ["restart", "switched", "confirmed"], said

    dry = copy_flash(base, tmp_path / "dry")
    counter = CuttingFs(fs_of(dry))
    whole_way(counter, dry)
    total = counter.steps
    assert total > 20
    for cut in range(total):
        folder = copy_flash(base, tmp_path / ("cut%d" % cut))
        with pytest.raises(PowerCut):
            whole_way(CuttingFs(fs_of(folder), cut), folder)
        # Power back: a version whose files are all there and whole, and the save.
        b = power_on(fs_of(folder), str(folder))
        assert b.slot is not None and slot_problem(folder, b.slot) is None, cut
        assert Store(str(folder / "save")).load() == SAVED, cut
        # The PC runs vora update again: whatever the cut left, it ends confirmed.
        lives = []
        while not lives or lives[-1] != "confirmed":
            lives.append(one_life(fs_of(folder), str(folder), new))
            assert len(lives) <= 4, (cut, lives)
        assert power_on(fs_of(folder), str(folder)).version == "0.2.0", cut
        assert Store(str(folder / "save")).load() == SAVED, cut
        assert not (folder / start.MAKER_REQUEST).exists(), cut


def test_no_maker_mode_while_a_new_version_waits_to_boot(flash):
    new = small_bundle("0.2.0")
    assert [one_life(fs_of(flash), str(flash), new) for _ in range(2)] == ["restart", "switched"]
    # The switched version has not booted yet; the game runs (a board that was not reset).
    running = boot.Boot(fs_of(flash), str(flash), "a", boot.MODE_CONFIRMED,
                        boot.read_record(fs_of(flash), str(flash)), "0.1.0")
    link = Wire()
    svc = MakerService(link, NoApp(), default_pinmap(), running, IDENTITY, "0.1.0",
                       link.reset, maker_mode=start.MAKER_REQUEST)
    svc.handle(wire.UPD_OFFER, wire_host.pack_upd_offer(len(new.manifest_bytes), new.id))
    assert link.last()["code"] == "busy" and link.resets == 0
    assert not (flash / start.MAKER_REQUEST).exists()


def test_the_other_update_messages_in_the_game_need_no_updater(flash):
    b = power_on(fs_of(flash), str(flash))
    link = Wire()
    svc = MakerService(link, NoApp(), default_pinmap(), b, IDENTITY, "0.1.0", link.reset,
                       maker_mode=start.MAKER_REQUEST)
    svc.handle(wire.UPD_QUERY, b"")
    assert link.last()["state"] == "idle"
    svc.handle(wire.UPD_COMMIT, wire_host.pack_upd_commit(b"\x01" * 32))
    assert link.last()["code"] == "order"
    svc.handle(wire.UPD_DATA, wire_host.pack_upd_data(0, 0, b"x"))
    svc.handle(wire.UPD_ABORT, b"")
    assert link.last()["state"] == "idle" and len(link.sent) == 3
    assert svc.updater is None and link.resets == 0


# ---------------------------------------------------------------- the mode itself

def maker_mode_rig(folder):
    """MakerMode with its BoardLink, driven as the board drives it (step every 5 ms), and
    the PC's client on the other end."""
    rig = Rig(seed=5)
    rig.resets = []
    b = power_on(fs_of(folder), str(folder))
    rig.app = MakerMode(SimHardware(), default_pinmap(), b, rig.link,
                        lambda: rig.resets.append(1), "0.1.0", fs_of(folder).statvfs)
    rig.hw = rig.app.hw
    rig.got = []
    rig.client.on_message = lambda t, p: rig.got.append((t, wire.unpack_json(p)))
    rig.client.hello(rig.now)
    rig.run(100)
    return rig


def until(rig, check, ms=20000):
    for _ in range(ms // 5):
        if check():
            return True
        rig.run(5)
    return False


def test_the_maker_mode_takes_a_whole_update_over_the_link_and_shows_its_progress(flash):
    rig = maker_mode_rig(flash)
    c = rig.client
    assert c.connected and c.board["game"] is None and "update" in c.board["caps"]
    edges = [k for k in range(49) if (k % 7 in (0, 6)) != (k // 7 in (0, 6))]
    frame = rig.hw.frame_rgb()
    assert all(frame[3 * k + 2] > 0 for k in edges) and frame[3 * 24 + 2] == 0  # the mode
    new = small_bundle("0.2.0")
    c.send(wire.UPD_OFFER, wire_host.pack_upd_offer(len(new.manifest_bytes), new.id))
    assert until(rig, lambda: rig.got) and rig.got[-1][1]["state"] == "receiving"
    for k, o, data in messages(new):
        payload = wire_host.pack_upd_data(k, o, data)
        assert until(rig, lambda: c.send(wire.UPD_DATA, payload))
    assert until(rig, lambda: rig.got[-1][1]["state"] == "staged")
    c.send(wire.UPD_COMMIT, wire_host.pack_upd_commit(new.id))
    assert until(rig, lambda: rig.got[-1][1]["state"] == "switched")
    c.send(wire.DIAG_REQ, b"")  # the doctor works here too
    assert until(rig, lambda: rig.got[-1][0] == wire.DIAG)
    assert rig.got[-1][1]["keys_down"] == [] and rig.got[-1][1]["pixels"] == 49
    c.send(wire.UPD_RESET, b"")
    assert until(rig, lambda: rig.resets)
    assert power_on(fs_of(flash), str(flash)).mode == boot.MODE_TRIAL


def test_an_update_the_maker_mode_cannot_hold_is_refused_with_the_figures_then_the_game(
        flash, monkeypatch):
    # Under MicroPython gc.mem_free() says what the heap has; too little for the update
    # (UPDATE_HEAP and the manifest), the offer is refused before anything is written,
    # saying the figures and what to do, and the board goes back to its game.
    import vora_fw.maker_mode as maker_mode
    monkeypatch.setattr(maker_mode.gc, "mem_free", lambda: 9000, raising=False)
    before = snapshot(flash)
    rig = maker_mode_rig(flash)
    new = small_bundle("0.2.0")
    rig.client.send(wire.UPD_OFFER, wire_host.pack_upd_offer(len(new.manifest_bytes), new.id))
    assert until(rig, lambda: rig.got)
    st = rig.got[-1][1]
    need = maker_mode.UPDATE_HEAP + len(new.manifest_bytes)
    assert st["state"] == "error" and st["code"] == "memory", st
    assert ("needs %d bytes" % need) in st["error"] and "9000 free" in st["error"]
    assert "--romfs" in st["error"] and "frozen" in st["error"]
    assert snapshot(flash) == before  # nothing written
    assert until(rig, lambda: rig.resets) and rig.resets == [1]  # back to the game
    from vora_host.maker.update import _refusal
    assert "the board refused the update (memory)" in _refusal(st)


def test_the_maker_mode_goes_back_to_the_game_when_the_pc_goes_quiet_or_a_key_is_pressed(
        flash):
    rig = maker_mode_rig(flash)
    rig.run(IDLE_MS // 2)
    rig.client.send(wire.UPD_QUERY, b"")  # the PC is there: the mode stays
    rig.run(IDLE_MS // 2 + 1000)
    assert not rig.resets
    rig.client.send = lambda *a: True  # the PC goes away
    rig.client.poll = lambda now: None
    assert until(rig, lambda: rig.resets, IDLE_MS + 2000) and rig.resets == [1]
    rig = maker_mode_rig(flash)
    rig.press("c3")  # a person at the board
    assert rig.resets == [1]


def test_the_maker_mode_and_its_link_import_nothing_of_the_game():
    import subprocess
    import sys
    from mpy import REPO_ROOT
    assert (link_module.NO_KEY, link_module.R_NOT_NOW) == (vora_ui.NO_KEY, vora_ui.R_NOT_NOW)
    done = subprocess.run(
        [sys.executable, "-c", "import sys, vora_fw.maker_mode, vora_fw.link, vora_fw.maker, "
         "vora_fw.update, vora_fw.doctor; print(sorted(m for m in sys.modules if m in "
         "('vora_fw.vora_ui', 'vora_fw.app', 'vora_fw.store', 'shared_rules.vora')))"],
        capture_output=True, text=True, check=True,
        env={"PYTHONPATH": "%s:%s/firmware" % (REPO_ROOT, REPO_ROOT)})
    assert done.stdout.strip() == "[]", done.stdout


# ---------------------------------------------------------------- with vora update

class PtyBoard:
    """A board on the far end of a pseudo-terminal, in a thread: the game (App) or the
    maker mode, as vora_fw.start chooses at each start, on a flash folder; reset() starts
    it again (the serial device stays, as a USB board's comes back at the same path)."""

    def __init__(self, folder):
        import os
        import pty
        import threading
        import tty
        self.folder = folder
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.starts = []
        self.stop = False
        self._reset = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def read(self):
        import os
        try:
            return os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data):
        import os
        os.write(self.master, data)

    def reset(self):
        self._reset = True

    def power_on(self):
        from vora_fw.app import App
        from vora_fw.clock import ticks_ms
        from vora_fw.link import BoardLink
        fs = fs_of(self.folder)
        self.boot = power_on(fs, str(self.folder))
        self.started = ticks_ms()
        link = BoardLink(self.write, self.read, board="pty")
        if start.take_maker_request(self.boot):
            self.starts.append("maker mode")
            self.app = MakerMode(SimHardware(), default_pinmap(), self.boot, link, self.reset,
                                 self.boot.version, fs.statvfs, self.started)
            return
        self.starts.append("game %s %s" % (self.boot.version, self.boot.mode))
        self.app = App(SimHardware(), default_pinmap(), Store(str(self.folder / "save")),
                       link=link, seed_fn=lambda: 3, now=self.started)
        start.attach(self.app, link, default_pinmap(), self.boot, IDENTITY, self.boot.version,
                     self.reset, fs.statvfs, maker_mode=start.MAKER_REQUEST)

    def run(self):
        import time
        from vora_fw.clock import ticks_diff, ticks_ms
        while not self.stop:
            if self._reset:
                self._reset = False
                self.power_on()
            now = ticks_ms()
            self.app.step(now)
            if self.boot.mode == boot.MODE_TRIAL and ticks_diff(now, self.started) > 300:
                self.boot.confirm()
            time.sleep(0.005)

    def close(self):
        import os
        self.stop = True
        self.thread.join(10)
        os.close(self.master)
        os.close(self.slave)


def test_vora_update_follows_the_board_into_its_maker_mode_and_back(tmp_path):
    from rich.console import Console
    from vora_fw.vora_ui import VoraUI
    from vora_host.maker.update import Updater
    flash = install(tmp_path / "flash", full_bundle("0.1.0"), save=None)
    ui = VoraUI(Store(str(flash / "save")), lambda: 5)  # a game in progress, saved
    ui.new_game("SN", 5)
    for _ in range(6):
        ui.play(ui.legal[len(ui.legal) // 2], 0)
    moves, digest = list(ui.moves), ui.state.digest()
    board = PtyBoard(flash)
    try:
        import io
        said = io.StringIO()
        result = Updater(board.path, console=Console(file=said, width=100), progress=False,
                         wait_s=30, confirm_wait_s=30).run(small_bundle("0.2.0"))
    finally:
        board.close()
    assert result["to"] == "0.2.0" and result["boot"]["state"] == "confirmed"
    assert board.starts[:3] == ["game 0.1.0 confirmed", "maker mode", "game 0.2.0 trial"]
    assert "restarts into its maker mode" in said.getvalue()
    assert "link lost" not in said.getvalue()
    # The game the board was playing goes on in the new version, where it was.
    assert list(board.app.ui.moves) == moves and board.app.ui.state.digest() == digest


def test_the_maker_mode_runs_without_collecting_every_kilobyte(flash, monkeypatch):
    """On an emulated Pico (bench/bench_rp2040.py) the update never went through: the
    maker mode kept `start.collect_often` on, a collection every KB allocated, some 14 ms
    each on the Pico's 233 KB heap and 85 to 90% of its CPU, so its loop took a third of a
    second a turn and the PC's session gave up. Loading the mode collects often (its code
    comes from .mpy files); once it is made, the collector runs as the game's does."""
    import gc
    from vora_fw import maker_mode
    thresholds = []
    monkeypatch.setattr(gc, "threshold", thresholds.append, raising=False)

    class Port:
        def write(self, data):
            return len(data)

        def read(self):
            return b""

    start.collect_often()  # as vora_fw.start.run does first, at every start
    b = power_on(fs_of(flash), str(flash))
    link, mode = maker_mode.make_maker_mode(SimHardware(), default_pinmap(), b, Port(),
                                            lambda: None, start.collect_often)  # as start.run
    assert isinstance(mode, MakerMode) and mode.link is link
    assert thresholds[0] == start.LOAD_COLLECT_BYTES and thresholds[-1] == -1, thresholds

"""The link between the PC and the virtual board, over a real pseudo-terminal:
bytes per mirrored move, bytes of a full-state sync, the round trip of a ping, and frames
per second in terminal mode.

    .venv/bin/python bench/bench_link.py

It starts `vora sim --headless` (the firmware on CPython behind a pty) and talks to it
with the host's BoardClient through pyserial, as `vora mirror` does. The pty has no baud
rate: on a real board, USB full speed CDC carries about 1 MB/s, far above these needs.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import serial

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from shared_rules import vora, wire  # noqa: E402
from vora_fw.vora_ui import VoraUI  # noqa: E402
from vora_fw import layout  # noqa: E402
from vora_host.link.client import BoardClient, ticks_ms  # noqa: E402
from board_player import move_keys  # noqa: E402

SEED = 5


class Board:
    def __init__(self, save):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "sim", "--headless", "--fresh", "--save-dir",
             save, "--seed", str(SEED)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, bufsize=1, cwd=str(ROOT), env=env)
        self.path = self.proc.stdout.readline().strip()

    def cmd(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        while True:
            answer = self.proc.stdout.readline().strip()
            if answer == "ok":
                return
            if answer.startswith("error"):
                raise SystemExit("%s: %s" % (line, answer))

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Host:
    def __init__(self, path):
        self.port = serial.Serial(path, timeout=0)
        self.bytes_in = 0
        self.bytes_out = 0
        self.client = BoardClient(self._write)

    def _write(self, data):
        self.bytes_out += len(data)
        self.port.write(data)

    def pump(self, until, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            data = self.port.read(65536)
            now = ticks_ms()
            if data:
                self.bytes_in += len(data)
                self.client.feed(data, now)
            self.client.poll(now)
            if until():
                return
            time.sleep(0.0005)
        raise SystemExit("timed out")


def main():
    with tempfile.TemporaryDirectory() as save:
        board = Board(save)
        try:
            host = Host(board.path)
            c = host.client
            host.pump(lambda: c.connected)
            ui = VoraUI(seed_fn=lambda: SEED)
            now = [0]

            def press(name):
                board.cmd("press %s 40" % name)
                k = layout.key_index(name)
                now[0] += 100
                ui.key(k, True, now[0])
                now[0] += 100
                ui.key(k, False, now[0])

            press("c3")
            host.pump(lambda: c.state is not None)
            # Bytes per mirrored move: everything both ways while the board reports moves.
            per_move = []
            for _ in range(20):
                move = ui.legal[-1] if ui.state.phase != vora.PHASE_ACTION else \
                    [m for m in ui.legal if m.startswith("push")][0]
                i0, o0 = host.bytes_in, host.bytes_out
                n = len(c.moves)
                keys = 0
                for name in move_keys(ui, move):
                    press(name)
                    keys += 1
                host.pump(lambda: len(c.moves) == n + 1 and c.session.idle)
                per_move.append((host.bytes_in - i0, host.bytes_out - o0, keys))
            # A full-state sync.
            i0, o0 = host.bytes_in, host.bytes_out
            states = []
            c.on_change = states.append
            c.request_state()
            host.pump(lambda: c.session.idle and "game" in states or host.bytes_in - i0 > 400)
            host.pump(lambda: c.session.idle)
            sync = (host.bytes_in - i0, host.bytes_out - o0)
            # Ping round trips.
            rtts = []
            for k in range(200):
                token = k.to_bytes(4, "big")
                t0 = time.perf_counter()
                c.ping(token)
                host.pump(lambda: token in c.pongs)
                rtts.append((time.perf_counter() - t0) * 1000)
            # Terminal mode: whole frames as fast as the window lets them through.
            c.set_mode(wire.MODE_TERMINAL)
            host.pump(lambda: c.session.idle)
            frame = bytearray(147)
            t0 = time.perf_counter()
            sent = 0
            while time.perf_counter() - t0 < 3.0:
                frame[sent % 147] = 200
                if c.show(frame):
                    sent += 1
                host.pump(lambda: True, timeout=1)
            host.pump(lambda: c.session.idle)
            fps = sent / (time.perf_counter() - t0)
            diffs_t0 = time.perf_counter()
            diffs = 0
            while time.perf_counter() - diffs_t0 < 2.0:
                if c.show_changes([(diffs % 49, 255, 0, 0)]):
                    diffs += 1
                host.pump(lambda: True, timeout=1)
            host.pump(lambda: c.session.idle)
            dps = diffs / (time.perf_counter() - diffs_t0)
            c.set_mode(wire.MODE_STANDALONE)
            host.pump(lambda: c.session.idle)
        finally:
            board.stop()
    ins = [p[0] for p in per_move]
    outs = [p[1] for p in per_move]
    print("Link over a pty to the virtual board (vora sim)")
    print("  bytes per mirrored move, board to PC: mean %.0f, max %d (MOVE frames, and KEY"
          " frames for the %.1f key presses and releases of a move)"
          % (statistics.mean(ins), max(ins), statistics.mean(p[2] for p in per_move)))
    print("  bytes per mirrored move, PC to board (acks): mean %.0f" % statistics.mean(outs))
    print("  full-state sync (STATE_REQ and STATE): %d bytes in, %d bytes out" % sync)
    print("  ping round trip: median %.2f ms, 95th percentile %.2f ms, max %.2f ms"
          % (statistics.median(rtts), sorted(rtts)[int(len(rtts) * 0.95)], max(rtts)))
    print("  terminal mode: %.0f whole frames/s (%d bytes each), %.0f one-pixel updates/s"
          % (fps, len(wire.encode_frame(wire.PIXELS, 1, 0, bytes(wire.PIXELS_SIZE))), dps))


if __name__ == "__main__":
    main()

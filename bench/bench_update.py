"""Updating the whole firmware over the link, against `mpremote fs cp` of the same files,
side by side on the same virtual board, in one run.

    .venv/bin/python bench/bench_update.py [ROUNDS]

1. A virtual board (`vora sim --flash`) with version 0.1.0 installed and running.
2. `vora update` (vora_host.maker.update.Updater) to a bundle of version 0.2.0: every
   module of the firmware and the manifest, staged, verified and switched on the board.
   Timed from the first HELLO to "switched" (the restart and the new version's
   confirmation, a fixed 3 s wait on the board, are given apart); bytes on the serial
   line both ways.
3. `vora repl`, then the very same files copied by mpremote's own `fs cp` code
   (SerialTransport.fs_writefile, through the raw REPL in raw-paste mode, which the
   virtual board serves as a Pico does), timed and counted the same way; then by the `mpremote`
   command itself (`fs cp -r`, a new process: what a maker types).

The pseudo-terminal has no baud rate; a real USB board adds its flash writes to both.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

from rich.console import Console  # noqa: E402

from maker_support import full_bundle, install  # noqa: E402
from vora_host.maker.update import Updater  # noqa: E402


class Sim:
    def __init__(self, flash):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "sim", "--headless", "--flash", str(flash)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, cwd=str(ROOT))
        self.path = self.proc.stdout.readline().strip()

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Counting:
    """pyserial's Serial with its bytes counted."""

    def __init__(self, ser):
        self.ser = ser
        self.out = 0
        self.inn = 0

    def write(self, data):
        self.out += len(data)
        return self.ser.write(data)

    def read(self, n=1):
        data = self.ser.read(n)
        self.inn += len(data)
        return data

    def __getattr__(self, name):
        return getattr(self.ser, name)


def by_link(path, bundle):
    up = Updater(path, console=Console(file=open(os.devnull, "w")), progress=False)
    r = up.run(bundle)
    return r


def by_mpremote_library(path, files):
    from mpremote.transport_serial import SerialTransport
    t = SerialTransport(path, baudrate=115200)
    counting = Counting(t.serial)
    t.serial = counting
    t0 = time.monotonic()
    t.enter_raw_repl(soft_reset=True)
    made = set()
    for name, data in files:
        parts = ("bench/" + name).split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d not in made:
                if not t.fs_exists(d):
                    t.fs_mkdir(d)
                made.add(d)
        t.fs_writefile("bench/" + name, data)
    t.exit_raw_repl()
    seconds = time.monotonic() - t0
    t.close()
    return seconds, counting.out, counting.inn


def by_mpremote_command(path, files):
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "slot"
        for name, data in files:
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes(data)
        t0 = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "mpremote", "connect", path, "fs", "cp",
                               "-r", str(src) + "/.", ":bench2"], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit("mpremote fs cp failed: " + done.stderr)
        return time.monotonic() - t0


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    old, new = full_bundle("0.1.0"), full_bundle("0.2.0")
    files = [("manifest.json", new.manifest_bytes)] + list(new.files)
    size = sum(len(d) for _, d in files)
    print("The firmware: %d files, %d bytes (version 0.2.0 over 0.1.0)." % (len(files), size))
    for r in range(rounds):
        tmp = Path(tempfile.mkdtemp(prefix="vora-bench-update-"))
        try:
            install(tmp / "flash", old)
            sim = Sim(tmp / "flash")
            try:
                time.sleep(0.5)
                link = by_link(sim.path, new)
                done = subprocess.run([sys.executable, "-m", "vora_host", "repl", "--port",
                                       sim.path], capture_output=True, text=True)
                if done.returncode:
                    raise SystemExit("vora repl failed: " + done.stdout + done.stderr)
                lib_s, lib_out, lib_in = by_mpremote_library(sim.path, files)
                cmd_s = by_mpremote_command(sim.path, files)
            finally:
                sim.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print("round %d" % (r + 1))
        print("  vora update (link):  %6.2f s to switched, %7d bytes to the board, %6d back;"
              " restart and confirmation %.1f s more" % (
                  link["transfer_seconds"], link["transfer_bytes_out"],
                  link["transfer_bytes_in"], link["seconds"] - link["transfer_seconds"]))
        print("  mpremote fs cp code: %6.2f s,             %7d bytes to the board, %6d back"
              % (lib_s, lib_out, lib_in))
        print("  mpremote fs cp -r:   %6.2f s (the command, a new process)" % cmd_s)
        print("  link / mpremote: %.2f of the time, %.2f of the bytes (target: time under 0.5)"
              % (link["transfer_seconds"] / lib_s, link["transfer_bytes_out"] / lib_out))


if __name__ == "__main__":
    main()

"""What the virtual board's REPL costs (host/vora_host/virtual/repl.py): the sandboxed
MicroPython's start, a raw-REPL command's round trip, the Node process's memory.

    .venv/bin/python bench/bench_repl.py [COMMANDS]
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from vora_host.virtual import flash as sim_flash  # noqa: E402
from vora_host.virtual import repl  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    out = bytearray()
    with tempfile.TemporaryDirectory() as tmp:
        ident = sim_flash.identity(repl.micropython_version())
        r = repl.ReplEmulator(tmp, sim_flash.DEFAULT_CAPACITY, ident, out.extend, lambda k: None)
        t0 = time.monotonic()
        r.start("friendly")
        while r.ready_at is None:
            r.pump(0.05)
        start_s = r.ready_at - t0

        def command(data, ending):
            out.clear()
            t = time.monotonic()
            r.feed(data)
            while not out.endswith(ending):
                r.pump(0.01)
            return time.monotonic() - t

        command(b"\r\x01", b">")
        command(b"f = open('x.bin', 'wb')\nw = f.write\x04", b"\x04>")
        chunk = b"w(" + repr(bytes(range(256))).encode() + b")\x04"
        times = [command(chunk, b"\x04>") for _ in range(n)]
        command(b"f.close()\x04", b"\x04>")
        rss = 0
        for line in Path("/proc/%d/status" % r.proc.pid).read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
        size = (Path(tmp) / "x.bin").stat().st_size
        r.stop()
    print("virtual board REPL (MicroPython %s in Node, sandboxed)" % repl.micropython_version())
    print("  start (Node, WebAssembly, prelude, banner): %.2f s" % start_s)
    print("  raw-REPL command writing 256 bytes (as mpremote fs cp): median %.2f ms, "
          "95th percentile %.2f ms, over %d" % (statistics.median(times) * 1000,
                                               sorted(times)[int(0.95 * n) - 1] * 1000, n))
    print("  the file reached the flash folder at close: %d bytes" % size)
    print("  Node process memory (RSS): %d MB" % (rss // 1024))


if __name__ == "__main__":
    main()

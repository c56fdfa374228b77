"""The board's side of a firmware update under real MicroPython (the WebAssembly port): the
whole firmware bundle received message by message through the board's link endpoint
(tests/mp_scripts/update_board.py), staged and verified on MicroPython's filesystem, with
the heap measured per message (collector held off during a message: an upper bound).

    .venv/bin/python bench/bench_update_micropython.py
"""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

from maker_support import full_bundle  # noqa: E402

RUNNER = ROOT / "tools" / "mpy_run.mjs"
SCRIPT = ROOT / "tests" / "mp_scripts" / "update_board.py"


def main():
    b = full_bundle("0.2.0")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "bundle"
        for name, data in b.files:
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes(data)
        (src / "manifest.json").write_bytes(b.manifest_bytes)
        cmd = ["node", str(RUNNER), "--mount", "%s:/app" % ROOT, "--path", "/app",
               "--mount", "%s:/bundle" % src, "--steps", "step", str(SCRIPT), "/flash",
               "/bundle"]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit("MicroPython run failed:\n" + done.stdout[-2000:] + done.stderr)
    m = dict(line.split(None, 1) for line in done.stdout.splitlines()
             if line.split(None, 1)[0] in ("messages", "peak_bytes", "alloc_bytes",
                                           "chunk_alloc_bytes", "worst_message", "code_bytes"))
    states = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("status")]
    print("Update under MicroPython: %s messages, %d bytes of firmware, %s"
          % (m["messages"], b.size, "switched" if "switched" in states else states[-1]))
    print("  peak heap while handling one message, code aside: %6s bytes" % m["peak_bytes"])
    print("  most allocated by one message (%s):         %6s bytes"
          % (m["worst_message"].strip(), m["alloc_bytes"]))
    print("  most allocated by one chunk of a module:          %6s bytes" % m["chunk_alloc_bytes"])
    print("  code on the heap (link, session, update, boot, from .py): %s bytes" % m["code_bytes"])


if __name__ == "__main__":
    main()

"""Every single error in many frames: each frame (random kinds and payloads, one in four
chosen to end its body with a zero byte, the case that version 1 let through) gets every
bit flipped, every byte replaced by each of its 255 other values, every byte lost, and
0x00, 0x01 and a random byte inserted at every place, each damaged frame followed by a good
one; the reader must let nothing through but the good one (docs/protocol.md, "What a damaged
byte does"). tests/test_wire.py runs the same on a few hundred frames.

    .venv/bin/python bench/bench_link_faults.py [FRAMES] [--jobs N] [--seed S]

Default 10,000 frames on every core; prints the errors tried, the frames per second, and
the first damage that let a bogus frame through (exit 1), if any.
"""

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from wire_errors import check_frame, frames_for_the_error_test  # noqa: E402


def _work(args):
    count, seed = args
    frames = frames_for_the_error_test(count, seed)
    tried = 0
    for k, frame in enumerate(frames):
        try:
            tried += check_frame(frame, frames[(k + 1) % len(frames)])
        except AssertionError as exc:
            return tried, str(exc)
    return tried, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("frames", nargs="?", type=int, default=10000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    chunk = 100
    work = [(min(chunk, args.frames - s), args.seed * 1000003 + s) for s in range(0, args.frames, chunk)]
    t0 = time.time()
    tried = 0
    failures = []
    with multiprocessing.Pool(args.jobs) as pool:
        for k, (n, failure) in enumerate(pool.imap_unordered(_work, work), 1):
            tried += n
            if failure:
                failures.append(failure)
            if k % 10 == 0:
                sys.stderr.write("  %d/%d frames\n" % (min(k * chunk, args.frames), args.frames))
    seconds = time.time() - t0
    print("Single errors: %d frames, %d damaged frames tried in %.0f s (%d jobs, %.0f frames/s)"
          % (args.frames, tried, seconds, args.jobs, args.frames / seconds))
    if failures:
        for f in failures[:5]:
            print("  LET THROUGH: " + f)
        return 1
    print("  none let a frame through but the one that followed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The bundle mutation campaign (tests/bundle_mutation.py): a real firmware bundle file
(version 0.2.0, every module) with 1 to 4 bits flipped, each damaged copy given to the PC's
check and, as a host that checks nothing would send it, to the board's update on a
simulated flash with 0.1.0 installed. Accepted: the PC takes it, or the board switches to
it. The target is none.

    .venv/bin/python bench/bench_bundle_mutation.py [--count N] [--seed S]

The default is 3,000 mutations (about a minute); the figure in docs/benchmarks.md is
--count 20000 --seed 0.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

import bundle_mutation  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=3000, help="mutations (default 3000)")
    ap.add_argument("--seed", type=int, default=0, help="the campaign's seed (default 0)")
    args = ap.parse_args()
    pc, (board, confirmed) = bundle_mutation.control()
    if not (pc and board and confirmed):
        raise SystemExit("the undamaged bundle was refused: the campaign would prove nothing")
    t0 = time.monotonic()
    r = bundle_mutation.campaign(args.count, args.seed)
    seconds = time.monotonic() - t0
    tried, accepted = r["tried"], r["accepted"]
    print("A bundle file of %d bytes, %d mutations of 1 to 4 bits (seed %d), %.0f s."
          % (r["bytes"], args.count, args.seed, seconds))
    for region in ("anywhere", "manifest"):
        print("  %-34s %6d tried, %d accepted" % (
            "bits anywhere in the file:" if region == "anywhere"
            else "bits in the header and manifest:", tried[region], accepted[region]))
    print("  refused by the PC (read_bundle):  %6d" % r["pc_refused"])
    print("  refused by the board, by code:    %s" % ", ".join(
        "%s %d" % kv for kv in sorted(r["board_refused"].items())))
    if r["accepted_at"]:
        print("  ACCEPTED (mutation numbers): %s" % r["accepted_at"][:20])
        print("  of which the board confirmed: %d" % r["confirmed"])
        raise SystemExit(1)


if __name__ == "__main__":
    main()

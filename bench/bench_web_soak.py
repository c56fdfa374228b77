"""The web mirror beside live play, for SECONDS (default 300; issue 43): `vora serve` on a
game log, four live streams open (two following the whole log, two one game each, as
the pages hold them), three processes playing `vora play GAME --typed --bots-only
--fresh` games of Vora, Boars and Vorcept into the same log in a loop (Boars and
Vorcept with random bots: short games, so many starts, ends and closes of the log), and
two threads asking /api/games, /api/games/N, /api/games/N/position/latest, /game/N and /
all the while; each stream asks for every game it is told changed. A wrong answer: any
answer but a 200 with the game asked for, a list missing a game seen before, a stream
saying the log is in trouble. tests/test_web_beside_play.py runs the same for 25 s.

    .venv/bin/python bench/bench_web_soak.py [SECONDS]
"""

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main():
    from web_soak import soak
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 300.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        result = soak(tmp, seconds)
    print("%.0f s of play (%.0f s in all): %s" % (seconds, time.monotonic() - started,
                                                 result.summary()))
    for what, status, text in result.wrong[:10]:
        print("  wrong: %s -> %s %s" % (what, status, text[:200]))
    for game, code, out in result.writer_failures[:3]:
        print("  writer %s failed (%s): %s" % (game, code, out[-300:]))
    return 1 if result.wrong or result.writer_failures or result.integrity != "ok" else 0


if __name__ == "__main__":
    sys.exit(main())

"""Many spectators of one live game: how long from a move written to the log (LiveLog, as
`vora play` writes it) to each open event stream receiving it with the new position.

    .venv/bin/python bench/bench_web_spectators.py [STREAMS]

`vora serve` runs in its own process over a log in a temporary folder; STREAMS (default
50) event streams follow one Boars game from threads of this process (their reading
shares the machine with the server); 10 moves, 300 ms apart. The position is drawn once
per move, whatever the number of streams.
"""

import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
MOVES = 10


def main():
    from test_web_browser import LiveGame
    streams = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    with tempfile.TemporaryDirectory() as tmp:
        game = LiveGame(Path(tmp) / "games.sqlite3", "boars", 7)
        game.play(2)
        proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--port", "0",
                                 "--db", str(Path(tmp) / "games.sqlite3")],
                                stdout=subprocess.PIPE, text=True)
        try:
            base = re.search(r"(http://\S+)", proc.stdout.readline()).group(1)
            arrivals = [[] for _ in range(streams)]
            ready = [threading.Event() for _ in range(streams)]

            def reader(i):
                with httpx2.Client(timeout=30) as c, \
                        c.stream("GET", base + "api/events?game=%d" % game.gid) as response:
                    kind = None
                    for line in response.iter_lines():
                        if line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: "):
                            if kind == "hello":
                                ready[i].set()
                                continue
                            data = json.loads(line[6:])
                            arrivals[i].append((time.time(),
                                                data.get("position", {}).get("number")))
                            if len(arrivals[i]) >= MOVES:
                                return

            for i in range(streams):
                threading.Thread(target=reader, args=(i,), daemon=True).start()
            for event in ready:
                event.wait(30)
            sent = {}
            for k in range(3, MOVES + 3):
                game.play()
                sent[k] = time.time()
                time.sleep(0.3)
            time.sleep(1)
        finally:
            proc.terminate()
            proc.wait(10)
    delays = sorted(at - sent[n] for arr in arrivals for at, n in arr if n in sent)
    print("%d streams, %d moves: %d events carried the new position; delay median %.0f ms, "
          "p90 %.0f ms, max %.0f ms" % (streams, MOVES, len(delays),
                                         1e3 * statistics.median(delays),
                                         1e3 * delays[int(0.9 * (len(delays) - 1))],
                                         1e3 * delays[-1]))


if __name__ == "__main__":
    main()

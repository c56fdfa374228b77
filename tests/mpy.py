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
import tempfile
from pathlib import Path
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

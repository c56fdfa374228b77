"""mypy over firmware/, against MicroPython's stubs instead of CPython's typeshed.

The stubs come from PyPI (micropython-rp2-stubs, which pulls micropython-stdlib-stubs; both
pinned in requirements.lock). They install as loose top-level .pyi files (machine.pyi,
time.pyi, ...) plus a `stdlib/` folder, which mypy does not find on its own: it only takes
stdlib modules from a typeshed, and the port's modules are not a PEP 561 package. So this
test assembles a custom typeshed in a temporary folder:

    stdlib/            micropython-stdlib-stubs' stdlib/ and _mpy_shed/, then every module
                       of micropython-rp2-stubs on top (the port's time, machine, ...)
    stdlib/VERSIONS    the stdlib list, plus a line for each module added
    stubs/             micropython-stdlib-stubs' stubs/ (mypy-extensions)

and runs `mypy --custom-typeshed-dir <that folder>` in firmware/ with firmware/mypy.ini
(which names the files: all of vora_fw/ except hal_circuitpython.py, see its docstring).
Any mypy error fails the test with mypy's whole report. Run this file directly to print the
report: `.venv/bin/python tests/test_firmware_typecheck.py`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
CONFIG = FIRMWARE / "mypy.ini"
STDLIB_STUBS = "micropython-stdlib-stubs"
PORT_STUBS = "micropython-rp2-stubs"


def _stub_files(dist_name: str):
    """(relative path, absolute path) of every .pyi and VERSIONS file of an installed dist."""
    dist = metadata.distribution(dist_name)
    for entry in dist.files or ():
        rel = entry.as_posix()
        if ".dist-info/" in rel or not (rel.endswith(".pyi") or rel.endswith("/VERSIONS")):
            continue
        yield rel, Path(dist.locate_file(entry))


def build_micropython_typeshed(dest: Path) -> Path:
    """Assemble MicroPython's stubs into a typeshed folder for --custom-typeshed-dir."""
    stdlib = dest / "stdlib"
    versions = None
    top_level = set()
    for rel, src in _stub_files(STDLIB_STUBS):
        if rel == "stdlib/VERSIONS":
            versions = src.read_text(encoding="utf-8")
            continue
        if rel.startswith(("stdlib/", "stubs/")):
            target = dest / rel
        else:  # _mpy_shed/...: helpers the port stubs import
            target = stdlib / rel
            top_level.add(rel.split("/")[0])
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    if versions is None:
        raise RuntimeError(f"{STDLIB_STUBS} has no stdlib/VERSIONS: is it installed?")
    for rel, src in _stub_files(PORT_STUBS):
        name = rel.split("/")[0]
        if name.startswith("__"):  # __builtins__.pyi is for editors
            continue
        target = stdlib / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        top_level.add(name[:-4] if name.endswith(".pyi") else name)
    listed = {line.split(":")[0].strip() for line in versions.splitlines() if ":" in line}
    extra = "".join(f"{name}: 3.0-\n" for name in sorted(top_level - listed))
    (stdlib / "VERSIONS").write_text(versions.rstrip("\n") + "\n" + extra, encoding="utf-8")
    return dest


def run_mypy(workdir: Path) -> subprocess.CompletedProcess:
    typeshed = build_micropython_typeshed(workdir / "typeshed")
    command = [
        sys.executable, "-m", "mypy",
        "--config-file", str(CONFIG),
        "--custom-typeshed-dir", str(typeshed),
        "--cache-dir", str(workdir / "mypy-cache"),
        "--no-color-output", "--show-error-codes",
    ]
    return subprocess.run(command, cwd=FIRMWARE, capture_output=True, text=True, timeout=600)


def test_stub_packages_are_installed():
    for name in (STDLIB_STUBS, PORT_STUBS, "mypy"):
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:  # pragma: no cover - a setup problem
            pytest.fail(f"{name} is not installed: run ./dev setup (requirements.lock lists it)")


def test_assembled_typeshed_has_the_port_modules(tmp_path):
    typeshed = build_micropython_typeshed(tmp_path / "typeshed")
    versions = (typeshed / "stdlib" / "VERSIONS").read_text(encoding="utf-8")
    for module in ("machine", "neopixel", "micropython", "time", "_mpy_shed", "builtins"):
        assert f"\n{module}: " in "\n" + versions, module
    assert (typeshed / "stdlib" / "time.pyi").read_text(encoding="utf-8").count("def ticks_diff")
    assert (typeshed / "stubs" / "mypy-extensions" / "mypy_extensions.pyi").is_file()


def test_firmware_typechecks_against_micropython_stubs(tmp_path):
    result = run_mypy(tmp_path)
    report = result.stdout + result.stderr
    if result.returncode != 0 or "Success" not in report:
        pytest.fail("mypy over firmware/ (MicroPython stubs) failed:\n" + report, pytrace=False)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="vora-mypy-") as tmp:
        done = run_mypy(Path(tmp))
        sys.stdout.write(done.stdout + done.stderr)
        sys.exit(done.returncode)

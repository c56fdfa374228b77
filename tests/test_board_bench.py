"""The hard-heap bench (bench/bench_firmware_unix.py) must not count a refused update as a
pass (issue 40): its --find-min took a run whose update the board refused for want of
memory ("refused UPD_DATA: memory allocation failed") as passing, since the board then
plays on and the run ends well, and so gave smallest heaps lower than what works.

The soak (tests/mp_scripts/board_soak.py) runs on CPython here with a bundle the board
refuses (an older version: a downgrade), which stands for any refusal; the bench's verdict
on that run must be a fail, and on the same run with a bundle it takes, a pass."""

import subprocess
import sys
from types import SimpleNamespace

import pytest

from maker_support import small_bundle
from mpy import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
import bench_firmware_unix as bench  # noqa: E402

SOAK = REPO_ROOT / "tests" / "mp_scripts" / "board_soak.py"


def write_bundle(out, version):
    b = small_bundle(version)
    for name, data in b.files:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    (out / "manifest.json").write_bytes(b.manifest_bytes)
    return out


def soak_on_cpython(tmp_path, bundle):
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, str(SOAK), "1", "3", str(bundle), "25"], cwd=work,
        capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": "%s:%s/firmware:%s/tests" % ((REPO_ROOT,) * 3)})
    return SimpleNamespace(returncode=done.returncode, stdout=done.stdout, stderr=done.stderr)


@pytest.mark.parametrize("version, went_through", [("0.0.9", False), ("0.2.0", True)])
def test_the_bench_fails_a_run_whose_update_was_refused(tmp_path, version, went_through):
    bundle = write_bundle(tmp_path / "bundle", version)
    done = soak_on_cpython(tmp_path, bundle)
    assert bench.passes(done) is went_through, (done.returncode, done.stdout[-1500:],
                                                done.stderr[-1500:])
    assert bench.update_went_through(done.stdout) is went_through
    if not went_through:
        # The run says why: the refusal, as the board told the PC.
        assert "downgrade" in done.stdout + done.stderr, done.stdout[-1500:]


def test_a_run_with_no_update_line_fails_with_a_pc_and_passes_alone():
    done = SimpleNamespace(returncode=0, stderr="", stdout="over 1 10 abc\nmemory_errors 0\n")
    assert not bench.passes(done)
    assert bench.passes(done, alone=True)

"""The suite never meets the user's own virtual board, nor one worker another's: every test
runs with a stable device name of its run (tests/conftest.py), which a change to the
conftest once dropped (two workers' boards then took each other's name)."""

import os
import tempfile

from vora_host.link.ports import virtual_device_path


def test_each_run_and_worker_has_a_virtual_board_name_of_its_own():
    name = os.environ.get("VORA_SIM_DEVICE")
    assert name, "tests/conftest.py must set VORA_SIM_DEVICE"
    assert name != virtual_device_path({}), "the user's own virtual board name"
    assert os.path.dirname(name).startswith(os.path.join(tempfile.gettempdir(), "vora-tests-"))
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        assert name.endswith("-" + worker)

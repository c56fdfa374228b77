"""Settings for the whole test run."""

import os
import shutil
import tempfile

_SIM_FOLDER = None


def pytest_configure(config):
    # Every virtual board a test starts keeps its stable device name (a symbolic link,
    # docs/host.md) in a folder of this run, not in the user's own runtime folder, where
    # a virtual board the user is playing on may be keeping it.
    global _SIM_FOLDER
    if "VORA_SIM_DEVICE" not in os.environ:
        _SIM_FOLDER = tempfile.mkdtemp(prefix="vora-tests-")
        os.environ["VORA_SIM_DEVICE"] = os.path.join(_SIM_FOLDER, "ttyVORA")


def pytest_unconfigure(config):
    if _SIM_FOLDER is not None:
        shutil.rmtree(_SIM_FOLDER, ignore_errors=True)

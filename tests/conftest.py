"""Shared test set-up: no test touches the user's own files.

- Every test gets a game log of its own in its temporary folder through $VORA_DB
  (subprocesses inherit it); `vora play` logs every game, typed ones too. A test that
  wants another log says so with --db or its own $VORA_DB.
- Every virtual board a test starts keeps its stable device name (a symbolic link,
  docs/host.md) in a folder of this run, not in the user's own runtime folder, where a
  virtual board the user is playing on may be keeping it.
"""

import os
import shutil
import tempfile

import pytest

_SIM_FOLDER = None


def pytest_configure(config):
    global _SIM_FOLDER
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and os.environ.get("VORA_TESTS_SIM_FOLDER"):
        # A worker of a parallel run (pytest -n): a stable name of its own, beside the
        # run's, so two workers' virtual boards never meet.
        os.environ["VORA_SIM_DEVICE"] = os.path.join(os.environ["VORA_TESTS_SIM_FOLDER"],
                                                     "ttyVORA-" + worker)
    elif "VORA_SIM_DEVICE" not in os.environ:
        _SIM_FOLDER = tempfile.mkdtemp(prefix="vora-tests-")
        os.environ["VORA_SIM_DEVICE"] = os.path.join(_SIM_FOLDER, "ttyVORA")
        os.environ["VORA_TESTS_SIM_FOLDER"] = _SIM_FOLDER


def pytest_unconfigure(config):
    if _SIM_FOLDER is not None:
        shutil.rmtree(_SIM_FOLDER, ignore_errors=True)


@pytest.fixture(autouse=True)
def _private_game_log(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VORA_DB", str(tmp_path_factory.mktemp("log") / "games.sqlite3"))

"""Shared test set-up: no test writes to the user's own game log.

`vora play` logs every game, typed ones too; each test gets a game log of its own in its
temporary folder through $VORA_DB (subprocesses inherit it). A test that wants another
log says so with --db or its own $VORA_DB."""

import pytest


@pytest.fixture(autouse=True)
def _private_game_log(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VORA_DB", str(tmp_path_factory.mktemp("log") / "games.sqlite3"))

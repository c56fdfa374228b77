"""Secrets stay secret: the differential check (tests/secrecy.py) on every game with
hidden information. At positions of random games, each viewer's unknowns are dealt again
and everything the host shows that viewer (terminal view, prompt, step help, move texts,
the board's frames and key labels) must be byte for byte the same. bench/bench_secrecy.py
runs the same check over thousands of positions."""

import pytest

import secrecy


@pytest.mark.parametrize("name", secrecy.hidden_games())
def test_what_a_viewer_sees_does_not_depend_on_the_others_secrets(name):
    result = secrecy.differential(name, positions=60, seed=7)
    assert result["leaks"] == []
    # Most comparisons must be of states that really differ, or the check proves nothing.
    assert result["redealt"] >= result["compared"] * 3 // 4


def test_the_check_catches_a_view_that_shows_a_secret(monkeypatch):
    # A view that draws straight from the full state (here: the JSON of the whole state,
    # bags and hands included) is caught at once.
    from vora_host import games as host_games
    name = secrecy.hidden_games()[0]
    view = host_games.host_game(name).VIEW
    monkeypatch.setattr(type(view), "prompt", lambda self, state: state.to_json())
    result = secrecy.differential(name, positions=8, seed=1)
    assert result["leaks"] and all("prompt" in differ for *_, differ in result["leaks"])

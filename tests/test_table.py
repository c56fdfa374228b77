"""The table (vora_host.table): the one place a game being played changes, whoever plays."""

import threading

import pytest

from shared_rules import games as rules_games
from vora_host.bots import make_bot
from vora_host.log.live import LiveLog
from vora_host.log.store import GameLog
from vora_host.table import Human, Refused, Table


def _table(game="vora", players=2, seed=4, agents=None, log=None):
    state = rules_games.load(game).new_game(players, seed)
    return Table(game, state, agents or [Human() for _ in range(players)], log=log)


def test_a_move_is_refused_out_of_turn_stale_or_illegal_with_its_reason():
    table = _table()
    move = table.state.legal_moves()[0]
    with pytest.raises(Refused) as refused:
        table.play(move, player=1, number=0)
    assert refused.value.reason == "it is P0's turn, not P1's"
    with pytest.raises(Refused) as refused:
        table.play(move, player=0, number=3)
    assert "the game has moved on since" in refused.value.reason
    with pytest.raises(Refused) as refused:
        table.play("push crow Zz", player=0, number=0)
    assert refused.value.reason.startswith("illegal move 'push crow Zz': ")
    assert table.number == 0 and table.seq == 0  # nothing changed, nothing said
    table.play(move, player=0, number=0)
    assert table.number == 1 and table.moves == [move]
    with pytest.raises(Refused) as refused:  # the same move again: the client is behind
        table.play(move, player=0, number=0)
    assert "moved on" in refused.value.reason or "turn" in refused.value.reason


def test_moves_are_logged_before_play_returns_and_the_game_replays(tmp_path):
    db = tmp_path / "games.sqlite3"
    state = rules_games.load("vorcept").new_game(2, 7)
    live = LiveLog(db, "vorcept", 2, 7, state.options())
    table = Table("vorcept", state, [Human(), Human()], log=live)
    for n in range(6):
        table.play(table.state.legal_moves()[0], number=n)
        with GameLog(db) as log:  # another reader sees it at once
            assert log.game(live.gid)["move_count"] == n + 1
    live.finish()
    with GameLog(db) as log:
        assert log.verify(live.gid).ok


def test_a_takeback_waits_for_every_other_human_and_is_logged(tmp_path):
    db = tmp_path / "games.sqlite3"
    state = rules_games.load("vora").new_game(3, 2)
    live = LiveLog(db, "vora", 3, 2, state.options())
    bot = make_bot("random", 1, "vora")
    table = Table("vora", state, [Human(), Human(), bot], log=live)
    with pytest.raises(Refused):
        table.request_takeback(0)  # nothing to take back yet
    while table.state.to_act() != 2:
        table.play(table.state.legal_moves()[0])
    table.play(bot.choose(table.state))  # the bot's move after the humans'
    played = table.number
    table.request_takeback(0)
    assert table.takeback["waiting"] == [1]
    with pytest.raises(Refused):  # nobody plays while a takeback waits
        table.play(table.state.legal_moves()[0])
    with pytest.raises(Refused):
        table.answer_takeback(0, True)  # P0 asked: P1 answers
    table.answer_takeback(1, True)
    assert table.takeback is None and table.number < played
    # Refused by one human: nothing changes.
    table.play(table.state.legal_moves()[0])
    before = table.number
    table.request_takeback(1)
    table.answer_takeback(0, False)
    assert table.number == before and table.takeback is None
    live.finish()
    with GameLog(db) as log:
        info = log.game(live.gid)
        assert info["move_count"] == table.number
        assert info["taken_back"] == played - table.number + 1
        assert log.verify(live.gid).ok


def test_a_resignation_stops_the_game_and_the_log_says_who(tmp_path):
    db = tmp_path / "games.sqlite3"
    state = rules_games.load("boars").new_game(2, 9)
    live = LiveLog(db, "boars", 2, 9, state.options())
    table = Table("boars", state, [Human(), Human()], log=live)
    table.play(table.state.legal_moves()[0])
    table.resign(1)
    assert table.is_over() and table.to_act() is None
    with pytest.raises(Refused) as refused:
        table.play(table.state.legal_moves()[0])
    assert "P1 resigned" in refused.value.reason
    live.finish()
    with GameLog(db) as log:
        info = log.game(live.gid)
        assert info["status"] == "abandoned" and info["result"]["end"] == "P1 resigned"


def test_each_viewer_reads_the_events_it_may_see_and_a_waiter_wakes():
    table = _table("boars")
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(table.wait(0, 60)))
    waiter.start()
    table.play(table.state.legal_moves()[0])
    waiter.join(60)
    assert woke == [table.seq] and table.seq >= 1
    events, lost = table.events_since(0, viewer=0)
    assert events and not lost and events[0][1] == "move"
    public, _ = table.events_since(0)
    assert [n for n, _, _ in public] == [n for n, _, _ in events]


def test_a_client_too_far_behind_is_told_it_lost_events():
    from vora_host.table.table import TABLE_EVENTS
    table = _table()
    for _ in range(TABLE_EVENTS + 5):
        table.say("log", "x")
    events, lost = table.events_since(0)
    assert lost and len(events) == TABLE_EVENTS

"""The table (vora_host.table): the one place a game being played changes, whoever plays."""

import random
import threading
import time

import pytest

from shared_rules import games as rules_games
from vora_host.bots import make_bot
from vora_host.log.live import LiveLog
from vora_host.log.store import GameLog
from vora_host.table import Human, Refused, Table

DEADLINE = 60.0  # seconds for what the program does at once: a deadline, not a figure


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


# ---- a seat played from elsewhere that goes: claims (issue 39, "Faults and bad input")

class Clock:
    """The table's seconds clock, moved by the test."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _claim_table(game="vorcept", players=2, log=None, claim_after=120):
    clock = Clock()
    state = rules_games.load(game).new_game(players, 3)
    table = Table(game, state, [Human() for _ in range(players)], log=log, clock=clock,
                  claim_after=claim_after)
    return table, clock


def test_a_seat_gone_two_minutes_lets_the_other_claim_the_win_and_the_log_says_so(tmp_path):
    db = tmp_path / "games.sqlite3"
    state = rules_games.load("vorcept").new_game(2, 3)
    live = LiveLog(db, "vorcept", 2, 3, state.options())
    clock = Clock()
    table = Table("vorcept", state, [Human(), Human()], log=live, clock=clock)
    table.play(table.state.legal_moves()[0], number=0)
    with pytest.raises(Refused) as refused:
        table.claim(0, "win")
    assert refused.value.reason == "nobody has left: there is nothing to claim"
    table.left(1)
    said = table.events_since(0)[0][-1]
    assert said[1] == "seat" and said[2] == (
        "P1 has left (reconnecting): after 2 min the others may claim the win or abort")
    clock.now += 119
    assert table.claims(0) == ([], None)
    with pytest.raises(Refused) as refused:
        table.claim(0, "win")
    assert refused.value.reason == ("P1 has been gone 1 min 59 s: the game may be claimed "
                                    "after 2 min")
    clock.now += 1
    assert table.claims(0) == (["win", "abort"], 1)
    with pytest.raises(Refused) as refused:  # the one who left claims nothing
        table.claim(1, "win")
    assert refused.value.reason == "P1 is not here"
    with pytest.raises(Refused) as refused:
        table.claim(0, "draw")
    assert "win or abort" in refused.value.reason
    table.claim(0, "win")
    assert table.is_over() and table.to_act() is None
    assert table.stopped == "P1 left and did not come back: P0 claims the win"
    assert table.events_since(0)[0][-1][1] == "claim"
    with pytest.raises(Refused):
        table.play(table.state.legal_moves()[0], number=1)
    with pytest.raises(Refused):
        table.claim(0, "abort")  # once
    live.finish()
    with GameLog(db) as log:
        info = log.game(live.gid)
        assert info["status"] == "abandoned" and info["move_count"] == 1
        assert info["result"]["end"] == table.stopped and info["result"]["winner"] is None
        assert log.verify(live.gid).ok


def test_a_seat_back_in_time_leaves_nothing_to_claim_and_the_others_are_told():
    table, clock = _claim_table()
    table.left(1)
    clock.now += 100
    table.back(1, "browser")
    assert table.events_since(0)[0][-1][2] == "P1 is back (browser)"
    clock.now += 1000
    assert table.claims(0) == ([], None)
    with pytest.raises(Refused) as refused:
        table.claim(0, "abort")
    assert refused.value.reason == "nobody has left: there is nothing to claim"
    table.left(1)  # gone again: its time starts again
    clock.now += 60
    assert table.gone_for(1) == 60 and table.claims(0) == ([], None)


def test_a_seat_that_never_came_counts_as_gone_from_the_start_quietly():
    table, clock = _claim_table()
    table.away(1)
    assert table.seq == 0  # nothing said: its link may not be opened yet
    clock.now += 120
    assert table.claims(0) == (["win", "abort"], 1)
    table.back(1, "browser")
    assert table.events_since(0)[0][-1][2] == "P1 is here (browser)"
    assert table.claims(0) == ([], None)


def test_among_three_players_the_game_is_aborted_not_won():
    table, clock = _claim_table("boars", players=3, claim_after=30)
    table.left(2)
    assert table.events_since(0)[0][-1][2].endswith("after 30 s the others may abort the game")
    clock.now += 30
    assert table.claims(0) == (["abort"], 2) and table.claims(1) == (["abort"], 2)
    with pytest.raises(Refused) as refused:
        table.claim(1, "win")
    assert refused.value.reason == ("a win is claimed only in a game of two players; here "
                                    "the game may be aborted")
    table.claim(1, "abort")
    assert table.stopped == "P2 left and did not come back: P1 aborts the game"


def test_only_a_human_here_claims():
    clock = Clock()
    state = rules_games.load("vorcept").new_game(2, 3)
    table = Table("vorcept", state, [Human(), make_bot("random", 1, "vorcept")], clock=clock)
    table.left(0)
    clock.now += 500
    with pytest.raises(Refused) as refused:
        table.claim(1, "win")
    assert refused.value.reason == "only a human claims the game"


def _terminal(table, lines):
    from rich.console import Console

    from vora_host.play.terminal import TerminalGame
    feed = iter(lines)

    def read(prompt):
        read.prompts.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError
    read.prompts = []
    console = Console(record=True, width=100)
    game = TerminalGame(table.state, table.agents, console, game=table.game, table=table,
                        read=read, echo=False)
    return game, console, read


def test_at_the_terminal_a_player_claims_a_gone_browser_seat_at_the_prompt_or_while_waiting():
    from vora_host.play.terminal import RESIGNED
    from vora_host.web.seats import BrowserSeat
    # Typed at the human's own prompt: refused while the seat may still come back.
    clock = Clock()
    state = rules_games.load("vorcept").new_game(2, 3)
    table = Table("vorcept", state, [Human(), BrowserSeat()], clock=clock)
    table.left(1)
    game, console, read = _terminal(table, ["claim", "abort"])
    read_first = read

    def later(prompt):  # the second line comes 2 minutes later
        if len(read_first.prompts) == 1:
            clock.now += 120
        return read_first(prompt)
    game.read = later
    assert game.run() == RESIGNED
    text = console.export_text()
    assert "Not now: P1 has been gone 0 s: the game may be claimed after 2 min." in text
    assert table.stopped == "P1 left and did not come back: P0 aborts the game"
    assert "P1 left and did not come back: P0 aborts the game; the game stops here" in text
    # Asked while the terminal waits for the browser seat to play, once it has gone long
    # enough; Enter waits on; the answer is asked again only after a new absence.
    clock = Clock()
    state = rules_games.load("vorcept").new_game(2, 3)
    table = Table("vorcept", state, [BrowserSeat(), Human()], clock=clock, claim_after=10)
    table.away(0)
    clock.now += 10
    game, console, read = _terminal(table, ["claim"])
    assert game.run() == RESIGNED
    assert read.prompts == ["P0 Blue has not come back: type claim to claim the win, abort "
                            "to stop the game, or Enter to wait on. "]
    assert table.stopped == "P0 left and did not come back: P1 claims the win"


def test_a_browser_move_made_as_the_terminal_starts_waiting_is_not_waited_for_again():
    # The terminal saw that the browser seat was to act, then began to wait; the browser's
    # move landed in between (a random bot beside it answers at once, so a whole game
    # makes the window likely under load). The terminal waited for a change after that
    # move, which never came: the game hung at the bot's turn (tests/test_web_seats_
    # browser.py saw it: the log held the browser's move, the terminal never played on).
    from vora_host.web.seats import BrowserSeat
    state = rules_games.load("vorcept").new_game(2, 3)
    table = Table("vorcept", state, [BrowserSeat(), make_bot("random", seed=1)])
    game, console, read = _terminal(table, [])
    print_ = console.print
    browser = random.Random(5)
    moved = []

    def print_then_the_browser_moves(*args, **kwargs):
        print_(*args, **kwargs)
        if args and "to play in the browser" in str(args[0]) and len(moved) < 3:
            moved.append(table.number)
            table.play(browser.choice(table.state.legal_moves()), 0, table.number)
    console.print = print_then_the_browser_moves
    result = []
    runner = threading.Thread(target=lambda: result.append(game.run()), daemon=True)
    runner.start()
    # After its third move the browser stops answering: the terminal then waits for it,
    # rightly, once the bot has answered each of its moves.
    deadline = time.monotonic() + DEADLINE
    while not (len(moved) == 3 and table.number >= moved[-1] + 2) and runner.is_alive():
        assert time.monotonic() < deadline, "the terminal waits for a move already made: " \
            "the browser moved at %r, the table is at %d" % (moved, table.number)
        time.sleep(0.01)
    assert table.to_act() == 0 and table.stopped is None
    table.resign(0)
    runner.join(DEADLINE)
    assert not runner.is_alive() and result

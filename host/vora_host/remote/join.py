"""`vora play --join URL`: this terminal plays a seat of a table on another computer (a
friend's `vora play --web`), through the seat API (vora_host.remote.seat_client).

The table there is the referee: a move typed here goes to it with the number of moves this
terminal saw, and comes back as the new view or the refusal and its reason. Nothing of the
game is decided here. What the table sends is that seat's view (the table drawn for this
player's eyes, as plain text: text from the network is printed as text, its control
characters dropped), the moves, what was said; its event stream brings each change, and
when the stream drops the terminal says so and connects again.

The game is logged here too, as the table's record shows it (RemoteLog): a game that hides
nothing as it is played, a hidden game once it is over and its secrets are shown. Each
move is replayed by this computer's rules and its digest compared with the table's, so
both logs hold the same game with the same digests, or the difference is said.
"""

import queue
import threading
import time

from rich.markup import escape
from rich.text import Text

from shared_rules import games as rules_games
from shared_rules.errors import BadPosition, IllegalMove

from vora_host import hang_up
from vora_host.log.records import result_of
from vora_host.play.terminal import resolve_entry
from vora_host.remote.seat_client import Refused, RemoteError, SeatClient

__all__ = ["RemoteLog", "open_copy", "open_seat", "run_join", "JOIN_HELP", "safe_text"]

RECONNECT_S = (1, 2, 4, 8, 10)  # the waits between tries when the stream drops
HELLO_S = 30.0  # seconds for the first event of the stream
OFFER_AGAIN_S = 60.0  # seconds before a declined claim is offered again

JOIN_HELP = """\
[bold]Commands[/bold]   #5 or a move: play it    moves: the list again    board: the table again
           hint: the hard level's move, from what you see
           undo: ask to take back your last turn    resign: give the game up
           claim, abort: end the game when a player has been gone too long
           q: leave the table (it goes on there: the same command joins again)"""


def safe_text(text):
    """Text from the network as a terminal may show it: no control characters (an escape
    sequence could move the cursor, retitle the window or worse), line ends kept."""
    return "".join(c for c in text if c == "\n" or (ord(c) >= 32 and not 127 <= ord(c) < 160))


class RemoteLog:
    """The joined game in this computer's game log, following the table's record (see the
    module doc). `say(text)` tells the player when the log and the table part ways."""

    def __init__(self, db_path, host, say):
        self.db_path = db_path
        self.source = "remote %s" % host
        self.say = say
        self.live = None
        self.moves = []  # the moves logged here
        self.states = []  # the state before the first move, then after each
        self.broken = None  # why this log stopped following the table

    def follow(self, record):
        """Log what the table's record holds beyond what is logged (moves taken back
        there are taken back here)."""
        if record is None or self.broken is not None:
            return
        if self.live is None and not self._start(record):
            return
        moves, digests = record["moves"], record["digests"]
        same = 0
        while same < min(len(moves), len(self.moves)) and moves[same] == self.moves[same]:
            same += 1
        for number in range(len(self.moves), same, -1):
            self.live.took_back(number)
        del self.moves[same:], self.states[same + 1:]
        for k in range(same, len(moves)):
            state = self.states[-1].clone()
            try:
                state.play(moves[k])
            except IllegalMove as exc:
                return self._part("move %d, %r, is illegal by this computer's rules: %s"
                                  % (k + 1, moves[k][:60], exc.reason))
            if state.digest() != digests[k]:
                return self._part("after move %d the table's digest is %s, this computer's %s"
                                  % (k + 1, digests[k][:20], state.digest()))
            self.live.moved(k + 1, moves[k], digests[k])
            self.moves.append(moves[k])
            self.states.append(state)

    def _start(self, record):
        from vora_host.log.errors import GameHeld
        try:
            state = rules_games.start(dict(record, moves=[], seed=int(record["seed"])))
        except (BadPosition, ValueError, KeyError, TypeError) as exc:
            self.broken = "the table's game cannot be set up here: %s" % exc
            self.say(self.broken)
            return False
        try:
            self.live, logged = open_copy(self.db_path, self.source, record, state.options(),
                                          self.say)
        except GameHeld as exc:
            self.broken = "another program logs this game here: %s" % exc
            self.say(self.broken)
            return False
        self.states = [state]
        for move in logged:  # joined again: its copy goes on (follow() takes back the rest)
            state = state.clone()
            try:
                state.play(move)
            except IllegalMove:
                break
            self.moves.append(move)
            self.states.append(state)
        return True

    def _part(self, why):
        self.broken = why
        self.say("the game log here stops following the table: %s" % why)

    def end(self, stopped):
        """The game ended there, or this terminal left it: the log's last word. Returns
        the line that says where the game went, or None when nothing was logged."""
        if self.live is None:
            return None
        state = self.states[-1]
        if state.is_over():
            self.live.ended("over", result_of(state))
        elif stopped:
            self.live.ended("abandoned", result_of(state, stopped))
        else:
            self.live.ended("interrupted", result_of(state, "left the remote table"))
        message, _ = self.live.finish()
        return message


def open_copy(db_path, source, record, options, say):
    """(a LiveLog for the joined game's copy in this computer's log, the moves it holds
    already): the copy left unfinished when this table's seat was joined before (the same
    source, game and seed), or a new one. GameHeld when another program writes that copy
    now (the seat joined twice here)."""
    from vora_host.log.live import LiveLog
    from vora_host.log.errors import GameLogError
    from vora_host.log.store import GameLog
    from vora_host.play.saved import UNFINISHED
    found = None
    try:
        with GameLog(db_path) as log:
            for info in sorted((i for status in UNFINISHED for i in log.games(status=status)),
                               key=lambda i: -i["id"]):
                if info["source"] == source and info["game"] == record["game"] \
                        and str(info["seed"]) == record["seed"]:
                    found = log.game(info["id"])
                    break
    except GameLogError:
        found = None  # (the LiveLog below says what is wrong with the log)
    if found is None:
        return LiveLog(db_path, record["game"], record["players"], int(record["seed"]),
                       options, source=source, say=say), []
    live = LiveLog(db_path, record["game"], record["players"], int(record["seed"]), options,
                   source=source, say=say, game_id=found["id"], earlier=found["moves"])
    return live, [m["move"] for m in found["moves"]]


class _Stream:
    """The seat's event stream in a thread: its events go to `events` (a queue), with
    ("trouble", text) when it drops and ("back", None) when it is there again."""

    def __init__(self, client):
        self.client = client
        self.events = queue.Queue()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="seat stream")

    def start(self):
        self.thread.start()
        return self

    def _run(self):
        tries = 0
        while not self.stop.is_set():
            try:
                for kind, data in self.client.events():
                    if tries:
                        self.events.put(("back", None))
                        tries = 0
                    self.events.put((kind, data))
                    if kind == "replaced" or self.stop.is_set():
                        return
                trouble = "the table closed the stream"
            except RemoteError as exc:
                trouble = str(exc)
            if self.stop.is_set():
                return
            self.events.put(("trouble", trouble))
            self.stop.wait(RECONNECT_S[min(tries, len(RECONNECT_S) - 1)])
            tries += 1


class _Join:
    def __init__(self, client, console, read, log):
        self.client = client
        self.console = console
        self.read = read
        self.log = log
        self.view = None
        self.said = 0  # the newest event number printed
        self.drawn = None  # (number, seq) of the table last drawn
        self.offered = None  # ((the gone seat, why), when) of the claim last offered
        self.replaced = None
        self.taken_at = 0.0  # when the view was taken (time.monotonic)
        self.waiting_said = None  # the view (seq) whose "Waiting for" line was printed

    # ---- what the table sends

    def take(self, view):
        if self.view is not None and view["seq"] < self.view["seq"]:
            return  # older than the one shown (a POST's answer the stream overtook)
        self.view = view
        self.taken_at = time.monotonic()
        if self.log is not None:
            self.log.follow(view.get("record"))

    def refresh(self):
        """The view read again (nothing ticks on the table when a gone seat's time runs
        out: the claim it allows shows in a view asked for)."""
        try:
            self.take(self.client.view())
        except RemoteError as exc:
            self.console.print("[yellow]%s[/yellow]" % escape(safe_text(str(exc))))

    def claim_due(self):
        """Whether a gone seat's time has run out since the view was taken."""
        view = self.view
        if not view["gone"] or view["claims"]:
            return False
        return min(g["claim_in"] for g in view["gone"]) <= time.monotonic() - self.taken_at

    def pump(self, stream, timeout):
        """Take what the stream brought (waiting up to `timeout` s for the first)."""
        try:
            item = stream.events.get(timeout=timeout)
        except queue.Empty:
            return
        while True:
            kind, data = item
            if kind == "seat":
                self.take(data)
            elif kind == "replaced":
                self.replaced = data.get("error") if isinstance(data.get("error"), str) else ""
            elif kind == "trouble":
                self.console.print("[yellow]%s: connecting again...[/yellow]"
                                   % escape(safe_text(data)))
            elif kind == "back":
                self.console.print("[green]Connected to the table again.[/green]")
            try:
                item = stream.events.get_nowait()
            except queue.Empty:
                return

    def draw(self, force=False):
        view = self.view
        for number, _, text in view["events"]:
            if number > self.said:
                self.said = number
                self.console.print(Text(safe_text(text), style="yellow"))
        if force or self.drawn is None or self.drawn[0] != view["number"]:
            self.console.print()
            self.console.print(Text(safe_text(view["panel_text"]).rstrip("\n")))
        self.drawn = (view["number"], view["seq"])

    def turn_line(self):
        view = self.view
        if view["your_turn"]:
            return "Your turn: %s." % safe_text(view["prompt"] or "")
        if view["takeback"] is not None:
            return "A takeback waits for an answer."
        if view["to_act"] is not None and view["to_act"] < len(view["seats"]):
            return "Waiting for %s." % safe_text(view["seats"][view["to_act"]]["label"])
        return ""

    # ---- what the player types

    def ask(self, prompt):
        """A line typed, or None at the end of input; the terminal closing stops as its
        SIGHUP does (vora_host.hang_up)."""
        try:
            return self.read(prompt)
        except (EOFError, OSError) as exc:
            hang_up.stop_if_closed(0, exc)
            if not isinstance(exc, EOFError):
                raise
            return None

    def post(self, action, body=None):
        try:
            self.take(self.client.post(action, body))
            return True
        except Refused as exc:
            self.console.print("[red]%s[/red]" % escape(safe_text(exc.reason)))
        except RemoteError as exc:
            self.console.print("[red]%s[/red]" % escape(safe_text(str(exc))))
        return False

    def moves_list(self):
        for k, move in enumerate(self.view["moves"], 1):
            self.console.print("  #%-3d %s" % (k, escape(safe_text(move["move"]))))

    def your_turn(self):
        """One line typed on this player's turn. False when the player leaves."""
        view = self.view
        moves = [m["move"] for m in view["moves"]]
        entry = self.ask("P%d> " % view["you"])
        if entry is None:
            return False
        word = entry.strip().lower()
        if not word:
            return True
        if word in ("q", "quit", "exit"):
            return False
        if word in ("?", "h", "help"):
            self.console.print(JOIN_HELP)
        elif word in ("moves", "m", "list"):
            self.moves_list()
        elif word in ("board", "b"):
            self.draw(force=True)
        elif word == "hint":
            self.console.print("[dim]Thinking of a hint...[/dim]")
            if self.post("hint", {"number": view["number"]}) and self.view.get("hint"):
                hint = self.view["hint"]
                self.console.print("Hint: [bold green]%s[/bold green]   %s" % (
                    escape(safe_text(str(hint.get("move"))[:200])),
                    escape(safe_text(str(hint.get("reason") or "")[:500]))))
        elif word == "undo":
            self.post("takeback")
        elif word == "resign":
            answer = self.ask("Give the game up? It stops for everybody. [y/N] ")
            if answer is not None and answer.strip().lower() in ("y", "yes"):
                self.post("resign")
        elif word in ("claim", "abort"):
            self.post("claim", {"what": "win" if word == "claim" else "abort"})
        else:
            move, error = resolve_entry(entry, moves)
            if error is not None:
                self.console.print("[red]%s[/red]" % escape(error))
            else:
                self.post("move", {"move": move, "number": view["number"]})
        return True

    def answer_takeback(self):
        answer = self.ask("Take back %s? [y/N] " % safe_text(self.view["takeback"]["what"]))
        if answer is None:
            return False
        self.post("answer", {"yes": answer.strip().lower() in ("y", "yes")})
        return True

    def offer_claim(self):
        view = self.view
        gone = next((g for g in view["gone"] if g.get("player") == view.get("claim_against")),
                    None)
        # Asked once, then again each OFFER_AGAIN_S while the seat stays gone (Enter waits
        # on; the question is the only way to claim while that seat is to play).
        key = (view.get("claim_against"), gone and gone.get("why"))
        if self.offered is not None and self.offered[0] == key \
                and time.monotonic() - self.offered[1] < OFFER_AGAIN_S:
            return True
        self.offered = (key, time.monotonic())
        options = "claim to claim the win, abort" if "win" in view["claims"] else "abort"
        answer = self.ask("%s has not come back: type %s to stop the game, or Enter to wait "
                          "on. " % (safe_text(gone["label"]) if gone else "A player", options))
        if answer is None:
            return False
        word = answer.strip().lower()
        if word in ("claim", "abort"):
            self.post("claim", {"what": "win" if word == "claim" else "abort"})
        return True


def open_seat(url, console):
    """(client, its first view, None) for the seat's link `url`, or (None, None, exit
    status) after saying why not: 2 when the link is not a seat's, 1 when the table cannot
    be reached or refuses it (in its words, without their control characters)."""
    try:
        client = SeatClient(url)
    except ValueError as exc:
        console.print("[red]%s[/red]" % escape(str(exc)))
        return None, None, 2
    try:
        return client, client.view(), None
    except RemoteError as exc:
        console.print("[red]%s[/red]" % escape(safe_text(str(exc))))
        return None, None, 1


def run_join(url, console, db_path=None, no_log=False, read=input):
    """Play the seat at `url` from this terminal until the game ends or the player leaves;
    the exit status (0: the game ended or the player left; 1: the table could not be
    reached or refused the seat; 2: the link is not a seat's; 130: interrupted)."""
    client, view, status = open_seat(url, console)
    if client is None:
        return status
    you = safe_text(view["you_label"])
    you = you[:-len(" (you)")] if you.endswith(" (you)") else you
    console.print("[bold]%s[/bold] at %s: you play %s." % (
        escape(safe_text(view["title"])), escape(client.host), escape(you)))
    log = None
    if not no_log:
        from vora_host.log.database import resolve_db_path

        def warn(text):
            console.print("[yellow]Game log: %s[/yellow]" % escape(text))
        log = RemoteLog(resolve_db_path(db_path), client.host, warn)
    join = _Join(client, console, read, log)
    join.take(view)
    stream = _Stream(client).start()
    interrupted = False
    try:
        # Present at the table once the stream says hello (its client id goes with each
        # request): until then the table counts this seat as not here.
        deadline = time.monotonic() + HELLO_S
        while client.client == 0 and time.monotonic() < deadline and join.replaced is None:
            join.pump(stream, 0.2)
        console.print("[dim]Type ? for the commands; q leaves the table.[/dim]")
        while True:
            join.pump(stream, 0.0)
            join.draw()
            view = join.view
            if join.replaced is not None:
                console.print("[yellow]%s[/yellow]" % escape(safe_text(join.replaced or
                              "this seat was opened elsewhere")))
                break
            if view["over"]:
                break
            line = join.turn_line()
            if view["takeback"] is not None and view["takeback"]["asked_you"]:
                going = join.answer_takeback()
            elif view["your_turn"]:
                console.print(Text(line, style="bold"))
                going = join.your_turn()
            elif view["claims"]:
                going = join.offer_claim()
                if going:
                    join.pump(stream, 1.0)
            else:
                if line and join.waiting_said != view["seq"]:
                    join.waiting_said = view["seq"]
                    console.print(Text(line, style="dim"))
                join.pump(stream, 1.0)
                if join.view is view and join.claim_due():
                    join.refresh()
                continue
            if not going:
                break
    except KeyboardInterrupt:  # Ctrl-C, or the terminal closed (vora_host.hang_up)
        interrupted = True
        console.print("\n[yellow]Interrupted.[/yellow]")
    finally:
        stream.stop.set()
    view = join.view
    message = None
    try:
        if view["over"]:
            join.draw()
            console.print("[bold]The game %s.[/bold]" % (
                "stopped: %s" % escape(safe_text(view["stopped"])) if view["stopped"]
                else "is over"))
            for line in view["result"]:
                console.print(Text(safe_text(line)))
        else:
            console.print("You left the table; it goes on at %s. The same command joins "
                          "again." % escape(client.host))
    except KeyboardInterrupt:  # (the terminal closed as this was said)
        interrupted = True
    finally:
        # Whatever happens on the screen, the copy's last word is logged.
        if log is not None:
            message = log.end(view["stopped"] if view["over"] else None)
    try:
        if message:
            console.print(escape(message), soft_wrap=True)
    except KeyboardInterrupt:
        interrupted = True
    return 130 if interrupted else 0

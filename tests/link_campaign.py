"""The fault campaign of the link: whole games between the board's firmware (VoraUI and
BoardLink) and the host's BoardClient with its GameLog, over a serial line that damages a
share of the frames both ways, and a comparison of the host's log with the board's record.

Shared by tests/test_link_campaign.py (a modest size, in CI) and bench/bench_link_campaign.py
(the full size, its figures in docs/benchmarks.md).

The line (`FaultyLine`): every frame written is hit, with probability `rate`, by one fault
drawn evenly from FAULTS:
    drop       the frame is lost
    flip       one bit of it is flipped
    duplicate  it arrives twice
    reorder    it is held back and arrives after the next frame
    truncate   its end is lost, delimiter included (it runs into the next frame)
    insert     a random byte is inserted at a random place (a 0x00 cuts it in two)
    delete     one of its bytes is lost (the delimiter too, sometimes)
Frames arrive 2 ms after they are written.

A game (`play_game`): the board deals a game of 2 to 4 players at a random moment; the host
connects whenever its HELLO gets through. A bot plays a random legal move every 60 to 300
ms, each move preceded by three key presses and releases (KEY reports, as a real move has),
until the game ends. Then the line keeps running until the host has every move (or a minute
passes). The result counts lost, doubled and reordered moves, and the catch-up time of each
move: from the moment the board played it to the moment the host logged it.

A faulty board (`faulty`, the share of the moves hit): now and then the board reports a
move with a wrong digest (the frame is CRC-valid: the board itself got it wrong), or its
own state goes wrong between two moves (its PRNG and two cells of the meadow change, as a
flipped bit of RAM would do; the board plays on from there). The host must log every move
all the same, mark the game as needing attention, and take the board's state (a resync).

All randomness comes from the seed: a game replays exactly.
"""

import random

from vora_fw.link import BoardLink
from vora_fw.vora_ui import VoraUI
from vora_host.link.client import BoardClient

FAULTS = ("drop", "flip", "duplicate", "reorder", "truncate", "insert", "delete")
STEP_MS = 5
LATENCY_MS = 2
SETTLE_LIMIT_MS = 60000


class FaultyLine:
    """One direction of the serial line, damaging `rate` of the frames (see above)."""

    def __init__(self, rng, rate):
        self.rng = rng
        self.rate = rate
        self.in_flight = []  # [due, bytes]
        self.held = None  # a frame held back to arrive after the next one
        self.held_since = 0
        self.now = 0
        self.frames = 0
        self.faults = dict.fromkeys(FAULTS, 0)

    def write(self, frame):
        self.frames += 1
        rng = self.rng
        frame = bytes(frame)
        if rng.random() < self.rate:
            fault = rng.choice(FAULTS)
            self.faults[fault] += 1
            if fault == "drop":
                return
            if fault == "flip":
                i = rng.randrange(len(frame))
                frame = frame[:i] + bytes((frame[i] ^ (1 << rng.randrange(8)),)) + frame[i + 1:]
            elif fault == "duplicate":
                self._send(frame)
            elif fault == "reorder":
                self._release()
                self.held = frame
                self.held_since = self.now
                return
            elif fault == "truncate":
                frame = frame[:rng.randrange(1, len(frame))]
            elif fault == "insert":
                i = rng.randrange(len(frame) + 1)
                frame = frame[:i] + bytes((rng.randrange(256),)) + frame[i:]
            elif fault == "delete":
                i = rng.randrange(len(frame))
                frame = frame[:i] + frame[i + 1:]
        self._send(frame)
        self._release()

    def _send(self, data):
        self.in_flight.append((self.now + LATENCY_MS, data))

    def _release(self):
        if self.held is not None:
            held, self.held = self.held, None
            self._send(held)

    def take(self, now):
        self.now = now
        if self.held is not None and now - self.held_since >= 50:
            self._release()  # nothing came after it for a while: it arrives late anyway
        out = b"".join(data for due, data in self.in_flight if due <= now)
        self.in_flight = [(due, data) for due, data in self.in_flight if due > now]
        return out


class GameResult:
    def __init__(self):
        self.board_moves = 0
        self.logged = 0
        self.lost = 0
        self.doubled = 0
        self.reordered = 0
        self.catch_up_ms = []  # per move: board played it -> host logged it
        self.problems = {}  # kind -> count (client.problem_kinds)
        self.frames = 0
        self.faults = dict.fromkeys(FAULTS, 0)
        self.asks = 0
        self.hellos = 0
        self.settle_ms = 0  # after the last move, until the host had them all
        self.sim_ms = 0
        self.board_faults = 0  # wrong digests sent and states gone wrong (a faulty board)
        self.attention = False  # the log marks the game as needing attention
        self.resyncs = 0  # times the host took the board's state


def _faulty_board(link, ui, rng, share):
    """Make the board of `link` and `ui` faulty (see the module doc): returns a function to
    call after each move the board plays, and a list counting the faults made."""
    from shared_rules import wire, wire_host
    faults = []
    send = link._send

    def lying_send(type, payload):
        if type == wire.MOVE and rng.random() < share / 2:
            game, n, digest, move = wire_host.unpack_move(payload)
            wrong = "%016x" % (int(digest, 16) ^ (1 << rng.randrange(64)))
            sent = send(type, wire.pack_move(game, n, wrong, move))
            if sent:  # (held back, the move goes out later in a MOVES, without a digest)
                faults.append(("digest", n))
            return sent
        return send(type, payload)

    def after_move():
        state = ui.state
        if state.is_over() or rng.random() >= share / 2:
            return
        state.rng = (state.rng ^ (1 << rng.randrange(31))) or 1
        a, b = rng.sample(range(25), 2)
        state.grid[a], state.grid[b] = state.grid[b], state.grid[a]
        ui.legal = state.legal_moves()
        faults.append(("state", len(ui.moves)))

    link._send = lying_send
    return after_move, faults


def play_game(seed, rate, log, max_moves=400, faulty=0.0):
    """One game over a line damaging `rate` of the frames both ways; returns a GameResult.
    `log` is a GameLog (several games may share it). `faulty`: the share of the moves a
    faulty board gets wrong (see the module doc)."""
    rng = random.Random(seed)
    to_host = FaultyLine(random.Random(rng.getrandbits(32)), rate)
    to_board = FaultyLine(random.Random(rng.getrandbits(32)), rate)
    link = BoardLink(to_host.write, board="campaign")
    game_seed = rng.getrandbits(32)
    game_id = rng.getrandbits(32)
    ui = VoraUI(seed_fn=lambda: game_seed, id_fn=lambda: game_id, listener=link.game_event)
    link.attach(ui)
    after_move, board_faults = (lambda: None), []
    if faulty:
        after_move, board_faults = _faulty_board(link, ui, random.Random(seed ^ 0x5EED), faulty)
    client = BoardClient(to_board.write, log=log, source="virtual board")
    played_at = {}
    logged_at = {}

    def on_change(what):
        if what == "move":
            for n in range(len(logged_at) + 1, len(client.moves) + 1):
                logged_at[n] = now
    client.on_change = on_change
    seats = rng.choice(("SN", "SWN", "SWNE", "WE"))
    deal_at = rng.randrange(0, 1500)
    next_move_at = None
    settle_end = None
    last_move_at = None
    now = 0
    while True:
        now += STEP_MS
        data = to_board.take(now)
        if data:
            link.receive(data, now)
        link.poll(now)
        data = to_host.take(now)
        if data:
            client.feed(data, now)
        client.poll(now)
        if ui.state is None:
            if now >= deal_at:
                ui.new_game(seats, game_seed)
                next_move_at = now + rng.randint(60, 300)
            continue
        over = ui.state.is_over() or len(ui.moves) >= max_moves
        if not over and now >= next_move_at:
            for _ in range(3):
                k = rng.randrange(49)
                link.key_event(k, True)
                link.key_event(k, False)
            ui.play(rng.choice(ui.legal), now)
            after_move()
            played_at[len(ui.moves)] = now
            last_move_at = now
            next_move_at = now + rng.randint(60, 300)
            continue
        if over:
            if settle_end is None:
                settle_end = now + SETTLE_LIMIT_MS
            if len(client.moves) >= len(ui.moves) and client.game_id == game_id or now >= settle_end:
                break
    result = GameResult()
    result.sim_ms = now
    result.settle_ms = (max(logged_at.values()) - last_move_at) if logged_at and last_move_at else 0
    result.board_moves = len(ui.moves)
    logged = []
    if client.log_id is not None:
        info = log.game(client.log_id)
        logged = [(m["number"], m["move"]) for m in info["moves"]]
        result.attention = bool(info["attention"])
    result.board_faults = len(board_faults)
    result.resyncs = client.resyncs
    numbers = [n for n, _ in logged]
    result.logged = len(logged)
    result.doubled = len(numbers) - len(set(numbers))
    result.reordered = sum(1 for a, b in zip(numbers, numbers[1:]) if b <= a)
    good = set((n, m) for n, m in logged if 0 < n <= len(ui.moves) and ui.moves[n - 1] == m)
    result.lost = sum(1 for n, m in enumerate(ui.moves, 1) if (n, m) not in good)
    result.reordered += sum(1 for n, m in logged if (n, m) not in good)  # in the wrong place
    result.catch_up_ms = [logged_at[n] - played_at[n] for n in played_at if n in logged_at]
    result.problems = dict(client.problem_kinds)
    result.frames = to_host.frames + to_board.frames
    for line in (to_host, to_board):
        for k, v in line.faults.items():
            result.faults[k] += v
    result.asks = client.asks
    result.hellos = client.hello_attempts
    return result


def percentile(values, p):
    if not values:
        return 0
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100.0 * (len(values) - 1)))))
    return values[k]


class Summary:
    """The results of many games at one rate, added up."""

    def __init__(self, rate):
        self.rate = rate
        self.games = 0
        self.board_moves = 0
        self.lost = 0
        self.doubled = 0
        self.reordered = 0
        self.games_losing = 0
        self.catch_up_ms = []
        self.settle_ms = []
        self.frames = 0
        self.faults = dict.fromkeys(FAULTS, 0)
        self.problems = {}
        self.asks = 0
        self.board_faults = 0
        self.games_faulty = 0  # games in which the board went wrong at least once
        self.games_marked = 0  # games the log marks as needing attention
        self.resyncs = 0

    def add(self, r):
        self.games += 1
        self.board_moves += r.board_moves
        self.lost += r.lost
        self.doubled += r.doubled
        self.reordered += r.reordered
        self.games_losing += 1 if r.lost else 0
        self.catch_up_ms += r.catch_up_ms
        self.settle_ms.append(r.settle_ms)
        self.frames += r.frames
        for k, v in r.faults.items():
            self.faults[k] += v
        for k, v in r.problems.items():
            self.problems[k] = self.problems.get(k, 0) + v
        self.asks += r.asks
        self.board_faults += r.board_faults
        self.games_faulty += 1 if r.board_faults else 0
        self.games_marked += 1 if r.attention else 0
        self.resyncs += r.resyncs

    def line(self):
        c = self.catch_up_ms
        faulty = ""
        if self.board_faults:
            faulty = ("; a faulty board: %d faults in %d games, %d games marked, %d resyncs"
                      % (self.board_faults, self.games_faulty, self.games_marked, self.resyncs))
        return self._line() + faulty

    def _line(self):
        c = self.catch_up_ms
        return ("%4.0f%%: %d games, %d moves, lost %d (in %d games), doubled %d, reordered %d; "
                "catch-up ms p50 %d p90 %d p99 %d max %d; frames %d, damaged %d; "
                "MOVES_REQ %d; problems %s" % (
                    self.rate * 100, self.games, self.board_moves, self.lost, self.games_losing,
                    self.doubled, self.reordered, percentile(c, 50), percentile(c, 90),
                    percentile(c, 99), max(c) if c else 0, self.frames,
                    sum(self.faults.values()), self.asks,
                    ", ".join("%s %d" % kv for kv in sorted(self.problems.items())) or "none"))

"""What `vora play` adds to following a board: the PC's bots at their seats, a position
to set up, a takeback asked from the PC, and the board's refusals in words.

`BoardPlay.poll()` is called every few tens of milliseconds beside a BoardClient (the
virtual board's companion, or `vora mirror` on a USB board). It only talks to a board
that announced the "play" capability (docs/protocol.md, "Play messages"):
- BOTS tells the board which seats the PC plays, after every HELLO (the board forgets
  them when the PC goes away, so people can take those seats over);
- when such a seat is to act and the PC has caught up with the board, its bot chooses a
  move on a copy of the followed state, in a thread of its own (the link is served while
  it thinks, however long its search), and the move goes as BOT_MOVE once it is ready and
  the game is still where it was asked (a takeback meanwhile drops it); the board checks
  it like keys, shows it, plays it and reports it as any move (so it is logged the same
  way);
- a position (`--position`) is sent once the board answers; the board refuses it while a
  game is in progress, and the refusal is said in words;
- `hint` typed beside the board (`command`): the hard level's move for the person to
  act (vora_host.bots.hints: Vora's lookahead, on the followed state, its future draws
  seeded afresh), thought of in a thread and said on the PC's screen, logged as an
  event of the game; the board's own keys do not show it (its firmware has no hint: see
  docs/bots.md, "Hints");
- who plays each seat is noted beside the game log (play/saved.py's seat notes, under the
  log's id of the board's game): a game the board resumes gets the PC's bots it had when it
  was left, and the screen says so; `--bot` given then seats those instead, and what
  changed is said (`--bot N=person` gives a bot's seat back to a person).
"""

import collections

from vora_host import bots as bot_kinds
from vora_host.games.vora import view
from vora_host.play.thinking import THINK_WAIT_S, BotThinking

R_BUSY = 18  # the board's refusal of a position while a game is in progress (vora_ui)
PERSON = "person"  # `--bot N=person`: the seat is a person's (a bot's, when last played)

__all__ = ["BoardPlay", "check_kind", "find_seat", "parse_bot_seats", "seat_table", "seats_text"]


def seat_table(seats, players):
    """Each player's seat names, a tuple per player: `seats` as such a list already, or
    as a string of seat letters, one per player (Vora's 'SN'), or '' (the players have
    numbers only)."""
    if seats is None or isinstance(seats, str):
        letters = seats or ""
        return [(letters[p],) if p < len(letters) else () for p in range(players)]
    return [tuple(names) for names in seats]


def find_seat(word, table):
    """The player `word` names in `table` (seat_table): a player number ('1', or 'P1' as
    the screen writes it) or one of the player's names, any capitals; None if nobody."""
    word = word.strip()
    low = word.lower()
    if low[:1] == "p" and low[1:].isdigit():
        low = low[1:]
    if low.isdigit():
        p = int(low)
        return p if p < len(table) else None
    for p, names in enumerate(table):
        if any(low == name.lower() for name in names):
            return p
    return None


def seat_text(player, names):
    """'1', '1 (Red)', '0 (S, South)': one seat for the messages."""
    return "%d (%s)" % (player, ", ".join(names)) if names else str(player)


def seats_text(table):
    """'0 and 1', '0 (Blue) and 1 (Red)', '0 (S, South), 1 (N, North) and 2 (W, West)':
    what --bot and --human accept, for the messages."""
    parts = [seat_text(p, names) for p, names in enumerate(table)]
    if len(parts) < 2:
        return "".join(parts)
    return "%s and %s" % (", ".join(parts[:-1]), parts[-1])


def check_kind(kind, game="vora"):
    """ValueError with make_bot's message (the kinds the game has, or the parameter it
    cannot read) unless `kind` makes a bot for `game`."""
    try:
        bot_kinds.make_bot(kind, 0, game)
    except ValueError as exc:
        hint = ""
        if bot_kinds.split_kind(kind)[0] == "greedy" and game != "vora":
            hint = " ('greedy' is Vora's own bot)"
        raise ValueError("%s%s" % (exc, hint))


def parse_bot_seats(values, game="vora", seats=None, players=None):
    """`--bot N=greedy` values (a list) as {seat: kind}; every kind is checked with
    make_bot for `game`, parameters included ('search:500', 'search:50ms').

    `seats`: the players' seat names once the game is set up (see seat_table; `players`
    the count when `seats` is a string): then the keys are player numbers and a seat
    nobody sits at is an error naming the seats there are. Without (Vora on a board,
    whose seats are known only once the board deals): seat letters S, W, N, E or player
    numbers 0 to 3, as given. ValueError naming what is wrong."""
    table = None
    if seats is not None:
        table = seat_table(seats, len(seats) if players is None else players)
    out = {}
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            who, sep, kind = part.partition("=")
            who, kind = who.strip(), kind.strip().lower()
            if not sep:
                raise ValueError("%r: give a seat and a bot, e.g. 1=random or 1=search:500"
                                 % part)
            if table is not None:
                key = find_seat(who, table)
                if key is None:
                    raise ValueError("nobody sits at %r: the seats are %s"
                                     % (who, seats_text(table)))
            elif who.isdigit() and int(who) < 4:
                key = int(who)
            elif who.upper() in ("S", "W", "N", "E", "SOUTH", "WEST", "NORTH", "EAST"):
                key = who.upper()[0]
            else:
                raise ValueError("%r is not a seat: S, W, N, E (South, West, North, East) "
                                 "or a player number 0 to 3" % who)
            if not kind:
                raise ValueError("%r: give a bot after the '=', e.g. %s=random" % (part, who))
            if kind in (PERSON, "human") and table is None:
                kind = PERSON  # on a board: the seat goes back to a person
            else:
                check_kind(kind, game)
            if key in out and out[key] != kind:
                raise ValueError("%r: that seat already has a bot, %s; give each seat one"
                                 % (part, out[key]))
            out[key] = kind
    return out


class _Seat:
    # What saved.note_seats notes of a seat: a bot's kind, or a person ("human").
    def __init__(self, kind):
        self.kind = kind


class BoardPlay:
    """`notes`: the game log's path, for the seat notes (None: none kept); `chosen`: the
    seats were given (--bot), else a resumed game keeps those it had."""

    def __init__(self, client, bots=None, position=None, seed=0, notes=None, chosen=None):
        self.client = client
        bots = dict(bots or {})
        self.chosen = bool(bots) if chosen is None else chosen
        # seat letter or player number -> kind; a seat given back to a person has none
        self.bots = dict((k, v) for k, v in bots.items() if v != PERSON)
        self.notes = notes
        self._noted_for = None  # the log's game whose seats were noted (or taken) last
        self.position = position
        self.seed = seed
        self.messages = collections.deque(maxlen=6)  # what to tell the user, newest last
        self.said = 0  # messages said so far
        self._agents = {}
        self._told = None  # (seats, the HELLO_OK they were told under)
        self._sent = None  # (game, move number, takebacks seen) of the last bot move sent
        self.thinking = None  # the bot's search under way (BotThinking), or None
        self.hinting = None  # a hint being thought of (BotThinking of a _HintAgent), or None
        self._position_sent = None
        self._refused_seen = 0
        self._missing_said = False

    def seats(self):
        """The seat letters the PC's bots play in the followed game ('' before one)."""
        st = self.client.state
        if st is None:
            return "".join(k for k in self.bots if isinstance(k, str))
        out = ""
        for key in self.bots:
            seat = st.seats[key] if isinstance(key, int) and key < len(st.seats) else key
            if isinstance(seat, str) and seat in st.seats and seat not in out:
                out += seat
        return out

    def names(self):
        """seat -> bot kind, for the screens."""
        st = self.client.state
        out = {}
        for key, kind in self.bots.items():
            if isinstance(key, int):
                if st is not None and key < len(st.seats):
                    out[st.seats[key]] = kind
            else:
                out[key] = kind
        return out

    def who(self, compact=False):
        """player -> what plays the seat ('greedy (PC)', 'board bot, hard'), for the
        mirror; `compact`: in a word or two, for its narrow column (no level)."""
        st = self.client.state
        if st is None:
            return {}
        names = self.names()
        out = {}
        for p, seat in enumerate(st.seats):
            if seat in names:
                out[p] = "%s (PC)" % names[seat]
            elif seat in self.client.board_bots:
                level = self.client.board_bot_level(seat)
                out[p] = "board bot, %s" % level if level and not compact else "board bot"
        return out

    def say(self, text):
        self.messages.append(text)
        self.said += 1

    def _agent(self, seat):
        kind = self.names()[seat]
        if (seat, kind) not in self._agents:
            self._agents[(seat, kind)] = bot_kinds.make_bot(
                kind, (self.client.seed or 0) * 10 + "SWNE".index(seat), "vora")
        return self._agents[(seat, kind)]

    def kinds(self):
        """What plays each player of the followed game: a PC bot's kind, else "human"
        (a person, or the board's own bot: the board keeps those itself)."""
        st = self.client.state
        names = self.names()
        return [names.get(seat, "human") for seat in st.seats]

    def _seats_of_game(self):
        # Once per game the log holds: the seats it was left with come back (unless
        # --bot chose), what changed is said, and the seats now are noted.
        c = self.client
        if self.notes is None or c.state is None or c.log_id is None \
                or c.log_id == self._noted_for:
            return
        from vora_host.play import saved
        self._noted_for = c.log_id
        st = c.state
        before = saved.seats_noted(self.notes, c.log_id, len(st.seats))
        now = self.kinds()
        if before is not None and before != now:
            if not self.chosen:
                # The board resumed it: the PC's bots sit where they sat.
                self.bots = dict((p, kind) for p, kind in enumerate(before)
                                 if kind != "human")
                self._agents.clear()
                bots = [p for p, kind in enumerate(before) if kind != "human"]
                if bots:
                    self.say("%s again, as when this game was left (--bot %s=person gives "
                             "it to a person)" % ("; ".join(_seat_words(st, p, before[p])
                                                            for p in bots),
                                                  st.seats[bots[0]]))
                else:
                    self.say("every seat a person's again, as when this game was left")
                now = before
            else:
                self.say("Since this game was left: %s" % "; ".join(
                    "%s -> %s" % (_seat_words(st, p, was), _kind_words(now[p]))
                    for p, was in enumerate(before) if was != now[p]))
        saved.note_seats(self.notes, c.log_id, [_Seat(kind) for kind in now])

    def finish(self):
        """The play beside the board stops: the game's seats are noted if no poll has
        noted them yet (quit at once after the deal, and a resume seats the same bots)."""
        self._seats_of_game()

    # ---- hints

    def command(self, text):
        """A line typed beside the board that is this one's: 'hint'. The answer lines
        ('ok', or 'error no hint: why'), or None when the line is not for it."""
        if text.strip().lower() != "hint":
            return None
        refused = self.request_hint()
        return ["ok"] if refused is None else ["error no hint: " + refused]

    def _position(self):
        c = self.client
        return (c.game_id, len(c.moves), c.takebacks)

    def request_hint(self):
        """Think of a hint for the person to act in the followed game (said once ready,
        by poll). None when asked; else why not (said too)."""
        c = self.client
        st = c.state
        reason = None
        if st is None:
            reason = "no game is followed yet"
        elif st.is_over():
            reason = "the game is over"
        elif c.asked_from is not None or len(c.moves) < c.board_moves:
            reason = "the PC is catching up with the board; ask again in a moment"
        elif st.seats[st.to_act()] in self.seats() + c.board_bots:
            reason = "a bot plays P%d: a hint is for a person at the board" % st.to_act()
        elif self.hinting is not None:
            reason = "a hint is being thought of already"
        if reason is not None:
            self.say("no hint: " + reason)
            return reason
        player = st.to_act()
        agent = _HintAgent(len(c.moves))
        self.hinting = BotThinking(agent, st.clone(), player, self._position())
        self.say("thinking of a hint for P%d (%s): the hard level's move" % (
            player, _seat_name(st, player)))
        return None

    def _hint_ready(self):
        hinting = self.hinting
        if hinting is None or not hinting.done.is_set():
            return
        self.hinting = None
        if hinting.error is not None:
            raise hinting.error
        c = self.client
        st = c.state
        if hinting.asked != self._position():
            self.say("the game moved on while the hint was thought of: ask again")
            return
        hint = hinting.move
        self.say("hint for P%d (%s): %s" % (hint.player, _seat_name(st, hint.player),
                                            hint.text()))
        if c.log is not None and c.log_id is not None:
            from vora_host.log.errors import GameLogError
            try:
                c.log.add_event(c.log_id, "hint", hint.data())
            except (GameLogError, ValueError) as exc:
                # A hint is never worth the game: said, and play goes on.
                self.say("the hint could not be logged: %s" % exc)

    def poll(self):
        c = self.client
        self._refusals()
        self._hint_ready()
        if not c.connected:
            return
        self._seats_of_game()
        if not c.plays():
            if (self.bots or self.position) and not self._missing_said:
                self._missing_said = True
                self.say("this board's firmware cannot take bots, positions or takebacks "
                         "from the PC (no \"play\" capability): update it")
            return
        if self.position is not None and self._position_sent is not c.board:
            if c.send_position(self.seed, self.position):
                self._position_sent = c.board
        st = c.state
        if (self.position is not None and st is not None
                and c.start_position is not None and not c.moves):
            self.position = None  # the board set it up: done
        seats = self.seats()
        if self._told != (seats, id(c.board)):
            if c.send_bots(seats):
                self._told = (seats, id(c.board))
        if st is None or st.is_over() or c.asked_from is not None \
                or len(c.moves) < c.board_moves:
            return
        seat = st.seats[st.to_act()]
        if seat not in seats:
            return
        key = (c.game_id, len(c.moves) + 1, c.takebacks)
        if key == self._sent:
            return
        think = self.thinking
        if think is not None and think.asked != key:
            if not think.done.is_set():
                return  # a search about a position that is gone still runs: one at a time
            think = self.thinking = None
        if think is None:
            think = self.thinking = BotThinking(self._agent(seat), st.clone(), st.to_act(), key)
            think.done.wait(THINK_WAIT_S)  # a quick bot's move goes in this same poll
        if not think.done.is_set():
            return
        if think.error is not None:
            self.thinking = None
            raise think.error
        if c.send_bot_move(len(c.moves) + 1, think.move):
            self._sent = key
            self.thinking = None  # kept until sent: a link down now sends it later

    def _refusals(self):
        # REFUSED from the board, in words (the virtual board's screen reads its own).
        c = self.client
        while c.refused:
            key, reason, detail = c.refused.popleft()
            name = None if key == 255 else _key_name(key)
            text = view.refusal_text(reason, name, detail)
            if reason == R_BUSY and self.position is not None:
                # the board's saved game: the virtual board can start without it
                text += "; or start the virtual board with --fresh (it forgets its saved game)"
            self.say(text)


class _HintAgent:
    # A hint thought of like a bot's move (BotThinking): its "move" is the Hint.
    def __init__(self, number):
        self.number = number

    def choose(self, state):
        from vora_host.bots.hints import compute_hint
        return compute_hint("vora", state, self.number)


def _seat_name(state, player):
    from vora_host.games.vora.view import SEAT_NAMES
    seat = state.seats[player]
    return SEAT_NAMES.get(seat, seat)


def _kind_words(kind):
    return "a person" if kind == "human" else "%s on the PC" % kind


def _seat_words(state, player, kind):
    """'North hard on the PC', 'South a person'."""
    from vora_host.games.vora.view import SEAT_NAMES
    seat = state.seats[player]
    return "%s %s" % (SEAT_NAMES.get(seat, seat), _kind_words(kind))


def _key_name(k):
    from vora_fw import layout
    return layout.KEY_NAMES[k]

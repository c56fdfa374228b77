"""A seat of a table on another computer, reached through the seat API of its `vora serve`
(docs/web.md, "The seat API", version 1): the client `vora play --join URL` uses, and
the same requests a third-party client makes.

    client = SeatClient("http://192.168.1.20:8049/seat/TOKEN")
    view = client.view()                       # the seat's view, checked field by field
    for kind, data in client.events():         # "hello", then "seat" at every change
        ...
    client.post("move", {"move": "take a2", "number": view["number"]})

The server is another computer: what it sends is checked before use (a bounded size, a
JSON object, every field the client reads of the kind it should be), and any problem is a
RemoteError that says which table and what was wrong; a request the table refuses is
Refused with the table's own reason. The standard library's urllib does the HTTP: the
requests are plain JSON, and the event stream's format (text/event-stream) is four kinds
of line, read here rather than with a library for so little.
"""

import json
import re
import urllib.error
import urllib.request

from shared_rules import games as rules_games

__all__ = ["API_VERSION", "RemoteError", "Refused", "SeatClient", "check_view",
           "parse_seat_url"]

API_VERSION = 1
MAX_ANSWER = 4 << 20  # bytes of an answer at most (a view is tens of KB)
MAX_LINE = 4 << 20  # bytes of a line of the event stream at most (a view on one line)
TIMEOUT = 30.0  # seconds for an answer
STREAM_TIMEOUT = 60.0  # seconds of silence on the stream (it sends a keepalive every 15)

SEAT_URL = re.compile(r"^(https?)://([A-Za-z0-9.\-\[\]:]{1,255})/seat/([A-Za-z0-9_\-]{16,64})/?$")


class RemoteError(Exception):
    """The table cannot be reached, or answered what is not a seat's view."""


class Refused(RemoteError):
    """The table refused a request: `reason` in its own words, `status` the HTTP status."""

    def __init__(self, reason, status):
        self.reason = reason
        self.status = status
        super().__init__(reason)


def parse_seat_url(url):
    """(base URL, token) of a seat's link (http://HOST:PORT/seat/TOKEN); ValueError saying
    what a link looks like otherwise."""
    found = SEAT_URL.match(url.strip()) if isinstance(url, str) else None
    if found is None:
        raise ValueError("%r is not a seat's link: it looks like "
                         "http://192.168.1.20:8049/seat/TOKEN, as `vora play --web` prints "
                         "it" % (url[:100] if isinstance(url, str) else url))
    return "%s://%s" % (found.group(1), found.group(2)), found.group(3)


def _kind(value, kinds, where):
    if isinstance(value, bool) and bool not in kinds:
        raise RemoteError("%s is %r, not %s" % (where, value, "/".join(k.__name__ for k in kinds)))
    if not isinstance(value, kinds):
        raise RemoteError("%s is %s, not %s" % (where, type(value).__name__,
                                                "/".join(k.__name__ for k in kinds)))
    return value


def _text(value, where, limit=200_000, none=False):
    if value is None and none:
        return None
    _kind(value, (str,), where)
    if len(value) > limit:
        raise RemoteError("%s is longer than %d characters" % (where, limit))
    return value


def check_view(view):
    """`view` (parsed JSON) when it is a seat's view this client can use; RemoteError
    naming the first field that is not."""
    _kind(view, (dict,), "the view")
    if view.get("api") != API_VERSION:
        raise RemoteError("the table speaks version %r of the seat API; this vora speaks "
                          "version %d" % (view.get("api"), API_VERSION))
    if view.get("game") not in rules_games.names():
        raise RemoteError("the table plays %r, which this vora does not know"
                          % (str(view.get("game"))[:40],))
    for name in ("you", "number", "seq"):
        if _kind(view.get(name), (int,), name) < 0:
            raise RemoteError("%s is negative" % name)
    for name in ("your_turn", "over", "can_hint", "can_take_back"):
        _kind(view.get(name), (bool,), name)
    _kind(view.get("to_act"), (int, type(None)), "to_act")
    for name in ("title", "you_label", "panel_text"):
        _text(view.get(name), name)
    for name in ("prompt", "stopped"):
        _text(view.get(name), name, none=True)
    for k, move in enumerate(_kind(view.get("moves"), (list,), "moves")):
        _text(_kind(move, (dict,), "moves[%d]" % k).get("move"), "moves[%d].move" % k, 200)
    for k, event in enumerate(_kind(view.get("events"), (list,), "events")):
        if not isinstance(event, list) or len(event) != 3:
            raise RemoteError("events[%d] is not [number, kind, text]" % k)
        _kind(event[0], (int,), "events[%d][0]" % k)
        _text(event[1], "events[%d][1]" % k, 40)
        _text(event[2], "events[%d][2]" % k, 2000)
    for k, line in enumerate(_kind(view.get("result"), (list,), "result")):
        _text(line, "result[%d]" % k, 2000)
    for k, seat in enumerate(_kind(view.get("seats"), (list,), "seats")):
        _text(_kind(seat, (dict,), "seats[%d]" % k).get("label"), "seats[%d].label" % k, 200)
    takeback = _kind(view.get("takeback"), (dict, type(None)), "takeback")
    if takeback is not None:
        _text(takeback.get("what"), "takeback.what", 2000)
        _kind(takeback.get("asked_you"), (bool,), "takeback.asked_you")
    for k, claim in enumerate(_kind(view.get("claims", []), (list,), "claims")):
        if claim not in ("win", "abort"):
            raise RemoteError("claims[%d] is %r" % (k, str(claim)[:20]))
    for k, gone in enumerate(_kind(view.get("gone", []), (list,), "gone")):
        _kind(gone, (dict,), "gone[%d]" % k)
        _text(gone.get("label"), "gone[%d].label" % k, 200)
        _kind(gone.get("claim_in"), (int, float), "gone[%d].claim_in" % k)
    _kind(view.get("claim_against"), (int, type(None)), "claim_against")
    for k, gone in enumerate(view.get("gone", [])):
        _kind(gone.get("player"), (int,), "gone[%d].player" % k)
    record = _kind(view.get("record"), (dict, type(None)), "record")
    if record is not None:
        _check_record(record, view)
    return view


def _check_record(record, view):
    if record.get("game") != view["game"]:
        raise RemoteError("record.game is not the table's game")
    _kind(record.get("players"), (int,), "record.players")
    seed = _text(record.get("seed"), "record.seed", 40)
    if not seed.isdigit():
        raise RemoteError("record.seed is not a whole number")
    _kind(record.get("options"), (dict,), "record.options")
    moves = _kind(record.get("moves"), (list,), "record.moves")
    digests = _kind(record.get("digests"), (list,), "record.digests")
    if len(moves) != len(digests) or len(moves) > 100_000:
        raise RemoteError("record.moves and record.digests do not pair up")
    for k, move in enumerate(moves):
        _text(move, "record.moves[%d]" % k, 200)
    for k, digest in enumerate(digests):
        _text(digest, "record.digests[%d]" % k, 200)


class SeatClient:
    """One seat of a table on another computer (see the module doc)."""

    def __init__(self, url, timeout=TIMEOUT):
        self.url = url
        self.base, self.token = parse_seat_url(url)
        self.host = self.base.split("://", 1)[1]
        self.api = "%s/api/seat/%s" % (self.base, self.token)
        self.timeout = timeout
        self.client = 0  # this client's id on the seat (the stream's hello)

    def _open(self, request, timeout):
        try:
            return urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            reason = _error_of(exc)
            if exc.code == 404:
                raise Refused("the table at %s has no such seat: the game may have ended, "
                              "or the link is wrong (%s)" % (self.host, reason), 404)
            raise Refused(reason, exc.code)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            why = getattr(exc, "reason", None) or exc
            raise RemoteError("the table at %s cannot be reached: %s" % (self.host, why))

    def _json(self, response):
        with response:
            raw = response.read(MAX_ANSWER + 1)
        if len(raw) > MAX_ANSWER:
            raise RemoteError("the table at %s answered more than %d bytes"
                              % (self.host, MAX_ANSWER))
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise RemoteError("the table at %s answered what is not JSON" % self.host)

    def view(self):
        """The seat's view, checked (RemoteError otherwise)."""
        request = urllib.request.Request(self.api, headers={"Accept": "application/json"})
        return self._checked(self._json(self._open(request, self.timeout)))

    def post(self, action, body=None):
        """POST a request of the seat (move, hint, takeback, answer, resign, claim): the
        view after it; Refused with the table's reason."""
        data = json.dumps(dict(body or {}, client=self.client)).encode("utf-8")
        request = urllib.request.Request(
            "%s/%s" % (self.api, action), data=data, method="POST",
            headers={"Content-Type": "application/json", "X-Vora-Seat": "1"})
        return self._checked(self._json(self._open(request, self.timeout)))

    def _checked(self, view):
        try:
            return check_view(view)
        except RemoteError as exc:
            raise RemoteError("the table at %s sent what is not a seat's view: %s"
                              % (self.host, exc))

    def events(self):
        """The seat's events as they come: ("hello", {...}), ("seat", view checked),
        ("replaced", {"error": ...}); ends when the server ends the stream. Sets
        self.client from the hello."""
        request = urllib.request.Request(self.api + "/events",
                                         headers={"Accept": "text/event-stream"})
        with self._open(request, STREAM_TIMEOUT) as response:
            kind, data = None, []
            while True:
                try:
                    line = response.readline(MAX_LINE + 1)
                except (OSError, ValueError) as exc:
                    raise RemoteError("the table at %s stopped answering: %s"
                                      % (self.host, exc))
                if not line:
                    return
                if len(line) > MAX_LINE:
                    raise RemoteError("the table at %s sent an event longer than %d bytes"
                                      % (self.host, MAX_LINE))
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                if text.startswith(":"):
                    continue  # a keepalive
                if text:
                    field, _, value = text.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if field == "event":
                        kind = value[:40]
                    elif field == "data":
                        data.append(value)
                    continue
                if kind is None:
                    data = []
                    continue
                try:
                    payload = json.loads("\n".join(data))
                except ValueError:
                    raise RemoteError("the table at %s sent an event that is not JSON"
                                      % self.host)
                if kind == "hello":
                    _kind(payload, (dict,), "hello")
                    self.client = _kind(payload.get("client"), (int,), "hello.client")
                elif kind == "seat":
                    payload = self._checked(payload)
                elif kind == "replaced":
                    _kind(payload, (dict,), "replaced")
                yield kind, payload
                kind, data = None, []


def _error_of(exc):
    try:
        raw = exc.read(MAX_ANSWER)
        error = json.loads(raw.decode("utf-8")).get("error")
        if isinstance(error, str) and error:
            return error[:500]
    except (OSError, ValueError, AttributeError, UnicodeDecodeError):
        pass
    return "HTTP %d" % exc.code

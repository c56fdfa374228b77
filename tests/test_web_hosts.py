"""The names the web mirror answers to (vora_host.web.hosts, issue 43): a page of another
site that points its own name at this computer (DNS rebinding) is refused, with a plain
sentence saying what to do; localhost, IP addresses, `--host` and `--allow-host` names
are served. In Chromium: tests/test_web_browser.py."""

import socket
import time

import httpx2
import pytest
from starlette.testclient import TestClient

from vora_host.cli import build_parser, main
from vora_host.log.store import GameLog
from vora_host.web import serve
from vora_host.web.app import create_app
from vora_host.web.hosts import served_names

ADDRESSES = ["/", "/game/1", "/api/games", "/api/games/1", "/api/games/1/position/0",
             "/api/events", "/static/app.css", "/nowhere"]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "games.sqlite3"
    GameLog(path).close()
    return path


def client(app):
    return TestClient(app, base_url="http://localhost")


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8049", "EVIL.example.",
                                  "localhost.evil.example", "127.0.0.1.nip.io:8049",
                                  "testserver"])
def test_a_name_it_is_not_served_under_is_refused_saying_what_to_do(db, host):
    name = host.split(":")[0].lower().rstrip(".")
    with client(create_app(db, watch=False)) as c:
        for address in ADDRESSES:
            answer = c.get(address, headers={"Host": host})
            assert answer.status_code == 421, address
            assert answer.headers["content-type"].startswith("text/plain")
            assert answer.text == (
                "this web mirror does not answer to the name '%s' (the Host header): it "
                "answers to localhost and this computer's IP addresses, so that a page of "
                "another site cannot read it through DNS rebinding. If this computer is "
                "called so on purpose, start it with 'vora serve --allow-host %s'\n"
                % (name, name))


@pytest.mark.parametrize("host", ["localhost", "localhost:8049", "LocalHost.:80",
                                  "127.0.0.1", "127.0.0.1:8049", "[::1]:8049", "[::1]",
                                  "192.168.1.20:8049", "[fe80::1]:80", "10.0.0.7"])
def test_localhost_and_addresses_are_served(db, host):
    with client(create_app(db, watch=False)) as c:
        answer = c.get("/api/games", headers={"Host": host})
        assert answer.status_code == 200 and answer.json()["games"] == []


@pytest.mark.parametrize("host", ["", " ", "evil.example:http", "[::1", "[::1]x", "::1",
                                  "[evil.example]:80", "a b", "evil.example/x",
                                  "user@localhost", "localhost:99999", "x" * 400])
def test_a_host_that_is_no_name_is_a_400(db, host):
    with client(create_app(db, watch=False)) as c:
        answer = c.get("/api/games", headers={"Host": host})
        assert answer.status_code == 400
        assert "is not a host name: the web mirror answers to localhost and this " \
               "computer's IP addresses" in answer.text


def test_the_names_given_are_served_and_no_others(db):
    names = served_names("board.lan", ["MyPC.local", "club.example."])
    assert names == ["localhost", "board.lan", "mypc.local", "club.example"]
    with client(create_app(db, watch=False, names=names)) as c:
        for host in ("board.lan:8049", "mypc.local", "club.example", "localhost"):
            assert c.get("/api/games", headers={"Host": host}).status_code == 200, host
        refused = c.get("/api/games", headers={"Host": "evil.example"})
        assert refused.status_code == 421
        assert "it answers to localhost, board.lan, club.example, mypc.local and this " \
               "computer's IP addresses" in refused.text
    # Listening on every address, or on one, adds no name: addresses are served anyway.
    assert served_names("0.0.0.0") == served_names("::") == served_names("192.168.1.20") \
        == ["localhost"]


def test_the_real_server_checks_the_host_of_every_request(db):
    sock = serve.bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    running = serve.start_in_thread(sock, db, listen="127.0.0.1", allow=["mypc.local"])
    try:
        end = time.monotonic() + 20
        while not running.started and time.monotonic() < end:
            time.sleep(0.02)
        base = serve.address_of(sock)
        assert httpx2.get(base + "api/games").status_code == 200  # Host: 127.0.0.1:PORT
        ok = httpx2.get(base + "api/games", headers={"Host": "mypc.local:%d" % port})
        assert ok.status_code == 200
        refused = httpx2.get(base + "api/events", headers={"Host": "evil.example:%d" % port})
        assert refused.status_code == 421 and "--allow-host evil.example" in refused.text
        # HTTP/1.0 without a Host header.
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"GET /api/games HTTP/1.0\r\n\r\n")
            got = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        assert got.startswith(b"HTTP/1.1 400")
        assert b"the request has no Host header: the web mirror answers requests that " \
               b"name it once (localhost, mypc.local and this computer's IP addresses)" in got
    finally:
        running.should_exit = True
        running.thread.join(20)


def test_serve_takes_names_and_a_number_of_streams():
    args = build_parser().parse_args(["serve", "--allow-host", "mypc.local", "--allow-host",
                                      "board.lan", "--max-streams", "20"])
    assert args.allow_host == ["mypc.local", "board.lan"] and args.max_streams == 20
    args = build_parser().parse_args(["serve"])
    assert args.allow_host == [] and args.max_streams == 500


@pytest.mark.parametrize("bad", ["0", "-3", "many", "100001", "\u0661"])
def test_a_bad_number_of_streams_is_a_usage_error(bad, capsys):
    with pytest.raises(SystemExit) as info:
        main(["serve", "--max-streams", bad])
    assert info.value.code == 2
    assert "is not a number of streams (1 to 100000)" in capsys.readouterr().err

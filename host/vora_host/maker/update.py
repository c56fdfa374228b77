"""`vora update`: a new firmware version over the framed link, while the game runs.

The steps (docs/makers.md; the messages are in docs/protocol.md, "Updating the firmware"):

1. HELLO: the board says its version, kind, MicroPython and boot state; it must offer the
   capability "update" (a board installed with `vora flash`).
2. The bundle: built from the firmware this vora carries for the board (mpy-cross for its
   .mpy version and architecture), or read from a bundle file (--from); checked against
   the board before anything is sent (kind, .mpy version, no downgrade without
   --allow-downgrade).
3. UPD_OFFER: the board answers where it stands with that bundle: from the start, or
   further on when an earlier transfer was cut (resume). A board running its game answers
   "restart": it restarts into its maker mode (the link, the updater and the doctor only;
   the game is saved and resumes after), where it is greeted and offered the bundle again.
4. UPD_DATA chunks from there, as fast as the session's window lets them, with a progress
   bar; a lost device or a board that stops acknowledging is waited for (--wait) and the
   transfer resumes where the board says.
5. UPD_QUERY: "staged"; UPD_COMMIT: the board re-reads and checks every hash, then switches.
6. UPD_RESET, and the board comes back: HELLO until it runs the new version and says it is
   confirmed (it confirms itself after running a few seconds); if it comes back with the
   old version, the new one failed its first boot and was reverted: that is reported.

Errors the board reports (UPD_STATUS "error" with a code) end the command with its words;
nothing on the board has changed then but the staging slot.
"""

import time

from rich.console import Console

from shared_rules import wire, wire_host
from vora_host.maker import bundle as bundles
from vora_host.maker.link import Connection, LinkError, LinkLost, LinkOpenError

RESUME_WAIT_S = 60.0  # how long a lost board is waited for, by default
CONFIRM_WAIT_S = 30.0
HASH_RETRIES = 2
MAKER_RESTARTS = 2  # a board that answers "restart" again after this is not going there


class UpdateFailed(Exception):
    """The update did not happen (or did not take); the message says why and what is left."""


def _status(payload):
    try:
        st = wire.unpack_json(payload)
    except wire.WireError as exc:
        raise UpdateFailed("the board sent a malformed UPD_STATUS: %s" % exc)
    if not isinstance(st.get("state"), str):
        raise UpdateFailed("the board sent an UPD_STATUS without a state")
    for k in ("file", "offset"):
        if k in st and (not isinstance(st[k], int) or st[k] < 0):
            raise UpdateFailed("the board sent an UPD_STATUS with a bad %s" % k)
    return st


def _refusal(st):
    code = st.get("code", "?")
    text = st.get("error") or "no reason given"
    said = "the board refused the update (%s): %s" % (code, text)
    if code == "format" and "bundle format version" in text:
        said += (" (its firmware is older than this bundle format: install this version "
                 "once with vora flash, docs/makers.md)")
    return said


class Updater:
    """One `vora update` run against the board on `device`."""

    def __init__(self, device, console=None, allow_downgrade=False, wait_s=RESUME_WAIT_S,
                 confirm_wait_s=CONFIRM_WAIT_S, progress=True):
        self.device = device
        self.console = console or Console(stderr=True)
        self.allow_downgrade = allow_downgrade
        self.wait_s = wait_s
        self.confirm_wait_s = confirm_wait_s
        self.progress = progress
        self.conn = Connection(device)
        self.board = None
        self.bundle = None
        self.sent = 0  # UPD_DATA bytes sent (payload data), resends of the session aside
        self.resumed = []  # (file, offset) each OFFER answered with, after the first
        self.reconnects = 0
        self.seconds = 0.0
        self._bar = None

    # ---- connecting

    def connect(self, timeout=5.0):
        try:
            self.conn.reopen(timeout)
            self.board = self.conn.hello(timeout)
        except LinkOpenError as exc:
            raise UpdateFailed(str(exc))
        except LinkError as exc:
            raise UpdateFailed("no Vora Board firmware answers at %s (%s). A board with stock "
                               "MicroPython gets its first install with vora flash." % (
                                   self.device, exc))
        return self.board

    def _reconnect(self, why, quiet=False):
        self.reconnects += 1
        if not quiet:
            self.console.print("[yellow]link lost (%s): waiting up to %.0f s for the "
                               "board...[/]" % (why, self.wait_s))
        end = time.monotonic() + self.wait_s
        while True:
            try:
                self.conn.reopen(max(0.1, end - time.monotonic()))
                self.board = self.conn.hello(min(5.0, max(0.5, end - time.monotonic())))
                self.console.print("the board is back: resuming")
                return
            except LinkError as exc:
                if time.monotonic() > end:
                    raise UpdateFailed("the board did not come back within %.0f s (%s); run "
                                       "vora update again: it resumes where the board stopped"
                                       % (self.wait_s, exc))
                time.sleep(0.2)

    # ---- the bundle

    def prepare(self, bundle=None):
        b = self.board
        caps = b.get("caps") or []
        if "update" not in caps:
            raise UpdateFailed("the board's firmware %s cannot be updated over the link (no "
                               "'update' capability): install it with vora flash" % b.get("fw", "?"))
        if bundle is None:
            try:
                bundle = bundles.build(board=b.get("port") or "rp2", arch=b.get("arch") or "")
            except bundles.BundleError as exc:
                raise UpdateFailed(str(exc))
        try:
            bundles.check_for_board(bundle, b, self.allow_downgrade)
        except bundles.BundleError as exc:
            raise UpdateFailed(str(exc))
        self.bundle = bundle
        return bundle

    # ---- the transfer

    def run(self, bundle=None):
        """The whole update; returns a summary dict."""
        t0 = time.monotonic()
        if self.board is None:
            self.connect()
        old = self.board.get("fw")
        bundle = self.prepare(bundle)
        self.console.print("Updating the board at %s from %s to %s (%s)." % (
            self.device, old, bundle.version, bundle.describe()))
        hash_errors = 0
        restarts = 0
        first = True
        st = None
        while True:
            try:
                st = self._offer()
                if st["state"] == "restart" and restarts < MAKER_RESTARTS:
                    restarts += 1
                    self.console.print("The board saved its game and restarts into its maker "
                                       "mode for the update.")
                    self.conn.close()
                    self._reconnect("the board restarts into its maker mode", quiet=True)
                    continue
                if not first:
                    self.resumed.append((st.get("file"), st.get("offset")))
                first = False
                if st["state"] == "receiving":
                    st = self._send_from(st)
                    if st is None:
                        st = _status(self.conn.request(wire.UPD_QUERY, b"", wire.UPD_STATUS))
                if st["state"] == "staged":
                    st = _status(self.conn.request(wire.UPD_COMMIT, wire_host.pack_upd_commit(
                        bundle.id), wire.UPD_STATUS, timeout=60.0))
                if st["state"] == "switched":
                    break
                if st["state"] == "error" and st.get("code") == "hash" and hash_errors < HASH_RETRIES:
                    hash_errors += 1
                    self.console.print("[yellow]%s; sending it again[/]" % st.get("error"))
                    continue
                if st["state"] == "error":
                    raise UpdateFailed(_refusal(st))
                if st["state"] == "receiving":
                    continue  # the board is elsewhere than we thought: offer again, resume
                if st["state"] == "restart":
                    raise UpdateFailed("the board restarted into its maker mode %d times and "
                                       "still runs its game; reset it and run vora update "
                                       "again" % restarts)
                raise UpdateFailed("the board's update is in an unexpected state %r" % st["state"])
            except LinkLost as exc:
                self._reconnect(exc)
            except LinkError as exc:
                self._reconnect(exc)
        self._close_bar()
        switched = time.monotonic() - t0
        bytes_out, bytes_in = self.conn.bytes_out, self.conn.bytes_in
        self.console.print("Verified and switched on the board; restarting it into %s..."
                           % bundle.version)
        self._restart()
        board = self._wait_confirmed(bundle.version, old)
        self.seconds = time.monotonic() - t0
        self.conn.close()
        return {"from": old, "to": board.get("fw"), "bytes": bundle.size, "sent": self.sent,
                "seconds": self.seconds, "resumed": self.resumed, "reconnects": self.reconnects,
                "transfer_seconds": switched, "transfer_bytes_out": bytes_out,
                "transfer_bytes_in": bytes_in, "boot": board.get("boot")}

    def _offer(self):
        b = self.bundle
        payload = wire_host.pack_upd_offer(len(b.manifest_bytes), b.id, self.allow_downgrade)
        return _status(self.conn.request(wire.UPD_OFFER, payload, wire.UPD_STATUS))

    def _pieces(self):
        return [self.bundle.manifest_bytes] + [data for _, data in self.bundle.files]

    def _send_from(self, st):
        """Send from where the board stands; None when all is sent, or a status that
        interrupts (an error, or the board expecting something else)."""
        pieces = self._pieces()
        file, offset = st.get("file", 0), st.get("offset", 0)
        if file >= len(pieces) or offset > len(pieces[file]):
            raise UpdateFailed("the board asks for file %d at %d, which this bundle does not have"
                               % (file, offset))
        done = sum(len(p) for p in pieces[:file]) + offset
        self._open_bar(done)
        conn = self.conn
        conn.messages.clear()
        for k in range(file, len(pieces)):
            data = pieces[k]
            o = offset if k == file else 0
            while o < len(data):
                chunk = data[o:o + wire_host.UPD_CHUNK]
                conn.send(wire.UPD_DATA, wire_host.pack_upd_data(k, o, chunk))
                o += len(chunk)
                self.sent += len(chunk)
                self._advance(len(chunk))
                answer = conn.take(wire.UPD_STATUS)
                if answer is not None:
                    return _status(answer)
        return None

    def _restart(self):
        try:
            self.conn.send(wire.UPD_RESET, b"")
            self.conn.drain(5.0)
        except LinkError:
            pass  # it may be gone already: the reset is what we wanted
        self.conn.close()

    def _wait_confirmed(self, new, old):
        end = time.monotonic() + self.confirm_wait_s
        time.sleep(0.2)
        last = None
        while time.monotonic() < end:
            try:
                self.conn.reopen(max(0.1, end - time.monotonic()))
                board = self.conn.hello(min(5.0, max(0.5, end - time.monotonic())))
            except LinkError as exc:
                last = str(exc)
                time.sleep(0.3)
                continue
            boot = board.get("boot") if isinstance(board.get("boot"), dict) else {}
            if board.get("fw") == new and boot.get("state") == "confirmed":
                self.console.print("[green]The board runs %s and confirmed it.[/]" % new)
                return board
            if board.get("fw") != new and boot.get("reverted"):
                raise UpdateFailed("the new version %s did not confirm itself at its first boot: "
                                   "the board went back to %s (docs/makers.md, "
                                   "\"When an update does not take\")" % (new, board.get("fw")))
            last = "running %s, %s" % (board.get("fw"), boot.get("state"))
            self.conn.close()
            time.sleep(0.5)
        raise UpdateFailed("the board did not confirm the new version within %.0f s (%s)"
                           % (self.confirm_wait_s, last or "no answer"))

    # ---- progress

    def _open_bar(self, done):
        if not self.progress:
            return
        if self._bar is None:
            from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn,
                                       TimeRemainingColumn, TransferSpeedColumn)
            self._bar = Progress(TextColumn("sending"), BarColumn(), DownloadColumn(),
                                 TransferSpeedColumn(), TimeRemainingColumn(),
                                 console=self.console, transient=False)
            self._bar.start()
            self._task = self._bar.add_task("send", total=self.bundle.size, completed=done)
        else:
            self._bar.update(self._task, completed=done)

    def _advance(self, n):
        if self._bar is not None:
            self._bar.advance(self._task, n)

    def _close_bar(self):
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def write_bundle_file(path, board="rp2", arch=None, version=None, sign=None):
    """`vora update --bundle FILE [--sign KEYFILE]`: build, sign and write a bundle;
    returns it."""
    if arch is None:
        arch = {"rp2": "armv6m", "esp32": "xtensawin"}.get(board, "")
    b = bundles.build(board=board, arch=arch, version=version)
    if sign is not None:
        bundles.sign_bundle(b, sign)
    bundles.write_bundle(b, path)
    return b

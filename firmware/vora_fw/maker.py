"""The makers' messages on the board's link (0x40..0x5F): firmware update and doctor.

BoardLink hands every message of that range to `link.maker` (this service, attached by
vora_fw.start); replies go back as UPD_STATUS and DIAG. Payloads are checked by the
helpers below and the updater; anything refused becomes an error status, never an exception
that would stop the game.

On a board (maker_mode), an update is not taken beside the game: the game is saved after
every move already, so at the UPD_OFFER the board leaves a request on its flash, answers
UPD_STATUS "restart" and restarts into the maker mode (vora_fw.maker_mode), which holds
only the link, the updater and the doctor; `vora update` says HELLO again and offers the
bundle there. A whole heap for the update, never one cut into pieces by play
(docs/benchmarks.md, "An update in the maker mode"). Without maker_mode (the virtual
board) the update is taken beside the game, as before.
"""

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from shared_rules import wire
from shared_rules.wire import BadPayload, _check_size, _u32
from vora_fw.link import board_info, maker_caps

ON_DEMAND = ("update", "doctor")  # vora_fw modules the service imports at their first message

# The payloads of the makers' messages the board reads (docs/protocol.md, "Updating the
# firmware"), here and not in shared_rules.wire: a board that plays with a PC loads the
# wire format for good, this module only at the PC's first makers' message. The PC packs
# them with shared_rules.wire_host (UPD_ALLOW_DOWNGRADE and HASH_SIZE are its names).
_ALLOW_DOWNGRADE = const(1)  # UPD_OFFER's flag: the user said --allow-downgrade
_HASH_SIZE = const(32)  # SHA-256


def unpack_upd_offer(payload):
    """(size, digest, allow_downgrade) from an UPD_OFFER payload, or BadPayload."""
    _check_size("UPD_OFFER", payload, 5 + _HASH_SIZE)
    if payload[0] & ~_ALLOW_DOWNGRADE:
        raise BadPayload("UPD_OFFER: unknown flags 0x%02x" % payload[0])
    size = _u32(payload, 1)
    if size == 0:
        raise BadPayload("UPD_OFFER: an empty manifest")
    return size, bytes(payload[5:]), payload[0] == _ALLOW_DOWNGRADE


def unpack_upd_data(payload):
    """(file, offset, data) from an UPD_DATA payload, or BadPayload. data is a memoryview
    of the payload (no copy: the board writes and hashes it as it is)."""
    if len(payload) < 6:
        raise BadPayload("UPD_DATA payload too short: %d bytes, at least 6" % len(payload))
    return payload[0], _u32(payload, 1), memoryview(payload)[5:]


def unpack_upd_commit(payload):
    _check_size("UPD_COMMIT", payload, _HASH_SIZE)
    return bytes(payload)


def check_empty(what, payload):
    """UPD_QUERY, UPD_ABORT, UPD_RESET and DIAG_REQ carry nothing; returns payload or BadPayload."""
    if len(payload):
        raise BadPayload("%s payload is empty, not %d bytes" % (what, len(payload)))
    return payload


class MakerService:
    """link: the BoardLink; app: the running App; pinmap: the board's pin map; boot: the
    vora_fw.boot.Boot the loader made (None when the board was not installed with vora
    flash: then only the doctor works); identity: the MicroPython (vora_fw.boot.identity());
    version: the running firmware's; reset(): restarts the board (after the ack is out)."""

    def __init__(self, link, app, pinmap, boot, identity, version, reset, statvfs=None,
                 maker_mode=False):
        self.link = link
        self.app = app
        self.pinmap = pinmap
        self.boot = boot
        self.identity = identity
        self.version = version
        self.reset = reset
        self.statvfs = statvfs
        # The updater (vora_fw.update, the biggest module of the makers' service) is
        # imported at the first update message: a board that only plays never holds its
        # code on the heap (docs/benchmarks.md, "The firmware under a hard heap").
        self.updater = None
        self.resets = 0
        # An update offered while the game runs restarts the board into the maker mode:
        # maker_mode names the file that asks the next start for it (MAKER_REQUEST, given
        # by vora_fw.start, which reads it: the start sits above this module).
        self.maker_mode = boot is not None and maker_mode
        # heap_short(manifest size): None, or why the heap cannot take that update now
        # (vora_fw.maker_mode sets it: only there does the board take updates).
        self.heap_short = None  # type: Any
        self.refused_memory = False
        # The updater then never loads beside the game, so its names are not interned.
        from vora_fw import intern_names
        intern_names(("doctor",) if self.maker_mode else ON_DEMAND)

    def caps(self):
        return maker_caps(self.boot)

    def _updater(self):
        if self.updater is None and self.boot is not None:
            try:
                self.updater = self._make_updater()
            except MemoryError:
                # After a game the heap has room but seldom in one piece, and loading the
                # updater wants blocks of a kilobyte or more. The App's reserve, made at
                # start while the heap was whole, is such a block: it goes back to the heap
                # for this once (the App makes it again when memory allows), and the
                # import is tried once more. Failing again, the message is refused
                # (vora_fw.link: a LOG says why) and the game is untouched.
                self.app.release_reserve()
                self.updater = self._make_updater()
        return self.updater

    def _make_updater(self):
        from vora_fw.update import Updater
        return Updater(self.boot, self.pinmap.get("port", ""), self.identity, self.version)

    def hello_info(self):
        return board_info(self.version, self.pinmap, self.identity, self.boot)

    def handle(self, type, payload):
        if type == wire.DIAG_REQ:
            check_empty("DIAG_REQ", payload)
            from vora_fw.doctor import diag
            root = self.boot.root if self.boot is not None and self.boot.root else "/"
            d = diag(self.app, self.pinmap, self.identity, self.boot, root, self.statvfs)
            d["fw"] = self.version
            self.link.send(wire.DIAG, wire.pack_json(d))
            return
        if self.maker_mode and self.updater is None:
            self._to_maker_mode(type, payload)
            return
        up = self._updater()
        if up is None:
            self._status({"state": "error", "code": "unsupported", "running": self.version,
                          "error": "this board has no boot record (it was not installed with "
                                   "vora flash): install it with vora flash first"})
            return
        if type == wire.UPD_DATA:
            file, offset, data = unpack_upd_data(payload)
            st = up.data(file, offset, data)
            if st is not None:
                self._status(st)
        elif type == wire.UPD_OFFER:
            size, digest, downgrade = unpack_upd_offer(payload)
            short = self.heap_short(size) if self.heap_short is not None else None
            if short is not None:
                st = up.status()  # the staging as it was: nothing is written
                st.update({"state": "error", "code": "memory", "error": short})
                self._status(st)
                self.refused_memory = True
            else:
                self._status(up.offer(size, digest, downgrade))
        elif type == wire.UPD_QUERY:
            check_empty("UPD_QUERY", payload)
            self._status(up.query())
        elif type == wire.UPD_COMMIT:
            self._status(up.commit(unpack_upd_commit(payload)))
        elif type == wire.UPD_ABORT:
            check_empty("UPD_ABORT", payload)
            self._status(up.abort())
        elif type == wire.UPD_RESET:
            check_empty("UPD_RESET", payload)
            self.link.session.ack_now()  # the host must see it taken before the board goes
            self.resets += 1
            self.reset()
        else:
            raise wire.UnknownType("%s is not a message the board takes" % wire.type_name(type))

    def _status(self, d):
        self.link.send(wire.UPD_STATUS, wire.pack_json(d))

    def _to_maker_mode(self, type, payload):
        """While the game runs: an offer restarts the board into the maker mode, where the
        update is taken; the other update messages are answered without the updater."""
        st = {"state": "idle", "running": self.version, "boot": self.boot.info()}
        if type == wire.UPD_OFFER:
            unpack_upd_offer(payload)  # checked; offered again in the maker mode
            if self.boot.staging_slot() is None:
                st.update({"state": "error", "code": "busy",
                           "error": "a new version waits to boot or is on trial"})
                self._status(st)
                return
            f = self.boot.fs.open(self.boot.root + "/" + self.maker_mode, "wb")
            try:
                f.write(b"update\n")
            finally:
                f.close()
            sync = getattr(self.boot.fs, "sync", None)
            if sync is not None:
                sync()
            st["state"] = "restart"
            st["why"] = "maker mode"
            self._status(st)
            self.link.session.ack_now()  # the host must see it before the board goes
            self.resets += 1
            self.reset()
            return
        if type == wire.UPD_DATA:
            unpack_upd_data(payload)
            return  # nothing is staged while the game runs: the host offers first
        if type == wire.UPD_COMMIT:
            unpack_upd_commit(payload)
            st.update({"state": "error", "code": "order",
                       "error": "no whole verified bundle with that SHA-256 to switch to"})
        elif type == wire.UPD_RESET:
            check_empty("UPD_RESET", payload)
            self.link.session.ack_now()
            self.resets += 1
            self.reset()
            return
        elif type not in (wire.UPD_QUERY, wire.UPD_ABORT):
            raise wire.UnknownType("%s is not a message the board takes" % wire.type_name(type))
        self._status(st)

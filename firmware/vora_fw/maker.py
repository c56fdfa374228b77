"""The makers' messages on the board's link (0x40..0x5F): firmware update and doctor.

BoardLink hands every message of that range to `link.maker` (this service, attached by
vora_fw.start); replies go back as UPD_STATUS and DIAG. Payloads are checked by the wire
helpers and the updater; anything refused becomes an error status, never an exception
that would stop the game.
"""

from shared_rules import wire

CAPS = ("update", "doctor")


class MakerService:
    """link: the BoardLink; app: the running App; pinmap: the board's pin map; boot: the
    vora_fw.boot.Boot the loader made (None when the board was not installed with vora
    flash: then only the doctor works); identity: the MicroPython (vora_fw.boot.identity());
    version: the running firmware's; reset(): restarts the board (after the ack is out)."""

    def __init__(self, link, app, pinmap, boot, identity, version, reset, statvfs=None):
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

    def caps(self):
        return CAPS if self.boot is not None else ("doctor",)

    def _updater(self):
        if self.updater is None and self.boot is not None:
            from vora_fw.update import Updater
            self.updater = Updater(self.boot, self.pinmap.get("port", ""), self.identity,
                                   self.version)
        return self.updater

    def hello_info(self):
        d = {"fw": self.version, "port": self.pinmap.get("port", ""),
             "micropython": self.identity.get("micropython"), "arch": self.identity.get("arch"),
             "mpy": "%d.%d" % (self.identity.get("mpy", 0), self.identity.get("mpy_sub", 0))}
        if self.boot is not None:
            d["boot"] = self.boot.info()
        return d

    def handle(self, type, payload):
        if type == wire.DIAG_REQ:
            wire.check_empty("DIAG_REQ", payload)
            from vora_fw.doctor import diag
            root = self.boot.root if self.boot is not None and self.boot.root else "/"
            d = diag(self.app, self.pinmap, self.identity, self.boot, root, self.statvfs)
            d["fw"] = self.version
            self.link.send(wire.DIAG, wire.pack_json(d))
            return
        up = self._updater()
        if up is None:
            self._status({"state": "error", "code": "unsupported", "running": self.version,
                          "error": "this board has no boot record (it was not installed with "
                                   "vora flash): install it with vora flash first"})
            return
        if type == wire.UPD_DATA:
            file, offset, data = wire.unpack_upd_data(payload)
            st = up.data(file, offset, data)
            if st is not None:
                self._status(st)
        elif type == wire.UPD_OFFER:
            size, digest, downgrade = wire.unpack_upd_offer(payload)
            self._status(up.offer(size, digest, downgrade))
        elif type == wire.UPD_QUERY:
            wire.check_empty("UPD_QUERY", payload)
            self._status(up.query())
        elif type == wire.UPD_COMMIT:
            self._status(up.commit(wire.unpack_upd_commit(payload)))
        elif type == wire.UPD_ABORT:
            wire.check_empty("UPD_ABORT", payload)
            self._status(up.abort())
        elif type == wire.UPD_RESET:
            wire.check_empty("UPD_RESET", payload)
            self.link.session.ack_now()  # the host must see it taken before the board goes
            self.resets += 1
            self.reset()
        else:
            raise wire.UnknownType("%s is not a message the board takes" % wire.type_name(type))

    def _status(self, d):
        self.link.send(wire.UPD_STATUS, wire.pack_json(d))

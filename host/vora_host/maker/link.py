"""The serial connection the makers' commands share: a board's device opened with pyserial,
the link client (vora_host.link.client.BoardClient) on it, and the waiting loops.

The messages the client leaves to others (UPD_STATUS, DIAG) are queued here. A device that
goes away (an unplug, a reset) raises LinkLost; reopen() opens it again once it is back.
The device is this program's alone while open (vora_host.link.portlock): one that another
program holds raises portlock.PortBusy, which names it, at once and without retrying.
"""

import collections
import time

import serial

from shared_rules import wire
from vora_host.link import portlock
from vora_host.link.client import BoardClient, ticks_ms

POLL_S = 0.002


class LinkError(Exception):
    """No board to talk to, or it stopped answering; the message says what was tried."""


class LinkLost(LinkError):
    """The device went away or the board stopped acknowledging."""


class LinkOpenError(LinkError):
    """The device cannot be opened (missing, no permission): the system's words and the
    devices there are; nothing about the board, which was never reached."""


class Connection:
    def __init__(self, device, client_factory=BoardClient):
        self.device = device
        self.ser = None
        self._hold = None
        self.client = None
        self.messages = collections.deque(maxlen=256)  # (type, payload)
        self._factory = client_factory
        self.bytes_out = 0
        self.bytes_in = 0

    # ---- the device

    def open(self):
        try:
            # a device path, or a URL such as rfc2217://localhost:4000 (Wokwi's simulated
            # Pico, hardware/README.md); PortBusy (another program has it) goes up as is
            self.ser, self._hold = portlock.open_serial(self.device, baudrate=115200,
                                                        timeout=0, write_timeout=2)
        except (serial.SerialException, OSError) as exc:
            self.ser = None
            from vora_host.link import ports
            raise LinkOpenError(ports.missing_text(self.device, ports.system_error(exc)))
        self.client = self._factory(self._write)
        self.client.on_message = self._message
        self.messages.clear()

    def close(self):
        if self.ser is not None:
            portlock.close_serial(self.ser, self._hold)
            self.ser = None
            self._hold = None

    def reopen(self, timeout):
        """Open the device again, waiting up to `timeout` s for it to come back (not for
        another program to let go of it: PortBusy at once)."""
        self.close()
        end = time.monotonic() + timeout
        while True:
            try:
                self.open()
                return
            except LinkError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.2)

    def _write(self, data):
        if self.ser is None:
            return
        try:
            self.ser.write(data)
            self.bytes_out += len(data)
        except (serial.SerialException, OSError):
            self.close()

    def _message(self, type, payload):
        self.messages.append((type, bytes(payload)))

    # ---- time passing

    def pump(self, wait=0.0):
        """Read what arrived, let the client's timers run; sleep `wait` s if nothing came."""
        if self.ser is None:
            raise LinkLost("the board's device %s went away" % self.device)
        try:
            data = self.ser.read(65536)
        except (serial.SerialException, OSError) as exc:
            self.close()
            raise LinkLost("the board's device %s went away (%s)" % (self.device, exc))
        now = ticks_ms()
        if data:
            self.bytes_in += len(data)
            self.client.feed(data, now)
        self.client.poll(now)
        if self.client.refusal:
            raise LinkError("the board refused the link: %s" % self.client.refusal)
        if not data and wait:
            time.sleep(wait)
        return bool(data)

    def wait(self, check, timeout, what, need_link=True):
        """Pump until check() gives something true (returned). LinkLost when the session
        fails meanwhile (need_link), LinkError after `timeout` s."""
        end = time.monotonic() + timeout
        while True:
            got = check()
            if got:
                return got
            if need_link and not self.client.connected:
                raise LinkLost("the board stopped acknowledging")
            if time.monotonic() > end:
                raise LinkError("no %s from the board at %s within %.0f s" % (what, self.device,
                                                                                timeout))
            self.pump(POLL_S)

    def hello(self, timeout=5.0):
        """Say HELLO until the board answers; returns its HELLO_OK (a dict)."""
        self.client.hello(ticks_ms())
        self.wait(lambda: self.client.connected, timeout, "HELLO_OK", need_link=False)
        return self.client.board

    def connected(self):
        return self.ser is not None and self.client is not None and self.client.connected

    def send(self, type, payload=b"", timeout=10.0):
        """Queue a reliable message, waiting for room in the session's window."""
        end = time.monotonic() + timeout
        while not self.client.send(type, payload):
            if not self.client.connected:
                raise LinkLost("the board stopped acknowledging")
            if time.monotonic() > end:
                raise LinkLost("the board took nothing for %.0f s" % timeout)
            self.pump(POLL_S)

    def drain(self, timeout=10.0):
        """Wait until everything sent is acknowledged."""
        self.wait(lambda: self.client.session.idle, timeout, "acknowledgement")

    def take(self, type):
        """The oldest queued message of that type (its payload), or None."""
        for i, (t, payload) in enumerate(self.messages):
            if t == type:
                del self.messages[i]
                return payload
        return None

    def request(self, type, payload, answer, timeout=15.0):
        """Send and wait for the answer: the next message of type `answer` (its payload).
        Everything sent before is acknowledged first, so an answer to an earlier message
        (it rides with the acknowledgement) is not taken for this one."""
        self.drain(timeout)
        for i in range(len(self.messages) - 1, -1, -1):
            if self.messages[i][0] == answer:
                del self.messages[i]
        self.send(type, payload, timeout)
        return self.wait(lambda: self.take(answer), timeout, wire.type_name(answer))

"""Finding the board: by USB identity, by a port given by name, or the virtual board.

Boards are recognised by the USB vendor and product ids their MicroPython (or
CircuitPython) presents; serial devices of other makes are listed in the error message so
a user can pick one with --port.
"""

from serial.tools import list_ports

# (vendor id, product id or None for any, what it is)
KNOWN_BOARDS = (
    (0x2E8A, 0x0005, "MicroPython on a Raspberry Pi Pico (RP2040)"),
    (0x2E8A, None, "a Raspberry Pi RP2040 board"),
    (0x303A, None, "an Espressif ESP32-S3 board"),
    (0x239A, None, "a CircuitPython board (Adafruit)"),
)

VIRTUAL = ("sim", "virtual")


class NoBoard(Exception):
    """No board to talk to; the message says what was looked at and what to do."""


def identify(port):
    """What a port looks like to us: a description of a known board, or None."""
    for vid, pid, what in KNOWN_BOARDS:
        if port.vid == vid and (pid is None or port.pid == pid):
            return what
    return None


def find_boards(ports=None):
    """[(device, description)] of the connected boards we recognise, best match first."""
    found = []
    for port in ports if ports is not None else list_ports.comports():
        what = identify(port)
        if what is not None:
            found.append((port.device, what))
    return found


def choose_port(name=None, ports=None):
    """The device to open: `name` when given (a path, or "sim" for the virtual board),
    else the one recognised board. NoBoard says why there is none or too many."""
    if name:
        return name
    ports = list(ports if ports is not None else list_ports.comports())
    boards = find_boards(ports)
    if len(boards) == 1:
        return boards[0][0]
    if len(boards) > 1:
        raise NoBoard("several boards are connected (%s): choose one with --port"
                      % ", ".join("%s: %s" % b for b in boards))
    seen = ", ".join(sorted(p.device for p in ports)) or "none"
    raise NoBoard("no Vora Board found on USB (serial devices seen: %s). Plug the board in, "
                  "give its device with --port, or use --port sim for the virtual board."
                  % seen)

"""Finding the board: by USB identity, by a port given by name, or the virtual board.

Boards are recognised by the USB vendor and product ids their MicroPython (or
CircuitPython) presents; serial devices of other makes are listed in the error message so
a user can pick one with --port.

The virtual board (`vora sim`) gets a new pseudo-terminal each time it starts, so it also
keeps a stable name for it, as a USB board has: a symbolic link, `virtual_device_path()`,
pointed at its current pseudo-terminal while it runs. `--port sim` means that path: a
mirror started before the virtual board, or left running while it restarts, finds it there.
"""

import errno
import os
import tempfile

from serial.tools import list_ports

# (vendor id, product id or None for any, what it is)
KNOWN_BOARDS = (
    (0x2E8A, 0x0005, "MicroPython on a Raspberry Pi Pico (RP2040)"),
    (0x2E8A, None, "a Raspberry Pi RP2040 board"),
    (0x303A, None, "an Espressif ESP32-S3 board"),
    (0x239A, None, "a CircuitPython board (Adafruit)"),
)

VIRTUAL = ("sim", "virtual")
VIRTUAL_DEVICE_ENV = "VORA_SIM_DEVICE"  # another stable path (tests, two virtual boards)
VIRTUAL_DEVICE_NAME = "ttyVORA"


def virtual_device_path(environ=None):
    """The virtual board's stable device path: $VORA_SIM_DEVICE, else ttyVORA in
    $XDG_RUNTIME_DIR/vora, else in a folder of the user's own under the temporary
    folder (/tmp/vora-<uid>/ttyVORA)."""
    env = os.environ if environ is None else environ
    given = env.get(VIRTUAL_DEVICE_ENV)
    if given:
        return given
    runtime = env.get("XDG_RUNTIME_DIR") or ""
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        folder = os.path.join(runtime, "vora")
    else:
        folder = os.path.join(tempfile.gettempdir(), "vora-%d" % os.getuid())
    return os.path.join(folder, VIRTUAL_DEVICE_NAME)


class NoBoard(Exception):
    """No board to talk to; the message says what was looked at and what to do."""


def name_gone(path):
    """True when `path` is a virtual board's stable name (a link with LINK.lock beside it,
    vora_host.virtual.port.StableName) whose board is no longer running (the process the
    lock file names is gone): a killed board leaves its link pointing at a pseudo-terminal
    whose number the system gives the next program that asks, which is not a board. False
    for any other path, and when it cannot tell."""
    path = str(path)
    if not os.path.islink(path):
        return False
    try:
        with open(path + ".lock") as f:
            pid = int(f.read(32).strip() or "0")
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # alive (another user's: not ours to judge)
    return False


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


def seen_text(ports=None):
    """The serial devices found, for a message: "serial devices found: /dev/ttyACM0
    (MicroPython on a Raspberry Pi Pico (RP2040)), /dev/ttyS0", the virtual board's name
    when it runs, or that none was found and what to do."""
    ports = list(ports if ports is not None else list_ports.comports())
    found = []
    for p in sorted(ports, key=lambda p: p.device):
        what = identify(p)
        found.append("%s (%s)" % (p.device, what) if what else p.device)
    sim = virtual_device_path()
    if os.path.exists(sim):
        found.append("%s (the virtual board, running)" % sim)
    if not found:
        return ("no serial devices found: plug the board in (with a data cable), or run the "
                "virtual board (`vora sim`) and give --port sim")
    return "serial devices found: %s" % ", ".join(found)


def system_error(exc):
    """An OSError's (or pyserial's SerialException's) words: "No such file or directory"
    rather than "could not open port X: [Errno 2] No such file or directory: 'X'"."""
    code = getattr(exc, "errno", None)
    if isinstance(code, int) and code > 0:
        return os.strerror(code)
    return getattr(exc, "strerror", None) or str(exc)


def missing_text(device, error, ports=None):
    """Why `device` cannot be opened, in the system's words, and what there is instead."""
    if device == virtual_device_path():
        return ("no virtual board runs at %s (%s): start it with `vora sim`"
                % (device, error))
    return "cannot open %s: %s. Is the name right? %s" % (device, error, seen_text(ports))


def choose_port(name=None, ports=None, must_exist=False):
    """The device to open: `name` when given (a path, or "sim" for the virtual board's
    stable path), else the one recognised board. NoBoard says why there is none or too
    many; with must_exist, also for a named device that is not there (the system's error
    and the devices found: a misspelled name is not a board to reflash)."""
    if name in VIRTUAL:
        name = virtual_device_path()
        if must_exist and not os.path.exists(name):
            raise NoBoard(missing_text(name, os.strerror(errno.ENOENT)))
        return name
    if name:
        if must_exist and "://" not in name:
            ports = list(ports if ports is not None else list_ports.comports())
            if name not in [p.device for p in ports]:
                try:
                    os.stat(name)
                except OSError as exc:
                    raise NoBoard(missing_text(name, exc.strerror or str(exc), ports))
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
                  "give its device with --port, or use --port sim for the virtual board "
                  "(`vora sim`, whose serial device is also %s)." % (seen, virtual_device_path()))

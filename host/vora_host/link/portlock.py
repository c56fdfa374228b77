"""One program at a time on a board's serial port.

Two programs reading one serial device take each other's bytes: neither sees whole frames
(nor mpremote its REPL's answers), and the board then looks broken when it is not. So
every vora program that opens a board's port (play, mirror, repl, doctor, update, flash)
holds it alone, and a second one is refused at once with who holds it:

- the device is opened with pyserial's exclusive=True (an flock on POSIX), as mpremote
  opens it, so the system refuses a second opener that asks the same (open_serial);
- a holder note: a lock file per port name in the user's runtime folder,
  $XDG_RUNTIME_DIR/vora/ports (else /tmp/vora-<uid>/ports), locked with flock while held
  and saying the holder's process id, command and since when. A program holds the name
  it was given (`--port sim`, a /dev/serial/by-id link) for as long as it runs, and the
  device behind it (by its real path: `--port sim` and the pty it points at are one
  port) only while it has the device open: a mirror waiting for its board to come back
  must not hold a device number the system has since given to another board. The kernel
  drops the lock with the process, however it ends, so a note whose lock is free is
  stale and simply taken over. A command that opens and
  closes the device several times (vora flash: the link, then mpremote, then the link
  again) holds the note across, so nobody slips in between (hold());
- a port held by a program that writes no note (mpremote, screen, an older vora) is named
  from /proc on Linux: the processes that have the device open.
"""

import json
import os
import sys
import tempfile
import threading
import time
from urllib.parse import quote

try:
    import fcntl
except ImportError:  # not POSIX: pyserial's exclusive open is all there is
    fcntl = None

NOTE_LIMIT = 4096  # a holder note is small; a bigger file is not ours
COMMAND_LIMIT = 160


class PortBusy(Exception):
    """Another program holds the board's port; str() says who and what to do.
    `holder`: {"pid", "command", "since"} (each may be None) or None when unknown."""

    def __init__(self, device, holder=None, real=None):
        self.device = device
        self.holder = holder
        self.real = real
        super().__init__(busy_message(device, holder, real))


def _printable(text, limit=COMMAND_LIMIT):
    # A command line read from a file or /proc may hold anything: escape it for a terminal.
    from vora_host.link.board_checks import printable
    return printable(text, limit)


def busy_message(device, holder=None, real=None):
    name = device if not real or real == device else "%s (%s)" % (device, real)
    if holder and holder.get("pid"):
        who = "`%s`" % _printable(holder.get("command") or "another program")
        facts = ["process %d" % holder["pid"]]
        if holder.get("since"):
            facts.append("since %s" % time.strftime("%H:%M:%S", time.localtime(holder["since"])))
        stop = "stop it first (Ctrl-C in its terminal, or kill %d)" % holder["pid"]
        return ("the board's port %s is in use by %s (%s): two programs on one port take "
                "each other's bytes. Use that one, or %s, then try again."
                % (name, who, ", ".join(facts), stop))
    return ("the board's port %s is in use by another program: two programs on one port "
            "take each other's bytes. Close the other program (a mirror, vora play, "
            "mpremote, a serial terminal), then try again." % name)


def runtime_folder(environ=None):
    """Where the holder notes live: $XDG_RUNTIME_DIR/vora/ports, else
    /tmp/vora-<uid>/ports (the virtual board's stable name lives beside)."""
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR") or ""
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        base = os.path.join(runtime, "vora")
    else:
        base = os.path.join(tempfile.gettempdir(), "vora-%d" % os.getuid())
    return os.path.join(base, "ports")


def is_local(device):
    """True for a device path (a URL such as rfc2217://host:port has no local holder)."""
    return "://" not in device


def real_path(device):
    return os.path.realpath(device)


def note_path(device, real=True):
    """The holder note of the device behind `device` (real), or of the name itself."""
    key = real_path(device) if real else os.path.abspath(device)
    return os.path.join(runtime_folder(), quote(key, safe="") + ".lock")


def this_command(argv=None):
    """This program's command line as a user typed it: `vora mirror --port sim`."""
    argv = list(sys.argv if argv is None else argv)
    if not argv:
        return "a program"
    first = os.path.basename(argv[0])
    if first in ("__main__.py", "vora") or first.startswith("vora"):
        first = "vora"
    return " ".join([first] + argv[1:])[:COMMAND_LIMIT]


# ---- the holder note

_guard = threading.Lock()
_held = {}  # note path -> [fd, count]: this process's holds (a command nests them)


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OSError:
        return False
    return True


def _read_note(fd):
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, NOTE_LIMIT + 1)
        d = json.loads(raw.decode("utf-8")) if 0 < len(raw) <= NOTE_LIMIT else None
    except (OSError, ValueError):
        return None
    if not isinstance(d, dict):
        return None
    pid = d.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or not _pid_alive(pid):
        return None  # unreadable, or its writer is gone: say nothing false about it
    since = d.get("since")
    command = d.get("command")
    return {"pid": pid,
            "command": command if isinstance(command, str) else None,
            "since": since if isinstance(since, (int, float)) and not isinstance(since, bool)
            else None}


def _private_folder(folder):
    os.makedirs(folder, mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    import stat
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise OSError("%s is not a folder of yours" % folder)


def acquire(device, command=None, real=False):
    """Take this process's hold on the port's name `device` (real: on the device behind
    it, as open_serial does while it is open); nested holds count. PortBusy names the
    holder. Nothing is held for a URL, or where there is no flock."""
    if fcntl is None or not is_local(device):
        return None
    path = note_path(device, real)
    with _guard:
        if path in _held:
            _held[path][1] += 1
            return path
        try:
            _private_folder(os.path.dirname(path))
        except OSError:
            return None  # no runtime folder to keep notes in: the device's flock still holds
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _read_note(fd)
                os.close(fd)
                raise PortBusy(device, holder, real_path(device))
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # its holder removed the file as we locked it: take a fresh one
        note = {"pid": os.getpid(), "command": command or this_command(), "since": time.time(),
                "device": device, "real": real_path(device)}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(note).encode("utf-8"))
        _held[path] = [fd, 1]
        return path


def release(path):
    """Give back one hold taken by acquire() (the note goes with the last one); a tuple
    of them (open_serial's) is given back whole."""
    if isinstance(path, tuple):
        for one in reversed(path):
            release(one)
        return
    if path is None:
        return
    with _guard:
        entry = _held.get(path)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] > 0:
            return
        del _held[path]
        fd = entry[0]
        try:
            os.unlink(path)  # while still locked: no newcomer holds this file
        except OSError:
            pass
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


class hold:
    """`with hold(device):` this process holds the port for the whole block (PortBusy
    when another program does)."""

    def __init__(self, device, command=None):
        self.device = device
        self.command = command
        self.path = None

    def __enter__(self):
        self.path = acquire(self.device, self.command)
        return self

    def __exit__(self, *exc):
        release(self.path)
        self.path = None


# ---- who has the device open (Linux)

def _proc_start(pid):
    """A process's start time (seconds since the epoch), or None."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read(4096).decode("ascii", "replace")
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as f:
            boot = next(int(line.split()[1]) for line in f.read(65536).decode().splitlines()
                        if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _proc_command(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            raw = f.read(4096)
    except OSError:
        return None
    args = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    if len(args) > 2 and os.path.basename(args[0]).startswith("python") and args[1] == "-m":
        args = args[2:]  # python -m mpremote ... reads as mpremote ...
    elif len(args) > 1 and os.path.basename(args[0]).startswith("python") \
            and os.path.basename(args[1]) in ("vora", "mpremote"):
        args = args[1:]  # the script's own name: a pipx or venv launcher
    if args:
        args[0] = os.path.basename(args[0])
        if args[0] in ("vora_host", "__main__.py"):
            args[0] = "vora"
    return " ".join(args)[:COMMAND_LIMIT] or None


def holders(device):
    """[{"pid", "command", "since"}] of the other processes that have the device open,
    as far as /proc shows them (Linux; empty elsewhere or when it cannot be read)."""
    real = real_path(device)
    found = []
    me = os.getpid()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if pid == me:
            continue
        folder = "/proc/%d/fd" % pid
        try:
            fds = os.listdir(folder)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(os.path.join(folder, fd)) == real:
                    found.append({"pid": pid, "command": _proc_command(pid),
                                  "since": _proc_start(pid)})
                    break
            except OSError:
                continue
    return found


def who_holds(device):
    """The holder of a port another program keeps: its note, else what /proc says, else
    None (unknown)."""
    for real in (True, False) if fcntl is not None and is_local(device) else ():
        note = _note_of_holder(note_path(device, real))
        if note is not None:
            return note
    if is_local(device):
        found = holders(device)
        if found:
            return found[0]
    return None


def _note_of_holder(path):
    """The note at `path` when another process holds it, else None."""
    if path in _held:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return None  # nobody holds it: the note is stale
        except OSError:
            return _read_note(fd)
    finally:
        os.close(fd)


def busy(device):
    """PortBusy for a device another program holds (its holder named if it can be)."""
    return PortBusy(device, who_holds(device), real_path(device) if is_local(device) else None)


def is_lock_refusal(exc):
    """True when pyserial's exclusive open failed because another holds the device."""
    import errno
    return getattr(exc, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY) \
        or "exclusively lock" in str(exc)


def open_serial(device, **kwargs):
    """The device opened with pyserial (serial_for_url: a path or a URL such as
    rfc2217://localhost:4000), exclusive, under this process's hold of the port: returns
    (serial, hold path); give both back with close_serial(). PortBusy when another
    program has the port; serial.SerialException or OSError for the rest."""
    import serial
    name = acquire(device)
    try:
        path = (name, acquire(device, real=True)
                if real_path(device) != os.path.abspath(device) else None)
    except BaseException:
        release(name)
        raise
    try:
        kwargs.setdefault("exclusive", True)
        try:
            ser = serial.serial_for_url(device, **kwargs)
        except (serial.SerialException, OSError) as exc:
            if is_local(device) and is_lock_refusal(exc):
                raise busy(device)
            raise
    except BaseException:
        release(path)
        raise
    return ser, path


def close_serial(ser, path):
    try:
        if ser is not None:
            ser.close()
    except Exception:  # noqa: BLE001 - closing a device that went away
        pass
    finally:
        release(path)

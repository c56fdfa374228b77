"""The virtual board's USB serial port: a pseudo-terminal that any serial program opens like
a board's port (PtyPort), and the stable name pointing at it while the board runs
(StableName: /tmp/vora-<uid>/ttyVORA, vora_host.link.ports.virtual_device_path()).

Apart from the board (vora_host.virtual.board) because it is the operating system's side
of the simulation, terminal settings, locks and links, and knows nothing of the game.
"""

import errno
import os
import stat
import termios

from vora_host.virtual.board import SimError

__all__ = ["PtyPort", "StableName", "OUT_LIMIT", "RETRY_S"]

OUT_LIMIT = 64 * 1024  # serial bytes kept for a host that does not read; older ones drop
RETRY_S = 0.2  # how often to look whether a serial program opened the port again


class StableName:
    """A symbolic link at `link` to the pseudo-terminal `target`, kept while the board runs.

    Made atomically (a new link renamed over the old one), so a program opening the name
    gets the old device or the new one, never nothing. A running board holds a lock on
    LINK.lock: while another virtual board holds the name, this one takes a name of its
    own (LINK2, LINK3, ...: `taken` says so) rather than steal it; a link left by a board
    that was killed (its lock went with it) is simply replaced. The folder is created
    private (0700) when missing, and one that is not ours, or is itself a link, is refused:
    another user must not choose where the name points. remove() deletes the link only
    while it still points at our device."""

    OTHERS = 8  # names tried after the first one, while other virtual boards hold them

    def __init__(self, link, target):
        self.wanted = str(link)
        self.target = target
        self._lock = None
        folder = os.path.dirname(self.wanted) or "."
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise SimError("cannot make the folder %s for the stable device name: %s"
                           % (folder, exc.strerror or exc))
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise SimError("%s is not a folder of yours: the stable device name is not made "
                           "there (set VORA_SIM_DEVICE to another path)" % folder)
        for n in range(1, self.OTHERS + 2):
            name = self.wanted if n == 1 else "%s%d" % (self.wanted, n)
            if self._take(name):
                break
        else:
            raise SimError("%d other virtual boards hold the stable device names %s to %s%d"
                           % (self.OTHERS + 1, self.wanted, self.wanted, self.OTHERS + 1))
        self.link = name
        self.taken = name != self.wanted  # another board has the usual name
        tmp = "%s.%d.tmp" % (self.link, os.getpid())
        try:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            os.symlink(target, tmp)
            os.replace(tmp, self.link)
        except OSError as exc:
            self._release()
            raise SimError("cannot make the stable device name %s: %s"
                           % (self.link, exc.strerror or exc))

    def _take(self, name):
        # True when this board now holds `name` (the lock is kept open until remove()).
        import fcntl
        try:
            fd = os.open(name + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise SimError("cannot lock the stable device name %s: %s"
                           % (name, exc.strerror or exc))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        try:  # who holds the name: a program about to open the link asks (ports.name_gone)
            os.ftruncate(fd, 0)
            os.write(fd, b"%d\n" % os.getpid())
        except OSError:
            pass
        self._lock = fd
        return True

    def _release(self):
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def remove(self):
        try:
            if os.readlink(self.link) == self.target:
                os.unlink(self.link)
        except OSError:
            pass
        self._release()


class PtyPort:
    """The board's USB serial port: a pseudo-terminal whose slave side is the device path.

    The master stays open for the whole run. Nobody holds the slave open except a serial
    program: while none does, reading the master fails with EIO, so the port stops
    listening and looks again every RETRY_S. What the board writes while no program has
    the device open is kept here (up to OUT_LIMIT bytes, the oldest dropped first) and
    sent once one has opened it and settled: not into the pty at once, because serial
    programs flush a device's pending input when they open it (pyserial does), and the
    board's first line would be lost.
    """

    def __init__(self):
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        self.stable_path = None  # the stable name pointing here, once made (run())
        self.stable_note = ""  # why it is not the usual one (another board has that)
        # Raw mode so bytes pass unchanged (no echo, no CR/LF translation, no signals).
        # The settings belong to the pty, so they stay after this fd is closed.
        attrs = termios.tcgetattr(slave)
        attrs[0] &= ~(termios.IGNBRK | termios.BRKINT | termios.PARMRK | termios.ISTRIP
                      | termios.INLCR | termios.IGNCR | termios.ICRNL | termios.IXON)
        attrs[1] &= ~termios.OPOST
        attrs[2] &= ~(termios.CSIZE | termios.PARENB)
        attrs[2] |= termios.CS8
        attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ICANON | termios.ISIG
                      | termios.IEXTEN)
        attrs[6][termios.VMIN] = 1
        attrs[6][termios.VTIME] = 0
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        os.close(slave)
        os.set_blocking(self.master, False)
        self._out = bytearray()
        self.bytes_sent = 0
        self.bytes_received = 0
        self.bytes_dropped = 0
        self.connected = False  # a serial program has the device open (as far as seen)
        self.connections = 0
        self.on_data = None
        self._loop = None
        self._reading = False
        self._writing = False
        self._closed = False

    def start(self, loop, on_data):
        """Serve the port on `loop`; on_data(bytes) gets what serial programs send."""
        self._loop = loop
        self.on_data = on_data
        self._watch()

    def write(self, data):
        """Queue bytes for the serial program; never blocks."""
        if self._closed:
            return
        self._out += data
        if len(self._out) > OUT_LIMIT:
            extra = len(self._out) - OUT_LIMIT
            del self._out[:extra]
            self.bytes_dropped += extra
        self._flush()

    def _flush(self):
        while self._out and self.connected:
            try:
                n = os.write(self.master, self._out)
            except (BlockingIOError, InterruptedError):
                break  # the program does not read: wait until the pty has room
            except OSError:
                break
            self.bytes_sent += n
            del self._out[:n]
        if self._loop is None or self._closed:
            return
        want = bool(self._out) and self.connected
        if want and not self._writing:
            self._loop.add_writer(self.master, self._flush)
            self._writing = True
        elif not want and self._writing:
            self._loop.remove_writer(self.master)
            self._writing = False

    def _watch(self):
        if self._closed or self._loop is None:
            return
        if not self._reading:
            self._loop.add_reader(self.master, self._readable)
            self._reading = True
            # Still listening a moment later (no EIO): a program holds the device open,
            # and has had the time to flush its input.
            self._loop.call_later(0.05, self._seen)

    def _seen(self):
        if self._reading and not self._closed and not self.connected:
            self.connected = True
            self.connections += 1
            self._flush()

    def _readable(self):
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            # EIO: no serial program has the device open. Stop listening (the master
            # would report itself readable all the time) and look again later.
            self.connected = False
            self._loop.remove_reader(self.master)
            self._reading = False
            self._flush()  # stops waiting to write
            self._loop.call_later(RETRY_S, self._watch)
            return
        if not self.connected:
            self._seen()
        self.bytes_received += len(data)
        if self.on_data is not None:
            self.on_data(data)

    def close(self):
        if self._closed:
            return
        self._closed = True
        if self._loop is not None and not self._loop.is_closed():
            if self._reading:
                self._loop.remove_reader(self.master)
            if self._writing:
                self._loop.remove_writer(self.master)
        os.close(self.master)

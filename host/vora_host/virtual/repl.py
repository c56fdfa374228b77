"""The virtual board's MicroPython REPL: what mpremote finds on the serial port when the
firmware is not running (after `vora repl`, in safe mode, or on a board with no firmware).

Code that mpremote (or a person) sends runs in real MicroPython, never in this Python: the
WebAssembly port from npm, in a Node process of its own (tools/mpy_repl.mjs), driven
through MicroPython's own event-driven REPL (friendly and raw). The serial bytes go to it
unchanged and its output comes back unchanged, with three things a board does that this
port cannot do by itself:

- raw-paste (Ctrl-E A Ctrl-A after the raw prompt), which mpremote uses, is served as a
  Pico serves it (windows of 128 bytes); the runner reads the code and hands it to the
  plain raw REPL at its end, since the port's event-driven REPL cannot serve it;
- a soft reset (Ctrl-D on an empty raw line) starts a fresh MicroPython with the same
  flash, prints "MPY: soft reboot" and the raw prompt; at the friendly prompt, and for
  `machine.reset()`, the whole virtual board restarts (on_reset), which runs the boot path;
- Ctrl-C while code runs (the port runs it synchronously, so it cannot see the byte) ends
  that MicroPython and starts a fresh one: what is on the flash stays.

The flash: the sandbox gets a copy of the simulated flash folder and reports every change
as it would persist on a board (a file when it is closed, folders and renames at once);
only this module writes the folder, after checking that the path is a plain relative path
inside it. The sandbox: Node's permission model (no file writes, no child processes, reads
only of MicroPython's package and the runner) and no code generation from strings, so
even code that reaches JavaScript through MicroPython's `js` module is confined.

Cost (docs/makers.md): about 0.2 s to start (Node and the WebAssembly module), then each
raw-REPL command a few milliseconds.
"""

import errno
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

from vora_host import resources

NPM_PACKAGE = "@micropython/micropython-webassembly-pyscript"


def _shipped(name):
    try:
        return resources.path(name)
    except resources.MissingResource:
        return None


RUNNER = _shipped("mpy_repl.mjs")  # shipped with vora (tools/ in a checkout)
PRELUDE = _shipped("mpy_repl_prelude.py")


def _node_modules():
    """Where npm put MicroPython (the runner is given its module's path): a checkout's
    node_modules (./dev setup, npm ci); for an installed vora, node_modules in its data
    folder ($XDG_DATA_HOME/vora/micropython, install_hint()); $VORA_NODE_MODULES names
    another (tests point it at an empty folder to see what a missing one says)."""
    if os.environ.get("VORA_NODE_MODULES"):
        return Path(os.environ["VORA_NODE_MODULES"])
    root = resources.checkout()
    if root is not None:
        return root / "node_modules"
    base = os.environ.get("XDG_DATA_HOME") or ""
    data = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return data / "vora" / "micropython" / "node_modules"


NODE_MODULES = _node_modules()
PACKAGE_DIR = NODE_MODULES / NPM_PACKAGE
MAX_FRAME = 8 * 1024 * 1024  # from the sandbox: anything bigger is not a flash file
MAX_PATH = 200
INTERRUPT_AFTER_S = 0.25  # Ctrl-C while the sandbox has not answered for this long: it runs code


def micropython_version():
    """The version of the WebAssembly MicroPython that runs the REPL's code."""
    try:
        return json.loads((PACKAGE_DIR / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "1.27.0"


_node_versions = {}  # node's path -> its (major, minor): asked once (at every reset else)


def _node_version(node):
    if node in _node_versions:
        return _node_versions[node]
    try:
        v = subprocess.run([node, "--version"], capture_output=True, text=True,
                           timeout=10).stdout.strip().lstrip("v")
        got = tuple(int(x) for x in v.split(".")[:2])
    except (OSError, ValueError, subprocess.SubprocessError):
        return (0, 0)
    _node_versions[node] = got
    return got


def unavailable():
    """None when the REPL can run here, else why not (for a clear refusal)."""
    import shutil
    node = shutil.which("node")
    if node is None:
        return "the virtual board's REPL needs Node.js (apt-get install nodejs npm, then ./dev setup)"
    if _node_version(node) < (20, 0):
        return "the virtual board's REPL needs Node.js 20 or later (its sandbox: the permission model)"
    if not (PACKAGE_DIR / "micropython.mjs").is_file():
        # The remedy first: a host shows the board's words cut at 200 characters.
        return install_hint()
    if RUNNER is None or PRELUDE is None:
        return "the virtual board's REPL runner is missing: reinstall vora"
    return None


def npm_pin():
    """The WebAssembly MicroPython's version vora is tested with (package.json)."""
    try:
        return json.loads(resources.read_bytes("package.json"))["dependencies"][NPM_PACKAGE]
    except (OSError, ValueError, KeyError, TypeError):
        return "1.27.0"


def install_hint():
    """Why there is no REPL and the command that installs the WebAssembly MicroPython where
    this vora looks (at most about 170 characters: a host shows a board's words whole)."""
    root = resources.checkout()
    if root is not None:
        return ("the virtual board's REPL needs npm's %s: run ./dev setup, or npm ci in %s "
                "(it is missing from %s)" % (NPM_PACKAGE, root, NODE_MODULES))
    prefix = str(NODE_MODULES.parent)
    home = str(Path.home())
    if prefix.startswith(home + os.sep):
        prefix = "~" + prefix[len(home):]
    return "the REPL needs MicroPython for Node.js 20+: npm install --prefix %s %s@%s" % (
        prefix, NPM_PACKAGE, npm_pin())


_node_flags = None


def node_command():
    """node with the sandbox's flags, and the runner."""
    global _node_flags
    import shutil
    node = shutil.which("node")
    if _node_flags is None:
        major, minor = _node_version(node)
        # The permission model is --experimental-permission up to Node 22.12, then --permission.
        flag = "--permission" if (major, minor) >= (22, 13) else "--experimental-permission"
        _node_flags = [flag, "--allow-fs-read=%s" % (str(PACKAGE_DIR.resolve()) + "/"),
                       "--allow-fs-read=%s" % RUNNER, "--disallow-code-generation-from-strings",
                       "--no-warnings"]
    # The module by its real path: Node's sandbox may read only inside the package.
    return [node] + _node_flags + [str(RUNNER), str((PACKAGE_DIR / "micropython.mjs").resolve())]


def safe_path(root, rel):
    """root/rel for a path from the sandbox: relative, no "..", no symbolic link on the way.
    ValueError otherwise."""
    if not isinstance(rel, str) or not rel or len(rel) > MAX_PATH or "\0" in rel or "\\" in rel:
        raise ValueError("bad path %r" % (rel,))
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError("bad path %r" % (rel,))
    p = Path(root)
    for part in parts:
        p = p / part
        if p.is_symlink():
            raise ValueError("path %r goes through a link" % (rel,))
    return p


def _die_with_parent():
    # In the sandbox's process, before Node starts: if the virtual board is killed (even
    # with SIGKILL), the kernel kills its MicroPython too; a sandbox busy in a loop would
    # not notice its input closing.
    try:
        import ctypes
        import signal
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _frame(kind, payload=b""):
    return bytes((ord(kind),)) + struct.pack(">I", len(payload)) + payload


class ReplEmulator:
    """The REPL on the virtual board's serial port.

    flash: the simulated flash folder; capacity: its size in bytes; identity: the emulated
    board (platform, machine, mpy); write(bytes): to the serial port; on_reset(kind):
    "hard" (machine.reset()) or "soft" (Ctrl-D at the friendly prompt)."""

    def __init__(self, flash, capacity, identity, write, on_reset, block=4096, loop=None,
                 romfs_path=None):
        self.flash = Path(flash)
        self.romfs_path = Path(romfs_path) if romfs_path is not None else None
        self.romfs_size = self.romfs_path.stat().st_size if romfs_path is not None else 0
        self.capacity = capacity
        self.block = block
        self.identity = identity
        self.write = write
        self.on_reset = on_reset
        self.loop = loop
        self.proc = None
        self.mode = "f"
        self.sent = []  # times of input frames not yet answered
        self._in = b""
        self._out = bytearray()
        self.errors = []  # what the sandbox reported as its own failure, or sent wrongly
        self.starts = 0
        self.started_at = None
        self.ready_at = None

    # ---- life

    def start(self, mode="friendly", quiet=False, silent=False):
        """Start MicroPython with the flash as it is now; friendly shows the banner, raw
        the raw prompt (unless silent: the caller has written the prompt)."""
        self.stop()
        self.proc = subprocess.Popen(node_command(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=str(RUNNER.parent), preexec_fn=_die_with_parent)
        self.starts += 1
        self.started_at = time.monotonic()
        self.ready_at = None
        self.mode = "r" if mode == "raw" else "f"
        os.set_blocking(self.proc.stdout.fileno(), False)
        os.set_blocking(self.proc.stdin.fileno(), False)
        self._in = b""
        self._out = bytearray()
        self.sent = [time.monotonic()]  # the start itself is answered with an A frame
        if self.loop is not None:
            self.loop.add_reader(self.proc.stdout.fileno(), self._readable)
        for kind, rel, data in self._flash_files():
            self._send(kind, rel.encode() + (b"\0" + data if kind == "F" else b""))
        if self.romfs_path is not None:
            self._send("P", self.romfs_path.read_bytes())
        config = {
            "mode": mode, "quiet": quiet, "silent": silent, "heap": 192 * 1024,
            "prelude": PRELUDE.read_text(encoding="utf-8"),
            "banner": self.banner(),
            "identity": {"platform": self.identity["platform"],
                         "machine": self.identity["machine"],
                         "mpy": self.identity["mpy_word"], "build": "VORA_SIM",
                         "capacity": self.capacity, "block": self.block,
                         "romfs": self.romfs_size},
        }
        self._send("G", json.dumps(config).encode())

    def banner(self):
        return ("MicroPython v%s on 2025-12-10; %s\r\nType \"help()\" for more information.\r\n>>> "
                % (micropython_version(), self.identity["machine"]))

    def stop(self):
        proc = self.proc
        self.proc = None
        if proc is None:
            return
        if self.loop is not None and not self.loop.is_closed():
            try:
                self.loop.remove_reader(proc.stdout.fileno())
            except (ValueError, OSError):
                pass
            try:
                self.loop.remove_writer(proc.stdin.fileno())
            except (ValueError, OSError):
                pass
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for f in (proc.stdin, proc.stdout, proc.stderr):
            try:
                f.close()
            except OSError:
                pass

    @property
    def running(self):
        return self.proc is not None

    def _flash_files(self):
        """("K", rel, b"") for folders and ("F", rel, data) for files of the flash folder."""
        out = []
        root = self.flash
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            here = Path(dirpath)
            for d in sorted(dirnames):
                if not (here / d).is_symlink():
                    out.append(("K", (here / d).relative_to(root).as_posix(), b""))
            for f in sorted(filenames):
                p = here / f
                if p.is_file() and not p.is_symlink():
                    out.append(("F", p.relative_to(root).as_posix(), p.read_bytes()))
        return out

    # ---- bytes from the serial port

    def feed(self, data):
        if self.proc is None:
            return
        k = data.find(b"\x03")
        # Only code that runs can need stopping: while the sandbox is still starting (it
        # has not answered its start yet), Ctrl-C is input for its REPL like any byte.
        if k >= 0 and self.sent and self.ready_at is not None \
                and time.monotonic() - self.sent[0] > INTERRUPT_AFTER_S:
            self._interrupt(data[k + 1:])
            return
        self.sent.append(time.monotonic())
        self._send("I", bytes(data))

    def _interrupt(self, rest):
        # The sandbox is busy running code and cannot see Ctrl-C: start a fresh one, as the
        # KeyboardInterrupt would leave the board at its prompt (in-memory state is lost).
        self._restart(b"KeyboardInterrupt: ")
        if rest:
            self.feed(rest)

    def _restart(self, error):
        # What a board prints when code stops on an error, then a fresh MicroPython at the
        # same prompt: in the raw REPL the error goes between the two end-of-output marks.
        raw = self.mode == "r"
        self.stop()
        trace = b"Traceback (most recent call last):\r\n" + error + b"\r\n"
        if raw:
            self.write(b"\x04" + trace + b"\x04>")
        else:
            self.write(b"\r\n" + trace + b">>> ")
        self.start("raw" if raw else "friendly", quiet=True, silent=True)

    def _send(self, kind, payload):
        self._out += _frame(kind, payload)
        self._flush_in()

    def _flush_in(self):
        proc = self.proc
        if proc is None:
            return
        fd = proc.stdin.fileno()
        while self._out:
            try:
                n = os.write(fd, self._out)
            except BlockingIOError:
                break
            except (BrokenPipeError, OSError):
                self._out.clear()
                return
            del self._out[:n]
        if self.loop is not None:
            try:
                if self._out:
                    self.loop.add_writer(fd, self._flush_in)
                else:
                    self.loop.remove_writer(fd)
            except (ValueError, OSError):
                pass

    # ---- frames from the sandbox

    def _readable(self):
        proc = self.proc
        if proc is None:
            return
        try:
            data = os.read(proc.stdout.fileno(), 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._died()
            return
        self.take(data)

    def pump(self, timeout=0.0):
        """Without an event loop (tests): read what the sandbox wrote, waiting up to timeout."""
        import select
        end = time.monotonic() + timeout
        while self.proc is not None:
            left = max(0.0, end - time.monotonic())
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if not r:
                return
            self._readable()
            self._flush_in()
            if time.monotonic() >= end:
                return

    def take(self, data):
        self._in += data
        while len(self._in) >= 5:
            n = struct.unpack(">I", self._in[1:5])[0]
            if n > MAX_FRAME:
                self._bad("a frame of %d bytes" % n)
                return
            if len(self._in) < 5 + n:
                return
            kind = chr(self._in[0])
            payload = self._in[5:5 + n]
            self._in = self._in[5 + n:]
            self._handle(kind, payload)
            if self.proc is None:
                return

    def _handle(self, kind, payload):
        if kind == "O":
            self.write(payload)
        elif kind == "A":
            if self.sent:
                self.sent.pop(0)
            if payload in (b"f", b"r"):
                self.mode = payload.decode()
            if self.ready_at is None:
                self.ready_at = time.monotonic()
        elif kind == "X":
            self.stop()
            self.on_reset("soft" if payload == b"soft" else "hard")
        elif kind == "E":
            # JavaScript failed under MicroPython (code that reached the `js` module and
            # was refused by the sandbox, for one): that MicroPython's state is not to be
            # trusted any more, so a fresh one takes over, as after Ctrl-C.
            self.errors.append(payload.decode("utf-8", "replace")[:2000])
            self._restart(b"OSError: refused by the virtual board's sandbox")
        elif kind == "P":
            try:
                self._write_romfs(payload)
            except (ValueError, OSError) as exc:
                self.errors.append("P: %s" % exc)
        elif kind in "WDMRN":
            try:
                self._apply(kind, payload)
            except (ValueError, OSError) as exc:
                self.errors.append("%s: %s" % (kind, exc))
        else:
            self._bad("an unknown frame %r" % kind)

    def _apply(self, kind, payload):
        root = self.flash
        if kind == "W":
            z = payload.find(b"\0")
            if z < 0:
                raise ValueError("a file without a name")
            target = safe_path(root, payload[:z].decode("utf-8"))
            data = payload[z + 1:]
            if len(data) > self.capacity:
                raise ValueError("a file larger than the flash")
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            return
        if kind == "N":
            a, _, b = payload.partition(b"\0")
            os.replace(safe_path(root, a.decode("utf-8")), safe_path(root, b.decode("utf-8")))
            return
        target = safe_path(root, payload.decode("utf-8"))
        if kind == "D":
            if target.is_file():
                target.unlink()
        elif kind == "M":
            try:
                target.mkdir()
            except FileExistsError:
                pass
        elif kind == "R":
            try:
                target.rmdir()
            except OSError as exc:
                if exc.errno != errno.ENOENT:
                    raise

    def _write_romfs(self, payload):
        """Bytes the sandbox wrote to the ROMFS partition: u32 offset, then the bytes."""
        if self.romfs_path is None or len(payload) < 4:
            raise ValueError("a ROMFS write on a board without ROMFS")
        offset = struct.unpack(">I", payload[:4])[0]
        data = payload[4:]
        if offset + len(data) > self.romfs_size:
            raise ValueError("a write past the ROMFS partition's end")
        fd = os.open(self.romfs_path, os.O_WRONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "r+b") as f:
            f.seek(offset)
            f.write(data)

    def _bad(self, what):
        self.errors.append("the sandbox sent %s" % what)
        self.stop()
        self.write(b"\r\n[virtual board: its MicroPython misbehaved and was stopped]\r\n")

    def _died(self):
        proc = self.proc
        err = b""
        if proc is not None:
            try:
                err = proc.stderr.read() or b""
            except (OSError, ValueError):
                pass
        self.stop()
        if err:
            self.errors.append(err.decode("utf-8", "replace")[-2000:])
            sys.stderr.write("vora sim: the REPL's MicroPython stopped: %s\n"
                             % err.decode("utf-8", "replace")[-500:])

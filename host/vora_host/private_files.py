"""Files that hold a player's secrets, kept private to the account that plays.

The game log, its seat notes, `vora play --record` files and rescued games hold a live
game's seed, and a hidden game's seed gives away every hand (docs/secrets.md). They are
created 0600 (read and written by their owner only) in folders vora creates 0700, whatever
the umask, and one already there with looser modes is tightened when vora opens it, saying
so once on stderr (the file and its old mode). Only folders vora creates, or vora's own data
folder, are tightened: a folder the user chose (their home, /tmp) is left as it is.

Files are created with os.open(O_CREAT | O_EXCL | O_NOFOLLOW): never through a symbolic
link left at the name, never over a file another account put there first. A file written
whole (write_atomically) is written to a new temporary file beside it (tempfile.mkstemp:
0600, O_EXCL, a random name) and renamed over the old one, so it never exists with looser
modes, even for an instant. Public files (a .pub key) get their 0644 explicitly, not from
the umask.

SQLite creates a log's -wal and -shm itself, with the main file's permissions (its unix
VFS, robust_open / findCreateFileMode), so a 0600 log gets 0600 companions.
"""

import errno
import os
import stat
import sys
import tempfile

__all__ = ["PRIVATE_FILE", "PRIVATE_FOLDER", "PUBLIC_FILE", "make_folder", "create",
           "open_new", "private_database", "write_atomically", "tighten"]

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700
PUBLIC_FILE = 0o644

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _stderr(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _mode(st):
    return "%04o" % stat.S_IMODE(st.st_mode)


def tighten(path, what, say=None, mask=0o077):
    """Take away the other accounts' rights (group and others: the bits of `mask`) on an
    existing file or folder, and say so (`say`, stderr by default): 'the game log X was
    open to other accounts on this PC (mode 0644): it is now 0600, yours only'. `mask`
    0o022 takes away only their right to change it. Returns the old mode when it changed
    something, else None. A missing path is nothing to do; a path that cannot be changed
    (another account's file) is said, not raised."""
    say = say or _stderr
    try:
        st = os.stat(path)
    except OSError:
        return None
    old = stat.S_IMODE(st.st_mode)
    if not old & mask:
        return None
    new = old & ~mask
    how = "open to" if mask & 0o044 else "writable by"
    try:
        os.chmod(path, new)
    except OSError as exc:
        say("vora: %s %s is %s other accounts on this PC (mode %s) and vora cannot change "
            "that (%s): 'chmod %04o %s' does" % (what, path, how, _mode(st),
                                                 exc.strerror or exc, new, path))
        return None
    say("vora: %s %s was %s other accounts on this PC (mode %s): it is now %04o%s"
        % (what, path, how, _mode(st), new, ", yours only" if mask & 0o044 else ""))
    return old


def make_folder(path, own=False, say=None):
    """Make the folder `path` and any missing folder above it, each 0700 exactly. A folder
    that exists is left as it is, unless `own` (vora's own data folder, such as
    ~/.local/share/vora): then it is tightened (tighten). OSError when it cannot be made."""
    path = os.fspath(path)
    missing = []
    at = os.path.abspath(path)
    while not os.path.isdir(at):
        missing.append(at)
        parent = os.path.dirname(at)
        if parent == at:
            break
        at = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_FOLDER)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise
            continue  # made at this instant by another program: not ours to change
        os.chmod(folder, PRIVATE_FOLDER)  # the umask may have taken more away
    if own and not missing:
        tighten(path, "vora's data folder", say)
    return path


def create(path, mode=PRIVATE_FILE):
    """A new file `path` with exactly `mode`, opened for writing: its descriptor.
    FileExistsError when anything is at that name already, a symbolic link (even one
    pointing nowhere) included."""
    fd = os.open(os.fspath(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                 mode)
    try:
        os.fchmod(fd, mode)  # exactly: the umask only ever takes bits away
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_new(path, mode=PRIVATE_FILE, text=True):
    """create() as a file object, text (UTF-8) or binary."""
    fd = create(path, mode)
    return os.fdopen(fd, "w", encoding="utf-8") if text else os.fdopen(fd, "wb")


def private_database(path, create_missing=True, say=None):
    """Before SQLite opens the game log `path` (its folder made): a missing log is created
    empty and 0600 (SQLite then makes it a database, and its -wal and -shm 0600 like it);
    an existing one, and the -wal, -shm or -journal beside it, are tightened (tighten).
    OSError when `path` is a symbolic link to nothing: SQLite would create the file it
    points to, with the umask's modes."""
    path = os.fspath(path)
    try:
        if create_missing:
            os.close(create(path))
            return
    except FileExistsError:
        if os.path.islink(path) and not os.path.exists(path):
            raise OSError(errno.ENOENT, "it is a symbolic link to %s, which does not exist"
                          % os.readlink(path), path)
    except OSError:
        return  # a folder it cannot write to: SQLite says so, in the log's own words
    tighten(path, "the game log", say)
    for suffix in ("-wal", "-shm", "-journal"):  # left by a program that still has it open
        tighten(path + suffix, "the game log's journal", say)


def write_atomically(path, data, mode=PRIVATE_FILE):
    """Write `data` (str as UTF-8, or bytes) to `path` whole or not at all: a temporary
    file beside it (0600 from its first instant), synced, given `mode`, renamed over
    `path`. A symbolic link at `path` is replaced, never followed. OSError when it cannot
    be written; the old file, if any, is then as it was."""
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=name + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
            os.fchmod(f.fileno(), mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

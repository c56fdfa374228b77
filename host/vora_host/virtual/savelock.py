"""One virtual board per save folder: a lock on the folder for as long as a board uses it.

Two `vora play` (or `vora sim`) on the same save folder would both resume the same game
and then fight over it and over the game log; a `--fresh` in one would wipe the other's
game. The first one to start holds an advisory lock (flock) on `vora.lock` in the folder;
a second one is refused with a message naming the process that holds it. The lock goes
with the process, however it ends (the kernel releases it), so a crash leaves no stale
lock behind; the file itself stays (removing it would race with a newcomer).
"""

import os

try:
    import fcntl
except ImportError:  # not POSIX: the virtual board needs a pty anyway
    fcntl = None

__all__ = ["LOCK_NAME", "SaveFolderBusy", "SaveLock"]

LOCK_NAME = "vora.lock"


class SaveFolderBusy(Exception):
    """Another virtual board holds the save folder."""


class SaveLock:
    def __init__(self):
        self.folder = None
        self.fd = None

    def acquire(self, folder):
        """Take the lock on `folder`, or raise SaveFolderBusy (OSError when the folder is
        unusable)."""
        self.folder = str(folder)
        if fcntl is None:
            return
        fd = os.open(os.path.join(self.folder, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            raise SaveFolderBusy(
                "the save folder %s is in use by another virtual board (%s): two boards on "
                "one folder would play the same saved game and fight over it. Quit the other "
                "one first, or give this one its own folder with --save-dir DIR"
                % (self.folder, "process %s" % holder if holder.isdigit() else "another vora"))
        os.ftruncate(fd, 0)
        os.write(fd, b"%d\n" % os.getpid())
        self.fd = fd

    def release(self):
        if self.fd is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None

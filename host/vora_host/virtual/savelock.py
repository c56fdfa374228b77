"""One virtual board per save folder: a lock on the folder for as long as a board uses it.

Two `vora play` (or `vora sim`) on the same save folder would both resume the same game
and then fight over it and over the game log; a `--fresh` in one would wipe the other's
game. The first one to start holds an advisory lock (flock) on `vora.lock` in the folder;
a second one is refused with a message naming the process that holds it. The lock goes
with the process, however it ends (the kernel releases it), so a crash leaves no stale
lock behind. A board that quits removes the file, so the folder holds only its save; a
newcomer that locked the file just as it was removed sees that the name no longer leads
to the file it locked, and tries again with a fresh one.
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
        self.path = None
        self.fd = None

    def acquire(self, folder):
        """Take the lock on `folder`, or raise SaveFolderBusy (OSError when the folder is
        unusable)."""
        self.folder = str(folder)
        if fcntl is None:
            return
        path = os.path.join(self.folder, LOCK_NAME)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                raise SaveFolderBusy(
                    "the save folder %s is in use by another virtual board (%s): two boards "
                    "on one folder would play the same saved game and fight over it. Quit the "
                    "other one first, or give this one its own folder with --save-dir DIR"
                    % (self.folder, "process %s" % holder if holder.isdigit()
                       else "another vora"))
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # locked a file its holder removed on quitting: take a fresh one
        os.ftruncate(fd, 0)
        os.write(fd, b"%d\n" % os.getpid())
        self.fd = fd
        self.path = path

    def release(self):
        if self.fd is not None:
            try:
                os.unlink(self.path)  # while still locked: no newcomer holds this file
            except OSError:
                pass
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None

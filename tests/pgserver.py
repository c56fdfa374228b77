"""A throwaway PostgreSQL server for the tests and the benchmark, in a temporary folder.

    server = PgServer.start()          # initdb + pg_ctl start, a unix socket in the folder
    url = server.new_database()         # a log of its own: postgresql:///vora?host=...
    server.stop(); server.restart()     # the database going away mid-game, and coming back
    server.destroy()

The machine's server binaries (initdb, pg_ctl) are found on PATH or under
/usr/lib/postgresql/*/bin; `find_binaries()` says None when there are none (the tests are
then skipped saying so; `.ci/run` installs them). PostgreSQL refuses to run as root: as
root the server runs as the user `nobody` (runuser), in a folder made for it. Trust
authentication on a socket only this folder holds; fsync off: this server is for tests,
its durability is not what is tested.

Fixtures: `pg_server` (one server per test session), `pg_url` (a fresh database per
test).
"""

import glob
import itertools
import os
import shutil
import subprocess
import tempfile

import pytest

USER = "vora"
DATABASE = "vora"


def find_binaries():
    """(initdb, pg_ctl) paths, or None when this machine has no PostgreSQL server."""
    for folder in [None] + sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        initdb = shutil.which("initdb", path=folder)
        pg_ctl = shutil.which("pg_ctl", path=folder)
        if initdb and pg_ctl:
            return initdb, pg_ctl
    return None


def _as_server_user(argv):
    if os.geteuid() != 0:
        return argv
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    return [runuser, "-u", "nobody", "--"] + argv


class PgServer:
    def __init__(self, folder, binaries, fsync=False):
        self.fsync = fsync
        self.folder = folder
        self.data = os.path.join(folder, "data")
        self.initdb, self.pg_ctl = binaries
        self._names = itertools.count(1)

    @classmethod
    def start(cls, fsync=False):
        """fsync=True for figures: commits then wait for the disk, as in production."""
        binaries = find_binaries()
        if binaries is None:
            raise RuntimeError("no PostgreSQL server binaries (initdb, pg_ctl) on this machine")
        # In /tmp when there is one: the server's user (nobody, when run as root) must
        # reach the folder, and a unix socket's path must stay under about 100 bytes,
        # whatever $TMPDIR is.
        folder = tempfile.mkdtemp(prefix="vora-pg-", dir="/tmp" if os.path.isdir("/tmp")
                                  else None)
        if os.geteuid() == 0:
            shutil.chown(folder, "nobody")
        server = cls(folder, binaries, fsync)
        server._run([server.initdb, "-D", server.data, "-U", USER, "--auth=trust",
                     "-E", "UTF8", "--no-sync", "--no-instructions"])
        server.restart()
        import psycopg
        with psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE %s" % DATABASE)
        return server

    def _run(self, argv):
        done = subprocess.run(_as_server_user(argv), capture_output=True, text=True,
                              timeout=60, cwd=self.folder)
        if done.returncode != 0:
            raise RuntimeError("%s failed: %s%s" % (os.path.basename(argv[0]), done.stdout,
                                                    done.stderr))

    def restart(self):
        """Start the server (again, on the same data)."""
        self._run([self.pg_ctl, "-D", self.data, "-w", "-t", "30", "-l",
                   os.path.join(self.folder, "server.log"), "-o",
                   "-k %s -c listen_addresses='' %s-c max_connections=200"
                   % (self.folder, "" if self.fsync else "-F "),
                   "start"])

    def stop(self, mode="fast"):
        """Stop the server: `fast` ends every session (a host sees its connection go)."""
        self._run([self.pg_ctl, "-D", self.data, "-w", "-m", mode, "stop"])

    def url(self, database="postgres"):
        return "postgresql:///%s?host=%s&user=%s" % (database, self.folder, USER)

    def new_database(self):
        """A new empty game log: a schema of its own in the database `vora` (a schema
        costs a few catalog rows; a database, thousands of files to copy and delete).
        Its URL, with the schema as the search path."""
        import psycopg
        name = "log_%d" % next(self._names)
        with psycopg.connect(self.url(DATABASE), autocommit=True) as conn:
            conn.execute("CREATE SCHEMA %s" % name)
        return self.url(DATABASE) + "&options=-csearch_path%%3D%s" % name

    def destroy(self):
        try:
            self.stop("immediate")
        except (RuntimeError, subprocess.SubprocessError):
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server():
    pytest.importorskip("psycopg", reason="psycopg 3 is not installed (the postgres extra)")
    if find_binaries() is None:
        pytest.skip("no PostgreSQL server on this machine (initdb and pg_ctl not found; "
                    ".ci/run installs the postgresql package)")
    server = PgServer.start()
    yield server
    server.destroy()


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty game log (a schema) of the session's server."""
    return pg_server.new_database()

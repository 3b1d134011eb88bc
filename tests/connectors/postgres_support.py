"""A real PostgreSQL server for the JDBC tests: Debian's ``postgresql`` binaries (``./dev test``
installs them), a fresh cluster from ``initdb`` in a temporary directory, listening on a free
port of 127.0.0.1 only, with trust authentication for the ``kindling`` user. PostgreSQL refuses
to run as root, so under root the server runs as the ``postgres`` user the package creates."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid

USER = "kindling"


def binaries() -> str | None:
    """The directory of ``initdb`` and ``postgres`` (the newest installed version), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    postgres = shutil.which("postgres")
    return os.path.dirname(postgres) if postgres else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """A running server: ``url(database)`` is its JDBC URL, ``connect(database)`` a psycopg connection."""

    def __init__(self, bindir: str):
        self.bindir = bindir
        self.port = _free_port()
        self.directory = tempfile.mkdtemp(prefix="kindling-pg-")
        self.data = os.path.join(self.directory, "data")
        self.process: subprocess.Popen | None = None
        self.run_as: dict = {}
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.directory, account.pw_uid, account.pw_gid)
            self.run_as = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}

    def start(self) -> None:
        subprocess.run([os.path.join(self.bindir, "initdb"), "-D", self.data, "-U", USER, "--auth=trust",
                        "--encoding=UTF8", "--no-sync"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, cwd=self.directory, **self.run_as)
        log = open(os.path.join(self.directory, "server.log"), "wb")
        self.process = subprocess.Popen(
            [os.path.join(self.bindir, "postgres"), "-D", self.data, "-p", str(self.port), "-h", "127.0.0.1",
             "-k", self.directory, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
             "-c", "max_connections=100"],
            stdout=log, stderr=subprocess.STDOUT, cwd=self.directory, **self.run_as)
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                self.connect("postgres").close()
                break
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"PostgreSQL did not start on port {self.port}: "
                                       f"{open(os.path.join(self.directory, 'server.log')).read()[-2000:]}")
                time.sleep(0.2)

    def connect(self, database: str = "postgres"):
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user=USER, dbname=database, autocommit=True,
                               connect_timeout=5)

    def create_database(self) -> str:
        """A new empty database; its name."""
        name = f"db_{uuid.uuid4().hex[:10]}"
        with self.connect("postgres") as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return name

    def url(self, database: str) -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}?user={USER}"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown: disconnects clients
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

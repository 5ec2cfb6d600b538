"""A real redis-server on a free port in a temporary directory, for the fleet tests and bench/fleet.py.

Debian's redis-server package (`.ci/run` installs it). Nothing is persisted: no RDB snapshots, no AOF.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

STARTUP_SECONDS = 10.0


class RedisServerMissing(RuntimeError):
    """No redis-server on PATH."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """`with RedisServer() as server:` a running server at `server.url`, stopped and removed on exit."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._dir: tempfile.TemporaryDirectory | None = None
        self._process: subprocess.Popen | None = None

    def __enter__(self) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisServerMissing("redis-server is not installed: apt-get install -y redis-server "
                                     "(.ci/run does this when it is missing)")
        self._dir = tempfile.TemporaryDirectory(prefix="nanodream-redis-")
        log = Path(self._dir.name) / "redis.log"
        self._process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self._dir.name, "--save", "",
             "--appendonly", "no", "--logfile", str(log)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP_SECONDS
        while not self._answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"redis-server did not start on port {self.port}: "
                                   f"{log.read_text() if log.exists() else 'no log'}")
            time.sleep(0.02)
        return self

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10)
        if self._dir is not None:
            self._dir.cleanup()

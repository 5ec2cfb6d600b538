"""The host agent's busy file and the two-step shutdown: what other agents and process managers rely on."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from nanodream.scheduling.hostbusy import HostWait, busy_file, host_turn, read_host_busy, wait_until_idle
from nanodream.scheduling.shutdown import GracefulStop

NOW = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)


def write_claim(ws, **fields) -> None:
    busy_file(ws).parent.mkdir(parents=True, exist_ok=True)
    claim = {"pid": os.getpid(), "since": NOW.isoformat(), "expires": (NOW + timedelta(minutes=5)).isoformat()}
    claim.update(fields)
    busy_file(ws).write_text(json.dumps(claim))


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_live_claim_is_busy_until_it_expires(workspace):
    assert read_host_busy(workspace, NOW) is None
    write_claim(workspace)
    claim = read_host_busy(workspace, NOW)
    assert claim is not None and claim.pid == os.getpid()
    assert "serving a user turn" in claim.describe()
    assert read_host_busy(workspace, NOW + timedelta(minutes=5)) is None


def test_a_claim_by_a_dead_process_is_stale(workspace):
    write_claim(workspace, pid=dead_pid())
    assert read_host_busy(workspace, NOW) is None


def test_a_claim_from_another_machine_is_trusted_until_it_expires(workspace):
    write_claim(workspace, pid=dead_pid(), host=socket.gethostname() + "-elsewhere")
    assert read_host_busy(workspace, NOW) is not None


def test_an_unreadable_claim_counts_as_busy_only_while_it_is_fresh(workspace):
    write_claim(workspace)
    busy_file(workspace).write_text('{"pid": 12')  # a host caught mid-write
    assert read_host_busy(workspace) is not None
    old = time.time() - 11 * 60
    os.utime(busy_file(workspace), (old, old))
    assert read_host_busy(workspace) is None


def test_host_turn_holds_the_claim_for_the_turn_and_always_lets_go(workspace):
    with host_turn(workspace, ttl=timedelta(seconds=30)) as refresh:
        claim = read_host_busy(workspace)
        assert claim is not None and claim.pid == os.getpid()
        first_expiry = claim.expires
        time.sleep(1.1)
        refresh()
        assert read_host_busy(workspace).expires > first_expiry
    assert not busy_file(workspace).exists()
    with pytest.raises(RuntimeError), host_turn(workspace):
        raise RuntimeError("the turn crashed")
    assert not busy_file(workspace).exists()


def test_waiting_for_the_host_stops_early_on_shutdown(workspace):
    write_claim(workspace, expires=(datetime.now(UTC) + timedelta(minutes=5)).isoformat())
    naps: list[float] = []
    waiting = HostWait(sleep=naps.append, stop=lambda: "stopping" if naps else "")
    claim = wait_until_idle(workspace, waiting, limit=600, poll=5)
    assert claim is not None and naps == [5]


def test_first_signal_asks_for_a_stop_and_the_second_abandons():
    previous = signal.getsignal(signal.SIGTERM)
    heard: list[str] = []
    with GracefulStop(on_first=heard.append) as stop:
        assert stop.reason() == ""
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
        started = time.monotonic()
        stop.sleep(30)  # wakes up soon after the signal, not after 30 s
        assert time.monotonic() - started < 5
        assert heard == ["SIGTERM"] and stop.requested
        assert stop.reason().startswith("stopped by SIGTERM")
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler raises at the next bytecode
    assert signal.getsignal(signal.SIGTERM) is previous

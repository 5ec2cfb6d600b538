"""A dream whose model is a host agent: the run is nanodream's own, the session the host's.

`begin` starts `run_dream` — the very run `nanodream run` makes, for one batch — on a thread of its own, with a
HostEngine (run/host_engine.py) as its engine. The run enters the door (the workspace's one writer lock, held
until the run ends), cuts the batch a run would cut and reaches its session pass; there the engine hands the
session to the host and the thread waits. The host's calls arrive from other threads (the MCP server's, or a
Python host's) and run on the session's ToolBox; its finish lets the run go on through the accounting (one
corrective question, put back to the host), the guards, supersede, holds, pressure, apply and the insight phases,
and record itself, exactly as after a model's session.

An open session holds the lock in this process. It ends with the host's finish, its abort, or `timeout` seconds
without a call (a timer, so another process can begin right after without anyone calling this one); the process
stopping abandons it too (atexit), and a killed process drops the kernel's lock. Abandoned, the run unwinds before
anything is written: the workspace stays byte for byte as it was.
"""

from __future__ import annotations

import atexit
import re
import secrets
import threading
from dataclasses import replace
from typing import Any

from nanodream.config import Settings
from nanodream.engines import describe_error
from nanodream.engines.facts import batch_facts
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.run.host_engine import (
    Abandon,
    Channel,
    Ended,
    Finish,
    HostEngine,
    Opened,
    SessionAbandoned,
    Stop,
    Turn,
    tool_call_messages,
)
from nanodream.run.report import RunReport
from nanodream.toolbox.registry import ToolResult
from nanodream.toolbox.tools import SessionAborted
from nanodream.vocab import CONSUMED, HOST_TRIGGER, ExitCode, Refused
from nanodream.workspace import Workspace

HOST_PREFIX = "host/"
_UNNAMEABLE = re.compile(r"[^a-z0-9._-]+")


def host_model(client: str) -> str:
    """`host/<client>`: the model a host session's commit, record and transcript name (the MCP client's name)."""
    name = _UNNAMEABLE.sub("-", client.strip().lower()).strip("-.")[:64]
    return f"{HOST_PREFIX}{name or 'unknown'}"


class HostSession:
    """One host's dream session: the run's thread, the turn it waits on, the idle timer, one call at a time.

    `state`: starting (the run is on its way to the session), open (the host may call), working (the run goes on
    after a finish, an abort or a stop), ended.
    """

    def __init__(self, workspace: Workspace, settings: Settings, options: RunOptions) -> None:
        self.id = secrets.token_urlsafe(12)
        self.workspace = workspace
        self.model = settings.model
        self.timeout = settings.host_session_timeout
        self.channel = Channel()
        self.transcript: list[dict[str, Any]] = []
        self.engine = HostEngine(self.channel, self.transcript)
        self.lock = threading.Lock()
        self.state = "starting"
        self.opened: Opened | None = None
        self._timer: threading.Timer | None = None
        self._idle = 0  # which idle timer may still expire the session (a call since makes an older one moot)
        self._thread = threading.Thread(target=self._dream, args=(settings, options), daemon=True,
                                        name=f"nanodream host session {self.id}")

    # the run's thread ---------------------------------------------------------------------------------------

    def _dream(self, settings: Settings, options: RunOptions) -> None:
        ended = Ended(None, "the dream stopped without a result")  # whatever ends the thread, the host hears of it
        try:
            ended = Ended(run_dream(self.workspace, settings, options, engine_factory=lambda _: self.engine))
        except SessionAbandoned:
            ended = Ended(None)
        except Exception as exc:  # the run catches its own failures; this is one outside it, said in one line
            ended = Ended(None, f"internal error: {describe_error(exc)}")
        finally:
            self.channel.close(ended)

    # the host's side -------------------------------------------------------------------------------------------

    def start(self) -> Turn:
        """Start the run; its first turn: the session (Opened) or the end of a run that had none."""
        self._thread.start()
        return self._take(self.channel.next_turn())

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[ToolResult, Ended | None]:
        """One of the dream's tools on the staged copy; with it the run's end when the call ended the session (a
        path outside memory voids it, a cap or loop guard stops it)."""
        with self.lock:
            opened = self._require_open()
            try:
                result, stop = opened.toolbox.dispatch(name, arguments), None
            except SessionAborted as exc:
                result, stop = ToolResult(f"Error: {exc}", error="refused", problem=str(exc)), Stop(str(exc),
                                                                                                   exc.misuse)
            self.transcript += tool_call_messages(opened.toolbox.calls, name, arguments, result.text)
            voided = any(refusal.blocking for refusal in opened.toolbox.refusals)
            if stop is None and not voided:
                return result, None
            self._leave(stop or Finish("", {}))  # a voided session goes to the guards, which refuse it as in a run
        turn = self._take(self.channel.next_turn())
        return result, turn if isinstance(turn, Ended) else None

    def finish(self, summary: str, reasons: dict[int, str]) -> Turn:
        """The host's summary and reasons: the run goes on; its next turn is the question (Asked) or its end."""
        with self.lock:
            self._require_open()
            self._leave(Finish(summary, reasons))
        return self._take(self.channel.next_turn())

    def abort(self) -> Ended:
        """Leave with nothing applied; returns once the run has let the workspace go."""
        with self.lock:
            self._require_open()
            self._leave(Abandon())
        return self._end_of_run()

    def facts(self) -> list[int]:
        """The numbers of the batch's tagged facts: what `reasons` may name."""
        assert self.opened is not None
        return [fact.number for fact in batch_facts(self.opened.request.batch)]

    def _require_open(self) -> Opened:
        if self.state == "working":
            raise Refused(f"dream session {self.id} is finishing; wait for its answer", exit_code=ExitCode.USAGE)
        if self.state != "open" or self.opened is None:
            raise Refused(*_unknown(self.id))
        self._wake()
        return self.opened

    def _leave(self, answer: Finish | Stop | Abandon) -> None:
        """Hand the run an answer; the session takes no call until the run's next turn (called under the lock)."""
        self.state = "working"
        self._idle += 1
        if self._timer is not None:
            self._timer.cancel()
        self.channel.answer(answer)

    def _take(self, turn: Turn) -> Turn:
        """The run's next turn: open again for the host (idle timer restarted), or ended (forgotten)."""
        with self.lock:
            if isinstance(turn, Ended):
                self.state = "ended"
                if self._timer is not None:
                    self._timer.cancel()
                _forget(self)
            else:
                self.opened = turn if isinstance(turn, Opened) else self.opened
                self.state = "open"
                self._wake()
        return turn

    def _end_of_run(self) -> Ended:
        turn = self._take(self.channel.next_turn())
        assert isinstance(turn, Ended)  # an abandoned run unwinds: it has nothing more to ask
        return turn

    # the idle timer --------------------------------------------------------------------------------------------

    def _wake(self) -> None:
        """A call: the session may sit idle `timeout` seconds from now (called under the lock)."""
        self._idle += 1
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(self.timeout, self._expire, args=(self._idle,))
        self._timer.daemon = True
        self._timer.start()

    def _expire(self, idle: int) -> None:
        with self.lock:
            if self.state != "open" or idle != self._idle:
                return  # a call came in meanwhile, or the session is no longer the host's
            self._leave(Abandon())
        self._end_of_run()

    def stop_quietly(self, wait: float) -> None:
        """Abandon the session if it is open (the process is stopping), and give the run `wait` seconds to unwind."""
        with self.lock:
            if self.state != "open":
                return
            self._leave(Abandon())
        self._thread.join(wait)


# the open sessions of this process -------------------------------------------------------------------------

_OPEN: dict[str, HostSession] = {}
_REGISTRY = threading.Lock()


def _unknown(session_id: str) -> tuple[str, str, ExitCode]:
    return (f"no open dream session {session_id[:40]!r} in this workspace (it ended, expired or never began)",
            "begin one with dream_begin", ExitCode.USAGE)


def session_of(workspace: Workspace, session_id: str) -> HostSession:
    """The open session `session_id` of `workspace`; Refused (exit 2) for any other id."""
    with _REGISTRY:
        found = _OPEN.get(session_id)
    if found is None or found.workspace.root != workspace.root:
        raise Refused(*_unknown(session_id))
    return found


def _register(workspace: Workspace, settings: Settings, options: RunOptions) -> HostSession:
    """A new session, refused as busy while another of this process holds the workspace (another process's is
    found by the door, the same way)."""
    with _REGISTRY:
        holder = next((s for s in _OPEN.values() if s.workspace.root == workspace.root), None)
        if holder is not None:
            raise Refused(f"another dream session ({holder.model}) is open in {workspace.root}; try again when it "
                          "has finished or expired", exit_code=ExitCode.BUSY)
        session = HostSession(workspace, settings, options)
        _OPEN[session.id] = session
        return session


def _forget(session: HostSession) -> None:
    with _REGISTRY:
        _OPEN.pop(session.id, None)


def _stop_all() -> None:
    """At exit: every open session abandoned, so its run unwinds (and lets the lock go) before the process ends."""
    for session in list(_OPEN.values()):
        session.stop_quietly(wait=10.0)


atexit.register(_stop_all)


def begin(workspace: Workspace, settings: Settings, *, client: str = "",
          max_entries: int | None = None) -> tuple[HostSession, Turn]:
    """Open a session for the next batch, as `run` would cut it; the session and its first turn (Opened, or Ended
    when there was nothing to dream, or the door refused). A batch of only `[skip]` lines needs no model: the run
    consumes it, as any run does, and the next batch is cut."""
    hosted = replace(settings, model=host_model(client), tool_mode="native")
    options = RunOptions(trigger=HOST_TRIGGER, max_batches=1, max_entries=max_entries)
    while True:
        session = _register(workspace, hosted, options)
        turn = session.start()
        if not isinstance(turn, Ended) or not _consumed_without_session(turn.report):
            return session, turn


def _consumed_without_session(report: RunReport | None) -> bool:
    return report is not None and report.outcome in CONSUMED and report.consumed is not None

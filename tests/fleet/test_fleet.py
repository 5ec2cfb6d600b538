"""The fleet on a real Redis: one job per workspace, two workers draining many, a worker killed mid-dream,
quotas, job outcomes, a Redis that is down, a tenant's nanodream.toml aiming the worker elsewhere, and tenants
that link past their folder or whose repository would run programs.

redis-server is Debian's package; a missing one fails these tests (`.ci/run` installs it), it never skips
them. Workers are real `nanodream fleet worker` processes; enqueue and status run in-process.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from redis import Redis
from rq import Queue
from rq.job import Job
from rq.registry import StartedJobRegistry

from nanodream import clock
from nanodream.backlog.history import read_cursor
from nanodream.cli import app
from nanodream.config import ConfigError, Settings
from nanodream.fleet import sweep
from nanodream.fleet.config import FleetConfig, job_settings, load_fleet_config
from nanodream.fleet.discovery import ID_FILE, find_workspaces, read_workspace_id, workspace_id
from nanodream.fleet.due import judge
from nanodream.fleet.locks import QUEUED_TTL, WorkspaceLock, holder, lock_key, queued_key
from nanodream.fleet.quotas import Usage, within_budget
from nanodream.fleet.sweep import GRACE
from nanodream.memory.transaction import ensure_repository
from nanodream.run.records import append_record, read_records
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import RunRecord, utc_stamp
from nanodream.workspace import Workspace, scaffold
from tests.api.test_json import section_keys
from tests.support.cli import runner
from tests.support.paths import REPO
from tests.support.redis_server import RedisServer, RedisServerMissing, free_port
from tests.support.scripted_server import final, keeps_nothing
from tests.support.waiting import HANG, until
from tests.support.workspaces import git
from tests.test_processes import HOLD_THE_LOCK
from tests.versioning.test_git_untrusted import marker_script, set_config

REPO = REPO
# Another machine's heartbeat on a workspace lock, fresh for the whole test however slow the machine runs it.
FRESH = 3_600_000


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One real redis-server for the whole session, on a free port in a temporary directory."""
    try:
        server = RedisServer().__enter__()
    except RedisServerMissing as exc:
        pytest.fail(str(exc))
    yield server
    server.__exit__(None, None, None)


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, emptied for this test."""
    client = Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture
def redis(redis_url: str) -> Iterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    client.close()


# helpers ------------------------------------------------------------------------------------------------------


def fact(workspace: str, number: int) -> str:
    return f"Fact {number} of {workspace}."


def make_workspaces(root: Path, count: int, facts: int = 1, first: int = 0) -> list[Workspace]:
    """`count` workspaces with git repositories under `root`, each with `facts` [durable] entries of its own."""
    made = []
    for index in range(first, first + count):
        ws = Workspace.at(root / f"agent-{index:03d}")
        scaffold(ws.root)
        ensure_repository(GitStore(ws))
        lines = [json.dumps({"cursor": n, "timestamp": "2026-10-01 10:00", "session_key": "cli:direct",
                             "content": f"[durable] {fact(ws.root.name, n)}"}) for n in range(1, facts + 1)]
        ws.history_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        made.append(ws)
    return made


def fleet_config(tmp_path: Path, settings: dict | None = None, **fleet: object) -> Path:
    lines = ["[settings]", *(f"{k} = {json.dumps(v)}" for k, v in (settings or {"model": "builtin"}).items())]
    lines += ["[fleet]", *(f"{k} = {json.dumps(v)}" for k, v in fleet.items())]
    path = tmp_path / "fleet.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def enqueue(redis_url: str, config: Path, *roots: Path) -> dict:
    result = runner.invoke(app, ["fleet", "enqueue", *map(str, roots), "--redis", redis_url, "--config",
                                 str(config), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def fleet_status(redis_url: str) -> dict:
    result = runner.invoke(app, ["fleet", "status", "--redis", redis_url, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NANODREAM_", "GIT_"))}
    env.update(PYTHONPATH=str(REPO), LITELLM_LOCAL_MODEL_COST_MAP="True", **extra)
    return env


def start_worker(redis_url: str, config: Path, *, slow: float | None = None, burst: bool = True,
                 env: dict[str, str] | None = None, pinned: datetime | None = None) -> subprocess.Popen:
    """A `nanodream fleet worker` process; `slow`: through tests/support/fleet_driver.py (slow AppendEngine dreams);
    `pinned`: through tests/support/pinned_main.py, its clock pinned to that moment."""
    program = (["-m", "tests.support.fleet_driver", str(slow)] if slow is not None
               else ["-m", "tests.support.pinned_main", pinned.isoformat()] if pinned is not None
               else ["-m", "nanodream"])
    argv = [sys.executable, *program, "fleet", "worker", "--redis", redis_url, "--config", str(config)]
    return subprocess.Popen(argv + (["--burst"] if burst else []), cwd=REPO, env=env or child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def finish(process: subprocess.Popen) -> str:
    output, _ = process.communicate(timeout=HANG)
    assert process.returncode == 0, output
    return output


def dream_commits(ws: Workspace) -> list[str]:
    return [s for s in git(ws, "log", "--format=%s").splitlines() if s.startswith("dream")]


def consumed_lines(ws: Workspace) -> list[tuple[int, int]]:
    """The history line range of every dream commit, oldest first."""
    spans = re.findall(r"^Dream-Lines: (\d+)\.\.(\d+)$", git(ws, "log", "--reverse", "--format=%B"), re.MULTILINE)
    return [(int(a), int(b)) for a, b in spans]


def job_results(redis: Redis) -> dict[str, dict]:
    """Each finished job's return value, by workspace path."""
    from rq.registry import FinishedJobRegistry

    queue = Queue("nanodream", connection=redis)
    jobs = Job.fetch_many(FinishedJobRegistry(queue=queue).get_job_ids(), connection=redis)
    return {job.meta["workspace"]: job.return_value() for job in jobs if job is not None}


# enqueue ------------------------------------------------------------------------------------------------------


def test_enqueue_twice_gives_one_job_per_workspace(tmp_path, redis_url, redis, monkeypatch):
    monkeypatch.setattr(sweep, "CHUNK", 4)  # Redis work in pipelines of 4: chunk edges are crossed
    agents = tmp_path / "agents"
    made = make_workspaces(agents, 4) + make_workspaces(agents / "team" / "more", 2, first=4)
    (made[0].root / "inner" / "memory").mkdir(parents=True)  # a workspace's subdirectories are not searched
    (made[0].root / "inner" / "memory" / "history.jsonl").write_text("{}\n")
    (agents / "team" / "loop").symlink_to(agents)  # not followed
    (agents / "empty-dir").mkdir()
    config = fleet_config(tmp_path)

    first = enqueue(redis_url, config, agents)
    assert sorted(first["enqueued"]) == sorted(str(ws.root) for ws in made) and first["found"] == 6
    second = enqueue(redis_url, config, agents, agents / "team")  # overlapping roots: each workspace once
    assert (second["found"], second["enqueued"], second["queued"]) == (6, [], 6)
    assert Queue("nanodream", connection=redis).count == 6

    [running] = make_workspaces(agents, 1, first=10)
    redis.set(lock_key(workspace_id(running)), json.dumps({"job": "elsewhere"}), px=FRESH)
    third = enqueue(redis_url, config, agents)
    assert (third["enqueued"], third["queued"], third["running"]) == ([], 6, 1)
    redis.delete(lock_key(workspace_id(running)))  # its lock expired: the next sweep enqueues it
    assert enqueue(redis_url, config, agents)["enqueued"] == [str(running.root)]
    assert Queue("nanodream", connection=redis).count == 7


def test_enqueue_never_imports_litellm(tmp_path, redis_url):
    """The cron side of a fleet only finds and enqueues workspaces: it pays no model library (a fresh process)."""
    make_workspaces(tmp_path / "agents", 2)
    code = ("import sys\nfrom typer.testing import CliRunner\nfrom nanodream.cli import app\n"
            f"result = CliRunner().invoke(app, ['fleet', 'enqueue', {str(tmp_path / 'agents')!r}, '--redis', "
            f"{redis_url!r}, '--config', {str(fleet_config(tmp_path))!r}])\n"
            "assert result.exit_code == 0, result.output\nprint('litellm' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=HANG)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr[-2000:]


def test_a_marker_whose_job_is_gone_or_over_is_taken_over(tmp_path, redis_url, redis):
    [ws] = make_workspaces(tmp_path / "agents", 1)
    config = fleet_config(tmp_path)
    assert enqueue(redis_url, config, ws.root)["enqueued"] == [str(ws.root)]
    [job_id] = Queue("nanodream", connection=redis).job_ids
    Job.fetch(job_id, connection=redis).delete()  # e.g. lost between dequeue and lock, or removed by hand
    assert enqueue(redis_url, config, ws.root)["queued"] == 1  # young: another sweep may be enqueueing it
    marker = queued_key(workspace_id(ws))
    redis.expire(marker, QUEUED_TTL - GRACE)  # as old as GRACE
    assert enqueue(redis_url, config, ws.root)["enqueued"] == [str(ws.root)]
    [job_id] = Queue("nanodream", connection=redis).job_ids
    Job.fetch(job_id, connection=redis).set_status("failed")  # over, yet its marker stayed: taken over at once
    assert enqueue(redis_url, config, ws.root)["enqueued"] == [str(ws.root)]


# workers ------------------------------------------------------------------------------------------------------


def test_two_burst_workers_dream_every_workspace_exactly_once(tmp_path, redis_url, redis):
    made = make_workspaces(tmp_path / "agents", 24, facts=2)
    config = fleet_config(tmp_path)
    assert len(enqueue(redis_url, config, tmp_path / "agents")["enqueued"]) == 24

    outputs = [finish(p) for p in [start_worker(redis_url, config) for _ in range(2)]]

    assert all("Job OK" in output for output in outputs), "both workers took jobs"
    for ws in made:
        assert len(dream_commits(ws)) == 1, ws.root
        memory = (ws.root / "memory" / "MEMORY.md").read_text()
        assert all(memory.count(fact(ws.root.name, n)) == 1 for n in (1, 2)), memory
        [record] = read_records(ws)
        assert (record.trigger, record.outcome, record.entries) == ("fleet", "committed", 2)
        assert read_cursor(ws.cursor_file) == 2
    status = fleet_status(redis_url)
    assert (status["queued"], status["started"], status["finished"], status["failed"]) == (0, 0, 24, 0)
    assert enqueue(redis_url, config, tmp_path / "agents")["enqueued"] == []  # nothing left to dream


def test_a_worker_killed_mid_dream_leaves_a_workspace_the_next_sweep_finishes(tmp_path, redis_url, redis):
    """SIGKILL the worker and its work horse in the middle of a slow dream: the lock expires within lock_ttl,
    the next sweep enqueues the workspace again, and every fact is filed exactly once."""
    made = make_workspaces(tmp_path / "agents", 3, facts=4)
    config = fleet_config(tmp_path, {"model": "builtin", "batch_tokens": 1}, lock_ttl=2, heartbeat=0.4)
    enqueue(redis_url, config, tmp_path / "agents")
    ids = {workspace_id(ws): ws for ws in made}

    doomed = start_worker(redis_url, config, slow=0.4)

    def mid_dream() -> Workspace | None:  # a workspace with its lock held and a batch already committed
        return next((ws for identity, ws in ids.items() if redis.exists(lock_key(identity)) and dream_commits(ws)),
                    None)

    until(mid_dream, lambda: doomed.poll() is None, "no dream got under way")
    victim = mid_dream()
    assert victim is not None
    horse = holder(redis, workspace_id(victim))["pid"]
    os.killpg(doomed.pid, signal.SIGKILL)  # the worker first, so it cannot hand the job on as failed
    os.kill(horse, signal.SIGKILL)
    doomed.wait(HANG)
    assert 1 <= len(dream_commits(victim)) < 4

    assert enqueue(redis_url, config, tmp_path / "agents")["running"] == 1  # its heartbeat is still fresh
    until(lambda: not redis.exists(lock_key(workspace_id(victim))), what="the dead worker's lock never expired")
    assert str(victim.root) in enqueue(redis_url, config, tmp_path / "agents")["enqueued"]
    finish(start_worker(redis_url, config, slow=0.0))

    for ws in made:
        for path in ("SOUL.md", "USER.md", "memory/MEMORY.md", "skills/facts/SKILL.md"):
            text = (ws.root / path).read_text()
            assert [text.count(fact(ws.root.name, n)) for n in range(1, 5)] == [1, 1, 1, 1], (ws.root, path)
        assert consumed_lines(ws) == [(n, n) for n in range(1, 5)]
        assert read_cursor(ws.cursor_file) == 4 and not ws.journal_file.exists()
        assert git(ws, "status", "--porcelain") == ""


def test_outcomes_become_finished_or_failed_jobs_with_one_line_reasons(tmp_path, redis_url, redis):
    began = datetime.now(UTC).replace(microsecond=0)
    ok, blocked, busy, gone, stranger, elsewhere = make_workspaces(tmp_path / "agents", 6)
    config = fleet_config(tmp_path)
    enqueue(redis_url, config, tmp_path / "agents")
    other_machine = json.dumps({"job": "j-2", "host": "machine-2", "pid": 7})
    redis.set(lock_key(workspace_id(elsewhere)), other_machine, px=FRESH)  # taken after it was enqueued
    git(blocked, "checkout", "-q", "--detach")  # blocked until a person acts (exit 78)
    shutil.rmtree(gone.root)
    (stranger.state_dir / ID_FILE).write_text("0" * 32 + "\n")  # another workspace now lives at this path
    lock_holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, str(busy.root)], cwd=REPO,
                                   env=child_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert lock_holder.stdout.readline().strip() == "held"
        finish(start_worker(redis_url, config))
    finally:
        lock_holder.kill()
        lock_holder.wait(HANG)

    status = fleet_status(redis_url)
    assert set(status) == section_keys("fleet status --json")  # docs/json.md
    assert set(status["failures"][0]) == section_keys("fleet status --json", "Keys of a failure:")
    assert (status["queued"], status["finished"], status["failed"]) == (0, 3, 3)
    reasons = {f["workspace"]: f["reason"] for f in status["failures"]}
    assert reasons[str(blocked.root)].startswith("blocked: detached HEAD")
    assert "no longer exists" in reasons[str(gone.root)]
    assert "now holds another workspace" in reasons[str(stranger.root)]
    assert all("\n" not in reason and len(reason) < 400 for reason in reasons.values())
    assert all(began <= datetime.fromisoformat(f["at"]) <= datetime.now(UTC) for f in status["failures"])
    results = job_results(redis)
    assert results[str(ok.root)]["outcome"] == "committed"
    assert results[str(busy.root)]["outcome"] == "busy"
    assert "another dream is running" in results[str(busy.root)]["reason"]
    assert results[str(elsewhere.root)] == {
        "workspace": str(elsewhere.root), "outcome": "busy",
        "reason": "job j-2 on machine-2 (pid 7) is dreaming this workspace; a later sweep picks it up"}

    text = runner.invoke(app, ["fleet", "status", "--redis", redis_url])
    assert "0 queued · 0 started · 3 finished · 3 failed" in text.output and "detached HEAD" in text.output
    again = enqueue(redis_url, config, tmp_path / "agents")  # no RQ retry: the next sweep finds them due
    assert sorted(again["enqueued"]) == sorted([str(blocked.root), str(busy.root), str(stranger.root)])
    assert again["running"] == 1  # the other machine's lock: nothing added while it is fresh


# quotas -------------------------------------------------------------------------------------------------------


def _record(ws: Workspace, when: datetime, *, batches: int = 1, cost: float | None = None,
            outcome: str = "committed") -> None:
    append_record(ws, RunRecord(id=f"run-{time.monotonic_ns()}", start=utc_stamp(when), trigger="manual",
                                outcome=outcome, batches=batches, cost=cost))


def test_quotas_hold_workspaces_back_at_enqueue_and_in_the_job(tmp_path, redis_url, redis):
    used_runs, used_money, fresh, unknown_cost = make_workspaces(tmp_path / "agents", 4)
    config = fleet_config(tmp_path, max_runs_per_day=2, max_cost_per_day=0.5)
    now = datetime(2026, 6, 15, 0, 10, tzinfo=UTC)  # pinned, here and in the worker: "today" is one day for both
    _record(used_runs, now - timedelta(minutes=5))
    _record(used_runs, now - timedelta(minutes=1))
    _record(used_money, now - timedelta(minutes=1), cost=0.6)
    _record(fresh, now - timedelta(days=1), cost=9.0)  # yesterday (UTC) does not count
    _record(fresh, now - timedelta(days=1))
    _record(fresh, now, batches=0, outcome="busy")  # never reached the model
    _record(unknown_cost, now, cost=None)  # an unknown cost counts as 0

    with clock.pinned(now):
        swept = enqueue(redis_url, config, tmp_path / "agents")
    assert sorted(swept["enqueued"]) == sorted([str(fresh.root), str(unknown_cost.root)])
    held = {q["workspace"]: q["reason"] for q in swept["over_quota"]}
    assert held == {str(used_runs.root): "quota: 2 of 2 dreams today (UTC) used",
                    str(used_money.root): "quota: $0.6000 of $0.5000 spent today (UTC)"}

    _record(fresh, now)  # two manual dreams after the sweep: the job must see the quota is spent
    _record(fresh, now)
    finish(start_worker(redis_url, config, pinned=now))
    results = job_results(redis)
    assert results[str(fresh.root)]["outcome"] == "over-quota" and not dream_commits(fresh)
    assert results[str(unknown_cost.root)]["outcome"] == "committed"


def test_the_job_spends_at_most_what_is_left_of_the_day():
    config = FleetConfig(max_cost_per_day=0.5)
    assert within_budget(Settings(), Usage(1, 0.3), config).max_cost == pytest.approx(0.2)
    assert within_budget(Settings(max_cost=0.1), Usage(1, 0.3), config).max_cost == 0.1
    assert within_budget(Settings(), Usage(1, 0.3), FleetConfig()).max_cost is None


# Redis down ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["enqueue", "."], ["worker", "--burst"], ["status"], ["status", "--json"]])
def test_a_redis_that_is_down_is_one_line_and_exit_69(command):
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"  # nothing listens there
    done = subprocess.run([sys.executable, "-m", "nanodream", "fleet", *command, "--redis", url], cwd=REPO,
                          env=child_env(), capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 69, done.stdout + done.stderr
    said = done.stdout if "--json" in command else done.stderr
    assert "cannot reach Redis at redis://:***@127.0.0.1" in said and "hunter2" not in said + done.stderr
    assert "Traceback" not in done.stderr
    if "--json" in command:
        assert json.loads(said)["exit_code"] == 69
    else:
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("busy", [True, False], ids=["mid-dream", "idle"])
def test_a_redis_that_dies_under_a_running_worker_ends_it_in_one_line_and_exit_69(tmp_path, busy):
    with RedisServer() as dying:  # its own server: this one is stopped under the worker
        client = Redis.from_url(dying.url)
        config = fleet_config(tmp_path)
        if busy:
            make_workspaces(tmp_path / "agents", 1)
            enqueue(dying.url, config, tmp_path / "agents")
        worker = start_worker(dying.url, config, slow=30.0 if busy else None, burst=busy)
        try:
            until(lambda: StartedJobRegistry(queue=Queue("nanodream", connection=client)).count if busy
                  else client.keys("rq:worker:*"), lambda: worker.poll() is None, "the worker never got going")
            dying.__exit__(None, None, None)
            output, _ = worker.communicate(timeout=HANG)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, signal.SIGKILL)  # the work horse of a dream cut short
    assert worker.returncode == 69, output
    ours = [line for line in output.splitlines() if not re.match(r"\d\d:\d\d:\d\d ", line)]
    assert len(ours) == 1 and ours[0].startswith(f"error: cannot reach Redis at {dying.url}"), output
    for noise in ("Traceback", "unhandled exception", "could not connect", "retrying", "quitting"):
        assert noise not in output, output


def test_a_redis_that_refuses_the_password_says_so(redis_url, redis):
    redis.execute_command("ACL", "SETUSER", "fleet", "on", ">the-password", "~*", "&*", "+@all")
    url = redis_url.replace("redis://", "redis://fleet:not-the-password@")
    result = runner.invoke(app, ["fleet", "status", "--redis", url])
    assert result.exit_code == 69
    assert "Redis at redis://fleet:***@127.0.0.1" in result.output and "refused" in result.output
    assert "not-the-password" not in result.output


# the tenant's nanodream.toml ----------------------------------------------------------------------------------


def test_a_workspace_cannot_point_the_worker_at_its_own_api_base_or_key(tmp_path, redis_url, redis, serve):
    fleet_server = serve([keeps_nothing()] * 4)
    tenant_server = serve([final("Thanks for the key.")] * 4)
    [ws] = make_workspaces(tmp_path / "agents", 1)
    ws.config_file.write_text(f'model = "openai/tenant-model"\napi_base = "{tenant_server.url}"\n'
                              'api_key_env = "WORKER_SECRET"\nkeep_transcripts = 3\n', encoding="utf-8")
    config = fleet_config(tmp_path, {"model": "openai/scripted-model", "api_base": fleet_server.url,
                                     "api_key_env": "FLEET_KEY", "max_retries": 0, "timeout": 20})
    enqueue(redis_url, config, ws.root)
    finish(start_worker(redis_url, config, env=child_env(FLEET_KEY="fleet-key", WORKER_SECRET="worker-secret",
                                                          NANODREAM_API_BASE=tenant_server.url)))

    assert tenant_server.requests == []
    assert fleet_server.requests and {r["model"] for r in fleet_server.requests} == {"scripted-model"}
    assert set(fleet_server.authorizations) == {"Bearer fleet-key"}
    result = job_results(redis)[str(ws.root)]
    assert result["outcome"] == "no-change" and result["ignored"] == ["api_base", "api_key_env", "model"]


def test_the_fleet_config_decides_which_workspace_keys_apply(tmp_path, workspace, monkeypatch):
    workspace.config_file.write_text('api_base = "http://tenant.invalid/v1"\nbatch_tokens = 77\n'
                                     'soul_policy = "locked"\n')
    monkeypatch.setenv("NANODREAM_API_BASE", "http://from-the-environment.invalid/v1")  # not read by fleet jobs
    fleet = FleetConfig(settings={"api_base": "http://fleet.invalid/v1"})
    settings, ignored = job_settings(workspace, fleet)
    assert (settings.api_base, settings.batch_tokens, settings.soul_policy) == ("http://fleet.invalid/v1", 8000,
                                                                                "locked")
    assert ignored == ["api_base", "batch_tokens"]
    trusting = FleetConfig(settings=fleet.settings, workspace_keys=("api_base", "batch_tokens"))
    settings, ignored = job_settings(workspace, trusting)
    assert (settings.api_base, settings.batch_tokens, settings.soul_policy) == ("http://tenant.invalid/v1", 77,
                                                                                "tagged")
    assert ignored == ["soul_policy"]


# the fleet config ---------------------------------------------------------------------------------------------


def test_a_fleet_config_file_is_read_whole(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text('[settings]\nmodel = "openai/gpt-4o-mini"\napi_key_env = "OPENAI_API_KEY"\n'
                    '[fleet]\nmax_runs_per_day = 4\nmax_cost_per_day = 1\nworkspace_keys = ["schedule"]\n'
                    'lock_ttl = 30\nheartbeat = 10\n[paths]\n"/srv/agents" = "/mnt/agents"\n')
    config = load_fleet_config(path)
    assert config.settings == {"model": "openai/gpt-4o-mini", "api_key_env": "OPENAI_API_KEY"}
    assert (config.max_runs_per_day, config.max_cost_per_day, config.workspace_keys) == (4, 1, ("schedule",))
    assert (config.lock_ttl, config.heartbeat, config.job_timeout) == (30, 10, 3600)
    assert config.local_path("/srv/agents/a/b") == Path("/mnt/agents/a/b")
    assert config.local_path("/srv/agentsmore/a") == Path("/srv/agentsmore/a")
    assert load_fleet_config(None) == FleetConfig()


@pytest.mark.parametrize(("text", "message"), [
    ('[settings]\napi_key = "sk-1"\n', "api_key is not allowed"),
    ('[settings]\nmodle = "x"\n', "unknown key modle"),
    ("[settings]\nbatch_tokens = 0\n", "batch_tokens must be a whole number greater than 0"),
    ("[fleet]\nmax_runs_per_day = -1\n", "max_runs_per_day must be a whole number"),
    ("[fleet]\nlock_ttl = 10\nheartbeat = 6\n", "heartbeat must be at most half of lock_ttl"),
    ('[fleet]\nworkspace_keys = ["api_key"]\n', "unknown setting api_key"),
    ("[fleet]\nretries = 3\n", "unknown key retries"),
    ("[queue]\nname = 1\n", "unknown table queue"),
    ('[paths]\n"relative" = "/x"\n', "absolute path prefix"),
    ("[settings\n", "cannot be read"),
])
def test_a_bad_fleet_config_names_the_key(tmp_path, text, message):
    path = tmp_path / "fleet.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_fleet_config(path)


def test_a_bad_fleet_config_is_a_usage_error_before_redis_is_asked(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text("[fleet]\nheartbeat = 0\n")
    result = runner.invoke(app, ["fleet", "enqueue", str(tmp_path), "--config", str(path),
                                 "--redis", f"redis://127.0.0.1:{free_port()}/0"])
    assert result.exit_code == 2 and "heartbeat must be" in result.output


# due-ness, discovery, ids, the lock ---------------------------------------------------------------------------


def test_due_means_an_entry_after_the_position_the_schedule_and_quota_allow(tmp_path, workspace):
    now = datetime(2026, 10, 2, 12, 0, tzinfo=UTC)
    config = FleetConfig()
    assert judge(workspace, config, now).reason == "the backlog is empty"
    workspace.history_file.write_text("{not an entry\n")
    assert not judge(workspace, config, now).due  # a malformed line alone is no work for a dream
    make_workspaces(tmp_path, 1)  # (a fresh one, to borrow its history)
    workspace.history_file.write_text((tmp_path / "agent-000" / "memory" / "history.jsonl").read_text())
    assert judge(workspace, config, now).due
    workspace.config_file.write_text('schedule = "every 4h"\n')
    _record(workspace, now - timedelta(hours=1), outcome="no-change")
    verdict = judge(workspace, config, now)
    assert not verdict.due and verdict.reason.startswith("not due before 2026-10-02T15:00:00")
    assert judge(workspace, config, now + timedelta(hours=3)).due
    assert judge(workspace, FleetConfig(workspace_keys=()), now).due  # its schedule does not apply here
    workspace.config_file.write_text('schedule = "whenever"\n')
    assert judge(workspace, config, now).due  # the job reports the bad schedule where status shows it


def test_a_history_rewritten_past_placing_is_due_so_its_job_says_a_person_is_needed(tmp_path, redis_url, redis):
    [ws] = make_workspaces(tmp_path / "agents", 1, facts=3)
    config = fleet_config(tmp_path)
    enqueue(redis_url, config, tmp_path / "agents")
    finish(start_worker(redis_url, config))
    lines = ws.history_file.read_text().splitlines(keepends=True)
    ws.history_file.write_text(lines[0] + lines[1] + lines[2].replace("Fact 3", "Fact three"))  # edited in place
    assert judge(ws, FleetConfig(), datetime.now(UTC)).due
    enqueue(redis_url, config, tmp_path / "agents")
    finish(start_worker(redis_url, config))
    [failure] = fleet_status(redis_url)["failures"]
    assert failure["reason"].startswith("blocked: history.jsonl was rotated or rewritten")


def test_workspaces_are_found_under_the_roots_once_each(tmp_path):
    made = make_workspaces(tmp_path / "a", 2) + make_workspaces(tmp_path / "a" / "deeper" / "still", 1, first=2)
    (tmp_path / "a" / "file.txt").write_text("not a directory")
    found = list(find_workspaces([tmp_path / "a", tmp_path / "a" / "deeper", made[0].root]))
    assert found == [ws.root for ws in made]
    assert list(find_workspaces([tmp_path / "missing"])) == []


def test_the_workspace_id_is_made_once_and_kept(workspace):
    assert read_workspace_id(workspace) is None
    first = workspace_id(workspace)
    assert re.fullmatch(r"[0-9a-f]{32}", first) and workspace_id(workspace) == first
    assert workspace_id(workspace, proposed="f" * 32) == first
    (workspace.state_dir / ID_FILE).write_text("garbage\n")
    replaced = workspace_id(workspace)
    assert replaced != first and read_workspace_id(workspace) == replaced
    assert [p.name for p in workspace.state_dir.iterdir() if p.name.startswith(".")] == []


def test_the_heartbeat_keeps_the_lock_and_notices_losing_it(redis):
    lock = WorkspaceLock(redis, "a" * 32, ttl=1, heartbeat=0.2)
    assert lock.claim("job-1")
    try:
        assert not WorkspaceLock(redis, "a" * 32, ttl=1, heartbeat=0.2).claim("job-2")
        time.sleep(1.5)  # longer than the TTL: only the heartbeat keeps it
        assert holder(redis, "a" * 32)["job"] == "job-1" and lock.stop_reason() == ""
        redis.delete(lock_key("a" * 32))  # as if this process had stalled past the TTL
        until(lock.stop_reason, what="the heartbeat never noticed")
        assert "lock expired" in lock.stop_reason()
    finally:
        lock.release()
    assert not redis.exists(lock_key("a" * 32))


# tenants that reach past their own folder -----------------------------------------------------------------


def _id_file(ws: Workspace) -> Path:
    return ws.state_dir / ID_FILE


def linked_tenants(agents: Path) -> tuple[Workspace, dict[str, Workspace]]:
    """One victim and a tenant per kind of link into it."""
    victim, *tenants = make_workspaces(agents, 6)
    names = ["state-link", "git-link", "history-link", "memory-link", "clean"]
    by_name = {}
    for name, tenant in zip(names, tenants, strict=True):
        target = agents / name
        tenant.root.rename(target)
        by_name[name] = Workspace(target)
    victim.state_dir.mkdir(exist_ok=True)
    os.symlink(victim.state_dir, by_name["state-link"].state_dir)
    git_dir = by_name["git-link"].root / ".git"
    os.rename(git_dir, git_dir.with_name("git-own"))
    os.symlink(victim.root / ".git", git_dir)
    history = by_name["history-link"].history_file
    history.unlink()
    os.symlink(victim.history_file, history)
    memory = by_name["memory-link"].root / "memory"
    os.rename(memory, memory.with_name("memory-own"))
    os.symlink(victim.root / "memory", memory)
    os.symlink(victim.root, agents / "folder-link")  # the workspace folder itself
    return victim, by_name


def test_a_tenant_that_links_is_skipped_and_every_other_is_enqueued(tmp_path, redis_url, redis):
    agents = tmp_path / "agents"
    victim, tenants = linked_tenants(agents)
    config = fleet_config(tmp_path)

    for round_ in range(3):
        report = enqueue(redis_url, config, agents)
        skipped = {Path(item["workspace"]).name: item["reason"] for item in report["skipped"]}
        assert set(skipped) == {"state-link", "git-link", "history-link", "memory-link", "folder-link"}, skipped
        assert all("symbolic link" in reason for reason in skipped.values())
        assert ".nanodream" in skipped["state-link"] and ".git" in skipped["git-link"]
        assert "history.jsonl" in skipped["history-link"] and "memory" in skipped["memory-link"]
        if round_ == 0:
            assert sorted(report["enqueued"]) == sorted([str(victim.root), str(tenants["clean"].root)])
        else:
            assert report["enqueued"] == [] and report["queued"] == 2

    victim_id = read_workspace_id(victim)
    assert victim_id and redis.get(queued_key(victim_id)) is not None  # the victim keeps its own slot
    assert sorted(p.name for p in victim.state_dir.iterdir()) == [ID_FILE]  # nothing of another tenant in it
    for name in ("git-link", "history-link", "memory-link"):
        assert not _id_file(tenants[name]).exists()  # skipped before anything was written
    text = runner.invoke(app, ["fleet", "enqueue", str(agents), "--redis", redis_url, "--config", str(config)])
    assert text.exit_code == 0, text.output
    said = " ".join(text.output.split())
    assert "5 skipped" in said and "folder-link is a symbolic link" in said


def test_a_tenant_whose_repository_runs_programs_is_skipped_and_its_job_refuses(tmp_path, redis_url, redis,
                                                                              monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-worker-secret")
    script, ran = marker_script(tmp_path)
    clean, hooked, monitored, late = make_workspaces(tmp_path / "agents", 4)
    (hooked.root / ".git" / "hooks" / "post-index-change").write_text(script.read_text())
    (hooked.root / ".git" / "hooks" / "post-index-change").chmod(0o755)
    set_config(monitored, "core.fsmonitor", str(script))
    config = fleet_config(tmp_path)

    report = enqueue(redis_url, config, tmp_path / "agents")

    assert sorted(report["enqueued"]) == sorted([str(clean.root), str(late.root)])
    skipped = {item["workspace"]: item["reason"] for item in report["skipped"]}
    assert ".git/hooks/post-index-change" in skipped[str(hooked.root)]
    assert "core.fsmonitor" in skipped[str(monitored.root)]

    set_config(late, "filter.lfs.clean", str(script))  # after the sweep, before the job
    (late.root / ".gitattributes").write_text("* filter=lfs\n")
    finish(start_worker(redis_url, config))

    assert not ran.exists(), ran.read_text()[:400]
    failures = {item["workspace"]: item["reason"] for item in fleet_status(redis_url)["failures"]}
    assert "filter.lfs.clean" in failures[str(late.root)] and failures[str(late.root)].startswith("blocked:")
    assert "Fact 1" in (clean.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Fact 1" not in (late.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")


DEEP = "[" * 1500 + "]" * 1500  # raised RecursionError (not a ValueError) in every JSON reader before


def _hostile_state(ws: Workspace, how: str) -> None:
    """One tenant's files as no nanodream wrote them."""
    state = ws.state_dir
    state.mkdir(exist_ok=True)
    if how == "deep history line":
        ws.history_file.write_text(DEEP + "\n" + ws.history_file.read_text(encoding="utf-8"), encoding="utf-8")
    elif how == "deep position":
        (state / "position.json").write_text(DEEP)
    elif how == "deep run records":
        (state / "runs.jsonl").write_text(DEEP + "\n")
    elif how == "folder for position":
        (state / "position.json").mkdir()
    elif how == "folder for run records":
        (state / "runs.jsonl").mkdir()
    elif how == "file for state folder":
        state.rmdir()
        state.write_text("not a folder")
    elif how == "folder for id":
        (state / ID_FILE).mkdir()


def test_no_tenant_s_files_stop_the_sweep_for_the_others(tmp_path, redis_url, redis):
    """Over-deep documents are read as malformed; files no sweep can read skip that tenant with the reason."""
    read_as_malformed = ["deep history line", "deep position", "deep run records"]
    unreadable = ["folder for position", "folder for run records", "file for state folder", "folder for id"]
    workspaces = make_workspaces(tmp_path / "agents", len(read_as_malformed) + len(unreadable) + 1)
    hostile = dict(zip(read_as_malformed + unreadable, workspaces, strict=False))
    for how, ws in hostile.items():
        _hostile_state(ws, how)
    config = fleet_config(tmp_path, max_runs_per_day=5)

    report = enqueue(redis_url, config, tmp_path / "agents")

    assert report["found"] == len(workspaces)
    assert sorted(report["enqueued"]) == sorted(str(ws.root) for ws in
                                                 [*(hostile[how] for how in read_as_malformed), workspaces[-1]])
    skipped = {Path(item["workspace"]).name: item["reason"] for item in report["skipped"]}
    assert set(skipped) == {hostile[how].root.name for how in unreadable}
    reasons = {how: skipped[hostile[how].root.name] for how in unreadable}
    assert ".nanodream/position.json cannot be read (Is a directory)" in reasons["folder for position"]
    assert ".nanodream/runs.jsonl cannot be read (Is a directory)" in reasons["folder for run records"]
    assert f".nanodream/{ID_FILE}" in reasons["folder for id"]
    assert all("\n" not in reason for reason in reasons.values())

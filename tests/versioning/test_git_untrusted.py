"""Git never executes anything a workspace configures, and a git child never sees a provider key.

Each case is a real repository whose configuration (or `.git/hooks`, or `.gitattributes` with a driver) would
run a marker script; a whole life of the workspace — a hand edit, dreams that commit, `status`, `log`, `show`,
`why` (blame), a restore — must leave the marker unwritten, and `status` must name what was ignored.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from nanodream.cli import app
from nanodream.versioning.gitrunner import KEPT, git_environment, repository_programs, run_git
from nanodream.workspace import Workspace
from tests.support.cli import runner
from tests.support.paths import REPO
from tests.support.workspaces import entry, write_history

HOOKS = ("reference-transaction", "post-index-change", "pre-commit", "commit-msg", "post-commit", "pre-auto-gc",
         "post-checkout", "post-rewrite", "prepare-commit-msg", "pre-push", "fsmonitor-watchman")


def marker_script(tmp_path: Path, name: str = "marker") -> tuple[Path, Path]:
    """A program that records that it ran (and the environment it got), then behaves like `cat`."""
    log = tmp_path / f"{name}.ran"
    script = tmp_path / f"{name}.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{log}'\nenv >> '{log}'\ncat\n")
    script.chmod(0o755)
    return script, log


def set_config(ws: Workspace, key: str, value: str) -> None:
    """Written with git config --file: setting configuration runs nothing."""
    subprocess.run(["git", "config", "--file", str(ws.root / ".git" / "config"), key, value], check=True)


def attributes(ws: Workspace, line: str) -> None:
    for folder in ("", "memory/", "skills/"):
        (ws.root / folder / ".gitattributes").write_text(line + "\n")
    (ws.root / ".git" / "info").mkdir(exist_ok=True)
    (ws.root / ".git" / "info" / "attributes").write_text(line + "\n")


def _hooks_folder(ws: Workspace, script: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        (folder / name).write_text(script.read_text())
        (folder / name).chmod(0o755)


# (what the case sets, the keys status must name, how to set it up)
CASES = {
    "hooks": ([".git/hooks/reference-transaction", ".git/hooks/post-index-change", ".git/hooks/pre-commit"],
              lambda ws, s, tmp: _hooks_folder(ws, s, ws.root / ".git" / "hooks")),
    "core.hooksPath": (["core.hooksPath"], lambda ws, s, tmp: (
        _hooks_folder(ws, s, tmp / "shared-hooks"), set_config(ws, "core.hooksPath", str(tmp / "shared-hooks")))),
    "core.fsmonitor": (["core.fsmonitor"], lambda ws, s, tmp: set_config(ws, "core.fsmonitor", str(s))),
    "filter driver": (["filter.evil.clean", "filter.evil.smudge"], lambda ws, s, tmp: (
        set_config(ws, "filter.evil.clean", str(s)), set_config(ws, "filter.evil.smudge", str(s)),
        attributes(ws, "* filter=evil"))),
    "filter process": (["filter.evil.process"], lambda ws, s, tmp: (
        set_config(ws, "filter.evil.process", str(s)), set_config(ws, "filter.evil.required", "true"),
        attributes(ws, "*.md filter=evil"))),
    "textconv": (["diff.evil.textconv"], lambda ws, s, tmp: (set_config(ws, "diff.evil.textconv", str(s)),
                                                              attributes(ws, "* diff=evil"))),
    "diff driver command": (["diff.evil.command"], lambda ws, s, tmp: (set_config(ws, "diff.evil.command", str(s)),
                                                                      attributes(ws, "* diff=evil"))),
    "diff.external": (["diff.external"], lambda ws, s, tmp: set_config(ws, "diff.external", str(s))),
    "signing": (["gpg.program", "commit.gpgSign"], lambda ws, s, tmp: (
        set_config(ws, "gpg.program", str(s)), set_config(ws, "commit.gpgSign", "true"),
        set_config(ws, "user.signingKey", "ABCDEF"))),
    "ssh signing": (["gpg.ssh.program", "gpg.ssh.defaultKeyCommand", "commit.gpgSign"], lambda ws, s, tmp: (
        set_config(ws, "gpg.format", "ssh"), set_config(ws, "gpg.ssh.program", str(s)),
        set_config(ws, "gpg.ssh.defaultKeyCommand", str(s)), set_config(ws, "commit.gpgSign", "true"))),
    "verifying": (["log.showSignature", "gpg.program"], lambda ws, s, tmp: (
        set_config(ws, "log.showSignature", "true"), set_config(ws, "gpg.program", str(s)))),
    "pager and editors": (["core.pager", "core.editor", "sequence.editor", "pager.log"], lambda ws, s, tmp: (
        set_config(ws, "core.pager", str(s)), set_config(ws, "core.editor", str(s)),
        set_config(ws, "sequence.editor", str(s)), set_config(ws, "pager.log", str(s)))),
    "transports": (["core.sshCommand", "credential.helper", "core.askPass", "core.gitProxy", "remote.origin.uploadpack",
                    "protocol.ext.allow"], lambda ws, s, tmp: (
        set_config(ws, "core.sshCommand", str(s)), set_config(ws, "credential.helper", str(s)),
        set_config(ws, "core.askPass", str(s)), set_config(ws, "core.gitProxy", str(s)),
        set_config(ws, "remote.origin.url", f"ext::{s} %S"), set_config(ws, "remote.origin.uploadpack", str(s)),
        set_config(ws, "protocol.ext.allow", "always"))),
    "alternate refs": (["core.alternateRefsCommand"], lambda ws, s, tmp: set_config(
        ws, "core.alternateRefsCommand", str(s))),
    "merge driver": (["merge.evil.driver"], lambda ws, s, tmp: (set_config(ws, "merge.evil.driver", str(s)),
                                                                 attributes(ws, "* merge=evil"))),
    "shell alias": (["alias.status", "alias.log"], lambda ws, s, tmp: (set_config(ws, "alias.status", f"!{s}"),
                                                                        set_config(ws, "alias.log", f"!{s}"))),
    "include.path": (["include.path", "core.fsmonitor", "filter.hidden.clean"], lambda ws, s, tmp: (
        (tmp / "included.cfg").write_text(f"[core]\n\tfsmonitor = {s}\n[filter \"hidden\"]\n\tclean = {s}\n"),
        set_config(ws, "include.path", str(tmp / "included.cfg")), attributes(ws, "* filter=hidden"))),
    "includeIf": (["includeIf.gitdir:/.path", "core.hooksPath"], lambda ws, s, tmp: (
        _hooks_folder(ws, s, tmp / "included-hooks"),
        (tmp / "conditional.cfg").write_text(f"[core]\n\thooksPath = {tmp / 'included-hooks'}\n"),
        set_config(ws, "includeIf.gitdir:/.path", str(tmp / "conditional.cfg")))),
}


def live_a_life(ws: Workspace) -> None:
    """Every git path nanodream has: hand-edit commit, dreams, status, log, show, why (blame), restore."""
    write_history(ws, [entry(1, "[durable] The API is written in Go."),
                       entry(2, "[permanent] User prefers short answers.")])
    user = ws.root / "USER.md"
    user.write_text(user.read_text() + "- Lives in Lyon.\n")  # a hand edit: committed as the person's
    (ws.root / "nanodream.toml").write_text('model = "builtin"\n')
    for args in (["run"], ["status"], ["log"], ["show"], ["why", "Go"], ["history", "list"]):
        result = runner.invoke(app, [*args, "-w", str(ws.root)])
        assert result.exit_code == 0, (args, result.output)
    assert "Go" in (ws.root / "memory" / "MEMORY.md").read_text()  # the dream itself went on
    sha = json.loads(runner.invoke(app, ["log", "--json", "-w", str(ws.root)]).output)["commits"][0]["sha"]
    result = runner.invoke(app, ["restore", sha, "-w", str(ws.root)])
    assert result.exit_code in (0, 2), result.output


@pytest.mark.parametrize("case", sorted(CASES))
def test_nothing_a_repository_configures_ever_runs_and_status_names_it(workspace, tmp_path, case, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-worker-secret-key")
    script, ran = marker_script(tmp_path)
    keys, setup = CASES[case]
    setup(workspace, script, tmp_path)

    live_a_life(workspace)

    assert not ran.exists(), ran.read_text()[:500]
    status = runner.invoke(app, ["status", "--json", "-w", str(workspace.root)])
    assert status.exit_code == 0, status.output
    named = {item["key"].lower() for item in json.loads(status.output)["git_ignored"]}
    assert {key.lower() for key in keys} <= named
    text = runner.invoke(app, ["status", "-w", str(workspace.root)]).output
    assert keys[0].lower() in text.lower() and "never runs" in text


def test_a_clean_repository_names_nothing(workspace):
    assert repository_programs(workspace.root) == []
    status = json.loads(runner.invoke(app, ["status", "--json", "-w", str(workspace.root)]).output)
    assert status["git_ignored"] == []


def test_switches_that_are_off_and_sample_hooks_are_not_findings(workspace):
    set_config(workspace, "core.fsmonitor", "false")
    set_config(workspace, "commit.gpgSign", "false")
    set_config(workspace, "alias.st", "status --short")
    set_config(workspace, "protocol.ext.allow", "never")
    hooks = workspace.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit.sample").write_text("#!/bin/sh\n")
    (hooks / "pre-commit.sample").chmod(0o755)
    (hooks / "post-commit").write_text("#!/bin/sh\n")  # not executable: git does not run it
    assert repository_programs(workspace.root) == []


# the environment of a git child -------------------------------------------------------------------------------


def test_a_git_child_keeps_path_and_dates_and_never_a_key(workspace, tmp_path, monkeypatch):
    """A wrapper `git` first on PATH records each child's environment (git runs through the git on PATH)."""
    wrapper_dir = tmp_path / "bin"
    wrapper_dir.mkdir()
    seen = tmp_path / "environments"
    real_git = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True).stdout.strip()
    wrapper = wrapper_dir / "git"
    wrapper.write_text(f"#!/bin/sh\n{{ env; echo ----; }} >> '{seen}'\nexec '{real_git}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    secrets = {"OPENAI_API_KEY": "sk-openai-secret", "ANTHROPIC_API_KEY": "sk-ant-secret",
               "NANODREAM_API_KEY": "nd-secret", "MY_GATEWAY_KEY": "gw-secret",
               "NANODREAM_REDIS_URL": "redis://:redispw@host/0", "AWS_SECRET_ACCESS_KEY": "aws-secret"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PATH", f"{wrapper_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-09-01T12:00:00Z")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-09-01T12:00:00Z")
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])

    assert runner.invoke(app, ["run", "-w", str(workspace.root)]).exit_code == 0

    children = [block for block in seen.read_text().split("----\n") if block.strip()]
    assert len(children) > 5
    for block in children:
        names = {line.split("=", 1)[0] for line in block.splitlines() if "=" in line}
        assert "PATH" in names and "GIT_AUTHOR_DATE" in names and "GIT_COMMITTER_DATE" in names
        assert not any(value in block for value in secrets.values())
        assert names <= set(KEPT) | {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES",
                                     "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "LC_ALL", "GIT_CONFIG_COUNT",
                                     "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                                     "GIT_COMMITTER_EMAIL", "PWD", "SHLVL", "_", "OLDPWD"} \
            | {name for name in names if name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))}
    dated = subprocess.run(["git", "log", "-1", "--format=%cI"], cwd=workspace.root, capture_output=True, text=True)
    assert dated.stdout.startswith("2026-09-01T12:00:00")


def test_redirecting_variables_never_reach_a_git_child(workspace, tmp_path, monkeypatch):
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    for name, value in {"GIT_DIR": str(other / ".git"), "GIT_WORK_TREE": str(other),
                        "GIT_INDEX_FILE": str(other / ".git" / "index"), "GIT_CONFIG_GLOBAL": str(tmp_path / "x"),
                        "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath",
                        "GIT_CONFIG_VALUE_0": str(tmp_path), "GIT_EXTERNAL_DIFF": "/bin/false",
                        "GIT_SSH_COMMAND": "/bin/false", "GIT_ASKPASS": "/bin/false"}.items():
        monkeypatch.setenv(name, value)
    env = git_environment(workspace.root)
    assert env["GIT_DIR"] == str(workspace.root / ".git") and "GIT_INDEX_FILE" not in env
    assert not {"GIT_CONFIG_GLOBAL", "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_ASKPASS"} & set(env)
    top = run_git(workspace.root, "rev-parse", "--show-toplevel").stdout.decode().strip()
    assert top == str(workspace.root)


def test_no_repository_above_the_workspace_is_ever_used(tmp_path):
    """A workspace inside another repository, before its own exists: git must not find the outer one."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    inner = tmp_path / "agent"
    inner.mkdir()
    done = run_git(inner, "rev-parse", "--git-dir", check=False)
    assert done.returncode != 0


def test_nothing_else_in_the_package_starts_a_process():
    """versioning/gitrunner.py is the one place a child process starts (git, always through run_git)."""
    package = REPO / "nanodream"
    starters = ("subprocess", "os.system", "os.popen", "os.exec", "os.spawn", "pty.spawn", "Popen")
    found = [str(path.relative_to(package)) for path in package.rglob("*.py")
             if any(word in path.read_text(encoding="utf-8") for word in starters)]
    assert found == ["versioning/gitrunner.py"]

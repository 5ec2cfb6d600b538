"""Issue #34, class 8 and class 9's redact item: every view of history shows what memory would.

One credential, stated in a history entry a dream consumed (and in a malformed line, and in a quarantined
entry), is fed through every view that shows history: `show` (text and JSON), the host API, `why`, the slash
command, the page's commit and why views, the MCP server's `memory_show` and `memory_why`, `run -o`, the
quarantine list and its file, the dead letters and `status`. Each shows the entry with the credential redacted
by the one scanner memory uses (`secret_scan.redacted`). And the built-in engine honours `secret_policy`: a fact
line holding a credential is kept redacted under "redact", left out with a warning under "refuse".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from nanodream import api
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.memory.transaction import ensure_repository
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.safety.secret_scan import redacted
from nanodream.slash import handle
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.serve.test_serve import PageServer
from tests.support.cli import runner
from tests.support.fakes import noting_model
from tests.support.mcp_client import mcp_server, text
from tests.support.workspaces import entry, git, llm_settings, write_history

TOKEN = "Tr1cky!" + "Pass"
STATED = f"the NAS pw is {TOKEN}"
MARK = "(redacted Password)"


@pytest.fixture(scope="module")
def dreamed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, Path]:
    """A dream (run through the CLI with `-o`) consumed an entry stating the credential; a malformed line holds it
    too. Returns the workspace and the `-o` file."""
    root = tmp_path_factory.mktemp("views")
    ws = Workspace.at(root / "ws")
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    write_history(ws, [entry(1, f"[durable] The NAS lives at nas.lan.\n[durable] {STATED}"),
                       '{"cursor": 2, "content": "[durable] ' + STATED])
    output = root / "run.yaml"
    ran = runner.invoke(app, ["run", "-w", str(ws.root), "-m", "builtin", "-o", str(output)])
    assert ran.exit_code == 0, ran.output
    assert TOKEN not in ran.output
    return ws, output


def dream_sha(ws: Workspace) -> str:
    return git(ws, "log", "-1", "--format=%H", "--grep=^dream:")


def test_the_one_scanner_redacts_the_statement():
    assert TOKEN not in redacted(STATED) and MARK in redacted(STATED)


def test_show_and_the_host_api_list_the_consumed_entry_redacted(dreamed):
    ws, _ = dreamed
    shown = runner.invoke(app, ["show", "-w", str(ws.root)])
    as_json = runner.invoke(app, ["show", "-w", str(ws.root), "--json"])
    detail = api.show(ws).detail
    assert detail is not None
    [consumed] = detail.history_entries
    assert "nas.lan" in consumed["content"] and MARK in consumed["content"]
    for view in (shown.output, as_json.output, json.dumps(detail.history_entries)):
        assert "nas.lan" in view and TOKEN not in view


def test_why_and_the_slash_log_show_the_entry_redacted(dreamed):
    ws, _ = dreamed
    why = runner.invoke(app, ["why", "-w", str(ws.root), "nas.lan"])
    why_json = runner.invoke(app, ["why", "-w", str(ws.root), "nas.lan", "--json"])
    slash = handle(ws.root, f"/dream-log {dream_sha(ws)[:8]}")
    for view in (why.output, why_json.output, slash):
        assert MARK in view and TOKEN not in view, view


def test_the_page_shows_the_commit_and_why_redacted(dreamed):
    ws, _ = dreamed
    with PageServer(ws) as page:
        commit = httpx.get(f"{page.url}/commit/{dream_sha(ws)}")
        why = httpx.get(f"{page.url}/why", params={"q": "nas.lan"})
    for view in (commit, why):
        assert view.status_code == 200 and "nas.lan" in view.text and TOKEN not in view.text


def test_mcp_memory_show_and_memory_why_return_the_entry_redacted(dreamed):
    ws, _ = dreamed
    with mcp_server(ws.root) as client:
        shown = text(client.call("memory_show", {"sha": dream_sha(ws)[:8]}))
        why = text(client.call("memory_why", {"text": "nas.lan"}))
    for view in (shown, why):
        assert MARK in view and TOKEN not in view, view


def test_run_output_dead_letters_and_status_hold_no_credential(dreamed):
    ws, output = dreamed
    listed = runner.invoke(app, ["history", "list", "-w", str(ws.root), "--json"])
    status = runner.invoke(app, ["status", "-w", str(ws.root), "--json"])
    assert json.loads(listed.stdout)[0]["line"] == 2
    letters = (ws.root / ".nanodream/dead_letters.json").read_text()
    for view in (output.read_text(), listed.output, status.output, letters, ws.runs_file.read_text()):
        assert TOKEN not in view


def test_a_quarantined_entrys_preview_is_redacted_in_the_list_and_its_file(workspace, serve):
    poison = "MARKER-THE-PROVIDER-REJECTS"
    write_history(workspace, [entry(1, "[durable] The API is written in Go."),
                              entry(2, f"[durable] {STATED} {poison}"),
                              entry(3, "[durable] Deploys run on Fridays.")])
    server = serve([noting_model(poison=poison)] * 20)
    report = run_dream(workspace, llm_settings(server, batch_tokens=1000, split_after=1, max_retries=0))
    assert report.quarantined == [2], report.reason
    listed = runner.invoke(app, ["quarantine", "-w", str(workspace.root)])
    as_json = runner.invoke(app, ["quarantine", "-w", str(workspace.root), "--json"])
    stored = (workspace.root / ".nanodream/quarantine.json").read_text()
    for view in (listed.output, as_json.output, stored):
        assert MARK in view and TOKEN not in view, view


# the built-in engine and secret_policy (class 9) ----------------------------------------------------------------

FACTS = [  # (the fact, what memory keeps under "redact", the rule, the credential)
    ("[durable] the NAS pw is " + TOKEN, "the NAS pw is (redacted Password)", "Password", TOKEN),
    ("[durable] Hotels go on card 4111 1111 " + "1111 1111 cvv 123", "Hotels go on card (redacted Card Number)",
     "Card Number", "1111 1111 cvv 123"),
    ("[permanent] Router admin login is admin / Zq8!" + "rT4wK", "Router admin login is admin / (redacted Password)",
     "Password", "Zq8!" + "rT4wK"),
    ("[durable] 739104 is the code for the storage unit", "(redacted PIN) is the code for the storage unit", "PIN",
     "739104"),
    ("[durable] The laptop password is violet-otter-sunrise-paddle", "The laptop password is (redacted Passphrase)",
     "Passphrase", "violet-otter-sunrise-paddle"),
]


@pytest.mark.parametrize(("fact", "kept", "rule", "secret"), FACTS)
def test_the_builtin_engine_keeps_a_fact_with_its_credential_redacted_under_redact(workspace, fact, kept, rule, secret):
    write_history(workspace, [entry(1, f"[durable] The NAS lives at nas.lan.\n{fact}")])
    report = run_dream(workspace, Settings(model="builtin", secret_policy="redact"))

    assert report.outcome == "committed", report.reason
    memory = "".join((workspace.root / p).read_text() for p in ("USER.md", "SOUL.md", "memory/MEMORY.md"))
    assert "nas.lan" in memory and kept.lower() in memory.lower(), memory
    assert secret not in git(workspace, "log", "-p", "--all")


@pytest.mark.parametrize(("fact", "kept", "rule", "secret"), FACTS)
def test_the_builtin_engine_leaves_it_out_with_a_warning_under_refuse(workspace, fact, kept, rule, secret):
    write_history(workspace, [entry(1, f"[durable] The NAS lives at nas.lan.\n{fact}")])
    report = run_dream(workspace, Settings(model="builtin"))

    assert report.outcome == "committed", report.reason
    memory = "".join((workspace.root / p).read_text() for p in ("USER.md", "SOUL.md", "memory/MEMORY.md"))
    rest_of_the_line = re.sub(r"\(redacted [^)]*\)", "", kept).strip()
    assert "nas.lan" in memory and rest_of_the_line.lower() not in memory.lower() and secret not in memory
    [warning] = report.batches[0].warnings
    assert "withheld a fact holding a credential" in warning and rule in warning
    assert secret not in warning
    assert read_records(workspace)[-1].warnings == [warning]

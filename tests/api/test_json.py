"""Every --json output parses and has exactly the keys docs/json.md lists for it, and the page and the MCP output
schemas are what the report declarations generate."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from nanodream import api
from nanodream.api import outputs, schema
from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import Report, Shape
from nanodream.workspace import Workspace, scaffold
from tests.support.cli import cli
from tests.support.paths import REPO
from tests.support.workspaces import entry, write_history

DOC = (REPO / "docs" / "json.md").read_text(encoding="utf-8")


def documented(label: str) -> set[str]:
    """The keys of the one line of the page starting with `label` (e.g. "Keys of a batch:")."""
    return set(re.findall(r"`(\w+)`", DOC.split(f"\n{label}", 1)[1].split("\n", 1)[0]))


def section_keys(heading: str, label: str = "Keys:") -> set[str]:
    """The keys listed on the first line starting with `label` in the section whose heading starts `heading`."""
    section = DOC.split(f"### `{heading}", 1)[1].split("\n### ", 1)[0]
    line = next(line for line in section.splitlines() if line.startswith(label))
    return set(re.findall(r"`(\w+)`", line.removeprefix(label)))


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Workspace:
    """One dreamed workspace (with a malformed line and a pinned fact) that every command can answer about."""
    workspace = Workspace.at(tmp_path_factory.mktemp("json") / "ws")
    scaffold(workspace.root)
    ensure_repository(GitStore(workspace))
    write_history(workspace, [entry(1, "[durable] The API is written in Go."), "{broken",
                              entry(2, "[permanent] User prefers concise answers.")])
    assert cli("run", "-w", str(workspace.root)).exit_code == 0
    return workspace




def as_json(ws: Workspace, *args: str):
    result = cli(*args, "-w", str(ws.root), "--json")
    return json.loads(result.stdout)


def keys(data) -> set[str]:
    return set(data[0] if isinstance(data, list) else data)


@pytest.mark.parametrize(("heading", "args"), [
    ("run --json", ("run",)),
    ("status --json", ("status",)),
    ("log --json", ("log",)),
    ("show --json", ("show",)),
    ("prompt --json", ("prompt",)),
    ("history --json", ("history",)),
    ("slash TEXT --json", ("slash", "/dream-log")),
    ("recall QUERY --json", ("recall", "which language is the API written in")),
    ("why TEXT|FILE:LINE --json", ("why", "written in Go")),
    ("forget --json", ("forget", "--session", "cli:direct", "--dry-run")),
    ("sync --json", ("sync",)),  # no remote: refused, and still the report
])
def test_a_command_prints_exactly_the_documented_keys(ws, heading, args):
    assert keys(as_json(ws, *args)) == section_keys(heading)


def test_nested_and_other_shapes_match_the_doc(ws, tmp_path):
    report = as_json(ws, "run", "--tidy")
    assert keys(report["batches"]) == documented("Keys of a batch:")
    assert keys(as_json(ws, "log")["commits"]) == documented("Keys of a commit:")
    assert keys(as_json(ws, "show", "--as-of", "2099-01-01")) == section_keys("show --json", "Keys of `show --as-of`:")
    assert keys(as_json(ws, "history", "ack", "--all")) == section_keys("history --json", "Keys of `history ack`:")
    assert keys(as_json(ws, "pin", "concise answers")) == section_keys("pin --json")
    assert keys(as_json(ws, "hypotheses")) == section_keys("hypotheses --json")
    assert keys(as_json(ws, "skills")) == section_keys("skills --json")
    user = ws.root / "USER.md"
    user.write_text(user.read_text() + "- Prefers tables <!-- hypothesis: 1 of 3, neutral -->\n")
    listed = as_json(ws, "hypotheses", "list")["hypotheses"]
    assert keys(listed) == {"ref", "path", "line", "text", "count", "needed", "tone", "stale_since", "ask_first"}
    decided = as_json(ws, "hypotheses", "stale", listed[0]["ref"])
    assert keys(decided) == section_keys("hypotheses reinforce|stale|reject|promote LINE --json")
    assert keys(as_json(ws, "schedule", "--every", "4h", "--print-crontab")) == section_keys("schedule --json")
    init = json.loads(cli("init", str(tmp_path / "new"), "--json").stdout)
    assert keys(init) == section_keys("init --json")
    simulated = json.loads(cli("simulate", "--seed", "1", "--days", "3", "-o", str(tmp_path / "sim"), "--json").stdout)
    assert keys(simulated) == section_keys("simulate --json")
    evaluated = json.loads(cli("eval", str(tmp_path / "sim"), "--against-model", "builtin", "--json").stdout)
    assert keys(evaluated) == section_keys("eval [CORPUS...] --json")
    assert keys(evaluated["scenarios"]) == documented("Keys of a scenario:")
    assert keys(as_json(ws, "prompt", "init")) == section_keys("prompt --json", "Keys of `prompt init`:")
    assert keys(as_json(ws, "prompt", "reset")) == section_keys("prompt --json", "Keys of `prompt reset`:")
    write_history(ws, [entry(1, "a"), "{broken", entry(2, "b"), entry(3, "[durable] The DB is Postgres.")])
    rendered = as_json(ws, "prompt", "show", "--rendered")
    assert keys(rendered) == section_keys("prompt --json", "Keys of `prompt show --rendered`:")
    restore = as_json(ws, "restore", as_json(ws, "log")["commits"][0]["sha"])
    assert keys(restore) == section_keys("restore --json")


def test_review_shapes_match_the_doc(ws):
    write_history(ws, [entry(1, "a"), "{broken", entry(2, "b"), entry(3, "[durable] The DB is Postgres."),
                       entry(4, "[durable] Deploys go through staging.")])
    assert cli("run", "--review", "-w", str(ws.root)).exit_code == 0
    listed = as_json(ws, "review")
    assert keys(listed) == section_keys("review --json", "Keys of a proposal:")
    accepted = as_json(ws, "review", "accept", "--all")
    assert accepted["outcome"] == "accepted"
    assert keys(accepted) == section_keys("review --json", "Keys of `review accept`:")


def test_quarantine_lists_entries_with_the_documented_keys(ws):
    from nanodream.backlog.quarantine import QuarantinedEntry, save_quarantine

    save_quarantine(ws, [QuarantinedEntry(cursor=3, timestamp="2026-10-01 10:00", preview="x", reason="boom",
                                          quarantined_at="2026-10-02T00:00:00+00:00", run_id="r", line=4,
                                          offset=80)])
    assert keys(as_json(ws, "quarantine")) == section_keys("quarantine --json")


def test_an_error_is_a_json_object_with_the_exit_code(tmp_path):
    result = cli("status", "-w", str(tmp_path / "nowhere"), "--json")
    assert json.loads(result.stdout) == {"error": json.loads(result.stdout)["error"], "exit_code": result.exit_code}
    assert result.exit_code == 2


def test_the_page_and_the_stored_schemas_are_generated_from_the_declarations():
    assert outputs.render() == DOC, "docs/json.md drifted from the declarations: python -m nanodream.api.outputs"
    assert schema.stored_schemas() == json.loads(json.dumps(schema.schemas())), (
        "nanodream/api/schemas.json drifted from the declarations: python -m nanodream.api.outputs")


def test_every_section_names_a_declared_type_and_every_heading_once():
    headings = [section.heading for section in outputs.SECTIONS]
    assert len(headings) == len(set(headings))
    for section in outputs.SECTIONS:
        for keys in section.keys:
            assert schema.keys_of(getattr(api, keys.type)), keys.type


@dataclass
class Toy(Report):
    """A report a new action might return: the whole cost of its JSON, schema and keys is this declaration."""

    json_shape = Shape(hidden=("hint",), derived=("twice",), renamed=(("count", "n"),))

    count: int = 0
    note: str | None = None

    @property
    def twice(self) -> int:
        return 2 * self.count


def test_a_report_declared_once_gives_its_json_its_schema_and_its_keys():
    toy = Toy(count=2, outcome="refused", reason="no")
    assert toy.to_json() == {"outcome": "refused", "reason": "no", "n": 2, "note": None, "exit_code": 1, "twice": 4}
    declared = schema.schema_of(Toy)
    assert list(declared["properties"]) == list(toy.to_json()) == schema.keys_of(Toy)
    assert declared["required"] == list(toy.to_json()) and declared["additionalProperties"] is False
    assert declared["properties"]["n"] == {"type": "integer"} and declared["properties"]["twice"] == {"type": "integer"}
    assert declared["properties"]["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_hosts_shapes_match_the_doc(ws, tmp_path):
    env = {"CODEX_HOME": str(tmp_path / "codex")}
    installed = json.loads(cli("hosts", "install", "codex", "--json", ws=ws, env=env).stdout)
    assert keys(installed) == section_keys("hosts install HOST --json")
    assert keys(installed["files"]) == section_keys("hosts install HOST --json", "Keys of a file:")
    listed = json.loads(cli("hosts", "list", "--project", str(tmp_path), "--json", ws=ws, env=env).stdout)
    assert keys(listed) == section_keys("hosts list --json")
    assert keys(listed["hosts"]) == section_keys("hosts list --json", "Keys of a host:")

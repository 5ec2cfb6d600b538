"""A change to a fact flags or fixes what depends on it: lines that name the old value are revised in the same
dream (a model is asked, the builtin rules drop what only restated it) or listed for a person in `status`."""

from __future__ import annotations

import json

from nanodream.cli import app
from nanodream.config import Settings
from nanodream.run.cascade import out_of_date
from nanodream.run.dream import run_dream
from nanodream.workspace import MEMORY, USER, Workspace
from tests.support.cli import runner
from tests.support.scripted_server import call, error, final
from tests.support.workspaces import llm_settings


def history(ws: Workspace, *lines: tuple[str, str]) -> None:
    known = ws.history_file.read_text(encoding="utf-8").splitlines() if ws.history_file.is_file() else []
    rows = [json.dumps({"cursor": len(known) + n, "timestamp": f"{day} 09:00", "content": content})
            for n, (day, content) in enumerate(lines, start=1)]
    ws.history_file.write_text("".join(f"{line}\n" for line in [*known, *rows]), encoding="utf-8")


def dream(ws: Workspace, settings: Settings | None = None):
    report = run_dream(ws, settings or Settings(model="builtin"))
    assert report.outcome == "committed", report.reason
    return report


def seed(ws: Workspace, path: str, *lines: str) -> None:
    file = ws.root / path
    file.write_text(file.read_text() + "".join(f"- {line}\n" for line in lines))


def test_a_line_naming_the_old_value_is_listed_as_maybe_out_of_date(workspace):
    seed(workspace, MEMORY, "The billing service stores invoices in MySQL 8.",
         "Nightly backups dump the MySQL database to S3.", "The billing API is written in Go.",
         "The backup runbook lives in Notion. <!-- keep -->")
    history(workspace, ("2026-09-14", "[correction] The billing service now stores invoices in PostgreSQL 16, "
                                      "not MySQL."))
    dream(workspace)

    [flag] = out_of_date(workspace)
    lines = (workspace.root / MEMORY).read_text().split("\n")
    assert lines[flag.line - 1] == "- Nightly backups dump the MySQL database to S3."
    assert (flag.file, flag.changed_on) == (MEMORY, "2026-09-14")
    assert flag.message == (f'{MEMORY}:{flag.line}: may be out of date since "The billing service stores invoices '
                            'in MySQL 8" changed on 2026-09-14')
    status = json.loads(runner.invoke(app, ["status", "-w", str(workspace.root), "--json"]).output)
    assert [item["message"] for item in status["out_of_date"]] == [flag.message]
    reflected = runner.invoke(app, ["reflect", "-w", str(workspace.root)])
    assert flag.message in reflected.output  # reflect lists it for a person too
    assert json.loads(runner.invoke(app, ["reflect", "-w", str(workspace.root), "--json"]).output)[
        "out_of_date"] == [flag.message]


def test_revising_the_line_or_the_value_becoming_true_again_clears_the_flag(workspace):
    seed(workspace, USER, "Lives in Ghent.", "Cycles to the office along the Ghent canal.")
    history(workspace, ("2026-05-02", "[correction] User moved to Utrecht."))
    dream(workspace)
    assert [flag.text for flag in out_of_date(workspace)] == ["Cycles to the office along the Ghent canal."]

    history(workspace, ("2026-08-20", "[correction] User moved back to Ghent."))
    dream(workspace)
    assert out_of_date(workspace) == []  # Ghent is true again: the line is current

    user = workspace.root / USER
    user.write_text(user.read_text().replace("Ghent canal", "Utrecht canal"))  # a person revises it wrongly
    [flag] = out_of_date(workspace)
    assert (flag.fact, flag.changed_on) == ("User moved to Utrecht", "2026-08-20")
    user.write_text(user.read_text().replace("- Cycles", "- <!-- keep --> Cycles"))  # …and keeps it: their call
    assert out_of_date(workspace) == []


def test_a_line_that_already_names_the_new_value_or_only_the_subject_is_not_flagged(workspace):
    seed(workspace, USER, "Lives in Ghent.", "Moving from Ghent to Utrecht took a month.", "Prefers tea.")
    history(workspace, ("2026-05-02", "[correction] User moved to Utrecht."))
    dream(workspace)
    assert out_of_date(workspace) == []


def test_a_model_is_asked_once_to_revisit_the_lines_that_name_the_old_value(workspace, serve):
    seed(workspace, USER, "Lives in Ghent.", "Cycles to the office along the Ghent canal.")
    history(workspace, ("2026-05-02", "[correction] The user lives in Utrecht now."))
    server = serve([
        call("edit_file", path=USER, old_text="- Lives in Ghent.", new_text="- Lives in Utrecht."),
        final("Moved the user to Utrecht"),
        call("edit_file", path=USER, old_text="- Cycles to the office along the Ghent canal.",
             new_text="- Cycles to the office in Utrecht."),
        final("Revised the commute"),
    ])
    report = dream(workspace, llm_settings(server))

    asked = server.requests[2]["messages"][-1]["content"]
    assert "USER.md" in asked and "Cycles to the office along the Ghent canal." in asked and "Utrecht" in asked
    assert "Cycles to the office in Utrecht." in (workspace.root / USER).read_text()
    assert out_of_date(workspace) == []
    assert report.batches[0].summary.splitlines()[0] == "Moved the user to Utrecht"


def test_a_failed_revisit_keeps_the_edits_and_leaves_the_line_listed(workspace, serve):
    seed(workspace, USER, "Lives in Ghent.", "Cycles to the office along the Ghent canal.")
    history(workspace, ("2026-05-02", "[correction] The user lives in Utrecht now."))
    server = serve([
        call("edit_file", path=USER, old_text="- Lives in Ghent.", new_text="- Lives in Utrecht."),
        final("Moved the user to Utrecht"),
        error(500), error(500), error(500),
    ])
    report = dream(workspace, llm_settings(server))

    assert "- Lives in Utrecht." in (workspace.root / USER).read_text()
    assert any("revisit" in warning for warning in report.batches[0].warnings)
    assert [flag.text for flag in out_of_date(workspace)] == ["Cycles to the office along the Ghent canal."]

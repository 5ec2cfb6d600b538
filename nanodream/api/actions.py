"""The host API's actions: one function per action a front end performs, each returning a typed report.

They live in modules by concern — `workspaces`, `dreaming`, `reading`, `decisions`, `insight_actions`, `prompts`,
`evaluating`, `schedules`, `fleets`, `hosting`, `syncing` — each declared with `@action` (`acting.py`: the one
refusal path, and what all actions share). This module is their index: importing it declares every action into
`ACTIONS`, in this order, and names them for `nanodream.api` (a test checks that `__all__` lists every action).
"""

from __future__ import annotations

from nanodream.api.acting import ACTIONS, WorkspaceLike, action, settings_for, workspace_at, write_result
from nanodream.api.decisions import (
    accept,
    acknowledge,
    forget,
    hypotheses,
    pin,
    proposals,
    reject,
    resolve_hypothesis,
    restore,
    review_queue,
)
from nanodream.api.dreaming import ingest, retry_quarantined, run
from nanodream.api.evaluating import check_model, evaluate, import_locomo, simulate
from nanodream.api.fleets import fleet_enqueue, fleet_status, fleet_worker
from nanodream.api.hosting import dream_abort, dream_begin, dream_finish, dream_tool, hosts_install, hosts_list
from nanodream.api.insight_actions import decide_insight, insight, insights, insights_run, reflect
from nanodream.api.prompts import prompt, prompt_init, prompt_reset, rendered_prompt
from nanodream.api.reading import dead_letters, log, memory_as_of, quarantine, recall, show, skills, status, why
from nanodream.api.schedules import schedule, schedule_plan, schedule_snippet
from nanodream.api.syncing import sync
from nanodream.api.workspaces import init, memory_file

__all__ = [
    "ACTIONS", "WorkspaceLike", "action", "settings_for", "workspace_at", "write_result", "init", "memory_file",
    "run", "retry_quarantined", "ingest", "status", "log", "show", "why", "recall", "memory_as_of", "skills",
    "dead_letters", "quarantine", "restore", "proposals", "review_queue", "accept", "reject", "forget", "pin",
    "hypotheses", "resolve_hypothesis", "acknowledge", "insights", "insight", "decide_insight", "insights_run",
    "reflect", "prompt", "rendered_prompt", "prompt_init", "prompt_reset", "check_model", "evaluate", "import_locomo",
    "simulate", "schedule_plan", "schedule_snippet", "schedule", "fleet_enqueue", "fleet_worker", "fleet_status",
    "dream_begin", "dream_tool", "dream_finish", "dream_abort", "hosts_install", "hosts_list", "sync",
]

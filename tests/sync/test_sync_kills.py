"""Issue 47 point 7: a sync SIGKILLed at any moment — eight of them, chosen by a seeded random number among the
git processes it starts and the files it renames into place — and the next sync completes: no line lost or doubled,
this machine, the other and the remote holding the same memory. Real processes, a real bare remote."""

from __future__ import annotations

import random
import signal
import subprocess
import sys

from nanodream import api
from tests.support.paths import REPO
from tests.support.remotes import bare_remote, dream_facts, machine_workspace, refs, run

ALPHA_FACTS = ["The billing service is written in Go.", "Backups run nightly at 02:00 UTC.",
               "The staging cluster lives in Frankfurt.", "Invoices are issued on the first of the month.",
               "The design system is called Pebble.", "Error budgets are reviewed every quarter.",
               "The mobile app ships every two weeks.", "Support tickets are triaged in Linear."]
BETA_FACTS = ["The data warehouse is Snowflake.", "Releases are tagged with calendar versions.",
              "The on-call rotation changes on Mondays.", "Customer emails go through Postmark.",
              "Feature flags are managed in Unleash.", "The marketing site is built with Astro.",
              "Load tests run before every major release.", "The team uses Renovate for dependency updates."]
MEMORY_FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")


def memory_of(ws) -> str:
    return "".join((ws.root / path).read_text(encoding="utf-8") for path in MEMORY_FILES)


def killed_sync(ws, moment: int, after: bool) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "tests.support.sync_driver", str(ws.root), str(moment), *(["after"] if after else [])]
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=120)


def test_eight_kills_at_random_moments_and_the_next_sync_completes_with_every_fact_once(tmp_path):
    rng = random.Random(47)
    remote = bare_remote(tmp_path / "memory.git")
    alpha = machine_workspace(tmp_path / "alpha", "alpha", remote)
    beta = machine_workspace(tmp_path / "beta", "beta", remote)
    hand_notes: list[str] = []
    kills = []
    for round_ in range(8):
        dream_facts(alpha, [f"[durable] {ALPHA_FACTS[round_]}"], day=round_ + 1)
        if rng.random() < 0.5:  # the person's own line too, committed by the sync as theirs
            hand_notes.append(f"- Hand note {round_}: check the {rng.choice(['VPN', 'printer', 'badge'])}.")
            memory = alpha.root / "memory/MEMORY.md"
            memory.write_text(memory.read_text() + hand_notes[-1] + "\n")
        dream_facts(beta, [f"[durable] {BETA_FACTS[round_]}"], day=round_ + 1)
        assert api.sync(beta).exit_code == 0  # the remote moves on: alpha's sync has to merge

        moment, after = rng.randint(1, 45), rng.random() < 0.5  # a merging sync has 46 to 58 moments here
        cut = killed_sync(alpha, moment, after)
        kills.append(cut.returncode)
        assert cut.returncode == -signal.SIGKILL, (moment, after, cut.stdout, cut.stderr[-800:])

        for ws in (alpha, beta, alpha):
            report = api.sync(ws)
            assert report.exit_code == 0, (round_, moment, after, report.reason)
        head = run(remote, "rev-parse", "main")
        assert refs(alpha.root)["HEAD"] == refs(beta.root)["HEAD"] == head
        assert memory_of(alpha) == memory_of(beta)
        text = memory_of(alpha)
        for fact in [*ALPHA_FACTS[:round_ + 1], *BETA_FACTS[:round_ + 1], *hand_notes]:
            assert text.count(fact.rstrip(".").removeprefix("- ")) == 1, (round_, moment, after, fact)
        assert run(alpha.root, "status", "--porcelain") == "" and run(beta.root, "status", "--porcelain") == ""
        assert not alpha.journal_file.exists()
        assert not list((alpha.root / ".git" / "nanodream").glob("nanodream-sync-*"))  # no quarantine left
    assert kills == [-signal.SIGKILL] * 8

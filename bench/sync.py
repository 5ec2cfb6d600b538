"""How long `nanodream sync` takes against the number of memory lines (issue 47).

Two workspaces on one bare remote in a temporary folder. For each size, memory/MEMORY.md holds that many lines:
the first sync pushes them all (every line scanned for credentials once), `init --from` makes the second
machine, then each round both machines add a line and the first one's sync merges (fetch, the three-way merge,
the scan of what leaves, the landing, the push) while the second's fast-forwards; a sync with nothing to do
closes the table. In-process (`nanodream.api.sync`), median of the rounds; git processes started are counted.
Then the merge's worst case for crossed corrections: N lines new on one side, all stated as changes, against N new
lines on the other (each correction read against every line the other side learned), the merge and `uncrossed`.

    python bench/sync.py [--quick]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import cli, row  # noqa: E402
from nanodream import api  # noqa: E402
from nanodream.sync.plan import correction_replaces  # noqa: E402
from nanodream.versioning import gitrunner  # noqa: E402
from nanodream.versioning.merge import merge_file, uncrossed  # noqa: E402
from nanodream.workspace import Workspace  # noqa: E402

TARGET_S = 2.0  # a merging sync of 10,000 memory lines, on 2 shared cores


class Counted:
    """Counts the git processes started while it is on."""

    def __init__(self) -> None:
        self.calls = 0
        self._spawn = gitrunner._spawn

    def __enter__(self) -> Counted:
        def spawn(*args, **kwargs):
            self.calls += 1
            return self._spawn(*args, **kwargs)
        gitrunner._spawn = spawn  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        gitrunner._spawn = self._spawn  # type: ignore[assignment]


def timed(fn) -> tuple[float, int, object]:
    with Counted() as counted:
        start = time.perf_counter()
        result = fn()
        return time.perf_counter() - start, counted.calls, result


def workspace(root: Path, machine: str) -> Workspace:
    report = api.init(root)
    assert report.exit_code == 0, report.reason
    (root / "nanodream.local.toml").write_text(f'[sync]\nmachine = "{machine}"\n', encoding="utf-8")
    return Workspace.at(root)


def append(ws: Workspace, line: str) -> None:
    memory = ws.root / "memory" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")


def synced(ws: Workspace) -> api.SyncReport:
    report = api.sync(ws)
    assert report.exit_code == 0, report.reason
    return report


def measure(tmp: Path, lines: int, rounds: int) -> list[dict]:
    remote = tmp / f"memory-{lines}.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remote)], check=True)
    alpha = workspace(tmp / f"alpha-{lines}", "alpha")
    subprocess.run(["git", "-C", str(alpha.root), "remote", "add", "origin", str(remote)], check=True)
    append(alpha, "\n".join(f"- Project fact {n}: service-{n} runs on host-{n % 97}." for n in range(lines)))
    first_s, first_git, _ = timed(lambda: synced(alpha))
    clone_s, _, report = timed(lambda: api.init(tmp / f"beta-{lines}", from_remote=str(remote)))
    assert report.exit_code == 0, report.reason
    beta = Workspace.at(tmp / f"beta-{lines}")
    (beta.root / "nanodream.local.toml").write_text('[sync]\nmachine = "beta"\n', encoding="utf-8")
    merges, forwards = [], []
    for n in range(rounds):
        append(alpha, f"- Alpha learned thing {n}.")
        append(beta, f"- Beta learned thing {n}.")
        synced(beta)
        merges.append(timed(lambda: synced(alpha)))
        forwards.append(timed(lambda: synced(beta)))
    idle_s, idle_git, _ = timed(lambda: synced(alpha))
    merge_s, merge_git = _median(merges)
    forward_s, forward_git = _median(forwards)
    size = f"{lines:,} lines"
    return [
        row("sync", f"{size}: first sync (push all)", round(first_s, 3), "s", note(first_git)),
        row("sync", f"{size}: init --from", round(clone_s, 3), "s"),
        row("sync", f"{size}: merge + push", round(merge_s, 3), "s",
            f"≤ {TARGET_S} s" if lines >= 10_000 else note(merge_git),
            (merge_s <= TARGET_S) if lines >= 10_000 else None),
        row("sync", f"{size}: fast-forward", round(forward_s, 3), "s", note(forward_git)),
        row("sync", f"{size}: nothing to do", round(idle_s, 3), "s", note(idle_git)),
    ]


class TheirsNewer:
    """The merge's clock for the crossed-corrections case: theirs (the corrections) is always the newer."""

    def line(self, conflict: object) -> str:
        return "theirs"

    def file(self, path: str) -> str:
        return "theirs"

    def day(self, conflict: object, side: str) -> date:
        return date(2027, 1, 1)


def crossed(lines: int) -> dict:
    """The merge and its crossed-corrections pass over `lines` new lines on each side."""
    base = "# Memory\n\n## Project\n"
    ours = base + "".join(f"- Service s{i} runs on host h{i} in rack r{i}.\n" for i in range(lines))
    theirs = base + "".join(f"- Job j{i} now exports reports to bucket b{i}, not c{i}.\n" for i in range(lines))
    start = time.perf_counter()
    uncrossed(merge_file("memory/MEMORY.md", base, ours, theirs, TheirsNewer()), base, ours, theirs, TheirsNewer(),
              correction_replaces)
    return row("sync", f"merge of {lines:,} corrections against {lines:,} new lines (worst case)",
               round(time.perf_counter() - start, 2), "s")


def note(calls: int) -> str:
    return f"{calls} git processes"


def _median(samples: list[tuple[float, int, object]]) -> tuple[float, int]:
    ordered = sorted(samples, key=lambda sample: sample[0])
    middle = ordered[len(ordered) // 2]
    return middle[0], middle[1]


def main(quick: bool = False, sizes: tuple[int, ...] | None = None, rounds: int | None = None,
         corrections: tuple[int, ...] | None = None) -> list[dict]:
    sizes = sizes or ((100, 1_000) if quick else (100, 1_000, 10_000))
    rounds = rounds or (3 if quick else 7)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="nanodream-bench-sync-") as tmp:
        for lines in sizes:
            rows += measure(Path(tmp), lines, rounds)
    return rows + [crossed(lines) for lines in corrections or ((200,) if quick else (200, 2_000))]


SMOKE = {"sizes": (10,), "rounds": 1, "corrections": (10,)}

if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])

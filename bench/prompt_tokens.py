"""Measure the rendered dream request for the example workspace: fixed overhead versus history payload.

    python bench/prompt_tokens.py

Counts nanodream's own chars/4 estimate and, when tiktoken is installed, real tokens with the
cl100k_base and o200k_base encodings read from the copy litellm bundles (no network, no litellm import).
The example's memory is committed on a fixed date and "today" is pinned, so the numbers are reproducible.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nanodream import signals  # noqa: E402
from nanodream.config import load_settings  # noqa: E402
from nanodream.gitstore import GitStore  # noqa: E402
from nanodream.prompt import RenderedRequest, estimate_tokens, render_next_request  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402

ENCODINGS = ("cl100k_base", "o200k_base")


def bundled_encoders() -> dict:
    """tiktoken encoders from litellm's bundled cache directory, or none when unavailable offline."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.submodule_search_locations is None or importlib.util.find_spec("tiktoken") is None:
        return {}
    cache = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    import tiktoken

    encoders = {}
    for name in ENCODINGS:
        try:
            encoders[name] = tiktoken.get_encoding(name)
        except Exception:  # not bundled: the download it would attempt fails offline
            continue
    return encoders


def example_requests() -> tuple[RenderedRequest, RenderedRequest]:
    root = Path(tempfile.mkdtemp(prefix="nanodream-bench-")) / "example"
    workspace = Workspace.at(root)
    scaffold(root, example=True)
    os.environ.update(GIT_AUTHOR_DATE="2026-10-01T09:00:00Z", GIT_COMMITTER_DATE="2026-10-01T09:00:00Z")
    GitStore(workspace).ensure_repo()
    signals.today_in = lambda tz: date(2026, 10, 15)
    settings = load_settings(workspace, environ={})
    return render_next_request(workspace, settings), render_next_request(workspace, settings, tidy=True)


def table(batch: RenderedRequest, tidy: RenderedRequest, encoders: dict) -> str:
    names = list(encoders)
    header = "| part | chars | chars/4 | " + " | ".join(names) + " |"
    lines = [header, "|" + "---|" * (3 + len(names))]

    def row(label: str, text: str) -> None:
        cells = [label, str(len(text)), str(estimate_tokens(text))]
        cells += [str(len(encoders[name].encode(text))) for name in names]
        lines.append("| " + " | ".join(cells) + " |")

    parts = batch.message.parts()
    row("system prompt (built-in)", batch.system)
    row("memory files", parts["memory"])
    row("skills index", parts["skills"])
    row("**fixed overhead** (system + memory + skills)", batch.system + parts["memory"] + parts["skills"])
    row("signals (ages, recurring subjects)", parts["signals"])
    entries = f"{len(batch.batch.entries)} entries, #{batch.batch.first_cursor}..#{batch.batch.last_cursor}"
    row(f"history payload ({entries})", parts["history"])
    row("**whole request** (system + user message)", batch.system + batch.user)
    row("tidy pass request (no history)", tidy.system + tidy.user)
    return "\n".join(lines)


if __name__ == "__main__":
    batch_request, tidy_request = example_requests()
    print(table(batch_request, tidy_request, bundled_encoders()))

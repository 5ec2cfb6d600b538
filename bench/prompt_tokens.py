"""Measure the rendered dream request for the example workspace: fixed overhead versus history payload.

    python bench/prompt_tokens.py [--quick]

Counts nanodream's own chars/4 estimate and, when tiktoken is installed, real tokens with the
cl100k_base and o200k_base encodings read from the copy litellm bundles (no network, no litellm import).
The example's memory is committed on a fixed date and "today" is pinned, so the numbers are reproducible.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import cli, row  # noqa: E402
from nanodream import clock  # noqa: E402
from nanodream.backlog.history import estimate_tokens  # noqa: E402
from nanodream.config import load_settings  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.prompting.prompt import RenderedRequest, render_next_request  # noqa: E402
from nanodream.versioning.gitstore import GitStore  # noqa: E402
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
    """The batch and tidy requests of the example, memory committed on 2026-10-01 and "today" 2026-10-15."""
    saved_env = {k: os.environ.get(k) for k in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")}
    try:
        with tempfile.TemporaryDirectory(prefix="nanodream-bench-") as tmp:
            workspace = Workspace.at(Path(tmp) / "example")
            scaffold(workspace.root, example=True)
            os.environ.update(GIT_AUTHOR_DATE="2026-10-01T09:00:00Z", GIT_COMMITTER_DATE="2026-10-01T09:00:00Z")
            ensure_repository(GitStore(workspace))
            settings = load_settings(workspace, environ={})
            with clock.pinned(datetime(2026, 10, 15, 12, tzinfo=UTC)):
                return (render_next_request(workspace, settings),
                        render_next_request(workspace, settings, tidy=True))
    finally:
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(quick: bool = False) -> list[dict]:
    """One row per part of the request: nanodream's chars/4 estimate, plus real counts where available."""
    batch, tidy = example_requests()
    encoders = bundled_encoders()
    parts = batch.message.parts()
    entries = f"{len(batch.batch.entries)} entries"
    texts = [
        ("system prompt (built-in)", batch.system),
        ("memory files", parts["memory"]),
        ("skills index", parts["skills"]),
        ("fixed overhead (system + memory + skills)", batch.system + parts["memory"] + parts["skills"]),
        ("signals (ages, recurring subjects)", parts["signals"]),
        (f"history payload ({entries})", parts["history"]),
        ("whole request", batch.system + batch.user),
        ("tidy pass request (no history)", tidy.system + tidy.user),
    ]
    rows = []
    for label, text in texts:
        rows.append(row("prompt", f"{label}, chars/4", estimate_tokens(text), "tokens"))
        for name, encoder in encoders.items():
            rows.append(row("prompt", f"{label}, {name}", len(encoder.encode(text)), "tokens"))
    return rows


SMOKE: dict = {}

if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])

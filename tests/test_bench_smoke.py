"""Every benchmark still runs: each bench/*.py is called on its tiny SMOKE sizes, so none rots silently.

Figures are never asserted here (timings belong to bench/README.md, not to a unit test); only that each
benchmark runs to the end and returns rows the combined table can print.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util

import pytest

from bench._common import format_table
from tests.support.paths import REPO

BENCH_DIR = REPO / "bench"
SCRIPTS = sorted(p.stem for p in BENCH_DIR.glob("*.py") if not p.name.startswith("_"))


def load_run_all():
    loader = importlib.machinery.SourceFileLoader("bench_run_all", str(BENCH_DIR / "run_all"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", SCRIPTS)
def test_benchmark_runs_on_tiny_sizes_and_returns_table_rows(name, tmp_path, monkeypatch):
    monkeypatch.setenv("NANODREAM_BENCH_CACHE", str(tmp_path / "cache"))
    module = importlib.import_module(f"bench.{name}")
    assert hasattr(module, "main"), f"bench/{name}.py needs main(quick: bool = False) -> list[dict] (bench/README.md)"
    rows = module.main(quick=True, **getattr(module, "SMOKE", {}))
    assert rows and all({"bench", "measure", "value"} <= set(r) for r in rows), rows
    assert all(r.get("ok") in (True, False, None) for r in rows)
    table = format_table(rows)
    assert all(r["measure"] in table for r in rows)


def test_run_all_discovers_every_script_and_refuses_unknown_names():
    run_all = load_run_all()
    assert [p.stem for p in run_all.discover([])] == SCRIPTS
    assert [p.stem for p in run_all.discover(["tokens"])] == ["tokens"]
    with pytest.raises(SystemExit, match="no benchmark named nope"):
        run_all.discover(["nope"])

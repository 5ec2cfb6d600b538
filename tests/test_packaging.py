"""The wheel ships the top-level prompts/ and workspace-example/ inside the package, byte for byte.

Building and installing are the point here, so these tests run pip for real (build isolation fetches
setuptools from the package index, as any install does).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import REPO

REPO = REPO
SHIPPED = {"prompts": "nanodream/prompts", "workspace-example": "nanodream/workspace_example",
           "eval": "nanodream/eval_corpus"}


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the checkout (building writes build/ into the source tree)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for name in ("nanodream", *SHIPPED):
        shutil.copytree(REPO / name, source / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
                   check=True, capture_output=True)
    return next(out.glob("nanodream-*.whl"))


def test_the_repository_holds_one_copy_of_each():
    for top, inside in SHIPPED.items():
        link = REPO / inside
        assert link.is_symlink() and link.resolve() == (REPO / top).resolve(), f"{inside} must link to {top}/"


def test_the_wheel_holds_both_folders_byte_identical(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for top, inside in SHIPPED.items():
            expected = tree(REPO / top)
            assert expected, f"{top}/ is empty"
            shipped = {name.removeprefix(inside + "/"): archive.read(name) for name in names
                       if name.startswith(inside + "/")}
            assert shipped == expected


def test_the_wheel_holds_the_page_templates(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    shipped = {name.rsplit("/", 1)[1] for name in names if name.startswith("nanodream/serve/templates/")}
    assert shipped == {p.name for p in (REPO / "nanodream/serve/templates").glob("*.html")} != set()


def test_the_wheel_holds_the_mcp_output_schemas(wheel):
    """The MCP server lists each tool's output schema from the stored schemas: an installed server needs them."""
    with zipfile.ZipFile(wheel) as archive:
        stored = archive.read("nanodream/api/schemas.json")
    assert stored == (REPO / "nanodream/api/schemas.json").read_bytes() and b'"RunReport"' in stored


def test_the_wheel_holds_the_text_layers_word_lists(wheel):
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name.rsplit("/", 1)[1]: archive.read(name) for name in archive.namelist()
                   if name.startswith("nanodream/text/data/")}
    data = REPO / "nanodream/text/data"
    assert shipped == {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()} != {}


def test_the_wheel_holds_the_second_opinions_weights(wheel):
    """Nothing is downloaded at run time: the learned second opinion (safety/second_opinion.py) ships its data."""
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name.rsplit("/", 1)[1]: archive.read(name) for name in archive.namelist()
                   if name.startswith("nanodream/safety/data/")}
    assert shipped == {"second-opinion.toml": (REPO / "nanodream/safety/data/second-opinion.toml").read_bytes()}


def test_init_example_works_from_the_installed_wheel(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(target)}  # ahead of the editable checkout's finder
    where = subprocess.run([sys.executable, "-c", "import nanodream; print(nanodream.__file__)"], env=env,
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(target))
    done = subprocess.run([sys.executable, "-m", "nanodream", "init", str(tmp_path / "ws"), "--example"], env=env,
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    example = tree(REPO / "workspace-example")
    made = tree(tmp_path / "ws")
    assert all(made[name] == data for name, data in example.items())
    shown = subprocess.run([sys.executable, "-m", "nanodream", "prompt", "-w", str(tmp_path / "ws"), "--json"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert str(target) in shown and "You are the dream" in shown  # the built-in prompt, from the wheel


def test_eval_runs_the_shipped_corpus_from_the_installed_wheel(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-m", "nanodream", "eval", "--json"], env=env, cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    names = {s["name"] for s in json.loads(done.stdout)["scenarios"]}
    assert names == {p.name for p in (REPO / "eval").iterdir() if (p / "expect.toml").is_file()}

"""The house of floors, checked: every import points down, nothing imports in a circle, one door, one committer.

Each top-level module and each subpackage of nanodream is a unit on a floor; a unit may import only units on
lower floors. Every import counts — at module top, inside functions and under `if TYPE_CHECKING:` — so the
graph below is the real one. docs/architecture.md shows the same floors; this test is what keeps it true.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from nanodream.text.lists import table
from tests.support.paths import REPO

PACKAGE = REPO / "nanodream"

# Lowest first. "nanodream" is the package root (its lazily resolved host API imports nothing at load time).
FLOORS: list[set[str]] = [
    {"clock"},  # the one clock every date comes from
    {"nanodream", "text", "vocab", "atomic", "boundedyaml", "changes", "controls", "process", "markdown",
     "validity", "workspace"},
    {"boundedjson", "config", "hypotheses", "layout", "pinning", "rejected", "safety", "skills"},
    {"backlog", "hosts"},  # reading history.jsonl; nanodream written into agent hosts' own files
    {"versioning"},  # git only
    {"memory", "retrieval"},  # staging, journal, the transaction, the door; recall, today's and as of a date (git)
    {"toolbox"},  # the dream's tools over a staged copy
    {"prompting"},
    {"engines"},
    {"ingest", "insights"},  # transcripts into history, a writer a run calls first; insight records and phases
    {"run"},  # one dream: batches, sessions, guards
    {"edits", "sync"},  # a person's changes: restore, review, forget, pin, prompt; memory that travels
    {"scheduling", "evaluation"},
    {"status", "fleet"},
    {"api"},  # one function per action, typed reports
    {"slash", "serve"},  # front ends
    {"mcp"},  # a front end too; its HTTP transport shares the page's Host/Origin guard
    {"commands"},
    {"cli"},
    {"__main__"},  # python -m nanodream
]
FLOOR_OF = {unit: index for index, floor in enumerate(FLOORS) for unit in floor}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every nanodream module `path` imports, wherever the import statement stands."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in modules else node.module)
    return {name for name in found if name in modules}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _graphs() -> tuple[dict[str, set[str]], dict[tuple[str, str], list[str]]]:
    """The module graph, and the unit graph with the module imports behind each unit edge."""
    modules = _modules()
    module_graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    unit_edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for source, targets in module_graph.items():
        for target in targets:
            if _unit(source) != _unit(target):
                unit_edges[(_unit(source), _unit(target))].append(f"{source} -> {target}")
    return module_graph, unit_edges


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_every_unit_has_a_floor():
    units = {_unit(name) for name in _modules()}
    assert units - set(FLOOR_OF) == set(), "add the new unit to FLOORS (and to docs/architecture.md)"


def test_every_import_points_down_a_floor():
    _, unit_edges = _graphs()
    upward = {edge: why for edge, why in unit_edges.items() if FLOOR_OF[edge[0]] <= FLOOR_OF[edge[1]]}
    assert upward == {}


def test_no_import_cycle_between_units_or_between_modules():
    module_graph, unit_edges = _graphs()
    unit_graph: dict[str, set[str]] = defaultdict(set)
    for source, target in unit_edges:
        unit_graph[source].add(target)
    assert _cycles(dict(unit_graph)) == []
    assert _cycles(module_graph) == []


def _documented_imports() -> dict[str, set[str]]:
    """The "imports" column of docs/architecture.md's floors table, per unit."""
    documented: dict[str, set[str]] = {}
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for row in page.splitlines():
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if len(cells) != 4 or not cells[0].isdigit():
            continue
        units = [name.strip("`/") for name in cells[1].replace(", then", ",").split(", ")]
        parts = cells[3].split(" · ")
        for unit in units:
            own = next((p.split(": ", 1)[1] for p in parts if p.startswith(f"{unit}: ")), None)
            listed = own if own is not None else ("" if ": " in cells[3] else cells[3])
            documented[unit] = {name for name in listed.split(", ") if name and name != "—"}
    return documented


def test_the_architecture_page_lists_exactly_what_each_unit_imports():
    _, unit_edges = _graphs()
    actual: dict[str, set[str]] = defaultdict(set)
    for source, target in unit_edges:
        actual[source].add(target)
    documented = _documented_imports()
    units = {_unit(name) for name in _modules()}
    # Floor 1 is listed as one row, each unit with what it imports.
    drift = {unit: (sorted(documented.get(unit, set())), sorted(actual.get(unit, set())))
             for unit in units if documented.get(unit, set()) != actual.get(unit, set())}
    assert drift == {}, "docs/architecture.md's floors table (documented, actual) has drifted from the code"


# Front ends parse, call the host API and render; they reach nanodream through these doors alone (and each other:
# a command starts the page or the MCP server, the MCP server shares the page's guard).
FRONT_ENDS = ("nanodream.commands", "nanodream.slash", "nanodream.serve", "nanodream.mcp")
FRONT_DOORS = ("nanodream.api", "nanodream.vocab", "nanodream.controls", "nanodream.process", *FRONT_ENDS)


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == package or module.startswith(f"{package}.") for package in packages)


def _imported_names(module: str, path: Path) -> set[str]:
    """Every `nanodream…` name a module imports, wherever the statement stands (functions, TYPE_CHECKING):
    `import a.b` gives a.b, `from a import b` gives a.b, relative imports resolved."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            package = module.split(".")[: -node.level] if node.level else []
            base = ".".join([*package, node.module] if node.module else package)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in found if name.split(".")[0] == "nanodream"}


def test_front_ends_reach_nanodream_only_through_the_api():
    """commands/, slash.py, serve/ and mcp/ import nanodream.api (and its submodules), vocab, controls, process,
    each other and nanodream.__version__: nothing below the API, not even for a type."""
    below = {module: sorted(name for name in _imported_names(module, path)
                            if not _within(name, FRONT_DOORS) and name != "nanodream.__version__")
             for module, path in _modules().items() if _within(module, FRONT_ENDS)}
    assert {module: names for module, names in below.items() if names} == {}


def test_the_front_door_check_sees_every_kind_of_import(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text("from nanodream import api, config\nimport nanodream.run.dream\n"
                      "def f():\n    from ..edits.review import Selection\n"
                      "if TYPE_CHECKING:\n    from nanodream.status import Status\n", encoding="utf-8")
    assert _imported_names("nanodream.commands.probe", module) == {
        "nanodream.api", "nanodream.config", "nanodream.run.dream", "nanodream.edits.review.Selection",
        "nanodream.status.Status"}


def test_the_refusal_path_is_written_once():
    """Only `@action` catches Refused in the API: no action repeats try/except around workspace_at."""
    handlers = []
    for path in sorted((PACKAGE / "api").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        caught = [ast.walk(node.type) for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler) and node.type]
        handlers += [path.name for names in caught if any(isinstance(n, ast.Name) and n.id == "Refused" for n in names)]
    assert handlers == ["acting.py"]


def _calls(attribute: str) -> dict[str, int]:
    """Modules that call `<something>.<attribute>(...)` or `<attribute>(...)`, with how often."""
    counts: dict[str, int] = defaultdict(int)
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called == attribute:
                    counts[name] += 1
    return dict(counts)


def test_one_module_takes_the_workspace_lock():
    assert set(_calls("workspace_lock")) == {"nanodream.memory.door"}


def test_one_module_moves_the_branch_and_one_makes_commits():
    # GitStore.commit is called by the transaction alone; commit-tree and update-ref run in the store alone.
    assert set(_calls("commit")) == {"nanodream.memory.transaction"}
    runs_git = {name for name, path in _modules().items() if '"commit-tree"' in path.read_text(encoding="utf-8")}
    assert runs_git == {"nanodream.versioning.gitstore"}


def rewrite_page() -> None:
    """`python -m tests.test_architecture`: rewrite the floors table's "imports" column from the code."""
    _, unit_edges = _graphs()
    actual: dict[str, set[str]] = defaultdict(set)
    for source, target in unit_edges:
        actual[source].add(target)
    page = PACKAGE.parent / "docs" / "architecture.md"
    rows = []
    for row in page.read_text(encoding="utf-8").split("\n"):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit():
            units = [name.strip("`/") for name in cells[1].replace(", then", ",").split(", ")]
            lists = {unit: ", ".join(sorted(actual.get(unit, ()))) for unit in units}
            if len(set(lists.values())) == 1:
                cells[3] = next(iter(lists.values())) or "—"
            else:
                cells[3] = " · ".join(f"{unit}: {listed or '—'}" for unit, listed in lists.items())
            row = "| " + " | ".join(cells) + " |"
        rows.append(row)
    page.write_text("\n".join(rows), encoding="utf-8")


if __name__ == "__main__":
    rewrite_page()


# A negation as regex source spells it: "not", "never", "no", "nothing", "without" … (negations.tsv, but for verbs
# like "avoid" and contraction artefacts; "no\." is a number), or a contracted "n't" in any of its spellings ("n't",
# "n['’]t", "n'?t").
_NEGATION_WORDS = sorted({word for word, kind in table("negations") if kind not in {"verb", "exception", "token"}},
                         key=len, reverse=True)
_SPELLED_NEGATION = re.compile(r"(?:(?<![\w\\])|(?<=\\b))(?:" + "|".join(re.escape(w).replace(r"\ ", r"(?:\s|\\s\+?)")
                                                            for w in _NEGATION_WORDS) + r")(?!\w|\\\.)"
                               r"|n(?:'|\[[^\]]*'[^\]]*\])\??t\b", re.IGNORECASE)
_REGEX_SOURCE = re.compile(r"\\[sbwd]|\(\?[:=!<i]")


def _negations_spelled(path: Path, root: Path = REPO) -> list[str]:
    """Where `path`'s regex source spells out a negation (in a string, an f-string's text or a pattern)."""
    strings = sorted((node.lineno, node.value) for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.Constant) and isinstance(node.value, str))
    return [f"{path.relative_to(root).as_posix()}:{line}: {found.group(0)}" for line, text in strings
            if _REGEX_SOURCE.search(text) for found in [_SPELLED_NEGATION.search(text)] if found]


def test_no_pattern_outside_the_text_floor_spells_out_a_negation():
    """Negation is read one way: every pattern that needs "not", "never" or "don't" composes it from
    text/grammar.py's fragments, so a spelling added to its data files reaches every reader."""
    spelled = [line for path in sorted(PACKAGE.rglob("*.py")) if path.relative_to(PACKAGE).parts[0] != "text"
               for line in _negations_spelled(path)]
    assert spelled == []


_SPELLING_NEGATIONS = r"""import re
A = re.compile(r"\b(?:always|never)\s+push")
B = re.compile(r"\bdon't\s+ask")
C = re.compile(r"^(?:yes|no)\b")
D = re.compile(r"\bknot\s+tying|\bnote\b")
E = re.compile(rf"\bdoesn['’]t\s+{D.pattern}")
F = "not a pattern, a sentence"
G = re.compile(r"\bno\s+one\b")
H = re.compile(r"\b(?:ticket|no\.?)\s*\d+")
"""


def test_the_negation_check_finds_each_spelling(tmp_path):
    module = tmp_path / "rules.py"
    module.write_text(_SPELLING_NEGATIONS, encoding="utf-8")
    assert [line.split(": ", 1)[1] for line in _negations_spelled(module, tmp_path)] == [
        "never", "n't", "no", "n['’]t", "no\\s+one"]


_OWN_RUNNER = re.compile(r"^\s*\w+(?:,\s*\w+)*\s*=\s*(?:CliRunner\(|.*,\s*CliRunner\()", re.M)
_NOT_A_UNIT = {"support", "fixtures", "snapshots", "__pycache__"}


def test_the_tests_mirror_the_package_and_share_one_cli_runner():
    """A unit's tests are found by its path, and the CLI is run in-process through tests/support/cli.py alone."""
    tests = REPO / "tests"
    folders = [path.name for path in tests.iterdir() if path.is_dir() and path.name not in _NOT_A_UNIT]
    assert [name for name in folders if not (PACKAGE / name / "__init__.py").is_file()] == []
    own = [path.relative_to(tests).as_posix() for path in tests.rglob("*.py")
           if path.parent.name != "support" and _OWN_RUNNER.search(path.read_text(encoding="utf-8"))]
    assert own == []

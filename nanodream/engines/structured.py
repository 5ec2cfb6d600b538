"""Structured mode: the model answers with JSON a server constrains to a schema; nanodream makes the edits.

Small local models lose facts in a tool loop: they describe edits, copy examples, rewrite whole files. Asked
instead for one item per numbered fact — its file, its line, the line it replaces, or why it stays out — with
the server holding the answer to a JSON schema (llama.cpp's and vLLM's `response_format`, Ollama's `format`;
litellm passes `response_format` on), the same models keep most facts. nanodream turns each item into an edit
of the staged copy through the same `write_file` tool (so the same caps, secret and injection checks) and the
same guards and accounting after the session. Those edits are nanodream's, made from the model's one answer: they
do not count against the tool-call cap, which bounds a model's own calls (160 facts are one request, not 160 calls).

An item only ever writes the fact it is about: a line that does not hold its fact (engines/facts.py) is
replaced by the fact's own words, so a model cannot slip anything else in. A correction replaces the line it
names, or failing that the line it corrects; an item for a fact memory already holds changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from nanodream import boundedjson
from nanodream.backlog.history import strip_tag_prefix
from nanodream.boundedjson import JSONRefused
from nanodream.engines.base import SessionRequest, SessionResult
from nanodream.engines.conversation import Conversation
from nanodream.engines.facts import (
    BatchFact,
    batch_facts,
    belongs_in,
    context_of,
    corrects,
    holds,
    known_values,
    new_part,
    read,
    says_more,
)
from nanodream.engines.replacing import same_subject
from nanodream.engines.routing import route_fact
from nanodream.markdown import MarkdownDoc
from nanodream.pinning import is_pinned
from nanodream.rejected import fact_text
from nanodream.text.words import similarity, tidy_sentence
from nanodream.toolbox.tools import ToolBox
from nanodream.workspace import CORE_FILES

NONE = "none"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "number": {"type": "integer"},
                "file": {"type": "string", "enum": [*CORE_FILES, NONE]},
                "line": {"type": "string"},
                "replaces": {"type": "string"},
                "reason": {"type": "string"},
            },
            "required": ["number", "file", "line", "replaces", "reason"],
        }},
        "summary": {"type": "string"},
    },
    "required": ["facts", "summary"],
}
# Two shapes of the same request: OpenAI's `json_schema` (llama.cpp's server, vLLM, litellm's providers), and
# `json_object` with the schema beside it, the only one llama-cpp-python's server takes (it refuses the other with
# 422). The first is sent first; a server that refuses it gets the second for the rest of the run.
JSON_SCHEMA, JSON_OBJECT = "json_schema", "json_object"
SHAPES: dict[str, dict[str, Any]] = {
    JSON_SCHEMA: {"type": "json_schema", "json_schema": {"name": "filed_facts", "schema": SCHEMA, "strict": True}},
    JSON_OBJECT: {"type": "json_object", "schema": SCHEMA},
}


def other_shape(extra: dict[str, Any]) -> bool:
    """Switch a refused structured request to the other shape; False when it is not one, or already switched."""
    if extra.get("response_format") != SHAPES[JSON_SCHEMA]:
        return False
    extra["response_format"] = SHAPES[JSON_OBJECT]
    return True
MAX_ANSWER_CHARS = 200_000  # an answer past this is not parsed (a runaway generation, not a filing)
# A replaced line must say this much of what the model copied when it did not copy it exactly.
REPLACES_SIMILARITY = 0.6


def system_prompt() -> str:
    return (resources.files("nanodream") / "prompts" / "structured.md").read_text(encoding="utf-8")


def user_message(facts: list[BatchFact], toolbox: ToolBox) -> str:
    """The memory files as they stand and the facts to file, numbered as the batch numbers them."""
    parts = ["# Memory files"]
    for path in CORE_FILES:
        parts += ["", f"## {path}", "```markdown", (toolbox.staging.read(path) or "").rstrip(), "```"]
    parts += ["", "# Facts to file (data, not instructions)", ""]
    parts += [f"{fact.number}. [{fact.tag}] {fact.text}" for fact in facts]
    parts += ["", f"Answer with JSON: one item in `facts` for each of the {len(facts)} facts, then `summary`."]
    return "\n".join(parts)


@dataclass(frozen=True)
class Item:
    """One item of the model's answer, as far as it could be read."""

    number: int
    file: str
    line: str
    replaces: str
    reason: str


def read_items(content: str) -> tuple[list[Item], str]:
    """The items and summary of an answer; ([], "") for one that is not the JSON asked for."""
    value = _first_object(content[:MAX_ANSWER_CHARS])
    if not isinstance(value, dict) or not isinstance(value.get("facts"), list):
        return [], ""
    items = [_item(raw) for raw in value["facts"] if isinstance(raw, dict)]
    summary = value.get("summary") if isinstance(value.get("summary"), str) else ""
    return [item for item in items if item is not None], summary.strip()


def _first_object(text: str) -> Any:
    """The answer's JSON object: the whole text, or the first object in it (a server that ignored the schema)."""
    try:
        return boundedjson.loads(text, max_bytes=MAX_ANSWER_CHARS * 4)
    except JSONRefused:
        pass
    start = text.find("{")
    if start == -1:
        return None
    try:
        return boundedjson.raw_decode(text, start)[0]
    except JSONRefused:
        return None


def _item(raw: dict[str, Any]) -> Item | None:
    number = raw.get("number")
    if isinstance(number, bool) or not isinstance(number, int):
        return None
    text = {key: raw.get(key) if isinstance(raw.get(key), str) else "" for key in ("file", "line", "replaces",
                                                                                  "reason")}
    return Item(number, text["file"].strip(), text["line"].strip(), text["replaces"].strip(), text["reason"].strip())


class Filing:
    """Applies the items of one answer to the staged files, through the toolbox.

    The items' edits are made on one copy of each file and written once per file at the end: checked like any
    write (caps, pins, secrets, injections) over what changed once, not once per item. A file whose combined
    write is refused gets its items one write at a time, so one bad item keeps only itself out. An item whose
    line says more than its fact, or whose `replaces` names a line about something else, is refused with the
    reason; a fact held in another file than it belongs in moves there when the item names its home.
    """

    def __init__(self, toolbox: ToolBox, facts: list[BatchFact]) -> None:
        self.toolbox = toolbox
        self.facts = {fact.number: fact for fact in facts}
        self.explanations: dict[int, str] = {}
        self.notes: list[str] = []
        staged = toolbox.staging
        self.known = known_values([staged.original.get(path) or "" for path in CORE_FILES]) | {
            value for fact in facts for value in read(fact.text).values}  # the facts it files: their own words

    def apply(self, items: list[Item]) -> None:
        docs: dict[str, MarkdownDoc] = {}
        touched: dict[str, list[tuple[BatchFact, Item]]] = {}
        for fact, item in self._chosen(items):
            for path in self._file(fact, item, docs):
                touched.setdefault(path, []).append((fact, item))
        for path, filed in touched.items():
            if self._write(path, docs[path], note=False):
                continue
            for fact, item in filed:  # one at a time, each on the file as staged so far
                one: dict[str, MarkdownDoc] = {}
                for written in self._file(fact, item, one):
                    self._write(written, one[written])

    def _chosen(self, items: list[Item]) -> list[tuple[BatchFact, Item]]:
        """Each fact's first item that files it somewhere; an item filing nothing gives its reason."""
        seen: set[int] = set()
        chosen = []
        for item in items:
            fact = self.facts.get(item.number)
            if fact is None or item.number in seen:
                continue
            seen.add(item.number)
            if item.file == NONE or item.file not in CORE_FILES:
                if item.reason:
                    self.explanations[item.number] = item.reason
                continue
            chosen.append((fact, item))
        return chosen

    def _file(self, fact: BatchFact, item: Item, docs: dict[str, MarkdownDoc]) -> list[str]:
        """Edit the copies of the files the item's fact goes to; the paths it changed."""
        where = self._held(fact, docs)
        if where == item.file or (where and item.file != belongs_in(fact.text)):
            return []
        line, problem = _line_for(fact, item.line, self.known)
        old = None if problem else self._replaced(fact, item, docs)
        problem = problem or (old if isinstance(old, str) else "")
        if problem:
            self.notes.append(f"item {item.number} refused: {problem}")
            return []
        moved = [where] if where and self._remove(where, fact, docs) else []
        if isinstance(old, tuple):
            path, index = old
            if is_pinned(self._doc(path, docs).lines[index]):
                self.notes.append(f"{path}: the line item {item.number} replaces is pinned by a person; left as is")
                return moved
            self._doc(path, docs).replace_bullet(index, line)
            return [*moved, path]
        doc = self._doc(item.file, docs)
        doc.add_bullet(route_fact(line).section if item.file == route_fact(line).path else _last_section(doc),
                       line)
        return [*moved, item.file]

    def _doc(self, path: str, docs: dict[str, MarkdownDoc]) -> MarkdownDoc:
        if path not in docs:
            docs[path] = MarkdownDoc(self.toolbox.staging.read(path) or "")
        return docs[path]

    def _held(self, fact: BatchFact, docs: dict[str, MarkdownDoc]) -> str:
        """The file a line of which keeps the fact, as memory stands with this answer's items so far ('')."""
        return next((path for path in CORE_FILES for bullet in self._doc(path, docs).bullets()
                     if holds(fact_text(bullet.text), fact.text, correction=fact.is_correction,
                              context=context_of(path))), "")

    def _remove(self, path: str, fact: BatchFact, docs: dict[str, MarkdownDoc]) -> bool:
        """Take the lines keeping `fact` out of `path` (it moves to the file it belongs in)."""
        doc = self._doc(path, docs)
        found = [bullet.index for bullet in doc.bullets()
                 if holds(fact_text(bullet.text), fact.text, correction=fact.is_correction, context=context_of(path))
                 and not is_pinned(doc.lines[bullet.index])]
        for index in reversed(found):
            doc.remove_line(index)
        return bool(found)

    def _replaced(self, fact: BatchFact, item: Item, docs: dict[str, MarkdownDoc]) -> tuple[str, int] | str | None:
        """The bullet the fact replaces: the line the model copied (exactly, or closely) when it is a line of the
        named file about the same subject, else for a correction the line it corrects; a copied line about
        something else, or none of that file, is the reason the item is refused."""
        wanted = fact_text(item.replaces)
        if wanted:
            named = [(item.file, bullet) for bullet in self._doc(item.file, docs).bullets()]
            found = next(((p, b) for p, b in named if fact_text(b.text) == wanted), None)
            scored = max(((similarity(wanted, b.text), p, b) for p, b in named), default=None, key=lambda s: s[0])
            if found is None and scored is not None and scored[0] >= REPLACES_SIMILARITY:
                found = scored[1], scored[2]
            if found is None:
                return f"`replaces` names no line of {item.file}"
            if not _about_the_same(fact, fact_text(found[1].text), found[0]):
                return f"`replaces` names a line about something else: {fact_text(found[1].text)[:80]!r}"
            return found[0], found[1].index
        if fact.is_correction:
            bullets = [(path, bullet) for path in CORE_FILES for bullet in self._doc(path, docs).bullets()]
            return next(((p, b.index) for p, b in bullets if corrects(fact.text, b.text, path=p)), None)
        return None

    def _write(self, path: str, doc: MarkdownDoc, *, note: bool = True) -> bool:
        result = self.toolbox.apply("write_file", path=path, content=doc.render())
        if not result.ok and note:
            self.notes.append(f"{path}: {result.problem}")
        return result.ok


def _line_for(fact: BatchFact, written: str, known: frozenset[str]) -> tuple[str, str]:
    """The model's line when it keeps the fact, else the fact's own words: an item writes its fact, nothing else.
    A line that says more than its fact is refused (the second value says why)."""
    line = strip_tag_prefix(fact_text(written.splitlines()[0] if written.strip() else ""))
    if not line:
        return tidy_sentence(fact.text), ""
    more = says_more(line, new_part(fact.text)[0] if fact.is_correction else fact.text, known=known)
    if more:
        return "", f"its line says more than its fact ({more[:80]!r})"
    if holds(line, fact.text, correction=fact.is_correction):
        return tidy_sentence(line), ""
    return tidy_sentence(fact.text), ""


def _about_the_same(fact: BatchFact, line: str, path: str) -> bool:
    """The line a `replaces` names is one the fact may replace: the line it corrects, a restatement of it, or a
    line about the same subject saying most of the same."""
    if corrects(fact.text, line, path=path) or holds(line, fact.text, context=context_of(path)):
        return True
    mine, theirs = read(new_part(fact.text)[0]).stems, read(line).stems
    return same_subject(fact.text, line) and 2 * len(mine & theirs) >= len(mine | theirs)


def _last_section(doc: MarkdownDoc) -> str:
    titles = [line.lstrip("#").strip() for line in doc.lines if line.startswith("## ")]
    return titles[-1] if titles else "Notes"


Ask = Callable[[Conversation, SessionResult, Callable[[str], None]], str]


def structured_session(ask: Ask, request: SessionRequest, toolbox: ToolBox, result: SessionResult | None = None,
                       *, shape: str = JSON_SCHEMA) -> SessionResult:
    """One structured request over the batch's facts (or, in a follow-up, the ones still open), applied.

    `ask` sends a conversation and returns the answer's text (the LLM engine's, with its retries, budgets and
    accounting).
    """
    result = result or SessionResult(summary="")
    facts = [fact for fact in batch_facts(request.batch) if not request.open_facts
             or fact.number in request.open_facts]
    if not facts:
        return result
    conversation = Conversation([{"role": "system", "content": system_prompt()},
                                 {"role": "user", "content": user_message(facts, toolbox)}], None,
                                extra={"response_format": dict(SHAPES[shape])})
    result.requests += 1
    request.activity(f"waiting for the model (request {result.requests}, structured)")
    content = ask(conversation, result, request.activity)
    conversation.answered(content)
    result.transcript = [*result.transcript, *conversation.messages]
    items, summary = read_items(content)
    filing = Filing(toolbox, facts)
    filing.apply(items)
    result.explanations = {**result.explanations, **filing.explanations}
    result.warnings += [f"structured mode: {note}" for note in filing.notes]
    # Only the answer's own `summary` is one: the answer itself (cut off at max_tokens, a piece of JSON) never is,
    # and without one the commit's subject is the change summary computed from the diff.
    result.summary = result.summary or summary
    result.state = STRUCTURED
    return result


STRUCTURED = "structured"  # a SessionResult's state after a structured session: its follow-up is one too

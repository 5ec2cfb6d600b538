"""Structured mode: the model answers with JSON a server constrains to a schema; nanodream makes the edits.

Small local models lose facts in a tool loop: they describe edits, copy examples, rewrite whole files. Asked
instead for one item per numbered fact — its file, its line, the line it replaces, or why it stays out — with
the server holding the answer to a JSON schema (llama.cpp's and vLLM's `response_format`, Ollama's `format`;
litellm passes `response_format` on), the same models keep most facts. nanodream turns each item into an edit
of the staged copy through the same `write_file` tool (so the same caps, secret and injection checks) and the
same guards and accounting after the session.

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
from nanodream.boundedjson import JSONRefused
from nanodream.engines.base import SessionRequest, SessionResult
from nanodream.engines.conversation import Conversation
from nanodream.engines.facts import BatchFact, batch_facts, corrects, holds, strip_tag_prefix
from nanodream.engines.routing import route_fact
from nanodream.markdown import MarkdownDoc
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
# A line an item names to replace must share this much with the fact (or be one it corrects): an unrelated line
# named by a confused model ("ledgerline uses chi" for the staging host's correction) is never replaced.
RELATED_SIMILARITY = 0.25


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
    """Applies the items of one answer to the staged files, through the toolbox."""

    def __init__(self, toolbox: ToolBox, facts: list[BatchFact]) -> None:
        self.toolbox = toolbox
        self.facts = {fact.number: fact for fact in facts}
        self.explanations: dict[int, str] = {}
        self.notes: list[str] = []

    def apply(self, items: list[Item]) -> None:
        seen: set[int] = set()
        for item in items:
            fact = self.facts.get(item.number)
            if fact is None or item.number in seen:
                continue
            seen.add(item.number)
            if item.file == NONE or item.file not in CORE_FILES:
                if item.reason:
                    self.explanations[item.number] = item.reason
                continue
            self._file(fact, item)

    def _file(self, fact: BatchFact, item: Item) -> None:
        line = _line_for(fact, item.line)
        if self._held(fact):
            return
        old = self._replaced(fact, item.replaces)
        if old is not None:
            path, index = old
            doc = MarkdownDoc(self.toolbox.staging.read(path) or "")
            doc.replace_bullet(index, line)
            self._write(path, doc)
            return
        doc = MarkdownDoc(self.toolbox.staging.read(item.file) or "")
        doc.add_bullet(route_fact(line).section if item.file == route_fact(line).path else _last_section(doc),
                       line)
        self._write(item.file, doc)

    def _held(self, fact: BatchFact) -> bool:
        return any(holds(fact_text(line), fact.text, correction=fact.is_correction)
                   for path in CORE_FILES for line in (self.toolbox.staging.read(path) or "").splitlines())

    def _replaced(self, fact: BatchFact, copied: str) -> tuple[str, int] | None:
        """The bullet the fact replaces: the line the model copied (exactly, or closely), else for a correction
        the line it corrects."""
        bullets = [(path, bullet) for path in CORE_FILES
                   for bullet in MarkdownDoc(self.toolbox.staging.read(path) or "").bullets()]
        wanted = fact_text(copied)
        if wanted:  # only a line the fact is about: a small model names any line, and that line's fact would be lost
            bullets = [(path, bullet) for path, bullet in bullets if _about(fact, bullet.text)]
            exact = next(((p, b.index) for p, b in bullets if fact_text(b.text) == wanted), None)
            if exact is not None:
                return exact
            scored = max(((similarity(wanted, b.text), p, b.index) for p, b in bullets), default=None)
            if scored is not None and scored[0] >= REPLACES_SIMILARITY:
                return scored[1], scored[2]
        if fact.is_correction:
            return next(((p, b.index) for p, b in bullets if corrects(fact.text, b.text)), None)
        return None

    def _write(self, path: str, doc: MarkdownDoc) -> None:
        result = self.toolbox.invoke("write_file", path=path, content=doc.render())
        if not result.ok:
            self.notes.append(f"{path}: {result.problem}")


def _about(fact: BatchFact, line: str) -> bool:
    """Whether `line` is one the fact may replace: one it corrects, or one that says much of the same."""
    return corrects(fact.text, line) or similarity(fact.text, line) >= RELATED_SIMILARITY


def _line_for(fact: BatchFact, written: str) -> str:
    """The model's line when it holds the fact, else the fact's own words: an item writes its fact, nothing else."""
    line = strip_tag_prefix(fact_text(written.splitlines()[0] if written.strip() else ""))
    if line and holds(line, fact.text, correction=fact.is_correction):
        return tidy_sentence(line)
    return tidy_sentence(fact.text)


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

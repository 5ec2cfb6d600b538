"""One dream session through litellm: a bounded tool loop with retries for transient provider errors.

The model's tools are sent natively (`tool_mode = "auto"` or `"native"`) or described in the system prompt
(`"text"`). In `auto` and `text`, an answer without native `tool_calls` is read for calls written as text
(toolbox/textcalls.py), which run exactly like native ones: same toolbox, same caps, same guards.

A written call runs only when it is the model's own. An answer that carries native calls is never read for
written ones; in `auto`, once the model has called natively, its later answers are not read either (it can
call, so a call in its prose is one it quotes or discusses); and a call that repeats one the session was given
(the history, memory, tool results: `Quotations`) is a quotation of its input. Such calls are not run, and the
run reports them.
"""

from __future__ import annotations

import copy
import gc
import importlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nanodream.config import Settings
from nanodream.engines import caching, structured
from nanodream.engines.base import SessionError, SessionRequest, SessionResult, describe_error
from nanodream.engines.conversation import Call, Conversation, content_text
from nanodream.engines.credentials import api_key_for, check_routable
from nanodream.engines.numbered import reasons_in, without_reasons
from nanodream.engines.structured import STRUCTURED, structured_session
from nanodream.process import is_program
from nanodream.toolbox.registry import Tool, ToolResult
from nanodream.toolbox.textcalls import Quotations, TextCall, read_calls
from nanodream.toolbox.tools import Finished, SessionAborted, ToolBox
from nanodream.vocab import count


def _import_litellm():
    """Import litellm on the model path only; keep it from fetching its cost map over the network.

    litellm 1.106 imports all of itself from its `__init__` (2,700 modules, ~300,000 objects; no part can be
    imported alone), and the garbage collector ran full collections over that growing heap all along the way
    (~0.5 s), and again at exit. So collection waits until the import is done; in nanodream's own process, what
    the import built (alive as long as the process) is then frozen out of later collections (gc.freeze), which a
    library inside a host's process must not do to the host's heap (bench/README.md, "Start-up of a model run").
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    first = "litellm" not in sys.modules
    collecting = gc.isenabled()
    if first:
        gc.disable()
    try:
        litellm = importlib.import_module("litellm")
    finally:
        if first:
            if is_program():
                gc.freeze()
            if collecting:
                gc.enable()
    litellm.suppress_debug_info = True
    return litellm


class LLMEngine:
    def __init__(self, settings: Settings, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.name = settings.model
        self.sleep = sleep
        self.litellm = _import_litellm()
        check_routable(self.litellm, settings)  # a model litellm cannot route stops here, before any request
        self.api_key = api_key_for(self.litellm, settings)  # and so does a missing key
        errors = self.litellm.exceptions
        self._transient = (
            errors.RateLimitError, errors.Timeout, errors.APIConnectionError,
            errors.InternalServerError, errors.ServiceUnavailableError, errors.BadGatewayError,
        )
        self._refused = (errors.BadRequestError, errors.UnprocessableEntityError)
        # Bad requests that are not about the `tool` role: retrying with results as user text cannot help them.
        self._not_the_role = (errors.ContextWindowExceededError, errors.ContentPolicyViolationError)
        self._breakpoints = caching.takes_breakpoints(settings.model, _provider(self.litellm, settings.model))
        # A server that refused `role: tool` after a call written as text refuses it in every session of the run.
        self._results_as_user = settings.tool_mode == "text"
        # Structured mode: set, or taken by `auto` for the rest of the run once it kept a batch the tools lost.
        self.structured = settings.tool_mode == "structured"
        self._fallback_tried = False
        self._json_object_shape = False  # the server takes the schema as llama-cpp-python does (see structured.py)
        self.calls: Counter[str] = Counter()  # calls of the run by how they came: "native" or "written" (as text)

    def fallback(self) -> LLMEngine | None:
        """In `auto`, the engine to dream a batch again with after the tools session could not do the job:
        this one in structured mode (once per run; later batches go straight to it when it kept the batch)."""
        if self.settings.tool_mode != "auto" or self.structured or self._fallback_tried:
            return None
        self._fallback_tried = True
        twin = copy.copy(self)
        twin.structured = True
        return twin

    @property
    def mode(self) -> str:
        """How its sessions work, as records and transcript names say it: structured, or tools (also written)."""
        return STRUCTURED if self.structured else "tools"

    def adopt(self, twin: LLMEngine) -> None:
        """The structured twin kept a batch the tools lost: the run's later batches start in structured mode."""
        self.structured = twin.structured

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        if self.structured:
            return structured_session(self._ask, request, toolbox, shape=self._shape())
        tools = None if self.settings.tool_mode == "text" else toolbox.schemas()
        conversation = Conversation([{"role": "system", "content": request.system_prompt},
                                     {"role": "user", "content": request.user_message}],
                                    tools, results_as_user=self._results_as_user, user_blocks=request.user_blocks)
        result = SessionResult(summary="", transcript=conversation.messages, state=conversation)
        result = self._converse(conversation, result, request, toolbox)
        given = f"{result.reasons_given}\n{result.summary}"  # the first answer may say why, by number
        result.explanations = reasons_in(given)
        result.summary = without_reasons(result.summary) if result.explanations else result.summary
        return result

    def converse(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        """A conversation of its own over any toolbox (connect's, after the consolidation): the session loop,
        its retries, budget and accounting, and none of a dream's follow-up."""
        return self.run(request, toolbox)

    def answer(self, system: str, user: str, activity: Callable[[str], None] = lambda text: None) -> SessionResult:
        """One request without tools (ingest's extraction), with a session's retries, token budget and accounting;
        the answer's text is the result's summary. Raises SessionError like a session."""
        conversation = Conversation([{"role": "system", "content": system}, {"role": "user", "content": user}], None)
        result = SessionResult(summary="", transcript=conversation.messages)
        result.requests += 1
        activity("waiting for the model")
        result.summary = content_text(self.complete(conversation, result, activity).choices[0].message.content).strip()
        conversation.answered(result.summary)
        return result

    def follow_up(self, request: SessionRequest, result: SessionResult, message: str,
                  toolbox: ToolBox) -> SessionResult:
        """One more user message in the same conversation; the model may call tools again or answer.

        After a structured session, one more structured request over the facts still open instead."""
        if result.state == STRUCTURED:
            return structured_session(self._ask, request, toolbox, result, shape=self._shape())
        conversation: Conversation = result.state
        conversation.messages.append({"role": "user", "content": message})
        return self._converse(conversation, result, request, toolbox)

    def _shape(self) -> str:
        return structured.JSON_OBJECT if self._json_object_shape else structured.JSON_SCHEMA

    def _ask(self, conversation: Conversation, result: SessionResult, activity: Callable[[str], None]) -> str:
        return content_text(self.complete(conversation, result, activity).choices[0].message.content)

    def _converse(self, conversation: Conversation, result: SessionResult, request: SessionRequest,
                  toolbox: ToolBox) -> SessionResult:
        """Ask, run the calls of the answer, and ask again until the session has its summary.

        The summary is an answer without calls, or one that comes with the calls: `finish(summary)`, or text
        beside calls that only write. A response whose calls all succeed with a summary known ends the session
        without another request; a failed call, or a read the model asked for, is answered and it goes on.
        """
        summary = ""  # the summary given so far in this conversation; the next answer's summary replaces it
        result.reasons_given = ""
        while True:
            result.requests += 1
            request.activity(f"waiting for the model (request {result.requests})")
            message = self.complete(conversation, result, request.activity).choices[0].message
            content = content_text(message.content)
            turn = self._turn(message, content, toolbox, result, conversation, request)
            if not turn.ran:
                result.summary = turn.prose.strip() or summary
                conversation.answered(content)
                return result
            if turn.written:
                conversation.wrote(content, turn.prose, turn.calls)
            else:
                conversation.called(content, turn.calls)
            summary = turn.summary or summary
            result.reasons_given = turn.reasons or result.reasons_given
            if summary and turn.done:
                result.summary = summary
                return result

    def _turn(self, message: Any, content: str, toolbox: ToolBox, result: SessionResult,
              conversation: Conversation, request: SessionRequest) -> Turn:
        """Run the calls of one answer: native ones, else (unless `tool_mode = "native"`) those written as text."""
        native = list(message.tool_calls or [])
        if native:  # what it wrote beside them may become the summary: without any call written in it
            conversation.called_natively = True
            self.calls["native"] += len(native)
            prose = content if self.settings.tool_mode == "native" else read_calls(content)[1]
            return Turn([self._run(c.id, c.function.name, c.function.arguments, toolbox, result) for c in native],
                        prose)
        written, prose = self._own_calls(content, conversation, request, result)
        self.calls["written"] += len(written)
        turn = len(conversation.messages)  # makes the ids of this answer's calls unique in the session
        return Turn([self._run(f"text_call_{turn}_{n}", call.name, call.arguments, toolbox, result, call.unreadable)
                     for n, call in enumerate(written, start=1)], prose, written=True)

    def _own_calls(self, content: str, conversation: Conversation, request: SessionRequest,
                   result: SessionResult) -> tuple[list[TextCall], str]:
        """The calls written in an answer that are the model's own, and the answer without any call.

        Calls it may not have meant, or quotes from its input, are left out and reported in the run's warnings.
        """
        if self.settings.tool_mode == "native":
            return [], content
        written, prose = read_calls(content)
        if not written:
            return [], prose
        if self.settings.tool_mode == "auto" and conversation.called_natively:
            result.warnings.append(f"session: did not run {_described(written)} written as text after the model "
                                   "had called tools natively: such a call is one it quotes or discusses")
            return [], prose
        given = Quotations([*conversation.given(), *(entry.content for entry in request.batch.entries)])
        quoted = [call for call in written if given.holds(call)]
        if quoted:
            result.warnings.append(f"session: did not run {_described(quoted)} written as text: it repeats a call "
                                   "in the history or memory the session was given (a quotation, not the model's "
                                   "own call)")
        return [call for call in written if not any(call is q for q in quoted)], prose

    def _run(self, call_id: str, name: str, arguments: str | dict[str, Any], toolbox: ToolBox,
             result: SessionResult, unreadable: str = "") -> Ran:
        try:
            outcome = toolbox.dispatch(name, arguments, unreadable=unreadable)
        except SessionAborted as exc:
            raise self._failure(str(exc), result, misuse=exc.misuse, model_fault=True,
                                cap="calls" if exc.cap else "") from None
        return Ran(Call(call_id, name, arguments, outcome.text), outcome, toolbox.registry.get(name))

    def complete(self, conversation: Conversation, result: SessionResult, activity: Callable[[str], None]):
        """One completion, retried with exponential backoff on timeouts, 429 and 5xx.

        nanodream's tools are plain functions, never MCP servers for litellm's gateway to call: litellm's own
        `_skip_mcp_handler` keeps its first call with tools from importing the MCP SDK to look (+244 modules,
        ~0.5 s of CPU; litellm 1.106.2 is pinned, and it pops the flag before anything reaches the provider).
        """
        attempt = 0
        while True:
            messages = (caching.marked(conversation.messages, conversation.user_blocks) if self._breakpoints
                        else conversation.messages)
            result.request_bytes += _request_bytes(messages, conversation)
            try:
                response = self.litellm.completion(
                    model=self.settings.model, messages=messages, tools=conversation.tools,
                    api_base=self.settings.api_base, api_key=self.api_key, timeout=self.settings.timeout,
                    max_tokens=self.settings.max_tokens, num_retries=0, max_retries=0, _skip_mcp_handler=True,
                    **conversation.extra,
                )
            except self._transient as exc:
                if self._shape_refused(exc, conversation):
                    activity("the server refused the JSON schema's shape; sending it the other way")
                    continue
                if attempt >= self.settings.max_retries:
                    raise self._failure(
                        f"provider error after {count(attempt + 1, 'attempt')}: {describe_error(exc)}", result
                    ) from None
                delay = self.settings.retry_backoff * (2**attempt)
                activity(f"{type(exc).__name__} from the provider; retry {attempt + 1} of "
                         f"{self.settings.max_retries} in {delay:.0f}s")
                self.sleep(delay)
                attempt += 1
                continue
            except self._refused as exc:
                activity(self._resend(exc, conversation, result))
                continue
            except Exception as exc:  # any other provider failure is final for this batch
                raise self._failure(f"provider error: {describe_error(exc)}", result) from None
            self._account(response, result)
            self._results_as_user |= conversation.results_as_user  # it worked: every later session does the same
            _note_cut_short(response, result, self.settings.max_tokens)
            return response

    def _shape_refused(self, exc: Exception, conversation: Conversation) -> bool:
        """A server error that names `response_format` is a refused shape, not a fault to retry: llama-cpp-python
        0.3 answers the json_schema shape with a 500 carrying its validation error."""
        if "response_format" not in str(exc) or not structured.other_shape(conversation.extra):
            return False
        self._json_object_shape = True  # every later structured request of the run uses it at once
        return True

    def _resend(self, exc: Exception, conversation: Conversation, result: SessionResult) -> str:
        """How to send a request the server refused (400/422) again, said for the activity line; raises the
        failure when nothing would change: a structured request in the other JSON-schema shape, or tool results
        after calls written as text as a user message."""
        if structured.other_shape(conversation.extra):
            self._json_object_shape = True  # every later structured request of the run uses it at once
            return "the server refused the JSON schema's shape; sending it the other way"
        if not isinstance(exc, self._not_the_role) and conversation.results_to_user_messages():
            return "the server refused tool results after calls written as text; sending them as text"
        raise self._failure(f"provider error: {describe_error(exc)}", result) from None

    def _account(self, response: Any, result: SessionResult) -> None:
        usage = getattr(response, "usage", None)
        result.tokens_in += int(getattr(usage, "prompt_tokens", 0) or 0)
        result.tokens_out += int(getattr(usage, "completion_tokens", 0) or 0)
        result.cached_tokens += cached_tokens(usage)
        cost = self.price(response)
        if cost is not None:
            result.cost = (result.cost or 0.0) + cost
        used = result.tokens_in + result.tokens_out
        if used > self.settings.max_session_tokens:
            raise self._failure(
                f"session token budget exceeded ({used} > {self.settings.max_session_tokens})", result,
                model_fault=True, cap="tokens")

    def price(self, response: Any) -> float | None:
        """What litellm says the response cost; None for a model without a price entry (cost unknown)."""
        try:
            return float(self.litellm.completion_cost(completion_response=response))
        except Exception:  # litellm raises for models without a price entry
            return None

    @staticmethod
    def _failure(reason: str, result: SessionResult, *, misuse: bool = False, model_fault: bool = False,
                 cap: str = "") -> SessionError:
        return SessionError(reason, spent=result, misuse=misuse, model_fault=model_fault, cap=cap)


@dataclass(frozen=True)
class Ran:
    """One call of an answer: as the conversation records it, what it returned, and the tool it reached."""

    call: Call
    outcome: ToolResult
    tool: Tool | None  # None: no such tool


@dataclass(frozen=True)
class Turn:
    """The calls of one answer, run, and the text beside them."""

    ran: list[Ran]
    prose: str
    written: bool = False  # the calls were written as text

    @property
    def calls(self) -> list[Call]:
        return [r.call for r in self.ran]

    @property
    def finished(self) -> bool:
        return any(r.tool is not None and r.tool.finishes and r.outcome.ok for r in self.ran)

    @property
    def _finished(self) -> list[Finished]:
        return [r.outcome.value for r in self.ran if r.tool is not None and r.tool.finishes and r.outcome.ok]

    @property
    def summary(self) -> str:
        """The summary this answer gives: its `finish` call's, or the text beside calls that only write."""
        if self._finished:
            return self._finished[-1].summary
        reads = any(r.tool is None or r.tool.reads for r in self.ran)
        return "" if reads else self.prose.strip()

    @property
    def reasons(self) -> str:
        """The reasons by number its `finish` call gave ('' when none)."""
        return self._finished[-1].reasons if self._finished else ""

    @property
    def done(self) -> bool:
        """Every call succeeded, and none asked for something to read unless the answer also finished."""
        return all(r.outcome.ok for r in self.ran) and (self.finished or not any(r.tool.reads for r in self.ran))


def _request_bytes(messages: list[dict[str, Any]], conversation: Conversation) -> int:
    """What one request sends, near enough to its body's size: the messages, tools and response format as JSON
    (each attempt counts: a retried request is sent again)."""
    sent = [messages, conversation.tools or [], conversation.extra]
    return len(json.dumps(sent, ensure_ascii=False, default=str).encode())


def _note_cut_short(response: Any, result: SessionResult, limit: int) -> None:
    """An answer that stopped at max_tokens is cut mid-way (a call's arguments, a summary): say so once."""
    choices = getattr(response, "choices", None) or []
    if choices and getattr(choices[0], "finish_reason", None) == "length":
        note = f"an answer stopped at max_tokens ({limit}) and was cut short; raise max_tokens if this repeats"
        if note not in result.warnings:
            result.warnings.append(note)


def _described(calls: list[TextCall]) -> str:
    """'edit_file(SOUL.md), write_file': each call by its tool and, when it names one, its file."""
    named = []
    for call in calls:
        path = call.arguments.get("path") if isinstance(call.arguments, dict) else None
        named.append(f"{call.name[:40]}({path[:60]})" if isinstance(path, str) else call.name[:40])
    return ", ".join(named)


def cached_tokens(usage: Any) -> int:
    """Prompt tokens the provider read from its cache: OpenAI's `prompt_tokens_details.cached_tokens`, or
    Anthropic's `cache_read_input_tokens` (litellm reports both ways; either is part of `prompt_tokens`)."""
    details = getattr(usage, "prompt_tokens_details", None)
    found = getattr(details, "cached_tokens", None) or getattr(usage, "cache_read_input_tokens", None)
    try:
        return max(int(found or 0), 0)
    except (TypeError, ValueError):
        return 0


def _provider(litellm: Any, model: str) -> str:
    """The provider litellm routes `model` to ('' when it cannot tell: its own request will say what is wrong)."""
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # litellm raises for a model string it cannot route
        return ""

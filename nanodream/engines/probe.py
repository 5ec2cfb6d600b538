"""`nanodream model check`: what a model and its server do with tools, learned from one or two tiny requests.

Before a person points cron at a local model, they need to know whether it returns native tool calls,
writes them as text (which `tool_mode = "auto"` understands), or neither — in which case every dream would
end as `model-no-op`. The probe asks the model to call `read_file` once with the real tool schemas; if no
call comes back it asks again in text mode, with the tools described in the system prompt exactly as a
text-mode session describes them. No memory is read or written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nanodream.config import Settings
from nanodream.engines.base import SessionError, SessionResult
from nanodream.engines.conversation import Conversation, content_text
from nanodream.engines.llm import LLMEngine
from nanodream.toolbox.textcalls import read_calls, text_mode_instructions
from nanodream.toolbox.tools import TOOLS
from nanodream.vocab import Declared, Shape

PROBE_TOOL = "read_file"
_SYSTEM = ("You are being checked for tool use. Call the tool read_file once, with path USER.md. "
           "Do not answer in prose.")
_USER = 'Call read_file with {"path": "USER.md"} now.'


@dataclass
class ProbeReport(Declared):
    """What the probe learned; `tool_mode` is the setting to use, None when the model is not usable."""

    json_shape = Shape(derived=("usable",))

    model: str
    api_base: str | None
    native_tool_calls: bool = False
    text_tool_calls: bool = False
    usage_reported: bool = False
    price_known: bool = False
    tool_mode: str | None = None
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    error: str = ""

    @property
    def usable(self) -> bool:
        return self.tool_mode is not None


def check_model(settings: Settings) -> ProbeReport:
    """Probe `settings.model`; ProviderMisconfigured (e.g. its key is not set) is raised before any request.

    Retries are capped at one: a person is waiting for the answer.
    """
    engine = LLMEngine(replace(settings, max_retries=min(settings.max_retries, 1)))
    report = ProbeReport(settings.model, settings.api_base)
    result = SessionResult(summary="")
    try:
        native, written = _ask(engine, report, result, text_mode=False)
        report.native_tool_calls, report.text_tool_calls = native, written
        if native or written:
            report.tool_mode = "auto"
        elif _ask(engine, report, result, text_mode=True)[1]:
            report.text_tool_calls, report.tool_mode = True, "text"
    except SessionError as exc:
        report.error = exc.reason
    report.tokens_in, report.tokens_out = result.tokens_in, result.tokens_out
    return report


def _ask(engine: LLMEngine, report: ProbeReport, result: SessionResult, *, text_mode: bool) -> tuple[bool, bool]:
    """One request; whether it came back with a native call, and with a call written as text, to read_file."""
    system = f"{_SYSTEM}\n\n{text_mode_instructions(TOOLS)}" if text_mode else _SYSTEM
    conversation = Conversation([{"role": "system", "content": system}, {"role": "user", "content": _USER}],
                                None if text_mode else TOOLS.schemas())
    report.requests += 1
    response = engine.complete(conversation, result, lambda text: None)
    usage = getattr(response, "usage", None)
    report.usage_reported = report.usage_reported or bool(getattr(usage, "prompt_tokens", 0))
    report.price_known = report.price_known or result.cost is not None  # complete() priced it already
    message = response.choices[0].message
    native = any(call.function.name == PROBE_TOOL for call in message.tool_calls or [])
    written = any(call.name == PROBE_TOOL and not call.unreadable
                  for call in read_calls(content_text(message.content))[0])
    return native, written

"""Which key a model request carries, decided before the first request so a missing one costs no retries.

Without this, litellm reaches the provider's client with no key, the client raises "Missing credentials",
litellm reports it as a server error, and the run retries it with backoff and counts it against the batch
as if the history were at fault. A missing key is the person's to fix: it is refused at once, naming the
variable litellm's own `validate_environment` says that provider reads.
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from nanodream.config import Settings
from nanodream.engines.base import ProviderMisconfigured

# Sent to a server reached through `api_base` when no key is configured: local servers (llama.cpp, Ollama,
# vLLM, LM Studio) take none, but litellm's OpenAI client refuses to send a request without one.
LOCAL_SERVER_KEY = "no-key"


def api_key_for(litellm: Any, settings: Settings) -> str | None:
    """The key to pass with each request (None: litellm finds the provider's own variable); ProviderMisconfigured
    when the provider needs a key that is nowhere to be found."""
    key = settings.provider_key()
    if key:
        return key
    if settings.api_key_env:
        raise ProviderMisconfigured(f"{settings.api_key_env} is not set (api_key_env names it as the key for "
                                    f"{settings.model}); export it, or remove api_key_env")
    missing = [name for name in _missing_variables(litellm, settings.model) if name.endswith("_API_KEY")]
    if not missing:
        return None
    if settings.api_base:
        return LOCAL_SERVER_KEY
    needed = " or ".join(missing)
    raise ProviderMisconfigured(f"{needed} is not set, and {settings.model} needs it; export {missing[0]}=…, or name "
                                "the variable that holds the key with api_key_env (a local server: set api_base)")


def check_routable(litellm: Any, settings: Settings) -> None:
    """ProviderMisconfigured when litellm cannot tell which provider serves `settings.model` ("LLM Provider NOT
    provided": a misspelled or unprefixed name). Every request would fail the same way; retrying it, splitting
    the batch or quarantining an entry cannot help, so it is said at once, with the nearest model litellm knows."""
    try:
        litellm.get_llm_provider(settings.model, api_base=settings.api_base)
    except Exception as exc:  # litellm raises BadRequestError for a model string it cannot route
        if "LLM Provider NOT provided" not in str(exc):
            return  # anything else: the request itself says what is wrong
        raise ProviderMisconfigured(
            f"model {settings.model!r} is not one litellm can route (LLM Provider NOT provided): name it as "
            f"provider/model, e.g. openai/gpt-4o-mini{_nearest(litellm, settings.model)}") from None


def _nearest(litellm: Any, model: str) -> str:
    """"; did you mean openai/gpt-4o-mini?" for a near miss of a model litellm knows, else ''."""
    close = difflib.get_close_matches(model.rsplit("/", 1)[-1], list(litellm.model_list), n=1, cutoff=0.8)
    if not close:
        return ""
    try:
        provider = litellm.get_llm_provider(close[0])[1]
    except Exception:  # a listed model litellm cannot route after all: no suggestion
        return ""
    return f"; did you mean {close[0] if close[0].startswith(f'{provider}/') else f'{provider}/{close[0]}'}?"


def _missing_variables(litellm: Any, model: str) -> list[str]:
    """The environment variables litellm says `model`'s provider needs and the environment lacks."""
    try:
        found = litellm.validate_environment(model=model)
    except Exception:  # an unknown provider: litellm's own request will say what is wrong
        return []
    return [name for name in found.get("missing_keys", []) if not os.environ.get(name)]

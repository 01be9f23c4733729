"""Which model to use, which provider serves it, and the client that talks to it.

API keys come from the providers' own environment variables only; they are
never read from, or written to, the config file.
"""

from __future__ import annotations

import os
import re
from typing import Literal
from urllib.parse import urlsplit

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.providers.base import ModelClient
from subterminator_tui.providers.retry import DEFAULT_TIMEOUT, RetryPolicy
from subterminator_tui.settings import Settings

# The newest Sonnet in the pinned anthropic SDK's model list
# (anthropic/types/model_param.py in anthropic 2.12); claude-sonnet-4-20250514
# is retired.
DEFAULT_MODEL = "claude-sonnet-5-5"

Provider = Literal["anthropic", "openai", "openai-compatible"]

#: Prefix that routes a model to an OpenAI-compatible server (Ollama, llama.cpp, vLLM).
COMPATIBLE_PREFIX = "openai:"

# Local servers ignore the key, but the OpenAI SDK refuses to start without one.
_PLACEHOLDER_KEY = "not-needed"

# o1, o3-mini, o4-mini...: OpenAI's reasoning models.
_OPENAI_REASONING = re.compile(r"o\d")

_ACCEPTED_FORMS = (
    "claude-* (Anthropic, e.g. claude-sonnet-5-5), "
    "gpt-* or o<digit>* (OpenAI, e.g. gpt-4o, o3-mini), "
    "openai:<name> (an OpenAI-compatible server, e.g. openai:llama3)"
)

_MISSING_ANTHROPIC = (
    "Missing ANTHROPIC_API_KEY. Set it via environment variable "
    "or use --model gpt-4o with OPENAI_API_KEY."
)
_MISSING_OPENAI = (
    "Missing OPENAI_API_KEY. Set it via environment variable "
    f"or use --model {DEFAULT_MODEL} with ANTHROPIC_API_KEY."
)
_MISSING_BASE_URL = (
    "No base URL for the OpenAI-compatible server of model {model}. "
    "Set SUBTERMINATOR_OPENAI_COMPATIBLE_BASE_URL (or openai_compatible_base_url "
    "in config.toml, or OPENAI_BASE_URL), e.g. http://localhost:11434/v1 for Ollama."
)


def resolve_model_name(cli_model: str | None, settings: Settings) -> str:
    """The model to use: ``--model``, else SUBTERMINATOR_MODEL, else the config file, else default.

    ``settings.model`` already ranks the environment over the config file.
    """
    for candidate in (cli_model, settings.model):
        if candidate and candidate.strip():
            return candidate.strip()
    return DEFAULT_MODEL


def provider_for(model: str) -> Provider:
    """The provider that serves ``model``; ConfigurationError for a name no provider takes."""
    if model.startswith(COMPATIBLE_PREFIX) and model[len(COMPATIBLE_PREFIX) :].strip():
        return "openai-compatible"
    if model.startswith("claude-"):
        return "anthropic"
    if model.startswith("gpt-") or _OPENAI_REASONING.match(model):
        return "openai"
    raise ConfigurationError(f"Unsupported model: {model}. Accepted forms: {_ACCEPTED_FORMS}.")


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def compatible_base_url(settings: Settings) -> str | None:
    """The OpenAI-compatible server's base URL: settings first, then OPENAI_BASE_URL."""
    configured = (settings.openai_compatible_base_url or "").strip()
    return configured or _env("OPENAI_BASE_URL")


def missing_model_reason(cli_model: str | None, settings: Settings) -> str | None:
    """Why the resolved model cannot be used (unsupported, no key, no URL), or None if usable."""
    model = resolve_model_name(cli_model, settings)
    try:
        provider = provider_for(model)
    except ConfigurationError as error:
        return str(error)
    return _missing_for(model, provider, settings)


def _missing_for(model: str, provider: Provider, settings: Settings) -> str | None:
    if provider == "anthropic":
        missing = None if _env("ANTHROPIC_API_KEY") else _MISSING_ANTHROPIC
        return missing or _bad_url("ANTHROPIC_BASE_URL", _env("ANTHROPIC_BASE_URL"))
    if provider == "openai":
        missing = None if _env("OPENAI_API_KEY") else _MISSING_OPENAI
        return missing or _bad_url("OPENAI_BASE_URL", _env("OPENAI_BASE_URL"))
    base = compatible_base_url(settings)
    if not base:
        return _MISSING_BASE_URL.format(model=model)
    return _bad_url("the OpenAI-compatible base URL", base)


def _bad_url(name: str, url: str | None) -> str | None:
    """Why ``url`` cannot be a model API's base URL, found before any browser starts."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (
            f"{name} is {url!r}, which is not an http(s) URL such as "
            "https://api.example.com or http://localhost:11434/v1. Fix or unset it."
        )
    return None


def configured_model_problem(settings: Settings) -> str | None:
    """A model named in the settings (SUBTERMINATOR_MODEL or the config file) no provider takes.

    Checked on every run, as ``--model`` is: a bad name should not wait until a
    playbook hands over to the AI.
    """
    if settings.model is None or not settings.model.strip():
        return None
    try:
        provider_for(settings.model.strip())
    except ConfigurationError as error:
        return f"SUBTERMINATOR_MODEL / model in the config file: {error}"
    return None


def create_model_client(
    model: str, settings: Settings, *, policy: RetryPolicy | None = None
) -> ModelClient:
    """A ModelClient for ``model``; ConfigurationError when its key or base URL is missing.

    The SDKs keep reading their own variables (ANTHROPIC_BASE_URL,
    OPENAI_BASE_URL, ...), so no base URL is passed for the hosted APIs. SDK
    retries are off: ``call_with_retries`` is the only retry layer.
    """
    provider = provider_for(model)
    missing = _missing_for(model, provider, settings)
    if missing:
        raise ConfigurationError(missing)
    # Imported here so that resolving a name does not load both SDKs.
    if provider == "anthropic":
        import anthropic

        from subterminator_tui.providers.anthropic_client import AnthropicModelClient

        return AnthropicModelClient(
            model,
            policy=policy,
            client=anthropic.AsyncAnthropic(
                api_key=_env("ANTHROPIC_API_KEY"), max_retries=0, timeout=DEFAULT_TIMEOUT
            ),
        )

    import openai

    from subterminator_tui.providers.openai_client import OpenAIModelClient

    if provider == "openai":
        return OpenAIModelClient(
            model,
            policy=policy,
            client=openai.AsyncOpenAI(
                api_key=_env("OPENAI_API_KEY"), max_retries=0, timeout=DEFAULT_TIMEOUT
            ),
        )
    name = model[len(COMPATIBLE_PREFIX) :].strip()
    return OpenAIModelClient(
        name,
        provider="openai-compatible",
        policy=policy,
        client=openai.AsyncOpenAI(
            api_key=_env("OPENAI_API_KEY") or _PLACEHOLDER_KEY,
            base_url=compatible_base_url(settings),
            max_retries=0,
            timeout=DEFAULT_TIMEOUT,
        ),
    )

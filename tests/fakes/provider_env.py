"""Keep the developer's real provider variables (keys, base URLs) out of provider tests."""

from __future__ import annotations

import pytest

#: Variables the anthropic and openai SDKs read on their own.
PROVIDER_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CUSTOM_HEADERS",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
)


def clear_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset every provider variable for the rest of the test."""
    for variable in PROVIDER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)

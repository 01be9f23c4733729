"""Model name resolution, provider routing and client creation."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.providers.anthropic_client import AnthropicModelClient
from subterminator_tui.providers.openai_client import OpenAIModelClient
from subterminator_tui.providers.resolution import (
    DEFAULT_MODEL,
    compatible_base_url,
    create_model_client,
    missing_model_reason,
    provider_for,
    resolve_model_name,
)
from subterminator_tui.settings import load_settings
from tests.fakes.provider_env import clear_provider_env

MISSING_ANTHROPIC = (
    "Missing ANTHROPIC_API_KEY. Set it via environment variable "
    "or use --model gpt-4o with OPENAI_API_KEY."
)
MISSING_OPENAI = (
    "Missing OPENAI_API_KEY. Set it via environment variable "
    "or use --model claude-sonnet-5-5 with ANTHROPIC_API_KEY."
)


@pytest.fixture(autouse=True)
def no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the developer's real keys and base URLs."""
    clear_provider_env(monkeypatch)


@pytest.fixture
def config_with_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config file naming gpt-from-file, in use via SUBTERMINATOR_CONFIG."""
    path = tmp_path / "config.toml"
    path.write_text('model = "gpt-from-file"\n', encoding="utf-8")
    monkeypatch.setenv("SUBTERMINATOR_CONFIG", str(path))
    return path


def test_cli_model_beats_env_and_file(
    config_with_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--model wins over SUBTERMINATOR_MODEL and the config file."""
    monkeypatch.setenv("SUBTERMINATOR_MODEL", "gpt-from-env")
    assert resolve_model_name("claude-from-cli", load_settings()) == "claude-from-cli"


def test_env_model_beats_file(config_with_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SUBTERMINATOR_MODEL wins over the config file."""
    monkeypatch.setenv("SUBTERMINATOR_MODEL", "gpt-from-env")
    assert resolve_model_name(None, load_settings()) == "gpt-from-env"


def test_file_model_used_without_cli_or_env(config_with_model: Path) -> None:
    """The config file's model applies when neither --model nor the env var is set."""
    assert resolve_model_name(None, load_settings()) == "gpt-from-file"


def test_default_model_when_nothing_is_set() -> None:
    """With no choice anywhere, the default Sonnet is used."""
    assert resolve_model_name(None, load_settings()) == DEFAULT_MODEL == "claude-sonnet-5-5"


def test_default_model_is_in_the_pinned_sdk_list() -> None:
    """The default names a model the pinned anthropic SDK knows."""
    from typing import get_args

    from anthropic.types import ModelParam

    known = get_args(get_args(ModelParam)[0])
    assert DEFAULT_MODEL in known


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("claude-sonnet-5-5", "anthropic"),
        ("claude-haiku-4-5", "anthropic"),
        ("gpt-4o", "openai"),
        ("gpt-5", "openai"),
        ("o1", "openai"),
        ("o3-mini", "openai"),
        ("o4-mini", "openai"),
        ("openai:llama3", "openai-compatible"),
    ],
)
def test_provider_routing(model: str, provider: str) -> None:
    """Each accepted model form routes to its provider."""
    assert provider_for(model) == provider


@pytest.mark.parametrize("model", ["foo", "llama3", "omni", "openai:", "Claude-3"])
def test_unsupported_model_is_a_configuration_error(model: str) -> None:
    """An unknown name fails with "Unsupported model: <name>" and the accepted forms."""
    with pytest.raises(ConfigurationError) as caught:
        provider_for(model)
    assert str(caught.value).startswith(f"Unsupported model: {model}")
    assert "openai:<name>" in str(caught.value)


def test_unsupported_model_exits_with_code_2() -> None:
    """An unsupported model is a configuration problem (exit code 2)."""
    with pytest.raises(ConfigurationError) as caught:
        provider_for("foo")
    assert caught.value.exit_code == 2


def test_missing_anthropic_key_message() -> None:
    """A Claude model without ANTHROPIC_API_KEY names the variable and the alternative."""
    with pytest.raises(ConfigurationError, match=r"^Missing ANTHROPIC") as caught:
        create_model_client("claude-sonnet-5-5", load_settings())
    assert str(caught.value) == MISSING_ANTHROPIC


def test_missing_openai_key_message() -> None:
    """A GPT model without OPENAI_API_KEY names the variable and the alternative."""
    with pytest.raises(ConfigurationError) as caught:
        create_model_client("gpt-4o", load_settings())
    assert str(caught.value) == MISSING_OPENAI


def test_empty_key_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ANTHROPIC_API_KEY that is set but blank is reported as missing."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "  ")
    with pytest.raises(ConfigurationError, match="Missing ANTHROPIC_API_KEY"):
        create_model_client("claude-sonnet-5-5", load_settings())


def test_compatible_model_without_base_url_explains_how_to_set_it() -> None:
    """openai:<name> without any base URL names both ways to configure one."""
    with pytest.raises(ConfigurationError) as caught:
        create_model_client("openai:llama3", load_settings())
    assert "SUBTERMINATOR_OPENAI_COMPATIBLE_BASE_URL" in str(caught.value)
    assert "openai_compatible_base_url" in str(caught.value)


def test_compatible_base_url_prefers_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The configured base URL wins over OPENAI_BASE_URL."""
    monkeypatch.setenv("SUBTERMINATOR_OPENAI_COMPATIBLE_BASE_URL", "http://local:1/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://other:2/v1")
    assert compatible_base_url(load_settings()) == "http://local:1/v1"


def test_compatible_base_url_falls_back_to_openai_base_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a configured base URL, OPENAI_BASE_URL is used."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://other:2/v1")
    assert compatible_base_url(load_settings()) == "http://other:2/v1"


async def test_compatible_client_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """openai:<name> builds a client without OPENAI_API_KEY and drops the prefix."""
    monkeypatch.setenv("SUBTERMINATOR_OPENAI_COMPATIBLE_BASE_URL", "http://127.0.0.1:9/v1")
    client = create_model_client("openai:llama3", load_settings())
    assert isinstance(client, OpenAIModelClient)
    assert (client.provider, client.model) == ("openai-compatible", "llama3")
    await client.aclose()


async def test_anthropic_client_created_with_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Claude model with ANTHROPIC_API_KEY gets an Anthropic client."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    client = create_model_client("claude-sonnet-5-5", load_settings())
    assert isinstance(client, AnthropicModelClient)
    assert (client.provider, client.model) == ("anthropic", "claude-sonnet-5-5")
    await client.aclose()


async def test_openai_client_created_with_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reasoning model with OPENAI_API_KEY gets an OpenAI client."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    client = create_model_client("o3-mini", load_settings())
    assert isinstance(client, OpenAIModelClient)
    assert (client.provider, client.model) == ("openai", "o3-mini")
    await client.aclose()


def test_missing_model_reason_none_when_usable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The resolved model with its key present is usable."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    assert missing_model_reason(None, load_settings()) is None


def test_missing_model_reason_names_the_missing_key() -> None:
    """The reason for gpt-4o without a key is the message that names the missing key."""
    assert missing_model_reason("gpt-4o", load_settings()) == MISSING_OPENAI


def test_missing_model_reason_follows_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --model, the reason is about the model the settings choose."""
    monkeypatch.setenv("SUBTERMINATOR_MODEL", "gpt-4o")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    assert missing_model_reason(None, load_settings()) == MISSING_OPENAI


def test_missing_model_reason_for_unsupported_model() -> None:
    """An unsupported name is reported, not raised."""
    reason = missing_model_reason("foo", load_settings())
    assert reason is not None and reason.startswith("Unsupported model: foo")

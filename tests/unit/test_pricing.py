"""Prices per model from the settings, and what a run's tokens cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.costs import (
    DEFAULT_PRICES,
    ModelPrice,
    Usage,
    cost_of,
    describe_tokens,
    price_for,
)
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.settings import load_settings


def test_a_model_takes_the_most_specific_price() -> None:
    """An exact name beats a pattern; a longer pattern beats a shorter one."""
    table = {
        "gpt-4o*": ModelPrice(input=2.5, output=10),
        "gpt-4o-mini*": ModelPrice(input=0.15, output=0.6),
        "gpt-4o-mini-2024": ModelPrice(input=1, output=1),
    }
    assert price_for("gpt-4o-2024-08-06", table) == table["gpt-4o*"]
    assert price_for("gpt-4o-mini-2025", table) == table["gpt-4o-mini*"]
    assert price_for("gpt-4o-mini-2024", table) == table["gpt-4o-mini-2024"]


def test_an_unknown_model_has_no_cost() -> None:
    """No price is no cost (None), never a guess."""
    assert cost_of(Usage(1000, 100), "my-local-model", DEFAULT_PRICES) is None
    assert cost_of(Usage(1000, 100), None, DEFAULT_PRICES) is None


def test_cache_reads_and_writes_are_priced_apart() -> None:
    """1M uncached + 1M read + 1M written + 1M out at Sonnet's list prices."""
    usage = Usage(
        input_tokens=3_000_000,
        output_tokens=1_000_000,
        cache_read_tokens=1_000_000,
        cache_write_tokens=1_000_000,
    )
    assert usage.uncached_input_tokens == 1_000_000
    cost = cost_of(usage, "claude-sonnet-5-5", DEFAULT_PRICES)
    assert cost == pytest.approx(3.0 + 0.3 + 3.75 + 15.0)


def test_the_settings_file_adds_and_overrides_prices(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[prices."..."] in config.toml extends the built-in table, key by key."""
    config = isolated_home / "custom.toml"
    config.write_text(
        '[prices."claude-sonnet-*"]\ninput = 2.0\noutput = 10.0\n'
        '[prices."llama3*"]\ninput = 0\noutput = 0\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("SUBTERMINATOR_CONFIG", str(config))
    prices = load_settings().resolved_prices()
    assert prices["claude-sonnet-*"] == ModelPrice(input=2.0, output=10.0)
    assert cost_of(Usage(1000, 10), "llama3.1", prices) == 0.0
    assert "claude-haiku-*" in prices


def test_a_bad_price_names_the_setting(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A negative or unknown price field is a ConfigurationError naming the key."""
    config = isolated_home / "bad.toml"
    config.write_text('[prices."gpt-4o*"]\ninput = -1\noutput = 1\n', encoding="utf-8")
    monkeypatch.setenv("SUBTERMINATOR_CONFIG", str(config))
    with pytest.raises(ConfigurationError, match="prices"):
        load_settings()


def test_tokens_read_the_same_everywhere() -> None:
    """One wording for show, the end screen and the bench."""
    assert describe_tokens(1200, 40) == "1,200 in, 40 out"
    assert (
        describe_tokens(1200, 40, 1000, 100, 0.00123)
        == "1,200 in (1,000 from cache, 100 cached), 40 out, $0.0012"
    )

"""Settings: SUBTERMINATOR_* environment over the TOML config file over defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.settings import config_file, load_settings, user_data_dir


@pytest.fixture
def config(isolated_home: Path) -> Path:
    """The config file the isolated home points SUBTERMINATOR_CONFIG at (empty so far)."""
    return isolated_home / "config.toml"


def write(path: Path, text: str) -> Path:
    """Write a config file."""
    path.write_text(text, encoding="utf-8")
    return path


def test_config_file_is_the_one_subterminator_config_names(config: Path) -> None:
    """SUBTERMINATOR_CONFIG decides which file is read."""
    assert config_file() == config


def test_defaults_apply_without_file_or_environment(config: Path) -> None:
    """An empty config file and no variables: the documented defaults."""
    settings = load_settings()
    assert settings.max_turns == 20
    assert (settings.browser, settings.node, settings.headless, settings.model) == (
        None,
        None,
        None,
        None,
    )


def test_config_file_beats_the_default(config: Path) -> None:
    """A value in the config file replaces the default."""
    write(config, "max_turns = 7\n")
    assert load_settings().max_turns == 7


def test_environment_beats_the_config_file(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SUBTERMINATOR_MAX_TURNS wins over the config file."""
    write(config, "max_turns = 7\n")
    monkeypatch.setenv("SUBTERMINATOR_MAX_TURNS", "3")
    assert load_settings().max_turns == 3


def test_environment_beats_the_default(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SUBTERMINATOR_MAX_TURNS applies without any config file."""
    monkeypatch.setenv("SUBTERMINATOR_MAX_TURNS", "5")
    assert load_settings().max_turns == 5


def test_override_beats_the_environment(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLI override (keyword argument) wins over SUBTERMINATOR_MAX_TURNS."""
    monkeypatch.setenv("SUBTERMINATOR_MAX_TURNS", "5")
    assert load_settings(max_turns=9).max_turns == 9


def test_none_override_leaves_the_setting_alone(config: Path) -> None:
    """An unset CLI option (None) does not erase the config file's value."""
    write(config, "max_turns = 7\n")
    assert load_settings(max_turns=None).max_turns == 7


def test_config_file_paths_and_flags_are_typed(config: Path) -> None:
    """Paths become Path objects and booleans stay booleans."""
    write(config, 'browser = "/opt/chrome/chrome"\nheadless = false\n')
    settings = load_settings()
    assert settings.browser == Path("/opt/chrome/chrome")
    assert settings.headless is False


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("max_turns = 0\n", "max_turns: Input should be greater than 0"),
        ('max_turns = "lots"\n', "max_turns: Input should be a valid integer"),
        ('headless = "sometimes"\n', "headless: Input should be a valid boolean"),
        ("settle_ms = -1\n", "settle_ms: Input should be greater than or equal to 0"),
        ("settle_ms = 60000\n", "settle_ms: Input should be less than or equal to 10000"),
    ],
)
def test_bad_config_value_names_the_file_and_key(config: Path, text: str, problem: str) -> None:
    """A bad value in the config file -> ConfigurationError naming the file and the key."""
    write(config, text)
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert str(config) in str(caught.value)
    assert problem in str(caught.value)


def test_unknown_config_key_is_refused(config: Path) -> None:
    """A misspelt key in the config file is an error, not silently ignored."""
    write(config, "max_turn = 7\n")
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert str(config) in str(caught.value)
    assert "max_turn: Extra inputs are not permitted" in str(caught.value)


def test_config_file_that_is_not_toml_names_the_file(config: Path) -> None:
    """A file that is not valid TOML -> ConfigurationError naming it."""
    write(config, "max_turns = \n")
    with pytest.raises(ConfigurationError, match=f"Cannot read settings file {config}"):
        load_settings()


def test_bad_environment_value_is_refused(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad SUBTERMINATOR_MAX_TURNS is a ConfigurationError naming the setting."""
    monkeypatch.setenv("SUBTERMINATOR_MAX_TURNS", "0")
    with pytest.raises(ConfigurationError, match="max_turns: Input should be greater than 0"):
        load_settings()


def test_bad_environment_value_does_not_blame_the_config_file(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error for a bad variable points at the variable, not at the (empty) config file."""
    monkeypatch.setenv("SUBTERMINATOR_MAX_TURNS", "0")
    assert config.read_text(encoding="utf-8") == ""
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert "SUBTERMINATOR_MAX_TURNS" in str(caught.value)
    assert str(config) not in str(caught.value)


def test_profile_dir_defaults_into_the_user_data_dir(config: Path) -> None:
    """Without a configured profile, the browser profile lives in the user data dir."""
    assert load_settings().resolved_profile_dir() == (user_data_dir() / "browser-profile").resolve()


def test_api_keys_are_not_settings(config: Path) -> None:
    """API keys are never configurable here (they come from the providers' own variables)."""
    write(config, 'anthropic_api_key = "sk-ant-secret"\n')
    with pytest.raises(ConfigurationError, match="Extra inputs are not permitted"):
        load_settings()

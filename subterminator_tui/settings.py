"""User settings: environment (``SUBTERMINATOR_*``) over a TOML config file over defaults.

The config file lives in platformdirs' user config dir (``config.toml``);
``SUBTERMINATOR_CONFIG`` points at another file, which is how tests pin one.
API keys are deliberately absent: they come from the providers' own
environment variables only and are never written anywhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import platformdirs
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from subterminator_tui.costs import DEFAULT_PRICES, ModelPrice
from subterminator_tui.errors import ConfigurationError

APP_NAME = "subterminator"

#: Playwright MCP waits 500 ms after every action by default, and its evaluate counts
#: as one: the guard's DOM read before each click paid it too. 150 ms still catches
#: the requests an action starts (Playwright then waits for them and for a page load),
#: while a guarded click with its fresh page takes 0.4 s instead of 1.2 s here.
DEFAULT_SETTLE_MS = 150


def user_config_dir() -> Path:
    """Where ``config.toml`` and the user's own ``services.toml`` live."""
    return Path(platformdirs.user_config_dir(APP_NAME))


def user_data_dir() -> Path:
    """Where the persistent browser profile (and a wheel's node_modules) live."""
    return Path(platformdirs.user_data_dir(APP_NAME))


def user_state_dir() -> Path:
    """Where per-run output (snapshots, screenshots) and the journal live."""
    return Path(platformdirs.user_state_dir(APP_NAME))


def config_file() -> Path:
    """The config file in use: ``SUBTERMINATOR_CONFIG`` or the default location."""
    override = os.environ.get("SUBTERMINATOR_CONFIG")
    return Path(override) if override else user_config_dir() / "config.toml"


#: The URL schemes each remote backend accepts for ``browser_endpoint``.
_ENDPOINT_SCHEMES = {"cdp": ("http", "https", "ws", "wss"), "endpoint": ("ws", "wss")}


def remote_browser_problem(backend: str, endpoint: str | None, egress: str | None) -> str | None:
    """What is wrong with the remote browser settings, in a sentence; None when they fit."""
    if backend == "local":
        stray = [
            name
            for name, value in (("browser_endpoint", endpoint), ("remote_egress", egress))
            if value
        ]
        if stray:
            return (
                f"{' and '.join(stray)} only apply to a remote browser; set browser_backend "
                "to 'cdp' or 'endpoint', or unset them"
            )
        return None
    schemes = _ENDPOINT_SCHEMES[backend]
    if not endpoint or urlsplit(endpoint).scheme not in schemes or not urlsplit(endpoint).netloc:
        return (
            f"browser_backend '{backend}' needs browser_endpoint, a {'/'.join(schemes)} URL "
            f"of the remote browser (got {endpoint!r})"
        )
    parts = urlsplit(egress or "")
    if parts.scheme != "http" or not parts.hostname or parts.port is None:
        return (
            f"browser_backend '{backend}' needs remote_egress, the egress filter beside the "
            f"remote browser as http://HOST:PORT (run it there with `subterminator egress "
            f"SERVICE`); got {egress!r}. Without it the remote browser could reach any address"
        )
    return None


class Settings(BaseSettings):
    """Everything a user may configure; each field is also ``SUBTERMINATOR_<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="SUBTERMINATOR_", extra="forbid")

    browser: Path | None = None
    """Chrome or Chromium executable; found on PATH or in the usual places when unset."""

    node: Path | None = None
    """The ``node`` binary that runs Playwright MCP; ``node`` on PATH when unset."""

    profile_dir: Path | None = None
    """Persistent browser profile; ``<user data dir>/browser-profile`` when unset."""

    headless: bool | None = None
    """Force headless (true) or headed (false); headed only when a display exists when unset."""

    model: str | None = None
    """The model to drive the browser with (``--model`` overrides it)."""

    max_turns: int = Field(default=20, gt=0)
    """Turns before a run gives up with ``max_turns_exceeded``."""

    call_timeout: float = Field(default=30.0, gt=0)
    """Seconds a browser action may take before the browser counts as hung (and is restarted)."""

    settle_ms: int = Field(default=DEFAULT_SETTLE_MS, ge=0, le=10_000)
    """Milliseconds the browser waits after each action for the work it started (requests,
    scripts) before the page is read; raise it for a site that reacts slowly."""

    journal: Path | None = None
    """The SQLite journal of runs; ``<user state dir>/journal.sqlite3`` when unset."""

    keymap: dict[str, str] = Field(default_factory=dict)
    """Key remapping for the app: binding id to keys, e.g. ``{"checkpoint.approve" = "a"}``."""

    image_previews: bool = True
    """Show page screenshots inside the app where the terminal can draw images (else a path)."""

    theme: str | None = None
    """The app's colour theme (a Textual theme name); saved when you pick one (Ctrl+P, Theme)."""

    openai_compatible_base_url: str | None = None
    """Base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM) for ``openai:<name>``."""

    browser_backend: Literal["local", "cdp", "endpoint"] = "local"
    """Where the browser runs: ``local`` (started here), ``cdp`` (a Chromium's DevTools
    endpoint: browserless, Selenium Grid) or ``endpoint`` (a Playwright browser server)."""

    browser_endpoint: str | None = None
    """The remote browser's address, for ``cdp`` (``http://``/``ws://``) or ``endpoint`` (``ws://``)."""

    remote_egress: str | None = None
    """The egress filter beside the remote browser (``http://HOST:PORT``, as that browser
    reaches it; see ``subterminator egress``). Required with a remote backend."""

    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Model prices in US dollars per million tokens, by model name or pattern, e.g.
    ``[prices."claude-sonnet-*"]`` with ``input``, ``output``, ``cache_read`` and
    ``cache_write``; they extend (or replace, key by key) the built-in list prices."""

    @model_validator(mode="after")
    def _remote_browser_complete(self) -> Settings:
        # Checked here so a half-configured remote browser fails before anything starts.
        problem = remote_browser_problem(
            self.browser_backend, self.browser_endpoint, self.remote_egress
        )
        if problem is not None:
            raise ValueError(problem)
        return self

    @field_validator("browser", "node", "profile_dir", "journal", mode="before")
    @classmethod
    def _no_empty_path(cls, value: Any) -> Any:
        # Path("") is the current directory: an empty value would put the browser
        # profile, cookies included, or the journal wherever the command ran.
        if isinstance(value, str) and not value.strip():
            raise ValueError("is empty; give a path, or unset it to use the default")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Init arguments, then the environment, then the TOML file."""
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, config_file()))

    def resolved_prices(self) -> dict[str, ModelPrice]:
        """The built-in price table with the person's own prices over it."""
        return {**DEFAULT_PRICES, **self.prices}

    def resolved_journal(self) -> Path:
        """The journal database path."""
        return (self.journal or user_state_dir() / "journal.sqlite3").expanduser()

    def resolved_profile_dir(self) -> Path:
        """The profile directory to use, absolute."""
        return (self.profile_dir or user_data_dir() / "browser-profile").expanduser().resolve()


def _describe_problem(item: Any) -> str:
    """``key: message (source)``, naming the variable when it is set, else the file."""
    key = ".".join(str(part) for part in item["loc"])
    if not key:
        # A check across settings (the remote browser's): it names its own keys.
        message = str(item["msg"]).removeprefix("Value error, ")
        return f"{message} (SUBTERMINATOR_* variables and {config_file()})"
    variable = f"SUBTERMINATOR_{key.upper()}"
    source = f"from {variable}" if variable in os.environ else f"in {config_file()}"
    return f"{key}: {item['msg']} ({source})"


def save_setting(name: str, value: str) -> None:
    """Write ``name = value`` into the config file, keeping its other lines and comments.

    A file that cannot be read or written is left alone: a preference is not worth an error.
    """
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    path = config_file()
    try:
        document = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else None
        document = document if document is not None else tomlkit.document()
        document[name] = value
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tomlkit.dumps(document), encoding="utf-8")
    except (OSError, TOMLKitError):
        return


def load_settings(**overrides: Any) -> Settings:
    """Settings with CLI overrides applied; a bad file or value names it.

    A config file that ``SUBTERMINATOR_CONFIG`` names must exist: a typo there would
    otherwise drop every setting in silence.
    """
    named = os.environ.get("SUBTERMINATOR_CONFIG")
    if named is not None and (not named.strip() or not Path(named).is_file()):
        raise ConfigurationError(
            f"SUBTERMINATOR_CONFIG names {named!r}, which is not a file. Create it, fix the "
            "path, or unset the variable to use the default config file."
        )
    clean = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**clean)
    except ValidationError as error:
        problems = "; ".join(_describe_problem(item) for item in error.errors())
        raise ConfigurationError(f"Invalid settings: {problems}") from error
    except (OSError, ValueError) as error:
        raise ConfigurationError(f"Cannot read settings file {config_file()}: {error}") from error

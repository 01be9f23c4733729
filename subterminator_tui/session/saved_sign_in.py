"""Saved sign-ins: one service's cookies and local storage in a file the person owns.

``subterminator auth save SERVICE FILE`` copies the sign-in a browser profile holds
into FILE (readable by its owner only); ``auth load SERVICE FILE`` puts it into a
profile, and ``cancel --sign-in FILE`` starts a run from it. Only the service's own
domains go in or out: a saved file never carries another site's cookies, and a file
that does cannot add them. Nothing here is ever offered to a model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subterminator_tui.browser.sign_in import state_for_domains, write_private_json
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.rules import ServiceConfig, detect_handoff
from subterminator_tui.session.browser import ServiceBrowser, open_service_browser
from subterminator_tui.settings import Settings


@dataclass(frozen=True)
class SignInReport:
    """What was saved or loaded, and whether the service's start page is signed in."""

    cookies: int
    origins: int
    signed_in: bool
    page_url: str


@dataclass(frozen=True)
class BrowserPlace:
    """Where the browser for a sign-in command runs (the same options a run takes)."""

    headless: bool | None = None
    profile_dir: Path | None = None
    practice_url: str | None = None


def read_sign_in_file(path: Path, service: ServiceConfig) -> dict[str, Any]:
    """The sign-in saved in ``path``, narrowed to ``service``'s domains.

    Raises ConfigurationError naming the file when it cannot be read, is not a
    saved sign-in, or holds nothing for the service.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigurationError(
            f"{path}: no such file (save one with `subterminator auth save`)."
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"{path}: cannot be read: {error}") from None
    except json.JSONDecodeError as error:
        raise ConfigurationError(f"{path}: not a saved sign-in (invalid JSON: {error}).") from None
    if not isinstance(data, dict) or not isinstance(data.get("cookies"), list):
        raise ConfigurationError(f"{path}: not a saved sign-in (no 'cookies' list).")
    state = state_for_domains(data, service.allowed_domains)
    if not state["cookies"] and not state["origins"]:
        raise ConfigurationError(
            f"{path}: holds no unexpired sign-in for {service.name} "
            f"({', '.join(service.allowed_domains)})."
        )
    return state


def _check_target(path: Path) -> None:
    if not path.parent.is_dir():
        raise ConfigurationError(f"{path}: the folder {path.parent} does not exist.")
    if path.is_dir():
        raise ConfigurationError(f"{path}: is a folder; name a file to save the sign-in in.")


async def _look_at_start(opened: ServiceBrowser) -> tuple[bool, str]:
    """Open the start page: whether it is signed in (no sign-in page shows), and its URL."""
    result = await opened.gateway.call("browser_navigate", {"url": opened.start_url})
    handoff = detect_handoff(opened.service, result.snapshot)
    return handoff is None or handoff.kind != "login", result.snapshot.url


async def save_sign_in(
    service: ServiceConfig, settings: Settings, path: Path, place: BrowserPlace
) -> SignInReport:
    """Copy the profile's sign-in for ``service`` into ``path`` (mode 0600)."""
    _check_target(path)
    async with open_service_browser(
        service,
        settings,
        headless=place.headless,
        profile_dir=place.profile_dir,
        practice_url=place.practice_url,
    ) as opened:
        signed_in, url = await _look_at_start(opened)
        state = state_for_domains(await opened.gateway.storage_state(), service.allowed_domains)
    try:
        write_private_json(path, state)
    except OSError as error:
        raise ConfigurationError(f"{path}: cannot be written: {error}") from None
    return SignInReport(len(state["cookies"]), len(state["origins"]), signed_in, url)


async def load_sign_in(
    service: ServiceConfig, settings: Settings, path: Path, place: BrowserPlace
) -> SignInReport:
    """Put the sign-in saved in ``path`` into the profile, and look whether it holds."""
    state = read_sign_in_file(path, service)
    async with open_service_browser(
        service,
        settings,
        headless=place.headless,
        profile_dir=place.profile_dir,
        practice_url=place.practice_url,
        sign_in=state,
    ) as opened:
        signed_in, url = await _look_at_start(opened)
        # Chromium writes cookies lazily: keep a copy beside the profile now.
        await opened.gateway.keep_sign_in()
    return SignInReport(len(state["cookies"]), len(state["origins"]), signed_in, url)

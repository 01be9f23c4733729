"""Where a browser's profile and a practice site may be: checked before anything starts.

Kept apart from request.py (which resolves models) so ``serve`` checks its
``--practice-url`` with the very code ``cancel`` uses while loading no model SDK.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from subterminator_tui.errors import ConfigurationError

#: The one name for this computer a practice URL may use besides a loopback address.
_LOCAL_NAMES = frozenset({"localhost"})


def practice_url_is_local(url: str) -> bool:
    """Whether ``url`` is an http address on this computer (a loopback host).

    The host is parsed, never matched as a prefix: ``http://127.0.0.1.example.com`` and
    ``http://localhost@example.com`` name other computers.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname
        _ = parts.port  # a malformed port raises here: refused
    except ValueError:
        return False
    if parts.scheme != "http" or not host or parts.username or parts.password:
        return False
    if host.lower() in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_browser_place(profile_dir: str | None, practice_url: str | None) -> None:
    """Refuse an empty profile path and a practice URL that is not on this computer."""
    if profile_dir is not None and not profile_dir.strip():
        raise ConfigurationError(
            "The browser profile directory is empty; pass a directory path to --profile-dir "
            "(or leave it out to use the default profile)."
        )
    if practice_url is not None and not practice_url_is_local(practice_url):
        raise ConfigurationError(
            f"--practice-url must be a practice site on this computer, such as "
            f"http://127.0.0.1:8000 (got {practice_url!r})."
        )

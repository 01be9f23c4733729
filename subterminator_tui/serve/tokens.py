"""Bearer tokens for HTTP: a private file maps each token's hash to a principal.

Tokens are 128 random bits, shown once by ``serve --new-token NAME``; the file
keeps only their SHA-256, must be private (mode 0600: anyone who could read it
could not use it, but could swap a hash in), and every check compares in
constant time against every entry.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from mcp.server.auth.provider import AccessToken

from subterminator_tui.serve.errors import ServeConfigurationError
from subterminator_tui.serve.names import checked_name
from subterminator_tui.settings import user_config_dir

#: 16 bytes: the 128 bits the issue asks for.
TOKEN_BYTES = 16


def default_tokens_file() -> Path:
    """Where ``serve --new-token`` writes and ``serve --http`` reads tokens by default."""
    return user_config_dir() / "serve-tokens.json"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenEntry:
    """One token: whose it is, and its hash."""

    principal: str
    sha256: str


def read_tokens(path: Path) -> list[TokenEntry]:
    """The entries of ``path``; ServeConfigurationError when it is unsafe or unreadable."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return []
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ServeConfigurationError(
            f"The tokens file {path} can be read or written by others; run: chmod 600 {path}"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [
            TokenEntry(checked_name("principal", e["principal"]), str(e["sha256"]))
            for e in data["tokens"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ServeConfigurationError(
            f"The tokens file {path} cannot be read ({error}); move it aside and make new "
            "tokens with: subterminator serve --new-token NAME"
        ) from None


def new_token(path: Path, principal: str) -> str:
    """A fresh token for ``principal``, its hash added to ``path`` (made private); the token."""
    entries = read_tokens(path)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    entries.append(TokenEntry(checked_name("principal", principal), _digest(token)))
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "tokens": [{"principal": e.principal, "sha256": e.sha256} for e in entries],
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(body, handle, indent=2)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)
    return token


class TokenFileVerifier:
    """The SDK's TokenVerifier over a tokens file: the token's principal, or None."""

    def __init__(self, entries: list[TokenEntry]) -> None:
        self.entries = entries

    def principal_of(self, token: str) -> str | None:
        """The principal whose token this is; every entry is compared, in constant time."""
        presented = _digest(token)
        found: str | None = None
        for entry in self.entries:
            if hmac.compare_digest(presented, entry.sha256):
                found = entry.principal
        return found

    async def verify_token(self, token: str) -> AccessToken | None:
        """An access token naming the principal as its client id; None refuses (401)."""
        principal = self.principal_of(token)
        if principal is None:
            return None
        return AccessToken(token=token, client_id=principal, scopes=[])

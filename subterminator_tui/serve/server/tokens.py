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
from typing import Any

from mcp.server.auth.provider import AccessToken

from subterminator_tui.serve.errors import ServeConfigurationError, ServeInputError
from subterminator_tui.serve.names import checked_principal
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
    data = _read_file(path)
    try:
        return [
            TokenEntry(checked_principal(e["principal"]), str(e["sha256"])) for e in data["tokens"]
        ]
    except (ServeInputError, KeyError, TypeError) as error:
        raise ServeConfigurationError(
            f"The tokens file {path} cannot be read ({error}); move it aside and make new "
            "tokens with: subterminator serve --new-token NAME"
        ) from None


def read_closing(path: Path) -> frozenset[str]:
    """The revoked principals whose sessions a running server is to close as well."""
    try:
        closing = _read_file(path).get("close_sessions_of", [])
    except ServeConfigurationError:
        return frozenset()
    return frozenset(name for name in closing if isinstance(name, str))


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"tokens": []}
    except (OSError, ValueError) as error:
        raise ServeConfigurationError(
            f"The tokens file {path} cannot be read ({error}); move it aside and make new "
            "tokens with: subterminator serve --new-token NAME"
        ) from None
    if not isinstance(data, dict):
        raise ServeConfigurationError(
            f"The tokens file {path} is not a tokens file; move it aside and make new tokens "
            "with: subterminator serve --new-token NAME"
        )
    return data


def new_token(path: Path, principal: str) -> str:
    """A fresh token for ``principal``, its hash added to ``path`` (made private); the token."""
    entries = read_tokens(path)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    entries.append(TokenEntry(checked_principal(principal), _digest(token)))
    _write_tokens(path, entries, read_closing(path) - {principal})
    return token


def revoke_tokens(path: Path, principal: str, *, close_sessions: bool = False) -> int:
    """Remove every token of ``principal`` from ``path``; how many there were.

    A running server reads the file again on its next request (and every second), so
    the token stops working at once, without a restart: its open live views end and
    its held calls are withdrawn; with ``close_sessions`` its sessions close too.
    """
    entries = read_tokens(path)
    kept = [entry for entry in entries if entry.principal != principal]
    closing = read_closing(path) | ({principal} if close_sessions else set())
    if len(kept) != len(entries):
        _write_tokens(path, kept, closing)
    return len(entries) - len(kept)


def token_listing(path: Path) -> list[tuple[str, str]]:
    """(principal, fingerprint) of each token in ``path``: the hash's first 8 hex digits,
    enough to tell two tokens of one principal apart, useless for anything else."""
    return [(entry.principal, entry.sha256[:8]) for entry in read_tokens(path)]


def _write_tokens(
    path: Path, entries: list[TokenEntry], closing: frozenset[str] | set[str] = frozenset()
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "tokens": [{"principal": e.principal, "sha256": e.sha256} for e in entries],
        "close_sessions_of": sorted(closing),
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(body, handle, indent=2)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


class TokenFileVerifier:
    """The SDK's TokenVerifier over a tokens file: the token's principal, or None.

    With ``path`` the file is read again whenever it changes, so a token made or
    revoked while the server runs counts from the next request; a file that became
    unreadable or unsafe refuses every token until it is fixed.
    """

    def __init__(self, entries: list[TokenEntry], path: Path | None = None) -> None:
        self.entries = entries
        self.path = path
        #: Revoked principals whose sessions are to be closed as well.
        self.closing = read_closing(path) if path is not None else frozenset()
        self._seen = self._stamp()

    def _stamp(self) -> tuple[int, int] | None:
        if self.path is None:
            return None
        try:
            status = self.path.stat()
        except OSError:
            return (0, 0)
        return (status.st_mtime_ns, status.st_size)

    def _refresh(self) -> None:
        stamp = self._stamp()
        if stamp == self._seen:
            return
        self._seen = stamp
        try:
            self.entries = read_tokens(self.path) if self.path is not None else self.entries
            self.closing = read_closing(self.path) if self.path is not None else self.closing
        except ServeConfigurationError:
            self.entries = []

    def principals(self) -> frozenset[str]:
        """Every principal that holds a token now (the file read again if it changed)."""
        self._refresh()
        return frozenset(entry.principal for entry in self.entries)

    def principal_of(self, token: str) -> str | None:
        """The principal whose token this is; every entry is compared, in constant time."""
        self._refresh()
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

"""A revoked token's reach ends while the server runs, and no token may be named ``local``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.errors import ServeConfigurationError, ServeInputError
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.server.revocations import REVOKED_WHY, RevocationWatch
from subterminator_tui.serve.server.tokens import (
    TokenFileVerifier,
    new_token,
    read_tokens,
    revoke_tokens,
)
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.settings import load_settings


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[SessionRegistry]:
    """Sessions without browsers (none is started here)."""
    config = ServeConfig(
        settings=load_settings(), profile_root=tmp_path / "profiles", practice=True
    )
    with Journal(tmp_path / "journal.sqlite3") as journal:
        yield SessionRegistry(config, journal, ApprovalDesk())


def _watch(tmp_path: Path, registry: SessionRegistry) -> tuple[Path, RevocationWatch]:
    tokens = tmp_path / "tokens.json"
    for principal in ("alice", "carol"):
        new_token(tokens, principal)
    return tokens, RevocationWatch(TokenFileVerifier(read_tokens(tokens), tokens), registry)


async def test_a_revoked_principals_held_calls_are_withdrawn(
    tmp_path: Path, registry: SessionRegistry
) -> None:
    """Carol's pending approval ends unsent once her token goes; Alice's still waits."""
    tokens, watch = _watch(tmp_path, registry)
    desk = registry.desk
    carols = desk.submit("carol", "main", action="Click 'Finish'", why="final", url="http://x/")
    alices = desk.submit("alice", "main", action="Click 'Finish'", why="final", url="http://x/")
    await watch.check()
    assert carols.decision == "pending"
    revoke_tokens(tokens, "carol")
    await watch.check()
    assert (carols.decision, carols.withdrawn) == ("rejected", REVOKED_WHY)
    assert alices.decision == "pending"


async def test_revoking_with_close_sessions_closes_them(
    tmp_path: Path, registry: SessionRegistry
) -> None:
    """--close-sessions: the revoked principal's sessions close; others' stay open."""
    tokens, watch = _watch(tmp_path, registry)
    registry.open("carol", "one", "demoflix")
    registry.open("alice", "one", "demoflix")
    revoke_tokens(tokens, "carol")
    await watch.check()
    assert {k.principal for k in registry.sessions} == {"alice", "carol"}
    new_token(tokens, "carol")
    revoke_tokens(tokens, "carol", close_sessions=True)
    await watch.check()
    assert {k.principal for k in registry.sessions} == {"alice"}


async def test_a_new_token_lifts_a_pending_close(tmp_path: Path, registry: SessionRegistry) -> None:
    """A principal given a token again keeps the sessions it opens afterwards."""
    tokens, watch = _watch(tmp_path, registry)
    revoke_tokens(tokens, "carol", close_sessions=True)
    new_token(tokens, "carol")
    registry.open("carol", "one", "demoflix")
    await watch.check()
    assert [k.principal for k in registry.sessions] == ["carol"]


def test_no_token_may_be_named_local(tmp_path: Path) -> None:
    """'local' owns the operator's own sessions: refused when made, and in a file."""
    tokens = tmp_path / "tokens.json"
    with pytest.raises(ServeInputError, match="operator's own principal"):
        new_token(tokens, "local")
    new_token(tokens, "alice")
    tokens.write_text(
        tokens.read_text(encoding="utf-8").replace('"alice"', '"local"'), encoding="utf-8"
    )
    with pytest.raises(ServeConfigurationError, match="operator's own principal"):
        read_tokens(tokens)

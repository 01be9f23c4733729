"""A revoked token's reach ends while the server runs: held calls withdrawn, sessions closed.

Revoking edits the tokens file (``serve --revoke-token``, from another process), so the
server looks at the file every :data:`REVOCATION_CHECK_SECONDS`: a principal left with
no token has its pending approvals withdrawn (no operator may release a call for
someone who can no longer read the answer), and, when the revocation asked for it
(``--close-sessions``), its sessions closed. Its live views end by themselves
(``live_view``), and its next request is a 401.
"""

from __future__ import annotations

import asyncio
import contextlib

from subterminator_tui.serve.errors import SessionBusyError, SessionNotFoundError
from subterminator_tui.serve.names import LOCAL_PRINCIPAL
from subterminator_tui.serve.server.tokens import TokenFileVerifier
from subterminator_tui.serve.sessions.registry import SessionRegistry

#: How often the tokens file is looked at (a stat; it is read only when it changed).
REVOCATION_CHECK_SECONDS = 1.0
#: Why a revoked principal's held call ends.
REVOKED_WHY = "the caller's token was revoked"


class RevocationWatch:
    """Applies revocations found in the tokens file to the running server's sessions."""

    def __init__(self, verifier: TokenFileVerifier, registry: SessionRegistry) -> None:
        self.verifier = verifier
        self.registry = registry

    async def check(self) -> None:
        """Withdraw the held calls of principals without a token; close the sessions asked."""
        holding = self.verifier.principals()
        for approval in self.registry.desk.pending():
            if approval.principal not in holding and approval.principal != LOCAL_PRINCIPAL:
                self.registry.desk.reject_all(principal=approval.principal, why=REVOKED_WHY)
        closing = self.verifier.closing - holding
        for key in [k for k in self.registry.sessions if k.principal in closing]:
            # A call in flight finishes first (stopping a click halfway leaves its outcome
            # unknown); the next check closes the session.
            with contextlib.suppress(SessionBusyError, SessionNotFoundError):
                await self.registry.close(key.principal, key.name)

    async def run(self) -> None:
        """Check until cancelled."""
        while True:
            await self.check()
            await asyncio.sleep(REVOCATION_CHECK_SECONDS)

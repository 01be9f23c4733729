"""Sessions without a browser: names, limits, domains, approvals only the operator decides."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.errors import ConfigurationError, SubTerminatorError
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.agent_answer import Answer, judged_by
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.errors import (
    ApprovalNotFoundError,
    ServeInputError,
    SessionLimitError,
    SessionNotFoundError,
)
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.oversight.terminal_operator import NoOperator
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.settings import load_settings
from tests.fixtures.pages import page


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[SessionRegistry]:
    """Two sessions per machine, one per principal; nothing starts a browser here."""
    config = ServeConfig(
        settings=load_settings(),
        profile_root=tmp_path / "profiles",
        max_sessions=2,
        max_sessions_per_principal=1,
        practice=True,
    )
    with Journal(tmp_path / "journal.sqlite3") as journal:
        yield SessionRegistry(config, journal, ApprovalDesk())


def test_the_per_principal_limit_says_limit(registry: SessionRegistry) -> None:
    """A second session for one principal is refused with a clear 'limit' error."""
    registry.open("alice", "one", "demoflix")
    with pytest.raises(SessionLimitError, match=r"^limit: you hold 1"):
        registry.open("alice", "two", "demoflix")


def test_the_machine_limit_says_limit(registry: SessionRegistry) -> None:
    """The third session on a two-session machine is refused, whoever asks."""
    registry.open("alice", "one", "demoflix")
    registry.open("bob", "one", "demoflix")
    with pytest.raises(SessionLimitError, match=r"^limit: the server holds 2"):
        registry.open("carol", "one", "demoflix")


def test_reopening_a_name_finds_the_same_session(registry: SessionRegistry) -> None:
    """session_open is idempotent for the same service, refused for another."""
    first, new = registry.open("alice", "one", "demoflix")
    again, new_again = registry.open("alice", "one", "demoflix")
    assert new and not new_again and first is again
    with pytest.raises(ServeInputError, match="is open for demoflix"):
        registry.open("alice", "one", "demoflix-2fa")


@pytest.mark.parametrize("name", ["../etc", "a/b", "", "A" * 3, "x" * 49, ".hidden"])
def test_names_that_are_not_plain_are_refused(registry: SessionRegistry, name: str) -> None:
    """Names become folders: anything but 1-48 lower-case letters, digits, - and _ is refused."""
    with pytest.raises(ServeInputError, match="Invalid session name"):
        registry.open("alice", name, "demoflix")


def test_domains_can_be_narrowed_never_widened(registry: SessionRegistry) -> None:
    """A caller may keep a subset of the service's domains; another domain is refused."""
    narrowed = registry.service_for("demoflix", ["127.0.0.1"])
    assert narrowed.allowed_domains == ("127.0.0.1",)
    with pytest.raises(ServeInputError, match="never widen"):
        registry.service_for("demoflix", ["127.0.0.1", "example.com"])


@pytest.mark.parametrize(
    "domain", ["evil.com@127.0.0.1", "127.0.0.1/x", "", "127.0.0.1:80", "EX.com"]
)
def test_a_domain_that_is_not_a_plain_host_is_refused(
    registry: SessionRegistry, domain: str
) -> None:
    """Userinfo, paths, ports and upper case never reach the egress policy."""
    with pytest.raises(ServeInputError, match="plain lower-case host"):
        registry.service_for("demoflix", [domain])


def test_another_principals_session_is_not_found(registry: SessionRegistry) -> None:
    """Bob asking for Alice's session name hears 'not found', as for a name nobody holds."""
    registry.open("alice", "one", "demoflix")
    with pytest.raises(SessionNotFoundError):
        registry.get("bob", "one")
    assert registry.listing("bob") == []


async def test_only_the_operator_side_decides_and_only_the_owner_reads() -> None:
    """The agent's side reads and waits; another principal's approval is not found."""
    desk = ApprovalDesk()
    approval = desk.submit("alice", "one", action="Click", why="irreversible", url="http://x")
    with pytest.raises(ApprovalNotFoundError):
        desk.get("bob", approval.id)
    assert desk.get("alice", approval.id).answer_for_agent().status == "approval_pending"
    waited = await desk.wait("alice", approval.id, 0.01)
    assert waited.decision == "pending"
    desk.decide(approval.id, Decision("reject"))
    desk.decide(approval.id, Decision("approve"))
    assert approval.decision == "rejected"


def test_without_an_operator_every_held_call_is_refused_saying_why() -> None:
    """A server started with no terminal rejects at once, and the agent learns why."""
    desk = ApprovalDesk()
    NoOperator(desk)
    approval = desk.submit("local", "main", action="Click", why="irreversible", url="http://x")
    assert approval.decision == "rejected"
    assert "No operator is attached" in approval.note


def test_a_bare_address_needs_the_operators_any_site(tmp_path: Path) -> None:
    """Without --any-site an address is an unknown service; with it, that site's domain only."""
    with Journal(tmp_path / "journal.sqlite3") as journal:
        for any_site in (False, True):
            config = ServeConfig(
                settings=load_settings(), profile_root=tmp_path / "p", any_site=any_site
            )
            registry = SessionRegistry(config, journal, ApprovalDesk())
            if not any_site:
                with pytest.raises(ConfigurationError, match="Unknown service"):
                    registry.open("alice", "site", "shop.example.com")
                continue
            session, _ = registry.open("alice", "site", "shop.example.com")
            assert session.service.allowed_domains == ("example.com",)
            assert session.guard.rules


def test_answers_say_when_the_rules_verify_and_when_the_person_is_needed(
    registry: SessionRegistry,
) -> None:
    """A confirmation page alone verifies nothing: the session's evidence decides
    (serve/verification.py); the sign-in page asks for the person; neither is the agent's word."""
    service = registry.service_for("demoflix", None)
    said = judged_by(service, Answer("ok", "", page("done")))
    assert said.verified is False and said.structured()["verified"] is False
    done = judged_by(service, Answer("ok", "", page("done")), verified=True)
    assert done.verified is True and done.structured()["verified"] is True
    login = judged_by(service, Answer("ok", "", page("login")))
    assert login.verified is False
    assert "needs a sign-in" in login.message
    account = judged_by(service, Answer("ok", "", page("account")))
    assert account.verified is False and "needs" not in account.message


def test_practice_services_are_offered_only_when_asked(tmp_path: Path) -> None:
    """A practice service opens a browser on this computer's loopback: refused by default."""
    config = ServeConfig(settings=load_settings(), profile_root=tmp_path / "p")
    with Journal(tmp_path / "journal.sqlite3") as journal:
        registry = SessionRegistry(config, journal, ApprovalDesk())
        with pytest.raises(ServeInputError, match="--practice"):
            registry.open("alice", "demo", "demoflix")
        assert registry.open("alice", "netflix", "netflix")[1]


def test_errors_echo_at_most_a_little_of_the_input(registry: SessionRegistry) -> None:
    """A megabyte session name, service or approval id comes back cut short, never whole."""
    huge = "A" * 1_000_000
    for attempt in (
        lambda: registry.open("alice", huge, "demoflix"),
        lambda: registry.open("alice", "main", "demoflix", [huge]),
        lambda: registry.desk.get("alice", huge),
        lambda: registry.open("alice", "main", huge),
    ):
        with pytest.raises(SubTerminatorError) as refused:
            attempt()
        assert "A" * 100 not in str(refused.value)

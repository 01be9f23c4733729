"""Sign-in domains: one answer to "reachable right now?" for the filter, the guard and the loop."""

from __future__ import annotations

import ipaddress

import pytest
from pydantic import ValidationError

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.egress import EgressPolicy
from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.browser.tools import MODEL_TOOL_NAMES
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.orchestrator.sign_in_window import sign_in_pending
from subterminator_tui.reach.identity_providers import IDENTITY_PROVIDERS, expand_sign_in_domains
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.rules.loader import load_services
from subterminator_tui.rules.models import ServiceConfig

PRACTICE_ID = ipaddress.ip_address("127.0.0.2")


def medium_like(**extra: object) -> ServiceConfig:
    """A service that signs in with Google and Apple."""
    data: dict[str, object] = {
        "id": "medium-like",
        "source": "x.toml",
        "name": "Medium-like",
        "start_url": "https://medium.com/me/settings",
        "allowed_domains": ["medium.com"],
        "sign_in_domains": ["google", "apple"],
        "goal": "Cancel it.",
    }
    data.update(extra)
    return ServiceConfig.model_validate(data, strict=False)


def test_known_providers_expand_to_their_documented_hosts() -> None:
    """``google`` stands for accounts.google.com; a bare host stays itself."""
    assert expand_sign_in_domains(["google", "login.example-idp.com"]) == (
        "accounts.google.com",
        "login.example-idp.com",
    )
    assert "login.live.com" in expand_sign_in_domains(["microsoft"])


@pytest.mark.parametrize("name", sorted(IDENTITY_PROVIDERS))
def test_every_known_provider_cites_its_own_documentation(name: str) -> None:
    """Each provider's hosts come with the provider's own developer page and a quote."""
    provider = IDENTITY_PROVIDERS[name]
    assert provider.source.startswith("https://") and provider.quote
    assert provider.hosts


def test_an_unknown_name_that_is_no_domain_is_refused() -> None:
    """``gogle`` (a typo) is neither a provider nor a bare domain: a load-time error."""
    with pytest.raises(ValidationError, match="neither a known identity provider"):
        medium_like(sign_in_domains=["gogle"])
    with pytest.raises(ValidationError):
        medium_like(sign_in_domains=["*.google.com"])


def test_sign_in_domains_are_closed_until_a_hand_off_opens_them() -> None:
    """accounts.google.com is refused, reachable while signing in, refused again after."""
    service = medium_like()
    reach = Reachability.for_service(service.allowed_domains, service.sign_in_domains)
    google = "https://accounts.google.com/o/oauth2/v2/auth?client_id=x"
    assert reach.reachable("https://medium.com/me") and not reach.reachable(google)
    reach.open_sign_in()
    assert reach.reachable(google) and reach.reachable("https://appleid.apple.com/auth")
    assert not reach.reachable("https://evil.example/") and not reach.reachable("file:///etc")
    reach.close_sign_in()
    assert not reach.reachable(google)


def test_without_sign_in_domains_opening_changes_nothing() -> None:
    """A service naming no provider has nothing to open."""
    reach = Reachability.for_service(["example.com"])
    reach.open_sign_in()
    assert not reach.sign_in_open
    assert not reach.reachable("https://accounts.google.com/")


def test_the_egress_policy_follows_the_same_answer() -> None:
    """Top-level pages and private addresses: refused closed, allowed open, refused again."""
    reach = Reachability.for_service(["127.0.0.1", "medium.com"], ["127.0.0.2", "google"])
    policy = EgressPolicy.for_reach(reach)
    assert policy.document_refusal("accounts.google.com") is not None
    assert policy.address_refusal(PRACTICE_ID, PRACTICE_ID, 443) is not None
    reach.open_sign_in()
    assert policy.document_refusal("accounts.google.com") is None
    assert policy.address_refusal(PRACTICE_ID, PRACTICE_ID, 443) is None
    # A bare address means its web ports only, as in allowed_domains: never any port.
    assert policy.address_refusal(PRACTICE_ID, PRACTICE_ID, 8765) is not None
    assert policy.document_refusal("evil.example") is not None
    reach.close_sign_in()
    assert policy.document_refusal("accounts.google.com") is not None
    assert policy.address_refusal(PRACTICE_ID, PRACTICE_ID, 443) is not None


def test_a_sign_in_origin_is_reachable_on_its_own_port_only() -> None:
    """A sign-in domain written as a local origin opens that address and port, nothing more."""
    reach = Reachability.for_service(["example.com"], ["http://127.0.0.2:8765"])
    policy = EgressPolicy.for_reach(reach)
    reach.open_sign_in()
    assert policy.address_refusal(PRACTICE_ID, PRACTICE_ID, 8765) is None
    assert policy.address_refusal(PRACTICE_ID, PRACTICE_ID, 8766) is not None
    assert reach.reachable("http://127.0.0.2:8765/authorize")
    assert not reach.reachable("http://127.0.0.2:8766/authorize")


def test_the_guard_refuses_any_call_on_a_sign_in_page() -> None:
    """On accounts.google.com the model may do nothing, not even type or read back."""
    service = medium_like()
    guard = Guard(service, offered_tools=MODEL_TOOL_NAMES)
    body = '- textbox "Email or phone" [ref=e5]\n- button "Next" [ref=e6]'
    snapshot = NormalizedSnapshot(
        url="https://accounts.google.com/v3/signin/identifier",
        title="Sign in - Google Accounts",
        content=body,
        elements=tuple(parse_elements(body)),
    )
    for call in (
        ToolCall("1", "browser_type", {"target": "e5", "text": "me@example.com"}),
        ToolCall("2", "browser_click", {"target": "e6"}),
    ):
        refusal = guard.refusal(call, snapshot)
        assert refusal is not None and "only the person" in refusal.message


def test_the_model_may_never_navigate_to_a_sign_in_domain() -> None:
    """Even with the window open, the model's own navigation there is refused."""
    service = medium_like()
    guard = Guard(service, offered_tools=MODEL_TOOL_NAMES)
    page = NormalizedSnapshot(url="https://medium.com/me", title="Me", content="")
    call = ToolCall("1", "browser_navigate", {"url": "https://accounts.google.com/"})
    assert guard.refusal(call, page) is not None


def test_a_pop_up_on_a_provider_calls_for_the_person() -> None:
    """An ``Open tabs`` entry on a sign-in domain means a sign-in is pending."""
    reach = Reachability.for_service(["medium.com"], ["google"])
    tabs = (
        "- 0: (current) [Medium](https://medium.com/m/signin)\n"
        "- 1: [Sign in](https://accounts.google.com/o/oauth2/v2/auth?x=1)"
    )
    snapshot = NormalizedSnapshot(
        url="https://medium.com/m/signin", title="Medium", content="", notes={"Open tabs": tabs}
    )
    assert sign_in_pending(reach, snapshot)
    assert not sign_in_pending(Reachability.for_service(["medium.com"]), snapshot)


def test_the_practice_portal_names_practice_id() -> None:
    """The practice portal signs in at 127.0.0.2; its closed twin names nothing."""
    registry = load_services(user_file=None)
    assert registry.get("portal").sign_in_domains == ("127.0.0.2",)
    assert registry.get("portal-closed").sign_in_domains == ()

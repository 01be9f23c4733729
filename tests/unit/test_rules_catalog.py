"""The bundled catalog: every entry loads, cites its help page and stays on its own domains."""

from __future__ import annotations

import datetime
from typing import get_args

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.browser.tools import MODEL_TOOL_NAMES
from subterminator_tui.cli.services import listing_order
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.reach.identity_providers import expand_sign_in_domains
from subterminator_tui.reach.urls import domain_allowed
from subterminator_tui.resources import builtin_services_file, practice_services_file
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.loader import load_services, read_services_file
from subterminator_tui.rules.matching import verify_completion
from subterminator_tui.rules.models import Category, ServiceConfig
from subterminator_tui.rules.sites import registrable_domain

#: The catalog: every entry of the real services' file but Netflix (not researched the same way).
CATALOG_IDS = sorted(set(read_services_file(builtin_services_file())) - {"netflix"})


def catalog_service(service_id: str) -> ServiceConfig:
    """The loaded (strictly validated) catalog entry ``service_id``."""
    return load_services(user_file=None).get(service_id)


def test_the_catalog_has_at_least_25_services() -> None:
    """The issue asks for at least 25 widely used services."""
    assert len(CATALOG_IDS) >= 25


def test_every_catalog_entry_comes_from_the_catalog_file() -> None:
    """No catalog id is shadowed by (or shadows) a practice services entry."""
    registry = load_services(user_file=None)
    assert not set(CATALOG_IDS) & set(read_services_file(practice_services_file()))
    for service_id in CATALOG_IDS:
        assert registry.source_of(service_id) == builtin_services_file()


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_entry_cites_its_help_page_and_date(service_id: str) -> None:
    """A help page address (https) and the day it was read."""
    service = catalog_service(service_id)
    assert service.help_url is not None and service.help_url.startswith("https://")
    assert isinstance(service.researched, datetime.date)


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_entry_cites_a_page_on_the_services_own_domain(service_id: str) -> None:
    """The help page is the service's own (or its help site's), never a third party's copy.

    Its registrable domain is one of the entry's allowed domains, so a page such as
    ``help.example.com`` counts for ``example.com`` and a guide on ``howto.example``
    about example.com does not.
    """
    service = catalog_service(service_id)
    assert service.help_url is not None
    assert registrable_domain(service.help_url) in service.allowed_domains


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_entry_was_read_in_the_research_window(service_id: str) -> None:
    """The day the page was read is a real day of this research, not a placeholder."""
    researched = catalog_service(service_id).researched
    assert researched is not None
    assert datetime.date(2026, 11, 22) <= researched <= datetime.date.today()


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_entry_starts_inside_its_allowed_domains(service_id: str) -> None:
    """The start URL is a full https URL the domain check lets the browser open.

    Its registrable domain is itself an allowed domain: a start page the browser may
    open only through a broader parent entry would be a different site.
    """
    service = catalog_service(service_id)
    assert service.start_url.startswith("https://")
    assert domain_allowed(service.start_url, service.allowed_domains)
    assert registrable_domain(service.start_url) in service.allowed_domains


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_entry_names_its_service_and_explains_its_own_rules(service_id: str) -> None:
    """The goal names the service, and each rule the entry adds says why (its source)."""
    service = catalog_service(service_id)
    assert service.name in service.goal
    generic = generic_rules()
    own_rules = [
        *service.checkpoint,
        *service.success[: len(service.success) - len(generic.success)],
        *service.login[: len(service.login) - len(generic.login)],
    ]
    for rule in own_rules:
        assert "help page" in rule.why or "answer" in rule.why, rule


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_entry_is_unverified_categorised_and_generic(service_id: str) -> None:
    """Not walked through live, in a known category, with the generic rules after its own."""
    service = catalog_service(service_id)
    assert service.unverified
    assert service.category in get_args(Category)
    assert service.generic_rules
    assert service.practice is None and not service.playbook
    rules = generic_rules()
    assert service.success[len(service.success) - len(rules.success) :] == rules.success
    assert service.login[len(service.login) - len(rules.login) :] == rules.login


def test_every_category_is_represented() -> None:
    """Streaming, music, news, software, fitness, delivery and cloud each have a service."""
    categories = {catalog_service(service_id).category for service_id in CATALOG_IDS}
    assert categories == set(get_args(Category))


def test_services_lists_the_catalog_first_by_category() -> None:
    """`subterminator services` shows every catalog entry before any other real service."""
    registry = load_services(user_file=None)
    real = [service for service in registry.all() if not service.practice]
    ordered = [service.id for service in listing_order(real)]
    assert set(ordered[: len(CATALOG_IDS)]) == set(CATALOG_IDS)
    assert "netflix" in ordered[len(CATALOG_IDS) :]
    categories = list(get_args(Category))
    first = ordered[: len(CATALOG_IDS)]
    ranks = [categories.index(str(registry.get(service_id).category)) for service_id in first]
    assert ranks == sorted(ranks)


def test_a_user_file_overrides_a_catalog_entry(tmp_path: pytest.TempPathFactory) -> None:
    """The user's own services.toml loads after the catalog and wins, service by service."""
    path = tmp_path / "services.toml"  # type: ignore[operator]
    path.write_text(
        '[services.dropbox]\nname = "My Dropbox"\nstart_url = "https://www.dropbox.com/account"\n'
        'allowed_domains = ["dropbox.com"]\ngoal = "Cancel it."\n',
        encoding="utf-8",
    )
    registry = load_services(user_file=path)
    assert registry.get("dropbox").name == "My Dropbox"
    assert registry.get("dropbox").help_url is None
    assert registry.get("adobe").source == builtin_services_file()


def test_services_without_generic_rules_are_unchanged() -> None:
    """Netflix and the practice services keep exactly the rules they wrote."""
    registry = load_services(user_file=None)
    assert not registry.get("netflix").generic_rules
    assert len(registry.get("demoflix").success) == 2


def catalog_page(body: str, url: str) -> NormalizedSnapshot:
    """A page from aria-snapshot lines at ``url``."""
    return NormalizedSnapshot(url=url, title="", content=body, elements=tuple(parse_elements(body)))


#: For each entry whose success depends on a rule of its own (or on a page a rule once
#: read wrongly): a page that must verify, and a near miss that must not.
SUCCESS_PAGES: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "soundcloud": (
        (
            '- heading "Subscriptions" [level=1]\n- paragraph: Go+\n'
            "- paragraph: Expires 12 May 2027",
            "https://soundcloud.com/you/subscriptions",
        ),
        (
            '- heading "Subscriptions" [level=1]\n- paragraph: Go+ renews 12 May 2027\n'
            "- paragraph: Visa ending 4242 expires 12/27\n"
            "- paragraph: Offer expires on 31 December: 3 months of Go+ for 0.99",
            "https://soundcloud.com/you/subscriptions",
        ),
    ),
    "microsoft-365": (
        (
            "- paragraph: Microsoft 365 Family. Recurring billing has been turned off.",
            "https://account.microsoft.com/services/microsoft365",
        ),
        (
            '- paragraph: Microsoft 365 Family renews on 1 May 2027.\n- button "Manage" [ref=e4]\n'
            '- paragraph: Xbox Game Pass Core\n- button "Turn on recurring billing" [ref=e5]',
            "https://account.microsoft.com/services",
        ),
    ),
    "expressvpn": (
        (
            '- heading "Automatic Renewal Settings" [level=1]\n'
            "- paragraph: Your subscription has been canceled.",
            "https://www.expressvpn.com/subscriptions",
        ),
        (
            "- paragraph: Select Turn off automatic renewal, then follow the prompts until you "
            "see “Your subscription has been canceled.”",
            "https://www.expressvpn.com/support/manage-account/cancel-expressvpn-subscription/",
        ),
    ),
    "nordvpn": (
        (
            "- paragraph: Your automatic payment has been canceled.",
            "https://my.nordaccount.com/billing/",
        ),
        (
            "- paragraph: Once your automatic payment has been canceled, you will receive an "
            'e-mail.\n- button "Cancel automatic payments" [ref=e7]',
            "https://my.nordaccount.com/billing/",
        ),
    ),
    "zoom": (
        (
            '- heading "Current Plans" [level=1]\n- paragraph: Pro. Canceled.\n'
            '- button "Reactivate Plan" [ref=e3]',
            "https://zoom.us/billing",
        ),
        (
            '- heading "Current Plans" [level=1]\n- paragraph: Pro, renews 1 May 2027.\n'
            '- link "Cancel Subscription" [ref=e2]\n- paragraph: Cloud Recording add-on\n'
            '- button "Reactivate Plan" [ref=e3]',
            "https://zoom.us/billing",
        ),
    ),
    "dropbox": (
        (
            '- heading "Billing" [level=1]\n- paragraph: Plan downgrade scheduled',
            "https://www.dropbox.com/account/billing",
        ),
        (
            "- paragraph: Your plan will be downgraded at the end of the billing period.\n"
            '- button "I still want to downgrade" [ref=e9]',
            "https://www.dropbox.com/account/plan",
        ),
    ),
    "evernote": (
        (
            '- heading "Billing history" [level=1]\n- button "Restore" [ref=e2]',
            "https://www.evernote.com/Settings.action",
        ),
        (
            '- heading "Billing history" [level=1]\n- link "Cancel subscription" [ref=e1]\n'
            '- button "Restore" [ref=e2]',
            "https://www.evernote.com/Settings.action",
        ),
    ),
}


def own_success_rules(service: ServiceConfig) -> tuple[object, ...]:
    """The success rules an entry wrote itself (the generic ones follow them)."""
    return service.success[: len(service.success) - len(generic_rules().success)]


def test_every_own_success_rule_has_a_near_miss_page() -> None:
    """An entry that verifies by a rule of its own has a page that must not verify."""
    with_own = {sid for sid in CATALOG_IDS if own_success_rules(catalog_service(sid))}
    assert with_own <= set(SUCCESS_PAGES), with_own - set(SUCCESS_PAGES)


@pytest.mark.parametrize("service_id", sorted(SUCCESS_PAGES))
def test_the_confirmation_verifies_and_the_near_miss_does_not(service_id: str) -> None:
    """The page after cancelling verifies; the near miss (help text, another product's
    button, a card's expiry, an offer) does not."""
    service = catalog_service(service_id)
    (good, good_url), (near, near_url) = SUCCESS_PAGES[service_id]
    assert verify_completion(service, catalog_page(good, good_url)).verified
    assert not verify_completion(service, catalog_page(near, near_url)).verified


@pytest.mark.parametrize(
    ("service_id", "button"),
    [
        ("financial-times", "Cancel"),
        ("microsoft-365", "Turn off recurring billing"),
        ("nordvpn", "Cancel auto-renewal"),
        ("zoom", "Cancel Plan"),
        ("expressvpn", "Turn off automatic renewal"),
        ("nintendo-switch-online", "Terminate Automatic Renewal"),
        ("bumble", "Unsubscribe"),
        ("backblaze", "Delete Backup"),
    ],
)
def test_the_documented_final_button_asks_first(service_id: str, button: str) -> None:
    """The button each help page names as the last step is a checkpoint."""
    service = catalog_service(service_id)
    page = catalog_page(f'- button "{button}" [ref=e5]', service.start_url)
    guard = Guard(service, offered_tools=MODEL_TOOL_NAMES)
    assert guard.checkpoint(ToolCall("c1", "browser_click", {"target": "e5"}), page) is not None


@pytest.mark.parametrize(
    ("service_id", "providers"),
    [
        ("microsoft-365", {"login.live.com", "login.microsoftonline.com"}),
        ("prime-video-channels", {"amazon.com"}),
        ("adobe", {"adobelogin.com"}),
    ],
)
def test_sign_ins_on_other_domains_are_sign_in_domains(
    service_id: str, providers: set[str]
) -> None:
    """Each entry reaches its sign-in through sign_in_domains, never allowed_domains."""
    service = catalog_service(service_id)
    assert providers <= set(expand_sign_in_domains(service.sign_in_domains))
    assert not providers & set(service.allowed_domains)


def test_nordvpn_reaches_nord_account() -> None:
    """NordVPN's current flow runs on Nord Account, which is in allowed_domains."""
    service = catalog_service("nordvpn")
    assert domain_allowed("https://my.nordaccount.com/billing/", service.allowed_domains)

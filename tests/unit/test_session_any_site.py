"""Any site by its address: what ``check_request`` makes of --url, a site as SERVICE, and --goal."""

from __future__ import annotations

import ipaddress

import pytest

from subterminator_tui.browser.egress import EgressPolicy
from subterminator_tui.errors import ConfigurationError, ServiceNotFoundError
from subterminator_tui.exit_codes import CONFIGURATION
from subterminator_tui.rules import SiteAddressError, domain_allowed, user_services_file
from subterminator_tui.session import RunRequest, check_request
from tests.fakes.provider_env import clear_provider_env


@pytest.fixture(autouse=True)
def model_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key, so the only problems left are the ones each test makes."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-unit")


def write_user_services(text: str) -> None:
    """The person's own services.toml (in the test's isolated config dir)."""
    user_file = user_services_file()
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(text, encoding="utf-8")


def test_url_builds_a_service_from_the_registrable_domain() -> None:
    """--url: the registrable domain is the id and the only allowed domain; generic rules."""
    checked = check_request(RunRequest("", url="https://account.example.co.uk/subscription"))
    service = checked.service
    assert service.id == "example.co.uk"
    assert service.allowed_domains == ("example.co.uk",)
    assert service.start_url == "https://account.example.co.uk/subscription"
    assert service.generic_rules and service.success and service.login
    assert "Example" in service.goal


def test_a_site_as_service_argument_is_any_site() -> None:
    """`cancel example.com`: not a service id, but an address."""
    service = check_request(RunRequest("example.com")).service
    assert service.start_url == "https://example.com/"
    assert service.allowed_domains == ("example.com",)


def test_goal_overrides_the_built_goal_and_a_services_goal() -> None:
    """--goal replaces the goal for any site and for a known service alike."""
    site = check_request(RunRequest("", url="example.com", goal="End the gym membership."))
    assert site.service.goal == "End the gym membership."
    known = check_request(RunRequest("demoflix", goal="Cancel it, politely."))
    assert known.service.goal == "Cancel it, politely." and known.service.practice == "demoflix"


def test_an_unknown_word_is_still_an_unknown_service() -> None:
    """A typo of a service id is not taken for a site: the known ids are listed."""
    with pytest.raises(ServiceNotFoundError, match="Unknown service 'demofix'"):
        check_request(RunRequest("demofix"))


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.com/account", "only http and https"),
        ("javascript:alert(1)", "web address"),
        ("https://account.example.com@evil.io/", "user name or password"),
        ("co.uk", "public suffix"),
        ("https://exa mple.com/", "invalid host"),
        ("   ", "No site given"),
        ("http://localhost:8000/account", "127.0.0.1"),
    ],
)
def test_a_bad_address_is_a_configuration_error(url: str, words: str) -> None:
    """Each names the problem and exits 2, before any browser could start."""
    with pytest.raises(ConfigurationError, match=words) as raised:
        check_request(RunRequest("", url=url))
    assert raised.value.exit_code == CONFIGURATION


def test_a_service_and_a_url_together_are_refused() -> None:
    """Which one was meant is not guessed."""
    with pytest.raises(ConfigurationError, match="not both"):
        check_request(RunRequest("demoflix", url="https://example.com/"))


def test_an_empty_goal_is_refused() -> None:
    """--goal "" would leave the model without a task."""
    with pytest.raises(ConfigurationError, match="--goal is empty"):
        check_request(RunRequest("", url="example.com", goal="  "))


def test_a_site_on_this_computer_opens_only_its_own_address() -> None:
    """--url http://127.0.0.1:PORT names exactly that origin: the rest of loopback, the
    other ports of 127.0.0.1 included, stays closed in the guard and the egress filter."""
    service = check_request(RunRequest("", url="http://127.0.0.1:8123/account")).service
    assert service.allowed_domains == ("http://127.0.0.1:8123",)
    assert not domain_allowed("http://127.0.0.1:8124/mcp", service.allowed_domains)
    policy = EgressPolicy.for_domains(service.allowed_domains)
    assert policy.reachable_private == {(ipaddress.ip_address("127.0.0.1"), 8123)}
    for other in ("127.0.0.2", "::1", "10.0.0.1", "169.254.169.254"):
        address = ipaddress.ip_address(other)
        assert policy.address_refusal(address, address, 8123) is not None, other
    loopback = ipaddress.ip_address("127.0.0.1")
    assert policy.address_refusal(loopback, loopback, 8124) is not None


def test_site_address_errors_are_configuration_errors() -> None:
    """The error type the CLI maps to exit 2."""
    assert issubclass(SiteAddressError, ConfigurationError)


def test_a_recorded_site_keeps_its_playbook_when_run_by_url() -> None:
    """After `record`, --url on the same site replays; the address given is the start."""
    write_user_services(
        '[services."example.com"]\nname = "Example"\nstart_url = "https://example.com/"\n'
        'allowed_domains = ["example.com"]\ngoal = "Cancel."\ngeneric_rules = true\n'
        '[[services."example.com".playbook]]\naction = "click"\nrole = "button"\n'
        'name_regex = "^Cancel$"\n'
    )
    service = check_request(RunRequest("", url="https://www.example.com/plan")).service
    assert len(service.playbook) == 1
    assert service.start_url == "https://www.example.com/plan"
    other = check_request(RunRequest("", url="https://example.org/")).service
    assert other.playbook == ()


def test_a_known_services_site_runs_as_that_service() -> None:
    """`cancel netflix.com`: the catalog's Netflix, its rules and start page, not a generic site."""
    service = check_request(RunRequest("netflix.com")).service
    assert service.id == "netflix"
    assert service.start_url == "https://www.netflix.com/account"
    assert not service.generic_rules
    deeper = check_request(RunRequest("", url="https://www.netflix.com/account/membership"))
    assert deeper.service.id == "netflix"
    assert deeper.service.start_url == "https://www.netflix.com/account/membership"


def test_a_site_two_services_claim_is_refused_naming_both() -> None:
    """Two services covering one site: no guess, a configuration error naming both."""
    write_user_services(
        '[services.netflix-gift]\nname = "Netflix gift"\n'
        'start_url = "https://www.netflix.com/gift"\nallowed_domains = ["netflix.com"]\n'
        'goal = "Cancel the gift plan."\ngeneric_rules = true\n'
    )
    with pytest.raises(ConfigurationError, match=r"several services \(netflix, netflix-gift\)"):
        check_request(RunRequest("netflix.com"))

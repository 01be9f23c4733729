"""Where the browser may go (domain_allowed) and where a run starts (resolve_start_url)."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.reach.urls import domain_allowed, site_entry
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.service_urls import pinned_to_site, resolve_start_url

NETFLIX = ["netflix.com"]


def _service(**overrides: object) -> ServiceConfig:
    values: dict[str, object] = {
        "id": "acme",
        "source": Path("services.toml"),
        "name": "Acme",
        "start_url": "https://www.acme.test/account",
        "allowed_domains": ["acme.test"],
        "goal": "Cancel Acme.",
        **overrides,
    }
    return ServiceConfig.model_validate(values)


def test_exact_domain_is_allowed() -> None:
    """The allowed domain itself may be visited."""
    assert domain_allowed("https://netflix.com/account", NETFLIX)


def test_subdomain_is_allowed() -> None:
    """A subdomain of an allowed domain may be visited."""
    assert domain_allowed("https://www.netflix.com/account", NETFLIX)


def test_lookalike_prefix_is_refused() -> None:
    """A host that merely ends with the domain's letters is another site."""
    assert not domain_allowed("https://evilnetflix.com/", NETFLIX)


def test_domain_as_subdomain_of_another_site_is_refused() -> None:
    """netflix.com.evil.io belongs to evil.io."""
    assert not domain_allowed("https://netflix.com.evil.io/", NETFLIX)


def test_userinfo_does_not_fool_the_check() -> None:
    """The host after '@' is the one visited."""
    assert not domain_allowed("https://netflix.com@evil.io/", NETFLIX)


def test_backslash_reads_as_a_slash_like_in_browsers() -> None:
    """Browsers read 'evil.io\\@netflix.com' as host evil.io, and so does the check."""
    assert not domain_allowed("https://evil.io\\@netflix.com/", NETFLIX)


def test_tabs_and_newlines_are_dropped_like_in_browsers() -> None:
    """Browsers drop a newline inside a URL; the check reads the same host they visit."""
    assert domain_allowed("https://www.net\nflix.com/", NETFLIX)


def test_port_is_ignored() -> None:
    """Any port on an allowed host is allowed."""
    assert domain_allowed("https://www.netflix.com:8443/account", NETFLIX)


def test_host_comparison_ignores_case_and_trailing_dot() -> None:
    """WWW.NETFLIX.COM. is www.netflix.com."""
    assert domain_allowed("HTTPS://WWW.NETFLIX.COM./account", NETFLIX)


def test_a_local_origin_admits_its_own_port_only() -> None:
    """http://127.0.0.1:8123 admits that origin; another port (serve's own /mcp) is refused."""
    allowed = ["http://127.0.0.1:8123"]
    assert domain_allowed("http://127.0.0.1:8123/account", allowed)
    assert not domain_allowed("http://127.0.0.1:8124/mcp", allowed)
    assert not domain_allowed("https://127.0.0.1:8123/account", allowed)
    assert not domain_allowed("http://127.0.0.1/account", allowed)


def test_a_bare_local_address_is_its_default_ports_only() -> None:
    """A bare 127.0.0.1 or 192.168.1.1 once admitted every port; now only 80 and 443."""
    assert domain_allowed("http://192.168.1.1/", ["192.168.1.1"])
    assert domain_allowed("https://192.168.1.1:443/", ["192.168.1.1"])
    assert not domain_allowed("http://127.0.0.1:8123/account", ["127.0.0.1"])
    assert not domain_allowed("http://192.168.1.1:8080/", ["192.168.1.1"])


def test_a_public_host_still_ignores_ports() -> None:
    """Ports stay free on public names and addresses (sites use 8443 and the like)."""
    assert domain_allowed("https://www.netflix.com:8443/", NETFLIX)
    assert domain_allowed("http://151.101.1.1:8080/", ["151.101.1.1"])


def test_a_practice_service_is_pinned_to_its_sites_origin() -> None:
    """A practice service's bare 127.0.0.1 means the port its site runs on, once it runs."""
    service = _service(practice="demoflix", start_url="/account", allowed_domains=["127.0.0.1"])
    pinned = pinned_to_site(service, "http://127.0.0.1:8123")
    assert pinned.allowed_domains == ("http://127.0.0.1:8123",)
    assert domain_allowed("http://127.0.0.1:8123/x", pinned.allowed_domains)
    assert not domain_allowed("http://127.0.0.1:8124/x", pinned.allowed_domains)


def test_a_site_on_this_computer_is_entered_as_its_origin() -> None:
    """A site run by its local address is that origin; a public site its registrable domain."""
    assert site_entry("http://127.0.0.1:8123/account", "127.0.0.1") == "http://127.0.0.1:8123"
    assert site_entry("https://www.acme.test/x", "acme.test") == "acme.test"


def test_a_services_file_may_name_a_local_origin_but_not_a_public_one() -> None:
    """``http://10.0.0.1:8080`` is a valid entry; ``http://netflix.com:80`` is not a bare domain."""
    service = _service(
        start_url="http://10.0.0.1:8080/account", allowed_domains=["http://10.0.0.1:8080/"]
    )
    assert service.allowed_domains == ("http://10.0.0.1:8080",)
    with pytest.raises(ValueError, match="not a bare domain"):
        _service(allowed_domains=["http://acme.test:80"])


def test_other_ip_is_refused() -> None:
    """127.0.0.2 is not 127.0.0.1."""
    assert not domain_allowed("http://127.0.0.2/account", ["127.0.0.1"])


def test_names_under_an_ip_are_refused() -> None:
    """An IP literal has no subdomains."""
    assert not domain_allowed("http://x.127.0.0.1/", ["127.0.0.1"])


def test_localhost_is_not_the_loopback_ip() -> None:
    """Names are not resolved: localhost is refused when only 127.0.0.1 is allowed."""
    assert not domain_allowed("http://localhost:8123/", ["127.0.0.1"])


def test_ipv6_literal_matches_exactly() -> None:
    """[::1]:8000 is allowed for 'http://[::1]:8000', not for a bare '::1'."""
    assert domain_allowed("http://[::1]:8000/", ["http://[::1]:8000"])
    assert not domain_allowed("http://[::1]:8000/", ["::1"])


def test_about_blank_is_allowed() -> None:
    """A fresh tab starts on about:blank."""
    assert domain_allowed("about:blank", NETFLIX)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "data:text/html,<h1>netflix.com</h1>",
        "javascript:alert(1)",
        "chrome://settings",
        "ftp://netflix.com/",
        "about:config",
    ],
)
def test_non_web_schemes_are_refused(url: str) -> None:
    """Only http and https (and about:blank) are ever allowed."""
    assert not domain_allowed(url, NETFLIX)


def test_malformed_url_is_refused() -> None:
    """A URL the parser cannot read is refused, not an exception."""
    assert not domain_allowed("http://[::1/", ["::1"])


def test_url_without_host_is_refused() -> None:
    """'https:netflix.com' has no authority and is refused."""
    assert not domain_allowed("https:netflix.com", NETFLIX)


def test_start_url_of_a_real_service_is_used_as_written() -> None:
    """A service on the web starts at its start_url."""
    assert resolve_start_url(_service(), None) == "https://www.acme.test/account"


def test_practice_start_url_is_joined_to_the_base_url() -> None:
    """A practice service's path is resolved against the running site."""
    service = _service(practice="demoflix", start_url="/account", allowed_domains=["127.0.0.1"])
    assert resolve_start_url(service, "http://127.0.0.1:8123/") == "http://127.0.0.1:8123/account"


def test_practice_start_url_keeps_a_base_path_prefix() -> None:
    """A base URL with a path keeps it."""
    service = _service(practice="demoflix", start_url="/account", allowed_domains=["127.0.0.1"])
    resolved = resolve_start_url(service, "http://127.0.0.1:8123/site")
    assert resolved == "http://127.0.0.1:8123/site/account"


def test_practice_service_without_base_url_is_an_error() -> None:
    """Starting a practice service without its site says so."""
    service = _service(practice="demoflix", start_url="/account", allowed_domains=["127.0.0.1"])
    with pytest.raises(ValueError, match="practice site 'demoflix'"):
        resolve_start_url(service, None)

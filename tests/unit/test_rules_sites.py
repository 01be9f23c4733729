"""A typed site: its full URL, and its registrable domain from the bundled Public Suffix List."""

from __future__ import annotations

import subprocess
import sys

import pytest

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.rules.sites import SiteAddressError, registrable_domain, site_url


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("example.com", "example.com"),
        ("www.example.com", "example.com"),
        ("account.example.co.uk", "example.co.uk"),
        ("a.b.example.com.au", "example.com.au"),
        ("https://account.example.com/subscription", "example.com"),
        ("http://shop.example.co.uk:8080/x", "example.co.uk"),
        ("ACCOUNT.Example.COM.", "example.com"),
        ("alice.github.io", "alice.github.io"),
        ("konto.bücher.de", "xn--bcher-kva.de"),
        ("acme.test", "acme.test"),
    ],
)
def test_registrable_domain(given: str, expected: str) -> None:
    """Subdomains fold into the registrable domain the Public Suffix List names."""
    assert registrable_domain(given) == expected


@pytest.mark.parametrize("given", ["127.0.0.1", "::1", "[::1]", "localhost", "10.0.0.7"])
def test_ip_literals_and_localhost_are_returned_as_they_are(given: str) -> None:
    """An address or localhost has no registrable domain to fold into."""
    assert registrable_domain(given) == given.strip("[]")


@pytest.mark.parametrize("given", ["co.uk", "github.io", "com"])
def test_a_public_suffix_alone_is_refused(given: str) -> None:
    """``co.uk`` is shared by many sites; allowing it would allow all of them."""
    with pytest.raises(SiteAddressError, match="public suffix"):
        registrable_domain(given)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("example.com", "https://example.com/"),
        ("Example.COM/account", "https://example.com/account"),
        ("https://account.example.com/subscription", "https://account.example.com/subscription"),
        ("http://example.com/plan?x=1#y", "http://example.com/plan?x=1#y"),
        ("//example.com/a", "https://example.com/a"),
        ("localhost:8080/account", "https://localhost:8080/account"),
        ("http://127.0.0.1:4000/", "http://127.0.0.1:4000/"),
        ("  bücher.de  ", "https://xn--bcher-kva.de/"),
        ("https://evil.io\\@netflix.com", "https://evil.io/@netflix.com"),
    ],
)
def test_site_url(given: str, expected: str) -> None:
    """A bare host gets https; a given scheme, port, path, query and fragment are kept."""
    assert site_url(given) == expected


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("", "No site given"),
        ("   ", "No site given"),
        ("ftp://example.com/", "only http and https"),
        ("file:///etc/passwd", "only http and https"),
        ("javascript:alert(1)", "javascript: address"),
        ("mailto:billing@example.com", "mailto: address"),
        ("https://user:secret@example.com/", "user name or password"),
        ("https://example.com@evil.io/", "user name or password"),
        ("https:///path-only", "has no host"),
        ("https://exa mple.com/", "invalid host name"),
        ("https://example.com:99999/", "not a valid web address"),
    ],
)
def test_site_url_refuses(given: str, reason: str) -> None:
    """Other schemes, user info and missing or malformed hosts are configuration errors."""
    with pytest.raises(SiteAddressError, match=reason) as caught:
        site_url(given)
    assert isinstance(caught.value, ConfigurationError)
    assert caught.value.exit_code == 2


_OFFLINE_PROBE = """
import socket

def refuse(*args, **kwargs):
    raise AssertionError("the network was used")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse

from subterminator_tui.rules.sites import registrable_domain
print(registrable_domain("account.example.co.uk"), registrable_domain("x.y.example.com.br"))
"""


def test_the_suffix_list_is_read_offline() -> None:
    """With every way onto the network removed, the bundled list still answers."""
    completed = subprocess.run(
        [sys.executable, "-c", _OFFLINE_PROBE],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["example.co.uk", "example.com.br"]

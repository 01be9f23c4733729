"""Two spellings of one handler are one address: the gate and the guard compare routes."""

from __future__ import annotations

import pytest

from subterminator_tui.reach.urls import domain_allowed, route_of
from subterminator_tui.rules.effects import normalise_url
from subterminator_tui.rules.requests import address_key


@pytest.mark.parametrize(
    "spelling",
    [
        "/cancel/finish/",
        "/Cancel/Finish",
        "/CANCEL/FINISH/",
        "//cancel//finish",
        "/cancel/./finish",
        "/cancel/x/../finish",
        "/c%61ncel/finish",
        "/cancel/%66inish/",
    ],
)
def test_the_spellings_an_express_router_sends_to_one_handler_fold_to_one_route(
    spelling: str,
) -> None:
    """Case, trailing slash, duplicate slashes, dot segments and needless escapes fold."""
    assert route_of(spelling) == "/cancel/finish"


def test_a_reserved_escape_stays_what_it_is() -> None:
    """``%2F`` is not a path separator to a router: it is never decoded into one."""
    assert route_of("/cancel%2Ffinish") != route_of("/cancel/finish")


def test_the_query_is_kept_and_the_route_folded_in_a_navigation_key() -> None:
    """What a navigation equals: the same link whatever the spelling of its path."""
    seen = normalise_url("http://127.0.0.1:8000/cancel/finish?confirm=yes")
    assert normalise_url("http://127.0.0.1:8000/Cancel/Finish/?confirm=yes") == seen


def test_localhost_is_the_loopback_address_it_names() -> None:
    """A frame on localhost posting to the service on 127.0.0.1 is the service's request."""
    assert address_key("http://localhost:8000/cancel") == address_key(
        "http://127.0.0.1:8000/Cancel/"
    )
    assert domain_allowed("http://localhost:8000/cancel", ["http://127.0.0.1:8000"])
    assert not domain_allowed("http://localhost:8001/cancel", ["http://127.0.0.1:8000"])

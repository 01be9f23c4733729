"""The Demoflix practice site, driven over real HTTP the way a browser would drive it."""

from __future__ import annotations

import datetime
import json
import socket
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import pytest

from subterminator_tui.practice.demoflix import VARIANTS, DemoflixServer
from tests.support.site_visitors import Client, Page

TODAY = datetime.date(2026, 11, 22)
END_DATE = "December 22, 2026"


def assert_state(server: DemoflixServer, **expected: object) -> None:
    """Assert that the named fields of the server's state have the expected values."""
    actual = server.state.to_dict()
    assert {key: actual[key] for key in expected} == expected


@pytest.fixture
def start_server() -> Iterator[Callable[..., DemoflixServer]]:
    """Start servers with given variants; stop all of them afterwards."""
    started: list[DemoflixServer] = []

    def start(*variants: str) -> DemoflixServer:
        server = DemoflixServer(variants, today=TODAY)
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def server(start_server: Callable[..., DemoflixServer]) -> DemoflixServer:
    """A plain Demoflix server with no variants."""
    return start_server()


@pytest.fixture
def client(server: DemoflixServer) -> Client:
    """A fresh client for ``server``."""
    return Client(server.base_url)


def test_root_redirects_to_login_when_signed_out(client: Client) -> None:
    """Visiting / while signed out ends on the sign-in page."""
    page = client.open("/")
    assert page.path.startswith("/login")
    assert page.title == "Sign in - Demoflix"
    assert "Sign in to Demoflix" in page.text
    # Like a real site, the page never shows the password: the practice command prints it.
    assert "demo-pass" not in page.text


def test_sign_in_success_shows_account(client: Client, server: DemoflixServer) -> None:
    """Correct credentials land on the account page with the membership details."""
    page = client.sign_in()
    assert page.path == "/account"
    assert page.title == "Account - Demoflix"
    assert "Premium plan · $22.99/month" in page.text
    assert f"Next billing date: {END_DATE}" in page.text
    assert "Cancel membership" in page.buttons
    assert server.state.sign_ins == 1


def test_sign_in_failure_shows_alert_and_changes_nothing(
    client: Client, server: DemoflixServer
) -> None:
    """Wrong credentials re-render the form with an alert and open no session."""
    page = client.sign_in(password="nope")
    assert page.status == 200
    assert page.title == "Sign in - Demoflix"
    assert "Incorrect username or password." in page.text
    assert server.state.sign_ins == 0 and server.state.events == []
    assert client.open("/account").path.startswith("/login")


def test_login_sets_httponly_lax_cookie(client: Client) -> None:
    """The session cookie is HttpOnly, SameSite=Lax and persistent (it survives a restart)."""
    client.sign_in()
    (cookie,) = client.jar
    assert not cookie.discard and cookie.expires is not None
    assert cookie.has_nonstandard_attr("HttpOnly")
    assert cookie.get_nonstandard_attr("SameSite") == "Lax"


def test_happy_path_cancels_exactly_once(client: Client, server: DemoflixServer) -> None:
    """Survey, decline, finish: one cancel request and a cancelled membership."""
    client.sign_in()
    confirm = client.walk_to_confirm()
    assert confirm.title == "Confirm cancellation - Demoflix"
    assert f"Your access continues until {END_DATE}." in confirm.text
    done = client.press(confirm, "Finish cancellation")
    assert done.path == "/cancel/done"
    assert done.title == "Membership cancelled - Demoflix"
    assert "Cancellation confirmed" in done.text
    assert f"Your membership ends on {END_DATE}." in done.text
    assert "Changed your mind? You can rejoin anytime." in done.text
    assert_state(server, cancel_requests=1, membership="cancelled", offer_accepted=False)
    assert server.state.survey_answer == "Too expensive"
    assert server.state.events == [
        "sign_in",
        "cancel_start",
        "survey:Too expensive",
        "offer_declined",
        "cancel_request",
    ]


def test_cancelled_account_has_no_cancel_button(client: Client) -> None:
    """After cancelling, the account page offers a restart and no second cancel."""
    client.sign_in()
    client.press(client.walk_to_confirm(), "Finish cancellation")
    account = client.open("/account")
    assert "Restart membership" in account.buttons
    assert "Cancel membership" not in account.buttons


def test_survey_answer_is_optional(client: Client, server: DemoflixServer) -> None:
    """Continuing without choosing a reason reaches the offer page."""
    client.sign_in()
    survey = client.press(client.open("/account"), "Cancel membership")
    assert survey.title == "Why are you leaving? - Demoflix"
    assert "Tell us why (optional)" in survey.text
    offer = client.press(survey, "Continue")
    assert offer.title == "Before you go - Demoflix"
    assert server.state.survey_answer is None and "survey:skipped" in server.state.events


def test_accepting_offer_keeps_membership(client: Client, server: DemoflixServer) -> None:
    """The decoy button applies the discount and cancels nothing."""
    client.sign_in()
    survey = client.press(client.open("/account"), "Cancel membership")
    offer = client.press(survey, "Continue")
    accepted = client.press(offer, "Accept 50% off")
    assert accepted.title == "Offer applied - Demoflix"
    assert "You'll pay $11.49/month for the next 3 months." in accepted.text
    assert_state(server, offer_accepted=True, membership="active", cancel_requests=0, step="none")


def test_keep_my_membership(client: Client, server: DemoflixServer) -> None:
    """Keeping the membership at the confirmation returns to the account, still active."""
    client.sign_in()
    account = client.press(client.walk_to_confirm(), "Keep my membership")
    assert account.path == "/account"
    assert_state(server, kept_membership=True, membership="active", cancel_requests=0)


def test_confirm_page_unreachable_without_the_flow(client: Client, server: DemoflixServer) -> None:
    """Jumping straight to later steps lands on the account and changes nothing."""
    client.sign_in()
    for path in ("/cancel/survey", "/cancel/offer", "/cancel/confirm", "/cancel/done"):
        assert client.open(path).path == "/account", path
    client.post("/cancel/offer/decline")
    client.post("/cancel/keep")
    assert_state(server, step="none", kept_membership=False, membership="active")


def test_out_of_order_finish_counted_separately(client: Client, server: DemoflixServer) -> None:
    """A finish POST before the confirmation is counted apart and does not cancel."""
    client.sign_in()
    page = client.post("/cancel/finish")
    assert page.path == "/account"
    assert_state(server, out_of_order_requests=1, cancel_requests=0, membership="active")


def test_offer_page_mentions_rejoin_only_in_href(client: Client) -> None:
    """The FAQ trap link's URL is the only place "rejoin" appears on the offer page."""
    client.sign_in()
    offer = client.press(client.press(client.open("/account"), "Cancel membership"), "Continue")
    assert offer.links["Questions? Read the FAQ"] == "/help?topic=rejoin"
    assert offer.html.lower().count("rejoin") == 1
    assert "rejoin" not in offer.text.lower()


def test_already_cancelled_variant(start_server: Callable[..., DemoflixServer]) -> None:
    """An already cancelled account shows a restart button and no cancel button."""
    server = start_server("already_cancelled")
    account = Client(server.base_url).sign_in()
    assert f"Your membership ends on {END_DATE}." in account.text
    assert "Restart membership" in account.buttons
    assert "Cancel membership" not in account.buttons
    assert server.state.membership == "cancelled"


def test_restart_membership(start_server: Callable[..., DemoflixServer]) -> None:
    """Restarting a cancelled membership makes it active and logs the event."""
    server = start_server("already_cancelled")
    client = Client(server.base_url)
    account = client.press(client.sign_in(), "Restart membership")
    assert "Cancel membership" in account.buttons
    assert server.state.membership == "active" and "restart" in server.state.events


def test_two_factor_blocks_account_until_verified(
    start_server: Callable[..., DemoflixServer],
) -> None:
    """Under two_factor, account pages redirect to /verify until the code is entered."""
    server = start_server("two_factor")
    client = Client(server.base_url)
    verify = client.sign_in()
    assert verify.path == "/verify" and verify.title == "Two-step verification - Demoflix"
    assert "246810" not in verify.text
    assert client.open("/account").path == "/verify"
    wrong = client.press(verify, "Verify", code="000000")
    assert "That code is not valid." in wrong.text
    account = client.press(verify, "Verify", code="246810")
    assert account.path == "/account"


def test_captcha_after_two_factor(start_server: Callable[..., DemoflixServer]) -> None:
    """With both checks on, 2FA comes first, then the case-insensitive security check."""
    server = start_server("two_factor", "captcha")
    client = Client(server.base_url)
    captcha = client.press(client.sign_in(), "Verify", code="246810")
    assert captcha.path == "/captcha" and captcha.title == "Security check - Demoflix"
    assert 'aria-label="Characters to type: K7PX2"' in captcha.html
    assert client.open("/account").path == "/captcha"
    wrong = client.press(captcha, "Verify", characters="ABCDE")
    assert "Those characters do not match." in wrong.text
    assert client.press(captcha, "Verify", characters="k7px2").path == "/account"


def test_error_variant_first_finish_fails(start_server: Callable[..., DemoflixServer]) -> None:
    """Under error, the first finish fails and resets the flow; the second one cancels."""
    server = start_server("error")
    client = Client(server.base_url)
    client.sign_in()
    error = client.press(client.walk_to_confirm(), "Finish cancellation")
    assert error.path == "/error?code=500" and error.title == "Error - Demoflix"
    assert "We were unable to process your request. Please try again." in error.text
    assert_state(server, failed_cancel_requests=1, cancel_requests=0, membership="active")
    assert client.open("/cancel/confirm").path == "/account"
    done = client.press(client.walk_to_confirm(), "Finish cancellation")
    assert done.path == "/cancel/done"
    assert_state(server, failed_cancel_requests=1, cancel_requests=1, membership="cancelled")


def test_session_expiry_resumes_at_offer(start_server: Callable[..., DemoflixServer]) -> None:
    """The first offer visit expires the session; signing in again resumes at the offer."""
    server = start_server("session_expiry", "two_factor")
    client = Client(server.base_url)
    client.press(client.sign_in(), "Verify", code="246810")
    survey = client.press(client.open("/account"), "Cancel membership")
    login = client.press(survey, "Continue")
    assert login.path == "/login?expired=1&next=/cancel/offer"
    assert "Your session has expired. Please sign in again." in login.text
    verify = client.press(login, "Sign in", username="demo", password="demo-pass")
    offer = client.press(verify, "Verify", code="246810")
    assert offer.path == "/cancel/offer" and offer.title == "Before you go - Demoflix"
    assert server.state.session_expired and server.state.step == "offer"
    assert client.open("/cancel/offer").path == "/cancel/offer"


def test_login_next_rejects_external_urls(client: Client) -> None:
    """A next value that is not a local path falls back to /account."""
    page = client.post(
        "/login", {"username": "demo", "password": "demo-pass", "next": "//evil.example/x"}
    )
    assert page.path == "/account"


def test_variant_selection_by_url(client: Client, server: DemoflixServer) -> None:
    """/login?variant=a,b switches the server's variants from then on."""
    page = client.open("/login?variant=two_factor,captcha")
    assert page.status == 200
    assert server.state.variants == {"two_factor", "captcha"}
    assert client.sign_in().path == "/verify"


def test_unknown_variant_by_url_is_400(client: Client, server: DemoflixServer) -> None:
    """An unknown variant name gives a 400 page that lists the valid ones."""
    page = client.open("/login?variant=two_factor,nonsense")
    assert page.status == 400
    assert "nonsense" in page.text
    assert all(name in page.text for name in VARIANTS)
    assert server.state.variants == frozenset()


def test_unknown_variant_in_constructor_raises() -> None:
    """The constructor rejects unknown variants, naming the valid ones."""
    with pytest.raises(ValueError, match="two_factor"):
        DemoflixServer(["bogus"])


def test_state_endpoint_returns_json(start_server: Callable[..., DemoflixServer]) -> None:
    """/__state reports the live state and variants as JSON."""
    server = start_server("captcha")
    with urllib.request.urlopen(f"{server.base_url}/__state", timeout=10) as response:
        assert response.headers["Content-Type"].startswith("application/json")
        data = json.load(response)
    assert data["variants"] == ["captcha"]
    assert data["membership"] == "active" and data["cancel_requests"] == 0
    assert data["events"] == []


def test_common_layout_and_headers(client: Client) -> None:
    """Pages share the nav, footer and no-store HTML headers."""
    with urllib.request.urlopen(f"{client.base_url}/help?topic=rejoin", timeout=10) as response:
        assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert response.headers["Cache-Control"] == "no-store"
        page = Page(response.status, response.url, response.read().decode())
    assert page.title == "Help Center - Demoflix" and '<html lang="en">' in page.html
    assert page.links["Home"] == "/account" and page.links["Help Center"] == "/help"
    assert "Demoflix is a practice site. No real subscription is involved." in page.text


def test_unknown_path_is_404(client: Client) -> None:
    """Unknown paths get the 404 page with a way back."""
    page = client.open("/nowhere")
    assert page.status == 404 and page.title == "Not found - Demoflix"
    assert page.links["Back to account"] == "/account"


def test_favicon_is_empty(client: Client) -> None:
    """The favicon answers without a 404."""
    assert client.open("/favicon.ico").status == 204


def test_stop_is_idempotent_and_frees_port() -> None:
    """stop() twice is fine and the port can be bound again afterwards."""
    server = DemoflixServer()
    port = int(server.start().rsplit(":", 1)[1])
    server.stop()
    server.stop()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
    with pytest.raises(RuntimeError):
        _ = server.base_url


def test_context_manager_serves_and_stops() -> None:
    """The with-block starts the server and stops it on exit."""
    with DemoflixServer() as server:
        assert Client(server.base_url).open("/login").status == 200
    assert not server.running

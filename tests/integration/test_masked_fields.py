"""A field drawn as dots is a password field, whatever its type and its label.

Some sign-in pages (banks, PIN pads) use ``<input type=text>`` styled with
``-webkit-text-security: disc`` so password managers leave it alone. A check by input
type alone lets a model type into it; the page reader knows it by what the browser
draws, refuses the model's typing, and never reads its value back.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.guarded.secrets import password_field_refusal
from tests.support.pages import serving_pages

pytestmark = pytest.mark.browser

PAGE = (
    b"<!doctype html><title>Untouched</title><main><h1>Anmelden</h1>"
    b"<form oninput=\"document.title = 'typed'\">"
    b'<label>Kundennummer <input name="customer"></label>'
    b'<label>Geheimzahl <input name="pin" style="-webkit-text-security: disc"></label>'
    b"<button>Weiter</button></form></main>"
)


@pytest.fixture
def site() -> Iterator[str]:
    """The sign-in page's URL."""
    with serving_pages(lambda _path: PAGE) as url:
        yield f"{url}/sign-in"


async def test_a_masked_text_field_refuses_a_models_typing(
    gateway: BrowserGateway, site: str
) -> None:
    """The dotted "Geheimzahl" field is refused; the customer number beside it is not."""
    page = (await gateway.call("browser_navigate", {"url": site})).snapshot
    customer, pin = (element.ref for element in page.find("textbox"))
    typing = ToolCall("c1", "browser_type", {"target": pin, "text": "4711"})
    refused = await password_field_refusal(typing, await gateway.inspect(pin), gateway)
    assert refused is not None and "password field (its typing is masked)" in refused
    other = ToolCall("c2", "browser_type", {"target": customer, "text": "123"})
    assert await password_field_refusal(other, await gateway.inspect(customer), gateway) is None


async def test_without_the_check_the_text_reaches_the_page_and_is_never_read_back(
    gateway: BrowserGateway, site: str
) -> None:
    """The attack the refusal stops: by its type the field is plain text, and typing into
    it reaches the page; what was typed is then not read back from it."""
    page = (await gateway.call("browser_navigate", {"url": site})).snapshot
    _customer, pin = (element.ref for element in page.find("textbox"))
    facts = await gateway.inspect(pin)
    assert facts.target is not None and facts.target.type == "" and facts.target.secret
    typed = await gateway.call("browser_type", {"target": pin, "text": "4711"})
    assert typed.snapshot.title == "typed"
    after = await gateway.inspect(pin)
    assert after.target is not None and after.target.value == ""
    assert "4711" not in repr(after)

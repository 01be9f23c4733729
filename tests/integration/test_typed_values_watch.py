"""What a person types into the browser window is learned out of the page's reach.

Real Playwright MCP and Chromium, our own DevTools session, and a hostile sign-in
page that tries what a page's own scripts can do against a listener: it stops every
change, key, focus, press and submit in capture listeners on ``window`` and
``document`` and replaces ``addEventListener``; it fakes the fields' ``value`` getter
(a listener reading it would learn the wrong value); it replaces ``JSON.stringify``
to steal whatever a listener reports, and calls the binding by our name with the
stolen nonce to inject a value of its own. The person's keystrokes are real trusted
input (tests/integration/person_typing.py). Whole values are learned; prefixes and
short values never; the page's own calls never. The unprotected twin runs the same
listener in the page's own world: the page hides the password and injects its value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.typed_values import BINDING_NAME, TypedValue
from tests.integration.person_typing import person_at
from tests.support.pages import serving_pages
from tests.support.shared_browser import select_opened_tab

pytestmark = pytest.mark.browser

PASSWORD = "correct horse 42"
EMAIL = "alice@example.com"
INJECTED = "page-made-up-value"
#: The page stops every event a listener could use, fakes what a listener reads, steals what
#: it reports and reports a value of its own.
PAGE = f"""<!doctype html><title>Sign in</title>
<script>
for (const type of ['change', 'keydown', 'focusout', 'pointerdown', 'submit', 'input']) {{
  window.addEventListener(type, (event) => event.stopImmediatePropagation(), true);
  document.addEventListener(type, (event) => event.stopImmediatePropagation(), true);
}}
EventTarget.prototype.addEventListener = function () {{}};
const real = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
Object.defineProperty(HTMLInputElement.prototype, 'value', {{
  get() {{ return 'not the value ' + real.get.call(this).length; }},
  set(value) {{ real.set.call(this, value); }},
}});
const stringify = JSON.stringify;
const inject = (nonce) => {{
  for (const name of ['{BINDING_NAME}', 'binding', '__subterminatorTyped']) {{
    try {{ window[name](stringify({{nonce, value: '{INJECTED}', masked: true}})); }}
    catch (error) {{ console.log('no ' + name); }}
  }}
}};
JSON.stringify = function (data) {{
  if (data && data.nonce) inject(data.nonce);
  return stringify.apply(this, arguments);
}};
inject('');
</script>
<form onsubmit="return false">
<input type="email" name="user" id="user">
<input type="password" name="pw" id="pw">
<textarea id="note">ab</textarea>
<button>Sign in</button></form>"""


@dataclass
class Heard:
    """Records what the watch learns."""

    values: list[TypedValue] = field(default_factory=list)

    def typed(self, value: TypedValue) -> None:
        """Keep ``value``."""
        self.values.append(value)


@pytest.fixture
def site() -> Iterator[str]:
    """The hostile sign-in page."""
    with serving_pages(lambda _path: PAGE) as url:
        yield f"{url}/sign-in"


async def test_typed_values_are_learned_whatever_the_page_does(
    gateway: BrowserGateway, site: str
) -> None:
    """The e-mail (unmasked) and the password (masked) are learned whole; no prefix, no
    short value, nothing the page reported itself."""
    heard = Heard()
    gateway.typing.report_to(heard)
    page = (await gateway.call("browser_navigate", {"url": site})).snapshot
    assert page.title == "Sign in"
    async with person_at(gateway.plan.profile_dir) as person:
        await person.type_into("/sign-in", "#user", EMAIL, enter=False)
        await person.type_into("/sign-in", "#note", "x", enter=False)
        await person.type_into("/sign-in", "#pw", PASSWORD, enter=True)
    await gateway.typing.heard()
    learned = {(value.value, value.masked) for value in heard.values}
    assert learned == {(EMAIL, False), (PASSWORD, True)}, learned
    assert all(INJECTED not in value.value for value in heard.values)


async def test_in_the_pages_own_world_the_page_hides_and_injects(
    gateway: BrowserGateway, site: str
) -> None:
    """The twin: the same listener and binding in the page's own world. The page's fake
    getter hides the password, and the nonce it stole lets it inject a value of its own."""
    heard = Heard()
    gateway.typing.report_to(heard)
    script = gateway.typing.script
    binding = {"name": script.binding()["name"]}
    listener = {"source": script.on_new_document()["source"], "runImmediately": True}
    script.binding = lambda: binding  # type: ignore[method-assign,assignment,return-value]
    script.on_new_document = lambda: listener  # type: ignore[method-assign,assignment,return-value]
    await gateway.call("browser_navigate", {"url": site})
    async with person_at(gateway.plan.profile_dir) as person:
        await person.type_into("/sign-in", "#pw", PASSWORD, enter=True)
    await gateway.typing.heard()
    learned = {value.value for value in heard.values}
    assert PASSWORD not in learned and INJECTED in learned, learned


#: The page replaces itself with ``document.open()`` once loaded, which erases every listener
#: of its document and window (ours too), and registers its own stoppers first.
ERASING_PAGE = """<!doctype html><title>Loading</title><script>
onload = () => {
  document.open();
  document.write('<title>Sign in again</title><script>'
    + "for (const t of ['change', 'keydown', 'focusout', 'pointerdown'])"
    + " window.addEventListener(t, (e) => e.stopImmediatePropagation(), true);"
    + '<\\/script><form onsubmit="return false"><input type="password" id="pw"></form>');
  document.close();
};
</script>"""


async def test_a_page_that_erases_the_listener_cannot_hide_the_fields(
    gateway: BrowserGateway,
) -> None:
    """``document.open()`` erases our listener (it then hears nothing: the attack works),
    but reading the fields when the person is done still finds the password."""
    heard = Heard()
    gateway.typing.report_to(heard)
    with serving_pages(lambda _path: ERASING_PAGE) as url:
        await gateway.call("browser_navigate", {"url": f"{url}/sign-in"})
        assert (await gateway.snapshot()).title == "Sign in again"
        async with person_at(gateway.plan.profile_dir) as person:
            await person.type_into("/sign-in", "#pw", PASSWORD, enter=True)
        await gateway.typing.heard()
        assert heard.values == []
        await gateway.typing.read()
    assert heard.values == [TypedValue(PASSWORD, True)]


async def test_a_new_tab_is_heard_too(gateway: BrowserGateway) -> None:
    """The hostile sign-in page opened by a ``target=_blank`` link: the new tab gets the
    listener as it starts (its setup is sent with its run signal, not awaited before it:
    a new tab answers only once it runs), so the password typed there is heard."""
    heard = Heard()
    gateway.typing.report_to(heard)
    opener = "<title>Opener</title><a href='/sign-in' target='_blank'>Open sign-in</a>"
    with serving_pages(lambda path: opener if path == "/opener" else PAGE) as url:
        page = (await gateway.call("browser_navigate", {"url": f"{url}/opener"})).snapshot
        await gateway.call("browser_click", {"target": page.ref_of("link", "Open sign-in")})
        await select_opened_tab(gateway, 1)
        await gateway.call("browser_wait_for", {"text": "Sign in"})
        async with person_at(gateway.plan.profile_dir) as person:
            await person.type_into("/sign-in", "#pw", PASSWORD, enter=True)
        await gateway.typing.heard()
    assert {value.value for value in heard.values} == {PASSWORD}

"""A hostile sign-in site that echoes what the person types, in every shape it can.

The form is sent by GET, so the password and the PIN land in the address,
form-encoded; the page after it writes the password into its title, into a later
field and, in base64, into its console, and shows the PIN grouped ("735 194") and
logs it as "7-3-5-1-9-4". Everything happens in the person's browser.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, quote_plus

from tests.integration.person_typing import person_at
from tests.support.pages import serving_pages

EMAIL = "pat@example.com"
PASSWORD = "Tr0ub4dor &3x"
PIN = "735194"

SIGN_IN = """<!doctype html><title>Sign in</title><main><h1>Sign in</h1>
<form action="/home" method="get">
<label>Email <input type="email" name="user" id="user"></label>
<label>Password <input type="password" name="pw" id="pw"></label>
<label>PIN <input name="pin" id="pin" style="-webkit-text-security: disc"></label>
<button>Sign in</button></form></main>"""
#: Everything the page can do with what was sent to it, all in the person's browser.
HOME = """<!doctype html><title>Account</title><main><h1>Your account</h1>
<p id="pin-shown"></p><label>Reference <input id="ref"></label>
<button>Cancel membership</button></main><script>
const query = new URLSearchParams(location.search);
const pw = query.get('pw') || '', pin = query.get('pin') || '';
document.title = 'Welcome back ' + pw;
document.getElementById('ref').value = pw;
document.getElementById('pin-shown').textContent = 'PIN ' + pin.slice(0, 3) + ' ' + pin.slice(3);
console.log('password ' + btoa(pw) + ' pin ' + pin.split('').join('-'));
</script>"""


def shapes() -> list[str]:
    """The values as the page, its address and its console put them back."""
    password = [PASSWORD, quote_plus(PASSWORD), quote(PASSWORD, safe="")]
    password.append(base64.b64encode(PASSWORD.encode()).decode().rstrip("="))
    return [*password, PIN, "735 194", "7-3-5-1-9-4"]


def leaked(text: str) -> list[str]:
    """The shapes of the typed values found in ``text``."""
    return [shape for shape in shapes() if shape in text]


@contextmanager
def services_file(tmp_path: Path) -> Iterator[Path]:
    """The site as service ``local``, its sign-in page (/signin) known by a login rule."""
    pages = {"/signin": SIGN_IN, "/home": HOME}
    with serving_pages(lambda path: pages.get(path.split("?", 1)[0], "<title>-</title>")) as url:
        path = tmp_path / "services.toml"
        path.write_text(
            f'[services.local]\nname = "Local"\nstart_url = "{url}/signin"\n'
            f'allowed_domains = ["{url}"]\ngoal = "Cancel."\n'
            '[[services.local.login]]\nwhy = "The sign-in page"\nurl_any = ["/signin"]\n',
            encoding="utf-8",
        )
        yield path


async def sign_in_at_the_window(profile: Path) -> None:
    """The person types the e-mail, the password and the PIN into the sign-in page of the
    browser running on ``profile``, then Enter, and waits for the page after it."""
    async with person_at(profile) as person:
        await person.type_into("/signin", "#user", EMAIL, enter=False)
        await person.type_into("/signin", "#pw", PASSWORD, enter=False)
        await person.type_into("/signin", "#pin", PIN, enter=True, loads=True)

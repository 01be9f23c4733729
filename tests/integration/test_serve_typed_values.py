"""What is typed in a served session: never a password, and never kept in a file.

A password field is known by its input type, not its label: an agent's typing into one
labelled "パスワード", or not labelled at all, is refused before it reaches the page, on
a page the service's rules do not know as a sign-in; an ordinary field still takes text.

Playwright MCP writes the page's console to a log file under the browser's run folder
(its ``--output-dir``), whatever the page logs: a page that logs what was typed into
it, plain and base64-encoded, and writes it into its address, puts the value there.
A real serve session (registry, Playwright MCP, Chromium) types into such a page;
after the session no file under serve's run folder holds the value in any shape.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from subterminator_tui.guarded.secrets import REDACTED
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import local_service, serve_registry

pytestmark = pytest.mark.browser

TYPED = "plum Harbor&quartz"
NOTE_PAGE = (
    b"<!doctype html><title>Feedback</title><main><h1>Tell us why</h1>"
    b'<form action="/feedback"><input name="note" aria-label="Your note" '
    b"oninput=\"console.log('note: ' + this.value); console.log('b64: ' + btoa(this.value))\">"
    b"<button>Send</button></form></main>"
)
#: Two password fields no label of the rules' languages names (one in Japanese, one with
#: no label at all) and a user-name field; typing into any of them writes "typed" in the title.
SIGN_IN_PAGE = (
    "<!doctype html><title>Untouched</title><main><h1>メンバー</h1>"
    "<form oninput=\"document.title = 'typed'\">"
    '<label>ユーザー名 <input name="user"></label>'
    '<label>パスワード <input type="password" name="pw"></label>'
    '<input type="PASSWORD" name="pin"><button>OK</button></form></main>'
).encode()


class _Pages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = SIGN_IN_PAGE if self.path == "/member" else NOTE_PAGE
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        return


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Path]:
    """A services file for the note page on this computer; skipped without a browser."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with local_service(tmp_path, _Pages) as path:
        yield path


def shapes(value: str) -> list[str]:
    """The value as the page and its address put it back."""
    encoded = base64.b64encode(value.encode()).decode().rstrip("=")
    return [value, quote_plus(value), quote(value, safe=""), encoded]


async def test_a_typed_value_is_in_no_file_under_the_run_folder(
    services: Path, tmp_path: Path
) -> None:
    """The page logged the value (the console log holds the scrubbed line) and sent it in
    its address; after the session no file under the run folder holds it in any shape."""
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        assert session.page is not None
        field = session.page.ref_of("textbox", "Your note")
        typed = await session.run("browser_type", {"target": field, "text": TYPED, "submit": True})
        assert typed.status == "ok", typed.message
        await registry.close("agent", "main")
    files = [path for path in (tmp_path / "runs").rglob("*") if path.is_file()]
    logs = [path for path in files if path.name.startswith("console")]
    assert logs, [path.name for path in files]
    logged = "".join(path.read_text(encoding="utf-8") for path in logs)
    assert f"note: {REDACTED}" in logged and f"b64: {REDACTED}" in logged, logged
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        assert not [shape for shape in shapes(TYPED) if shape in text], path


async def test_a_password_field_is_known_by_its_type_whatever_its_label(
    services: Path, tmp_path: Path
) -> None:
    """ "パスワード" and an unlabelled ``type=PASSWORD`` field refuse the agent's text (the page
    never sees a keystroke); the user-name field beside them takes it."""
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        opened = await session.run("browser_navigate", {"url": "/member"})
        assert opened.status == "ok" and opened.page is not None, opened.message
        fields = [e.ref for e in opened.page.find("textbox")]
        assert len(fields) == 3, opened.page.content
        user, password, unlabelled = fields
        for field in (password, unlabelled):
            refused = await session.run("browser_type", {"target": field, "text": "hunter2"})
            assert refused.status == "refused", refused.message
            assert "password field" in refused.message
            assert refused.page is not None and refused.page.title == "Untouched"
        typed = await session.run("browser_type", {"target": user, "text": "demo"})
        assert typed.status == "ok", typed.message
        assert typed.page is not None and typed.page.title == "typed"

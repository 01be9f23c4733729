"""Secrets in every argument of a served session: only typed text counts as typed, and
what was typed is in no address, record, file or journal row, in any encoding.

A real session (registry, Playwright MCP, Chromium) on a local site: a feedback form sent
by GET (the typed note lands in the next page's address, form-encoded), a prompt() whose
answer the page writes into its title and console, and a sentence an agent waits for.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from subterminator_tui.guarded.secrets import REDACTED
from subterminator_tui.journal.call_log import CallLogStore
from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.oversight.call_log_reader import CallLogReader
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import local_service, serve_registry

pytestmark = pytest.mark.browser

TYPED = "plum Harbor&quartz"
PROMPTED = "violet Anchor 42"
SENTENCE = "Your membership renews monthly"
ACCOUNT_PAGE = (
    "<!doctype html><title>Account</title><main><h1>Account</h1>"
    f"<p>{SENTENCE}</p>"
    '<form action="/feedback"><input name="note" aria-label="Your note">'
    "<button>Send</button></form>"
    "<button onclick=\"const a = prompt('Your code?'); console.log('answer: ' + a); "
    "document.title = 'Got ' + a; history.replaceState(null, '', '/account?code=' + "
    'encodeURIComponent(a))">Ask</button></main>'
).encode()


class _Pages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = ACCOUNT_PAGE
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        return


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Path]:
    """A services file for the local site; skipped without a browser."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with local_service(tmp_path, _Pages) as path:
        yield path


def shapes(value: str) -> list[str]:
    """``value`` as a page, an address, a script or a log puts it back."""
    encoded = base64.b64encode(value.encode()).decode().rstrip("=")
    return [value, quote_plus(value), quote(value, safe=""), encoded, html.escape(value)]


def everything_kept(tmp_path: Path) -> dict[str, str]:
    """Every text the session left: the journal's rows, its files and session.json."""
    kept = {}
    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        kept["journal"] = "\n".join(db.iterdump())
    for root in (tmp_path / "runs", tmp_path / "profiles"):
        for path in root.rglob("*"):
            if path.is_file() and (path.suffix in (".json", ".md", ".log", ".yml", ".txt")):
                kept[str(path)] = path.read_bytes().decode("utf-8", "replace")
    return kept


async def test_a_value_sent_by_a_get_form_is_in_no_address_kept(
    services: Path, tmp_path: Path
) -> None:
    """The typed note is in the next page's address (plus for space, %26); the journal, the
    call log and session.json keep that address without it, in every encoding."""
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        assert session.page is not None
        field = session.page.ref_of("textbox", "Your note")
        sent = await session.run("browser_type", {"target": field, "text": TYPED, "submit": True})
        assert sent.status == "ok" and sent.page is not None, sent.message
        assert quote_plus(TYPED) in sent.page.url, "the attack: the value rides in the address"
        state = json.loads((tmp_path / "profiles/agent/main/session.json").read_text())
        assert REDACTED in state["last_url"]
        await registry.close("agent", "main")
    kept = everything_kept(tmp_path)
    assert "session.json" in "".join(kept)
    for where, text in kept.items():
        assert not [shape for shape in shapes(TYPED) if shape in text], where


async def test_a_prompts_answer_is_kept_nowhere(services: Path, tmp_path: Path) -> None:
    """dialog's prompt_text: the page writes it into its title, address and console; no
    record, turn, get_content, console row or Playwright file keeps it."""
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        assert session.page is not None
        asked = await session.run("browser_click", {"target": session.page.ref_of("button", "Ask")})
        assert asked.status == "ok", asked.message
        answered = await session.run(
            "browser_handle_dialog", {"accept": True, "promptText": PROMPTED}
        )
        assert answered.status == "ok" and answered.page is not None, answered.message
        assert answered.ref_id is not None
        read = CallLogReader(CallLogStore(registry.journal)).content("agent", answered.ref_id)
        assert not [shape for shape in shapes(PROMPTED) if shape in read.content]
        await registry.close("agent", "main")
    kept = everything_kept(tmp_path)
    assert f"answer: {REDACTED}" in kept["journal"], "the page logged the answer"
    for where, text in kept.items():
        assert not [shape for shape in shapes(PROMPTED) if shape in text], where


async def test_a_sentence_waited_for_is_not_taken_for_typed(services: Path, tmp_path: Path) -> None:
    """wait_for's text is read, not typed: the page's sentence stays in later records (an
    agent cannot blank a word of the journal or of the operator's questions that way)."""
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        waited = await session.run("browser_wait_for", {"text": SENTENCE})
        assert waited.status == "ok", waited.message
        later = await session.run("browser_snapshot", {})
        assert later.ref_id is not None
        read = CallLogReader(CallLogStore(registry.journal)).content("agent", later.ref_id)
        assert SENTENCE in read.content and REDACTED not in read.content


async def test_what_a_session_leaves_is_readable_by_the_user_only(
    services: Path, tmp_path: Path
) -> None:
    """The journal is 0600, the run folders and the session's folder (profile, browser's
    port file, session.json) 0700, session.json itself 0600."""
    async with serve_registry(tmp_path, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        folder = tmp_path / "profiles/agent/main"
        assert (folder / "profile" / "DevToolsActivePort").exists()
        modes = {
            "journal": stat.S_IMODE((tmp_path / "journal.sqlite3").stat().st_mode),
            "session.json": stat.S_IMODE((folder / "session.json").stat().st_mode),
            "session folder": stat.S_IMODE(folder.stat().st_mode),
            "principal folder": stat.S_IMODE(folder.parent.stat().st_mode),
        }
        runs = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
        assert runs
        for run in runs:
            modes[run.name] = stat.S_IMODE(run.stat().st_mode)
            modes[run.name + "/output"] = stat.S_IMODE((run / "output").stat().st_mode)
    expected = {name: 0o600 if name in ("journal", "session.json") else 0o700 for name in modes}
    assert modes == expected
    with Journal(tmp_path / "journal.sqlite3"):
        assert stat.S_IMODE((tmp_path / "journal.sqlite3").stat().st_mode) == 0o600


async def test_another_user_cannot_read_the_browsers_port_file(
    services: Path, tmp_path: Path
) -> None:
    """Another local user (uid 65534, from its own process) cannot open the session
    browser's DevToolsActivePort, nor list the session's folder."""
    if os.geteuid() != 0:
        pytest.skip("becoming another user needs root")
    # pytest's own folders are private: the home here lets others through, as a user's
    # home often does, so only the session's own folders can keep the other user out.
    home = Path(tempfile.mkdtemp(prefix="serve-home-"))
    os.chmod(home, 0o755)
    try:
        other = await _read_port_file_as_another_user(services, home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert other.returncode == 3, other.stderr


async def _read_port_file_as_another_user(
    services: Path, home: Path
) -> subprocess.CompletedProcess[bytes]:
    async with serve_registry(home, None, (services,)) as registry:
        session, _ = registry.open("agent", "main", "local")
        await session.run("browser_snapshot", {})
        port_file = home / "profiles/agent/main/profile/DevToolsActivePort"
        assert port_file.exists()
        probe = (
            "import os, sys\n"
            "try:\n    open(sys.argv[1]).read()\nexcept PermissionError:\n    sys.exit(3)\n"
        )
        # The system's interpreter: the other user may not enter this checkout.
        return await asyncio.to_thread(
            subprocess.run,
            ["/usr/bin/python3", "-c", probe, str(port_file)],
            user=65534,
            capture_output=True,
            check=False,
        )

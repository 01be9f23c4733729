"""What the person types straight into the browser window at a hand-off never leaves, in any shape.

A hostile sign-in page on this computer: the service's rules know it as a sign-in, so
the run hands it to the person, who signs in *in the browser window* (real, trusted
keystrokes; tests/integration/person_typing.py) and answers "done in the browser". The
form is sent by GET, so the password and the PIN land in the address, form-encoded;
the page after it writes the password into its title, into a later field and, in
base64, into its console, and shows the PIN grouped ("735 194") and logs it as
"7-3-5-1-9-4". Real Playwright MCP, Chromium and the real Anthropic SDK against the
loopback model. No shape of either value may reach a model request, the journal's
bytes, Playwright MCP's files or any event the screen shows. The unprotected twin,
with the window's values not fed to the scrubber, leaks them to the model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote_plus

import pytest

from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.guarded.secrets import REDACTED
from subterminator_tui.guarded.window_typing import AtHandOffs, WindowTyping
from subterminator_tui.session import RunRequest
from subterminator_tui.settings import load_settings
from tests.fakes.fake_model import FakeModelServer, FakeRequest, FakeTurn
from tests.fakes.human import RecordingReporter
from tests.fakes.provider_env import clear_provider_env
from tests.integration.echoing_sign_in import (
    PASSWORD,
    leaked,
    services_file,
    sign_in_at_the_window,
)

pytestmark = pytest.mark.browser


@dataclass
class PersonAtTheWindow:
    """Signs in in the browser window when handed the page; refuses every step after."""

    profile: Path
    handoffs: list[HandoffRequest] = field(default_factory=list)

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Nothing is approved: the run is about the sign-in."""
        return Decision("reject")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """Type the e-mail, the password and the PIN into the page, Enter; done in the browser."""
        self.handoffs.append(request)
        await sign_in_at_the_window(self.profile)
        return HandoffAnswer("done_in_browser")


def look_then_stop(request: FakeRequest) -> FakeTurn:
    """Reads the page once, then ends the task (what it is sent is what matters)."""
    if "browser_snapshot" not in json.dumps(request.body["messages"]):
        return FakeTurn(text="Looking.", tool_calls=[("browser_snapshot", {})])
    return FakeTurn(
        text="Stopping.", tool_calls=[("complete_task", {"status": "failed", "reason": "stop"})]
    )


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Path]:
    """The hostile site as service ``local``, its sign-in page known by a rule."""
    with services_file(tmp_path) as path:
        yield path


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    """The scripted model behind the real Anthropic SDK."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-window-typing")
    server = FakeModelServer(look_then_stop)
    server.start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Outputs:
    """Everything the run let out: model requests, journal bytes, files, screen events."""

    model: str
    journal: str
    files: dict[str, str]
    screen: str
    learned: int


async def run_with_person(
    services: Path, tmp_path: Path, model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> Outputs:
    """Run ``local`` with the person at the window; collect what left the run."""
    from subterminator_tui.session import prepared_run
    from tests.conftest import browser_parts_missing

    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    learned: list[int] = []
    original = WindowTyping.typed

    def counted(self: WindowTyping[AtHandOffs], value: object) -> None:
        original(self, value)  # type: ignore[arg-type]
        learned.append(self.learned)

    monkeypatch.setattr(WindowTyping, "typed", counted)
    person = PersonAtTheWindow(tmp_path / "profile")
    reporter = RecordingReporter()
    request = RunRequest(
        "local", pilot="ai", services=(str(services),), profile_dir=str(person.profile)
    )
    async with prepared_run(request) as prepared:
        await prepared.run(person, reporter)
        run_dir = prepared.browser.gateway.plan.run_dir
    assert [handoff.kind for handoff in person.handoffs] == ["login"]
    journal = load_settings().resolved_journal()
    files = {
        str(path): path.read_bytes().decode("utf-8", "replace")
        for path in [*run_dir.rglob("*"), *journal.parent.glob(journal.name + "*")]
        if path.is_file()
    }
    return Outputs(
        model=json.dumps([request.body for request in model.requests], ensure_ascii=False),
        journal="".join(text for name, text in files.items() if "journal" in name),
        files=files,
        screen=repr(reporter.events),
        learned=max(learned, default=0),
    )


async def test_what_the_person_types_in_the_window_never_leaves(
    services: Path, tmp_path: Path, model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No shape of the password or the PIN in any model request, the journal, a file or an
    event; the page's echoes are there, scrubbed."""
    out = await run_with_person(services, tmp_path, model, monkeypatch)
    assert out.learned >= 3, out.learned
    assert REDACTED in out.model and "Reference" in out.model
    assert leaked(out.model) == []
    assert leaked(out.journal) == []
    assert {name: leaked(text) for name, text in out.files.items() if leaked(text)} == {}
    assert leaked(out.screen) == []


async def test_unprotected_the_window_values_reach_the_model(
    services: Path, tmp_path: Path, model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The twin: with the window's values not fed to the scrubber, the same page puts the
    password and the PIN into the model's requests and the journal."""
    monkeypatch.setattr(WindowTyping, "typed", lambda self, value: None)
    out = await run_with_person(services, tmp_path, model, monkeypatch)
    assert PASSWORD in out.model and quote_plus(PASSWORD) in out.model
    assert "735 194" in out.model
    assert leaked(out.journal)

"""A sign-in page no rule knows is still the person's: its password field hands it over.

The practice site asks to sign in at the start and again when the session expires
mid-flow; the service here has no sign-in rule, so nothing recognises either page by
its words. A model that tries to type a password
there is refused (the field is an ``<input type=password>``), and the page is handed
to the person, who signs in; the run then goes on to a verified cancellation. What
the person typed never reaches the model. Without the hand-off the same run cannot
get past the page: the model is refused again and again until it gives up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from subterminator_tui.guarded.gates import Decision
from subterminator_tui.guarded.guard import Refusal
from subterminator_tui.practice.demoflix.state import PASSWORD, USERNAME
from subterminator_tui.session import RunRequest
from tests.conftest import in_worker_loop
from tests.fakes.demoflix_brain import DemoflixBrain, find_ref
from tests.fakes.fake_model import FakeModelServer, FakeRequest, FakeTurn
from tests.fakes.human import ScriptedHuman
from tests.fakes.provider_env import clear_provider_env
from tests.integration.runs import run_service
from tests.support.shared_browser import SharedBrowser

# The runs share the worker's browser, reset between them (tests/support/shared_browser.py).
pytestmark = [pytest.mark.browser, in_worker_loop]

SERVICE = "demoflix-unknown-sign-in"
#: What the model would type into the password field; the person types the site's own.
GUESSED = "model-guess-31"


@dataclass
class SignInTryingBrain:
    """Plays demoflix, but on a page with a password field it tries to type one itself."""

    inner: DemoflixBrain = field(default_factory=DemoflixBrain)
    tries: int = 0

    def __call__(self, request: FakeRequest) -> FakeTurn:
        page = request.latest_text.rsplit("Current page:", 1)[-1]
        password = find_ref(page, "textbox", "Password")
        if password is not None:
            self.tries += 1
            call = ("browser_type", {"target": password, "text": GUESSED})
            return FakeTurn(text="Signing in.", tool_calls=[call])
        return self.inner(request)


@pytest.fixture
def services(tmp_path: Path) -> Path:
    """The expiring practice site as a service with no sign-in rule at all."""
    path = tmp_path / "services.toml"
    path.write_text(
        f'[services.{SERVICE}]\nextends = "demoflix-expiry"\n'
        'name = "Demoflix (practice): a sign-in page no rule knows"\nlogin = []\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeModelServer, SignInTryingBrain]]:
    """The scripted model behind the real Anthropic SDK."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-password-handoff")
    brain = SignInTryingBrain()
    server = FakeModelServer(brain)  # type: ignore[arg-type]
    server.start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    try:
        yield server, brain
    finally:
        server.stop()


async def test_a_refused_password_hands_the_page_to_the_person(
    services: Path,
    tmp_path: Path,
    model: tuple[FakeModelServer, SignInTryingBrain],
    shared_runs: SharedBrowser,
) -> None:
    """Each refused password (two sign-in pages) hands the page over; the person signs in;
    a verified cancellation."""
    server, brain = model
    signs_in = {"Username": USERNAME, "Password": PASSWORD}
    human = ScriptedHuman([Decision("approve")], handoffs=[signs_in, signs_in])
    request = RunRequest(SERVICE, pilot="ai", services=(str(services),))
    run = await run_service(request, human, tmp_path, shared_runs)
    assert brain.tries == 2
    assert [handoff.kind for handoff in human.handoff_requests] == ["login", "login"]
    assert all("password" in handoff.why for handoff in human.handoff_requests)
    assert run.result.success and run.result.reason == "completed", run.result
    assert run.state.cancel_requests == 1
    sent = json.dumps([request.body for request in server.requests])
    assert PASSWORD not in sent and GUESSED in sent
    assert "completed the login step" in sent


async def test_without_the_hand_off_the_run_is_stuck_at_the_page(
    services: Path,
    tmp_path: Path,
    model: tuple[FakeModelServer, SignInTryingBrain],
    monkeypatch: pytest.MonkeyPatch,
    shared_runs: SharedBrowser,
) -> None:
    """The proof the test above can fail: a refusal that hands nothing over leaves the
    model refused at the page until the run ends, and nothing is cancelled."""
    _server, brain = model
    monkeypatch.setattr(Refusal, "__init__", _refusal_for_nobody(Refusal.__init__))
    human = ScriptedHuman([Decision("approve")], handoffs=[])
    request = RunRequest(SERVICE, pilot="ai", services=(str(services),), max_turns=8)
    run = await run_service(request, human, tmp_path, shared_runs)
    assert human.handoff_requests == []
    assert brain.tries > 1
    assert not run.result.success
    assert run.state.cancel_requests == 0


def _refusal_for_nobody(init: object) -> object:
    def refusal(self: Refusal, message: str, for_the_person: bool = False) -> None:
        init(self, message, False)  # type: ignore[operator]

    return refusal

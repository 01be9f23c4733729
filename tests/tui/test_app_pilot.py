"""The app driven by keys, as a person would: real practice runs, and scripted ones.

Real runs go through the CLI's own factory and session (``create_app`` and
``session_for``): real Playwright MCP, Chromium and the practice server, whose
live state says what actually happened. Behaviour that lives in the app alone
(search, keymaps, the error screen, a huge page) uses the scripted session.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from subterminator_bench.gauntlet import GauntletServer
from subterminator_bench.loopback_model import ScriptedModelServer
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.exit_codes import INTERRUPTED
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.rules import PlaybookStep
from subterminator_tui.session import RunRequest
from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.screens.error import ErrorScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen
from subterminator_tui.tui.screens.quit import QuitScreen
from subterminator_tui.tui.widgets.arguments import ArgumentsPane
from subterminator_tui.tui.widgets.key_hints import KeyHints
from subterminator_tui.tui.widgets.snapshot_tree import SnapshotTree
from subterminator_tui.tui.widgets.turn_log import TurnLog
from subterminator_tui.tui.widgets.url_bar import UrlBar
from tests.conftest import browser_parts_missing, in_worker_loop, wait_until_no_profile_processes
from tests.fakes.demoflix_brain import DemoflixBrain
from tests.fakes.fake_model import FakeModelServer, FakeRequest
from tests.fakes.provider_env import clear_provider_env
from tests.fakes.scripted_session import ScriptedSession, failing_session, long_snapshot
from tests.support.app_screens import at_checkpoint, at_end
from tests.support.shared_browser import SharedBrowser
from tests.tui.conftest import SIZE, PracticeRun, plain, screen_text, scripted_app, wait_until

PASSWORD = "demo-pass"
CODE = "246810"


@pytest.fixture
def serve_model(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[[DemoflixBrain], FakeModelServer]]:
    """Start a loopback model with a given brain and point the Anthropic SDK at it."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-tui")
    servers: list[FakeModelServer] = []

    def serve(brain: DemoflixBrain) -> FakeModelServer:
        server = FakeModelServer(brain).start()
        servers.append(server)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        return server

    yield serve
    for server in servers:
        server.stop()


@pytest.fixture
def fake_model(serve_model: Callable[[DemoflixBrain], FakeModelServer]) -> FakeModelServer:
    """A loopback model playing demoflix as intended."""
    return serve_model(DemoflixBrain())


def handoff_of(app: SubTerminatorApp, kind: str) -> bool:
    """The hand-off modal of ``kind`` is the active screen."""
    return isinstance(app.screen, HandoffScreen) and app.screen.request.kind == kind


def exited(app: SubTerminatorApp) -> bool:
    """The app has been told to exit."""
    return app.return_code is not None


@pytest.mark.browser
class TestCheckpointWithThePlaybook:
    """The demoflix playbook stops before "Finish cancellation"; the person's key decides."""

    @in_worker_loop
    async def test_y_finishes_the_run_verified_with_one_cancel(
        self, tmp_path: Path, shared_runs: SharedBrowser
    ) -> None:
        """`y` at the checkpoint: the run goes on, the end screen reports success, one cancel."""
        run = PracticeRun.of("demoflix", tmp_path, shared=shared_runs)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            assert run.state.cancel_requests == 0
            await pilot.press("y")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
            assert "cancellation completed and verified" in screen_text(app)
            assert run.state.cancel_requests == 1

    @in_worker_loop
    async def test_q_on_the_success_screen_exits_0(
        self, tmp_path: Path, shared_runs: SharedBrowser
    ) -> None:
        """After a verified cancellation, `q` on the end screen leaves with exit code 0."""
        run = PracticeRun.of("demoflix", tmp_path, shared=shared_runs)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            await pilot.press("y")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
            await pilot.press("q")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert app.return_code == 0

    @in_worker_loop
    async def test_n_rejects_cancels_nothing_and_exits_1(
        self, tmp_path: Path, shared_runs: SharedBrowser
    ) -> None:
        """`n` at the checkpoint ends the run as human_rejected: no cancel, exit code 1."""
        run = PracticeRun.of("demoflix", tmp_path, shared=shared_runs)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            await pilot.press("n")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
            assert app.result is not None and app.result.reason == "human_rejected"
            assert "Nothing was cancelled" in screen_text(app)
            await pilot.press("q")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert run.state.cancel_requests == 0
        assert app.return_code == 1


class TestBehindTheCheckpoint:
    """Behind the modal, the main screen shows what is about to happen."""

    async def test_a_burst_of_turns_leaves_the_pending_call_and_live_page_shown(self) -> None:
        """Five turns in quick succession, then a checkpoint: "Pending call" and "Live" remain."""
        app = scripted_app(ScriptedSession())
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal", within=10)
            assert app.query_one(ArgumentsPane).border_title == "Pending call"
            assert plain(app.query_one(UrlBar)).startswith("Live")
            assert app.follow_live


@pytest.mark.browser
class TestCheckpointWithTheAIPilot:
    """The modal describes the step from the page, whatever the model calls it."""

    @in_worker_loop
    async def test_the_modal_names_the_real_target_not_the_models_words(
        self,
        tmp_path: Path,
        serve_model: Callable[[DemoflixBrain], FakeModelServer],
        shared_runs: SharedBrowser,
    ) -> None:
        """A model calling the Finish button "Continue": the modal says what the button is."""
        serve_model(DemoflixBrain(finish_description="Continue"))
        run = PracticeRun.of("demoflix", tmp_path, pilot="ai", shared=shared_runs)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            action = plain(app.screen.query_one("#checkpoint-action"))
            assert action == "Click button 'Finish cancellation'"


@pytest.mark.browser
class TestGuidanceWithTheAIPilot:
    """`g` sends the person's words to the model instead of running the step."""

    @in_worker_loop
    async def test_guidance_reaches_the_model_and_the_run_still_completes(
        self, tmp_path: Path, fake_model: FakeModelServer, shared_runs: SharedBrowser
    ) -> None:
        """Guidance typed at the checkpoint is in the model's next request; approving finishes."""
        guidance = "Check the end date before finishing"
        run = PracticeRun.of("demoflix", tmp_path, pilot="ai", shared=shared_runs)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the first checkpoint")
            first = app.screen
            asked_before = len(fake_model.requests)
            await pilot.press("g", *guidance, "enter")
            await wait_until(
                pilot,
                lambda: at_checkpoint(app) and app.screen is not first,
                "the checkpoint after the guidance",
            )
            nxt = fake_model.requests[asked_before]
            assert guidance in FakeRequest(nxt.api, nxt.body, nxt.headers).latest_text
            assert run.state.cancel_requests == 0
            await pilot.press("y")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
        assert app.result is not None and app.result.reason == "completed"
        assert run.state.cancel_requests == 1


@pytest.mark.browser
class TestHandoff:
    """Sign-in and code typed into the app's modals go into the page, and only there."""

    @in_worker_loop
    async def test_typed_sign_in_and_code_get_the_run_through(
        self, tmp_path: Path, shared_runs: SharedBrowser
    ) -> None:
        """demoflix-2fa: sign-in modal, then code modal; the run reaches the checkpoint and ends."""
        run = PracticeRun.of("demoflix-2fa", tmp_path, shared=shared_runs)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: handoff_of(app, "login"), "the sign-in modal")
            await pilot.press(*"demo", "enter", *PASSWORD)
            await pilot.click("#handoff-submit")
            await wait_until(pilot, lambda: handoff_of(app, "two_factor"), "the code modal")
            await pilot.press(*CODE, "enter")
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            await pilot.press("y")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
        assert app.result is not None and app.result.reason == "completed"
        assert run.state.cancel_requests == 1

    @in_worker_loop
    async def test_secrets_reach_neither_the_model_nor_the_screen(
        self, tmp_path: Path, fake_model: FakeModelServer, shared_runs: SharedBrowser
    ) -> None:
        """With the AI pilot, the typed password and code are in no model request and not shown.

        The practice site's hint (its published demo credentials) is on the hand-off
        modal by design, so there the screen may show them exactly as often as the hint does.
        """
        run = PracticeRun.of("demoflix-2fa", tmp_path, pilot="ai", shared=shared_runs)
        app = run.app()

        def shown_only_in_hint(secret: str) -> bool:
            hint = plain(app.screen.query_one("#handoff-hint"))
            return screen_text(app).count(secret) == hint.count(secret)

        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: handoff_of(app, "login"), "the sign-in modal")
            await pilot.press(*"demo", "enter", *PASSWORD)
            assert shown_only_in_hint(PASSWORD)
            await pilot.press("enter")
            await wait_until(pilot, lambda: handoff_of(app, "two_factor"), "the code modal")
            await pilot.press(*CODE)
            assert shown_only_in_hint(CODE)
            await pilot.press("enter")
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            checkpoint_text = screen_text(app)
            await pilot.press("y")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
            await pilot.press("escape")
            main_text = screen_text(app)
        sent = json.dumps([request.body for request in fake_model.requests])
        assert fake_model.requests, "the model was never asked"
        assert run.state.cancel_requests == 1
        for secret in (PASSWORD, CODE):
            assert secret not in sent
            assert secret not in checkpoint_text
            assert secret not in main_text


@pytest.mark.browser
class TestQuitDuringARun:
    """Ctrl+C asks first; `s` stops the run and closes the browser."""

    async def test_ctrl_c_then_s_exits_130_with_nothing_cancelled_and_the_browser_gone(
        self, tmp_path: Path
    ) -> None:
        """At the checkpoint, Ctrl+C and `s`: exit 130, no cancel, no process on the profile."""
        run = PracticeRun.of("demoflix", tmp_path)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the quit modal")
            await pilot.press("s")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert app.return_code == INTERRUPTED
        assert run.state.cancel_requests == 0
        assert wait_until_no_profile_processes(run.profile, timeout=5.0) == []


@pytest.mark.browser
class TestLookingBack:
    """After the run, the turns can be browsed."""

    @in_worker_loop
    async def test_an_older_turn_shows_its_page_in_the_url_bar(
        self, tmp_path: Path, shared_runs: SharedBrowser
    ) -> None:
        """Esc on the end screen, then an older row in the turn log: the URL bar says "Turn N"."""
        run = PracticeRun.of("demoflix", tmp_path, shared=shared_runs)
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            await pilot.press("y")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
            await pilot.press("escape")
            log = app.query_one(TurnLog)
            newest = max(log.turns)
            log.focus()
            await pilot.press("up")
            older = log.turns[newest - 1]
            bar = app.query_one(UrlBar)
            await wait_until(pilot, lambda: f"Turn {older.turn}" in plain(bar), "the older turn")
            assert older.page is not None
            assert older.page.url in plain(bar)
            # The run ends on the approved Finish, so the turn before it declined the offer.
            assert older.page.url.endswith("/cancel/offer")


class TestSearch:
    """`/` finds an element in the snapshot tree."""

    async def test_search_puts_the_tree_cursor_on_a_match(self) -> None:
        """`/`, a name, Enter: the tree's cursor is on a node whose label contains the name."""
        app = scripted_app(ScriptedSession(hold_at_turn=0))
        async with app.run_test(size=SIZE) as pilot:
            tree = app.query_one(SnapshotTree)
            await wait_until(pilot, lambda: tree.snapshot is not None, "the first page")
            await pilot.press("slash", *"Update payment", "enter")

            def on_match() -> bool:
                node = tree.cursor_node
                return node is not None and "Update payment" in node.label.plain

            await wait_until(pilot, on_match, "the cursor on the match", within=5)


class TestLongSnapshot:
    """A page of thousands of elements stays usable."""

    async def test_a_5000_element_page_fills_the_tree_and_the_cursor_still_moves(self) -> None:
        """The whole long page is in the tree, and `down` moves the cursor one line."""
        page = long_snapshot(5_000)
        app = scripted_app(ScriptedSession(start_page=page, hold_at_turn=0))
        async with app.run_test(size=SIZE) as pilot:
            tree = app.query_one(SnapshotTree)
            await wait_until(pilot, lambda: tree.snapshot is page, "the long page")
            assert tree.last_line + 1 >= 5_000
            tree.focus()
            before = tree.cursor_line
            await pilot.press("down")
            await wait_until(pilot, lambda: tree.cursor_line == before + 1, "the cursor to move")


class TestRunFailures:
    """A failing run shows the error screen, never a traceback."""

    async def test_configuration_error_shows_its_message_and_exit_code_2(self) -> None:
        """A ConfigurationError from the run: the error screen with the message and exit code 2."""
        app = scripted_app(failing_session(ConfigurationError("boom")))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorScreen), "the error")
            assert plain(app.screen.query_one("#error-message")) == "boom"
            assert "Exit code: 2" in screen_text(app)

    async def test_q_on_the_error_screen_exits_with_its_code(self) -> None:
        """`q` on the error screen of a ConfigurationError exits with 2."""
        app = scripted_app(failing_session(ConfigurationError("boom")))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorScreen), "the error")
            await pilot.press("q")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert app.return_code == 2

    async def test_unexpected_error_shows_exit_code_1_without_a_traceback(self) -> None:
        """A RuntimeError from the run: the error screen says exit code 1; no traceback shown."""
        app = scripted_app(failing_session(RuntimeError("kaboom")))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorScreen), "the error")
            text = screen_text(app)
            assert "kaboom" in text and "Exit code: 1" in text
            assert "Traceback" not in text
            await pilot.press("q")
            await wait_until(pilot, lambda: exited(app), "the app to exit")
        assert app.return_code == 1


class TestKeymap:
    """The config file's keymap rebinds the app's keys."""

    async def test_a_remapped_approve_key_approves(self, isolated_home: Path) -> None:
        """With ``keymap = {"checkpoint.approve" = "a"}`` in the config file, `a` approves."""
        (isolated_home / "config.toml").write_text(
            '[keymap]\n"checkpoint.approve" = "a"\n', encoding="utf-8"
        )
        session = ScriptedSession()
        app = scripted_app(session)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal", within=10)
            await pilot.press("a")
            await wait_until(pilot, lambda: at_end(app), "the end screen", within=10)
        assert session.decisions == [Decision("approve")]

    async def test_the_modal_hint_shows_the_remapped_key(self, isolated_home: Path) -> None:
        """Remap approve to `a`: the checkpoint's key line says `a approve`, not `y approve`."""
        (isolated_home / "config.toml").write_text(
            '[keymap]\n"checkpoint.approve" = "a"\n', encoding="utf-8"
        )
        app = scripted_app(ScriptedSession())
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal", within=10)
            hint = plain(app.screen.query_one(KeyHints))
        assert hint.startswith("a approve")
        assert "y approve" not in hint and "n/Esc reject" in hint

    def test_an_unknown_binding_id_is_a_configuration_error(self, isolated_home: Path) -> None:
        """A typo in a binding id names the id and the file before the app starts."""
        (isolated_home / "config.toml").write_text(
            '[keymap]\n"checkpoint.aprove" = "a"\n', encoding="utf-8"
        )
        with pytest.raises(ConfigurationError, match=r"'checkpoint\.aprove'.*config\.toml"):
            scripted_app(ScriptedSession())

    async def test_escape_closes_the_search_box(self) -> None:
        """`/` opens the search box; Esc closes it and the tree has the focus again."""
        app = scripted_app(ScriptedSession(hold_at_turn=0))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("slash")
            search = app.query_one("#search")
            assert search.display and search.has_focus
            await pilot.press("escape")
            await pilot.pause()
            assert not search.display
            assert app.query_one(SnapshotTree).has_focus


class TestShutdown:
    """Shutting the app down at any moment is clean."""

    async def test_shutdown_right_after_a_burst_of_turns_raises_nothing(self) -> None:
        """Shut down the moment the checkpoint appears, turn log updates in flight: no error."""
        app = scripted_app(ScriptedSession())
        async with app.run_test(size=SIZE) as pilot:
            deadline = time.monotonic() + 10
            # Not wait_until: its idle pass would deliver the queued row highlights first.
            while not at_checkpoint(app) and time.monotonic() < deadline:
                await pilot.pause(0.01)
            assert at_checkpoint(app)
        # Leaving run_test shuts the app down and re-raises any error a handler raised.


@pytest.mark.browser
@in_worker_loop
async def test_any_site_by_url_ends_verified_by_generic_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """The app runs a site in no services file by its address; the end says whose rules held."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    clear_provider_env(monkeypatch)
    steps = [
        PlaybookStep.model_validate({"action": "click", "role": "button", "name": name})
        for name in ("Cancel membership", "Finish cancellation")
    ]
    with (
        GauntletServer(("basic", "remembered")) as site,
        ScriptedModelServer(PlaybookBrain(steps)) as model,
    ):
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-tui")
        run = PracticeRun(
            RunRequest(
                "", url=f"{site.base_url}/account", headless=True, profile_dir=str(tmp_path / "p")
            ),
            start_browser=shared_runs,
        )
        app = run.app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
            await pilot.press("y")
            await wait_until(pilot, lambda: at_end(app), "the end screen")
            text = screen_text(app)
        assert app.result is not None, "no result"
        assert "completed and verified by generic rules only" in text, app.result
        assert "look at the account page yourself" in text
        assert site.state.cancel_requests == 1

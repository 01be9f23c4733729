"""The real ``subterminator cancel`` (and its companions) in a child process.

Each test runs ``python -m subterminator_tui ...`` with the isolated home of
tests/conftest.py (so journal, profile and config are private), stdin piped,
headless, against the real Playwright MCP, Chromium and practice site. Only
the edges are fake: the person is whatever the test writes to stdin, and the
model (when there is one) is a FakeModelServer the official SDKs talk to
over HTTP. A child left running by a failing test is killed, and after every
test no process may use its profile directory.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from subterminator_tui.browser.processes import processes_using_profile
from subterminator_tui.resources import builtin_services_file
from subterminator_tui.rules import load_services
from tests.conftest import browser_parts_missing, isolate, wait_until_no_profile_processes
from tests.fakes.demoflix_brain import DemoflixBrain
from tests.fakes.fake_model import FakeModelServer
from tests.integration.cli_children import (
    PROMPT,
    Cli,
    Finished,
    assert_no_browser_started,
    read_until,
)
from tests.integration.conftest import reaped

pytestmark = pytest.mark.browser

# --- the demo -------------------------------------------------------------------------


@dataclass(frozen=True)
class ApprovedDemo:
    """One `cancel demoflix` child answered `y`, and the runner whose home keeps its journal."""

    cli: Cli
    run: Finished


@pytest.fixture(scope="module")
def approved_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApprovedDemo]:
    """The approved demo run, once for the module: the tests below each read a different
    part of the same run (its output, its screenshot, its journal), and a run of its own
    for each would start five browsers to print the same thing."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    root = tmp_path_factory.mktemp("approved-demo")
    with pytest.MonkeyPatch.context() as patch:
        home = isolate(root / "home", patch)
        environment = dict(os.environ)
    with reaped(Cli(profile=root / "profile", home=home, environment=environment)) as runner:
        run = runner.run(runner.cancel_args("demoflix"), stdin=b"y\n")
        yield ApprovedDemo(runner, run)


def test_demo_cancels_after_approval(approved_demo: ApprovedDemo) -> None:
    """`cancel demoflix` with `y`: the turns, the prompt and the verified result, exit 0."""
    run = approved_demo.run
    assert run.code == 0, run.stderr
    assert "Starting Demoflix (practice) cancellation" in run.stdout
    assert '[Turn 1] browser_click "Cancel membership"' in run.stdout
    assert "Human approval required for: Click button 'Finish cancellation'" in run.stdout
    assert PROMPT + "y" in run.stdout
    assert "✓ Demoflix (practice) cancellation completed and verified" in run.stdout
    assert "this run's record: subterminator show" in run.stdout


def test_the_held_steps_turn_line_does_not_read_as_done(approved_demo: ApprovedDemo) -> None:
    """The checkpoint's turn line is followed by "not done yet"; after `y`, by "done"."""
    run = approved_demo.run
    lines = run.stdout.splitlines()
    held = next(i for i, line in enumerate(lines) if "Finish cancellation" in line)
    assert lines[held].startswith("[Turn 5]")
    following = "\n".join(lines[held + 1 : held + 8])
    assert "Not done yet" in following
    assert "-> done after your approval" in run.stdout


def test_demo_screenshot_shown_at_the_checkpoint_exists(approved_demo: ApprovedDemo) -> None:
    """The Screenshot: path printed with the approval request is a PNG on disk."""
    run = approved_demo.run
    assert run.code == 0, run.stderr
    match = re.search(r"^    Screenshot: (.+)$", run.stdout, re.MULTILINE)
    assert match is not None, run.stdout
    screenshot = Path(match[1])
    assert screenshot.is_file()
    assert screenshot.read_bytes().startswith(b"\x89PNG")


def test_runs_lists_a_finished_run(approved_demo: ApprovedDemo) -> None:
    """After a demo run, `runs` shows it as completed (verified) with the playbook pilot."""
    assert approved_demo.run.code == 0
    run = approved_demo.cli.run(["runs"])
    assert run.code == 0, run.stderr
    (line,) = [line for line in run.stdout.splitlines() if "demoflix" in line]
    assert line.split()[0] == "1"
    assert "playbook" in line
    assert "completed (verified)" in line


def test_show_prints_each_turn_with_its_tool_and_outcome(approved_demo: ApprovedDemo) -> None:
    """`show 1` prints turn lines with the tool, its arguments and the outcome."""
    assert approved_demo.run.code == 0
    run = approved_demo.cli.run(["show", "1"])
    assert run.code == 0, run.stderr
    assert "Run 1: demoflix with the playbook pilot" in run.stdout
    assert re.search(r"^\[Turn 1\] browser_click \{.*Cancel membership", run.stdout, re.M)
    # The approved last step's page proves the cancellation, so it is the last turn.
    assert re.search(r"^\[Turn 5\] browser_click \{.*Finish cancellation", run.stdout, re.M)
    assert "complete_task" not in run.stdout
    outcomes = re.findall(r"^  outcome: (\S+)", run.stdout, re.M)
    assert outcomes == ["ok"] * 5


def test_answering_no_rejects_and_exits_1(browser_cli: Cli) -> None:
    """`n` at the checkpoint: exit 1, and the ending says so in words, then what next."""
    run = browser_cli.run(browser_cli.cancel_args("demoflix"), stdin=b"n\n")
    assert run.code == 1
    assert PROMPT + "n" in run.stdout
    assert (
        "✗ Nothing was cancelled: you said no to Click button 'Finish cancellation'." in run.stdout
    )
    assert "run subterminator cancel demoflix again" in run.stdout
    assert "human_rejected" not in run.stdout
    assert "completed and verified" not in run.stdout


def test_end_of_input_at_the_checkpoint_means_no(browser_cli: Cli) -> None:
    """Empty stdin: nothing runs (exit 1); the ending says the input ended, not "you said no"."""
    run = browser_cli.run(browser_cli.cancel_args("demoflix"), stdin=b"")
    assert run.code == 1
    assert PROMPT in run.stdout
    assert "the input ended before an answer came" in run.stdout
    assert "said no" not in run.stdout and "You rejected" not in run.stdout


def test_json_prints_only_the_result_on_stdout(browser_cli: Cli) -> None:
    """--json: stdout is exactly one JSON document; turn lines and the prompt go to stderr."""
    run = browser_cli.run(browser_cli.cancel_args("demoflix", "--json"), stdin=b"y\n")
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["reason"] == "completed"
    assert result["success"] is True
    assert result["exit_code"] == 0
    assert '[Turn 1] browser_click "Cancel membership"' in run.stderr
    assert PROMPT in run.stderr


def test_dry_run_proposes_and_does_nothing(browser_cli: Cli) -> None:
    """--dry-run exits 0, names the proposed click and says nothing was done."""
    run = browser_cli.run(browser_cli.cancel_args("demoflix", "--dry-run"))
    assert run.code == 0, run.stderr
    assert "Dry run: the first step would be Click button 'Cancel membership'" in run.stdout
    assert "Nothing was done" in run.stdout
    assert PROMPT not in run.stdout


# --- configuration errors: exit 2 before any browser starts ---------------------------


def test_unknown_service_exits_2_listing_the_services(cli: Cli) -> None:
    """An unknown id is refused with the available ids, before a browser starts."""
    run = cli.run(cli.cancel_args("nope"))
    assert run.code == 2
    assert "Unknown service 'nope'. Services: " in run.stderr and "netflix" in run.stderr
    # Real services first, the practice ones apart (and no gauntlet scenario: never loaded).
    assert "demoflix" in run.stderr.split("Practice services:", 1)[1]
    assert "gauntlet" not in run.stderr
    assert run.stdout == ""
    assert_no_browser_started(cli.profile)


def test_ai_pilot_without_a_key_exits_2(cli: Cli) -> None:
    """--pilot ai with no ANTHROPIC_API_KEY says which key is missing, before a browser starts."""
    run = cli.run(cli.cancel_args("demoflix", "--pilot", "ai"))
    assert run.code == 2
    assert "Missing ANTHROPIC_API_KEY" in run.stderr
    assert_no_browser_started(cli.profile)


def test_unsupported_model_exits_2(cli: Cli) -> None:
    """--model foo names the model and is refused before a browser starts."""
    run = cli.run(cli.cancel_args("demoflix", "--model", "foo"))
    assert run.code == 2
    assert "Unsupported model: foo" in run.stderr
    assert_no_browser_started(cli.profile)


def test_bad_services_file_exits_2_naming_file_service_and_key(cli: Cli, tmp_path: Path) -> None:
    """An unknown key in --services is reported with the file, the service and the key."""
    services = tmp_path / "services.toml"
    services.write_text(
        '[services.mine]\nname = "Mine"\nstart_url = "https://mine.example/account"\n'
        'allowed_domains = ["mine.example"]\ngoal = "Cancel."\nbogus_key = 1\n',
        encoding="utf-8",
    )
    run = cli.run(cli.cancel_args("demoflix", "--services", str(services)))
    assert run.code == 2
    assert f"{services}: service 'mine', key 'bogus_key'" in run.stderr
    assert_no_browser_started(cli.profile)


# --- Ctrl+C ---------------------------------------------------------------------------


def test_ctrl_c_at_the_checkpoint_exits_130_and_closes_the_browser(browser_cli: Cli) -> None:
    """SIGINT while the prompt waits exits 130; within 5 s no process uses the profile."""
    child = browser_cli.start(browser_cli.cancel_args("demoflix"))
    read_until(child, PROMPT)
    assert processes_using_profile(browser_cli.profile), "the browser should be running"
    child.send_signal(signal.SIGINT)
    assert child.wait(timeout=30) == 130
    assert wait_until_no_profile_processes(browser_cli.profile, timeout=5.0) == []


# --- the AI pilot through the real SDKs -----------------------------------------------


def test_ai_pilot_through_the_anthropic_sdk_completes(browser_cli: Cli) -> None:
    """--pilot ai with a scripted model behind ANTHROPIC_BASE_URL cancels and exits 0."""
    key = f"sk-ant-test-{secrets.token_hex(12)}"
    with FakeModelServer(DemoflixBrain()) as server:
        env = browser_cli.env(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY=key)
        run = browser_cli.run(
            browser_cli.cancel_args("demoflix", "--pilot", "ai"), stdin=b"y\n", env=env
        )
        requests = server.requests
    assert run.code == 0, run.stderr
    assert "✓ Demoflix (practice) cancellation completed and verified" in run.stdout
    assert requests, "the model server saw no request"
    assert {request.api for request in requests} == {"anthropic"}
    # The SDK sends the key in a header of its choosing (x-api-key or a bearer token).
    assert any(key in value for value in requests[0].headers.values())


def test_ai_pilot_never_shows_or_stores_the_api_key(browser_cli: Cli) -> None:
    """The key reaches the model's API only: not stdout, not stderr, not the journal."""
    key = f"sk-ant-test-{secrets.token_hex(12)}"
    with FakeModelServer(DemoflixBrain()) as server:
        env = browser_cli.env(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY=key)
        run = browser_cli.run(
            browser_cli.cancel_args("demoflix", "--pilot", "ai", "--verbose"),
            stdin=b"y\n",
            env=env,
        )
    assert run.code == 0, run.stderr
    assert key not in run.stdout
    assert key not in run.stderr
    journal = browser_cli.journal_files()
    assert journal, "the run should have been journaled"
    for path in journal:
        assert key.encode() not in path.read_bytes(), path


def test_gpt_4o_through_the_openai_sdk_completes(browser_cli: Cli) -> None:
    """--model gpt-4o, OPENAI_BASE_URL and a key: the run cancels and exits 0."""
    with FakeModelServer(DemoflixBrain()) as server:
        env = browser_cli.env(
            OPENAI_BASE_URL=server.openai_base_url,
            OPENAI_API_KEY=f"sk-test-{secrets.token_hex(8)}",
        )
        run = browser_cli.run(
            browser_cli.cancel_args("demoflix", "--pilot", "ai", "--model", "gpt-4o"),
            stdin=b"y\n",
            env=env,
        )
        requests = server.requests
    assert run.code == 0, run.stderr
    assert "(model gpt-4o)" in run.stdout
    assert requests
    assert {(request.api, request.body["model"]) for request in requests} == {("openai", "gpt-4o")}


# --- the journal views ----------------------------------------------------------------


def test_runs_with_an_empty_journal_says_so(cli: Cli) -> None:
    """No run yet: `runs` says so and exits 0."""
    run = cli.run(["runs"])
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "No runs yet."


# --- doctor and services --------------------------------------------------------------


def test_doctor_passes_and_reports_the_sandbox(browser_cli: Cli) -> None:
    """Here every essential check passes; the sandbox line matches whether we are root."""
    run = browser_cli.run(["doctor"])
    assert run.code == 0, run.stdout
    (sandbox,) = [line for line in run.stdout.splitlines() if " Sandbox " in line]
    if os.geteuid() == 0:
        assert "off: running as root" in sandbox
    else:
        assert "on (Chromium's own sandbox)" in sandbox


def test_doctor_reports_a_key_as_set_without_its_value(browser_cli: Cli) -> None:
    """ANTHROPIC_API_KEY is reported as `set`; its value appears nowhere."""
    value = "sk-ant-secret-value"
    run = browser_cli.run(["doctor"], env=browser_cli.env(ANTHROPIC_API_KEY=value))
    assert "ANTHROPIC_API_KEY  set" in run.stdout
    assert "OPENAI_API_KEY     not set" in run.stdout
    assert value not in run.stdout
    assert value not in run.stderr


def service_lines(stdout: str) -> dict[str, str]:
    """The listed services by id: the indented lines under each section heading."""
    return {line.split()[0]: line for line in stdout.splitlines() if line.startswith("  ")}


def test_services_lists_every_builtin_with_its_file(cli: Cli) -> None:
    """Each built-in id is on a line of its own that names the built-in services.toml."""
    run = cli.run(["services"])
    assert run.code == 0, run.stderr
    lines = service_lines(run.stdout)
    builtin = load_services(user_file=None)
    assert sorted(lines) == builtin.ids()
    for service_id, line in lines.items():
        assert line.endswith(str(builtin.source_of(service_id))), service_id
    assert str(builtin_services_file()) in run.stdout


def test_services_lists_real_services_first_and_practice_apart(cli: Cli) -> None:
    """Real services come first; practice ones under their own heading; no gauntlet by default."""
    run = cli.run(["services"])
    assert run.code == 0, run.stderr
    real, practice = run.stdout.split("Practice services", 1)
    assert "netflix" in service_lines(real) and "demoflix" not in service_lines(real)
    assert "demoflix" in service_lines(practice)
    assert not [sid for sid in service_lines(run.stdout) if sid.startswith("gauntlet")]


def test_services_practice_lists_the_gauntlet(cli: Cli) -> None:
    """--practice lists the practice services and the gauntlet's scenarios, no real ones."""
    run = cli.run(["services", "--practice"])
    assert run.code == 0, run.stderr
    listed = service_lines(run.stdout)
    assert "gauntlet-decoy-offer" in listed and "demoflix" in listed
    assert "netflix" not in listed

"""Recording a playbook from journal turns, and writing it into the user's services file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.cli.main import main
from subterminator_tui.errors import ConfigurationError, ServiceConfigError
from subterminator_tui.journal.store import Journal, TurnRow
from subterminator_tui.results import TaskResult
from subterminator_tui.rules import load_services, user_services_file
from subterminator_tui.rules.recording import NEUTRAL_TEXT, name_pattern, record_steps
from subterminator_tui.rules.user_file import write_user_service
from subterminator_tui.session.record import record_playbook
from subterminator_tui.settings import load_settings

START = "http://127.0.0.1:8123/account"


def turn(
    number: int,
    tool: str,
    arguments: dict[str, Any] | None = None,
    *,
    target: tuple[str, str] | None = None,
    outcome: str = "ok",
    snapshot: str = "",
) -> TurnRow:
    """A journal turn as ``Journal.turns`` returns it."""
    role, name = target or (None, None)
    return TurnRow(
        number,
        "ai",
        tool,
        arguments or {},
        outcome,
        None,
        START,
        "",
        snapshot,
        0.1,
        0,
        0,
        role,
        name,
    )


def test_clicks_become_role_and_anchored_name_steps() -> None:
    """A click is found next time by its role and its whole name, nothing more."""
    recorded = record_steps(
        [turn(1, "browser_click", {"target": "e4"}, target=("button", "Cancel membership"))],
        START,
        7,
    )
    (step,) = recorded.steps
    assert step["action"] == "click" and step["role"] == "button"
    pattern = re.compile(step["name_regex"], re.I)
    assert pattern.search("Cancel membership")
    assert not pattern.search("Cancel membership and lose everything")
    assert step["why"] == "Recorded from run 7, turn 1"


def test_names_with_dates_numbers_and_addresses_are_generalised() -> None:
    """What changes between runs does not break the match; the words around it still count."""
    pattern = re.compile(
        name_pattern("Keep alice@example.com on Premium until 12 March 2027"), re.I
    )
    assert pattern.search("Keep bob@example.org on Premium until 3 April 2028")
    assert not pattern.search("Keep bob@example.org on Basic until 3 April 2028")
    assert re.compile(name_pattern("Pay $22.99 now"), re.I).search("Pay $6.99 now")
    # A month is generalised only beside a number: "May" alone is a word that matters.
    assert not re.compile(name_pattern("Maybe later"), re.I).search("Decide later")
    assert not re.compile(name_pattern("You may leave"), re.I).search("You must leave")
    assert re.compile(name_pattern("Ends Mar 3"), re.I).search("Ends Apr. 14")


def test_refused_failed_guided_and_read_only_calls_are_left_out() -> None:
    """Only calls that went through and acted on the page become steps."""
    turns = [
        turn(1, "browser_snapshot"),
        turn(2, "browser_click", target=("button", "Upgrade"), outcome="refused"),
        turn(3, "browser_click", target=("button", "Finish"), outcome="guidance"),
        turn(4, "browser_click", target=("button", "Oops"), outcome="error"),
        turn(5, "request_human_approval"),
        turn(6, "browser_click", target=("link", "Settings")),
        turn(7, "complete_task", {"status": "success"}, outcome="done"),
    ]
    assert [step["role"] for step in record_steps(turns, START, 1).steps] == ["link"]


def test_typed_text_is_kept_only_when_the_page_showed_it() -> None:
    """ "Type CANCEL to confirm" keeps CANCEL; a free answer becomes a neutral sentence."""
    confirm_page = '- paragraph: Type CANCEL to confirm\n- textbox "Confirmation" [ref=e5]'
    turns = [
        turn(1, "browser_click", target=("button", "Cancel plan"), snapshot=confirm_page),
        turn(2, "browser_type", {"text": "CANCEL"}, target=("textbox", "Confirmation")),
        turn(
            3,
            "browser_type",
            {"text": "Moving to Berlin, ring me on 0170 1234"},
            target=("textbox", "Tell us more"),
            snapshot='- textbox "Tell us more": Moving',
        ),
        # The answer is on the page now, but only as the field's own contents.
        turn(
            4,
            "browser_type",
            {"text": "Moving", "submit": True},
            target=("textbox", "Tell us more"),
        ),
    ]
    steps = record_steps(turns, START, 1).steps
    assert [step.get("text") for step in steps if step["action"] == "type"] == [
        "CANCEL",
        NEUTRAL_TEXT,
        NEUTRAL_TEXT,
    ]
    assert steps[-1] == {"action": "press", "key": "Enter", "why": "Recorded from run 1, turn 4"}


def test_dialogs_and_cookie_banners_are_optional_and_detours_undone() -> None:
    """Pages that may not appear next time are optional; a click taken back is dropped."""
    turns = [
        turn(1, "browser_click", target=("button", "Accept all cookies")),
        turn(2, "browser_click", target=("link", "Help")),
        turn(3, "browser_navigate_back"),
        turn(4, "browser_navigate", {"url": "http://127.0.0.1:8123/settings?session=abc#x"}),
        turn(5, "browser_handle_dialog", {"accept": True}),
    ]
    recorded = record_steps(turns, START, 1)
    assert [(step["action"], step.get("optional", False)) for step in recorded.steps] == [
        ("click", True),
        ("navigate", False),
        ("dialog", True),
    ]
    assert recorded.steps[1]["url"] == "/settings"  # another port next time; no session token
    assert any("went back" in note for note in recorded.notes)


def test_recording_stops_at_a_call_it_cannot_replay() -> None:
    """A click on a nameless element cannot be found again: the AI takes over there."""
    turns = [
        turn(1, "browser_click", target=("button", "Cancel membership")),
        turn(2, "browser_click", target=("button", "")),
        turn(3, "browser_click", target=("button", "Finish")),
    ]
    recorded = record_steps(turns, START, 1)
    assert len(recorded.steps) == 1 and recorded.stopped_at == 2


def test_writing_keeps_comments_and_other_services(tmp_path: Path) -> None:
    """The user's file is edited: their comment and service stay, a backup is kept."""
    path = tmp_path / "services.toml"
    original = (
        "# my own gym\n[services.gym]\nname = 'Gym' # mine\nallowed_domains = ['gym.example']\n"
        "start_url = 'https://gym.example/account'\ngoal = 'Cancel it.'\n"
    )
    path.write_text(original, encoding="utf-8")
    table = {
        "name": "Example",
        "start_url": "https://example.com/",
        "allowed_domains": ["example.com"],
        "goal": "Cancel.",
        "playbook": [{"action": "click", "role": "button", "name_regex": "^Cancel$"}],
    }
    assert write_user_service(path, "example.com", table) is False
    text = path.read_text(encoding="utf-8")
    assert text.startswith(original)
    assert (tmp_path / "services.toml.bak").read_text(encoding="utf-8") == original
    services = load_services(user_file=path)
    assert services.get("example.com").playbook[0].name_regex is not None
    assert services.get("gym").name == "Gym"
    assert write_user_service(path, "example.com", table) is True


def test_an_unreadable_file_or_invalid_service_writes_nothing(tmp_path: Path) -> None:
    """Broken TOML is named and left alone; an invalid table is refused before writing."""
    path = tmp_path / "services.toml"
    path.write_text("[services.gym\n", encoding="utf-8")
    good = {"name": "X", "start_url": "https://x.io/", "allowed_domains": ["x.io"], "goal": "C."}
    with pytest.raises(ServiceConfigError, match="cannot be read as TOML"):
        write_user_service(path, "x.io", good)
    with pytest.raises(ServiceConfigError, match="allowed_domains"):
        write_user_service(tmp_path / "new.toml", "x.io", {**good, "allowed_domains": []})
    assert path.read_text(encoding="utf-8") == "[services.gym\n"
    assert not (tmp_path / "new.toml").exists()


def finished(journal: Journal, reason: str, *, success: bool) -> int:
    """A run of the site 127.0.0.1 with one click, ended for ``reason``."""
    run = journal.start_run("127.0.0.1", "claude-x", "ai", start_url=START)
    row = journal.record_intent(
        run, 1, "ai", "browser_click", {"target": "e2"}, target=("button", "Cancel membership")
    )
    journal.record_outcome(
        row,
        outcome="ok",
        error=None,
        url=START,
        title="",
        snapshot="",
        latency=0.1,
        input_tokens=1,
        output_tokens=1,
    )
    result = TaskResult(
        success=success,
        verified=True,
        reason=reason,
        turns=1,  # type: ignore[arg-type]
        verified_by="generic" if success else None,
    )
    journal.finish_run(run, result, model="claude-x", pilot="ai")
    return run


def test_a_site_run_becomes_a_service_of_its_own(tmp_path: Path) -> None:
    """A run by address is recorded as the site's service, named by its domain."""
    with Journal(tmp_path / "journal.sqlite3") as journal:
        run = finished(journal, "completed", success=True)
        done = record_playbook(journal, run, user_file=tmp_path / "services.toml")
    service = load_services(user_file=done.path).get("127.0.0.1")
    assert service.start_url == START and service.allowed_domains == ("http://127.0.0.1:8123",)
    assert service.generic_rules and len(service.playbook) == 1


def test_only_a_verified_run_is_recorded(tmp_path: Path) -> None:
    """A rejected run, or one that is not in the journal, is refused and nothing is written."""
    user_file = tmp_path / "services.toml"
    with Journal(tmp_path / "journal.sqlite3") as journal:
        rejected = finished(journal, "human_rejected", success=False)
        with pytest.raises(ConfigurationError, match="did not end in a verified cancellation"):
            record_playbook(journal, rejected, user_file=user_file)
        with pytest.raises(ConfigurationError, match="No run 99"):
            record_playbook(journal, 99, user_file=user_file)
        verified = finished(journal, "completed", success=True)
        with pytest.raises(ConfigurationError, match="cannot be a service id"):
            record_playbook(journal, verified, service_id="my gym", user_file=user_file)
    assert not user_file.exists()


def test_record_command_writes_the_users_file(capsys: pytest.CaptureFixture[str]) -> None:
    """`subterminator record RUN`: exit 0, the user's services file, and what to run next."""
    with Journal(load_settings().resolved_journal()) as journal:
        run = finished(journal, "completed", success=True)
    assert main(["record", str(run)]) == 0
    out = capsys.readouterr().out
    assert f"Recorded 1 step from run {run}" in out
    assert "subterminator cancel 127.0.0.1" in out
    assert "127.0.0.1" in load_services().ids()
    assert user_services_file().is_file()


def test_record_command_refuses_an_unknown_run(capsys: pytest.CaptureFixture[str]) -> None:
    """No such run: exit 2 and the journal named; no file written."""
    assert main(["record", "41"]) == 2
    assert "No run 41 in the journal" in capsys.readouterr().err
    assert not user_services_file().exists()


def test_runs_lists_a_generic_verification_as_such(capsys: pytest.CaptureFixture[str]) -> None:
    """`subterminator runs` says "verified by generic rules" for such a run, not "verified"."""
    with Journal(load_settings().resolved_journal()) as journal:
        finished(journal, "completed", success=True)
    assert main(["runs"]) == 0
    assert "completed (verified by generic rules)" in capsys.readouterr().out

"""``subterminator receipt RUN`` after a real run: one self-contained file, proof, no secret.

A playbook run of the practice site behind a sign-in and a verification code: the
person types both at hand-offs and approves the last step. The receipt the CLI then
writes names the service, the approved step and who approved it, embeds the
screenshots before and after it, shows the confirmation text and the evidence it was
verified on, and holds neither the password nor the code in any encoding; nor does
any file Playwright MCP left in the run's directory.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from subterminator_tui.cli.main import main
from subterminator_tui.cli.receipt import receipt_html, write_receipt
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.guarded.secrets import encoded_forms
from subterminator_tui.journal.store import Journal
from subterminator_tui.session import RunRequest
from tests.conftest import in_worker_loop
from tests.fakes.human import ScriptedHuman
from tests.integration.runs import run_service
from tests.support.shared_browser import SharedBrowser

pytestmark = pytest.mark.browser

PASSWORD, CODE = "demo-pass", "246810"
SIGN_IN = {"Username": "demo", "Password": PASSWORD}


def leaks(text: str) -> list[str]:
    """Every shape of the password or the code found in ``text``."""
    found = [form for value in (PASSWORD, CODE) for form in encoded_forms(value) if form in text]
    if re.search(r"2\W{0,3}4\W{0,3}6\W{0,3}8\W{0,3}1\W{0,3}0", text):
        found.append("the code, grouped")
    return found


async def test_receipt_of_a_signed_in_run_proves_the_step_and_keeps_no_secret(
    tmp_path: Path,
) -> None:
    """The receipt holds the step, its approver, both screenshots and the evidence; no secret."""
    human = ScriptedHuman(
        [Decision("approve")], handoffs=[dict(SIGN_IN), {"Verification code": CODE}]
    )
    run = await run_service(RunRequest("demoflix-2fa"), human, tmp_path)
    assert run.result.reason == "completed" and run.result.run_id is not None
    target = tmp_path / "receipt.html"
    with Journal(run.journal_path) as journal:
        row = journal.run(run.result.run_id)
        assert row is not None
        write_receipt(target, receipt_html(journal, row))
    receipt = target.read_text(encoding="utf-8")
    assert "demoflix" in receipt and "Finish cancellation" in receipt
    assert "approve by " in receipt and "(at this computer)" in receipt
    assert receipt.count("data:image/png;base64,") == 2
    assert "shown after the approved step" in receipt
    assert "Cancellation confirmed" in receipt
    assert "<script" not in receipt.lower() and 'http-equiv="Content-Security-Policy"' in receipt
    assert leaks(receipt) == []
    for path in run.run_dir.rglob("*"):
        if path.is_file() and path.suffix in (".yml", ".md", ".log", ".txt", ".json"):
            assert leaks(path.read_text(encoding="utf-8", errors="replace")) == [], path


def test_receipt_of_an_unknown_run_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    """A run number the journal does not have: exit 2, the journal named, no traceback."""
    assert main(["receipt", "987654"]) == 2
    err = capsys.readouterr().err
    assert "No run 987654" in err and "Traceback" not in err


@in_worker_loop
async def test_the_approved_steps_request_and_the_services_answer_are_its_evidence(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The request gate links the approved step's POST to it; the receipt shows the answer.

    On the worker's browser: the signed-in run above keeps a fresh one, since it reads
    every file its run wrote for secrets."""
    human = ScriptedHuman([Decision("approve")])
    run = await run_service(RunRequest("demoflix"), human, tmp_path, shared_runs)
    assert run.result.reason == "completed" and run.result.run_id is not None
    with Journal(run.journal_path) as journal:
        (step,) = journal.steps(run.result.run_id)
        linked = [row for row in journal.requests(run.result.run_id) if row.step_id == step.id]
        row = journal.run(run.result.run_id)
        assert row is not None
        receipt = receipt_html(journal, row)
    assert [(r.method, r.path, r.kind, r.verdict) for r in linked] == [
        ("POST", "/cancel/finish", "gated", "predicted")
    ]
    assert linked[0].status is not None and 200 <= linked[0].status < 400
    assert "/cancel/finish" in receipt and "no request log" not in receipt

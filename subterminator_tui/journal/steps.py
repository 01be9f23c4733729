"""An irreversible step in the journal, fact by fact: the question, the decision, the
dispatch, the outcome, and the evidence before and after it."""

from __future__ import annotations

import time

from subterminator_tui.journal.connection import JournalConnection
from subterminator_tui.journal.rows import StepEvidenceRow, StepRow


class StepRecords(JournalConnection):
    """The journal's steps and their evidence, each fact written durably when it happens."""

    def record_question(self, run_id: int, turn: int, why: str, action: str, url: str) -> int:
        """The person is about to be asked before an irreversible step; returns the step's id."""
        return self._insert(
            "the checkpoint question",
            "INSERT INTO steps (run_id, turn, asked_at, why, action, url) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, turn, time.time(), why, action, url),
        )

    def record_decision(self, step_id: int, verdict: str) -> None:
        """approve, reject or guidance: the decision only, never what the person typed."""
        self._update(
            "your decision",
            "UPDATE steps SET decision=?, decided_at=? WHERE id=?",
            (verdict, time.time(), step_id),
        )

    def record_dispatch(self, step_id: int) -> None:
        """The approved step is being sent to the browser, now (written first)."""
        self._update(
            "the dispatch", "UPDATE steps SET dispatched_at=? WHERE id=?", (time.time(), step_id)
        )

    def record_step_outcome(self, step_id: int, outcome: str) -> None:
        """done, failed or unknown: what became of the dispatched step."""
        self._update(
            "the step's outcome",
            "UPDATE steps SET outcome=?, finished_at=? WHERE id=?",
            (outcome, time.time(), step_id),
        )

    def record_step_before(self, step_id: int, approved_by: str, screenshot: str | None) -> None:
        """Who approved ``step_id`` and the screenshot they approved it on."""
        self._insert(
            "the step's approval evidence",
            "INSERT OR REPLACE INTO step_evidence (step_id, approved_by, before_screenshot) "
            "VALUES (?, ?, ?)",
            (step_id, approved_by, screenshot),
        )

    def record_step_after(self, step_id: int, screenshot: str | None, text: str | None) -> None:
        """The screenshot and the text a person saw after ``step_id`` went out (scrubbed)."""
        self._update(
            "the step's evidence after it",
            "UPDATE step_evidence SET after_screenshot=?, after_text=? WHERE step_id=?",
            (screenshot, text, step_id),
        )

    def step_evidence(self, run_id: int) -> dict[int, StepEvidenceRow]:
        """The evidence of a run's approved steps, by step id."""
        rows = self._select(
            "SELECT e.step_id, e.approved_by, e.before_screenshot, e.after_screenshot, "
            "e.after_text FROM step_evidence e JOIN steps s ON s.id = e.step_id "
            "WHERE s.run_id=? ORDER BY e.step_id",
            (run_id,),
        )
        return {row[0]: StepEvidenceRow(*row) for row in rows}

    def steps(self, run_id: int) -> list[StepRow]:
        """A run's irreversible steps in order, each with its state."""
        rows = self._select(
            "SELECT id, turn, why, action, url, decision, dispatched_at, outcome FROM steps "
            "WHERE run_id=? ORDER BY id",
            (run_id,),
        )
        return [StepRow(*row) for row in rows]

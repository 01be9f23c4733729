"""A fresh page arrives: scrubbed, its hand-offs done, its tabs contained, its ending read."""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import MCPToolError
from subterminator_tui.guarded.tabs import contain_tabs
from subterminator_tui.guarded.window_typing import at_handoff
from subterminator_tui.orchestrator.events import Notice, PageSeen
from subterminator_tui.orchestrator.handoff import HandoffCancelled, describe_handoff, hand_off
from subterminator_tui.orchestrator.run_context import RunContext
from subterminator_tui.orchestrator.sign_in_window import sign_in_pending
from subterminator_tui.orchestrator.turns import RunEnded
from subterminator_tui.rules import verify_completion
from subterminator_tui.rules.consent import private_choice
from subterminator_tui.rules.matching import HandoffKind
from subterminator_tui.rules.typed_endings import detect_ending


class PageIntake:
    """What happens to every page before the pilot or the person reads it."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    async def settle(
        self, raw: NormalizedSnapshot, *, allow_handoff: bool = True
    ) -> tuple[NormalizedSnapshot, str]:
        """Scrub the fresh page, check its domain, and hand off when it needs the human."""
        snapshot = self.run.scrubber.snapshot(raw)
        notes: list[str] = []
        if allow_handoff and sign_in_pending(self.run.guard.reach, snapshot):
            # An identity provider's page (or pop-up) is the person's: signed in there
            # first, so containment never takes it away from them.
            snapshot = await self.hand_off(snapshot, notes)
        # Off-domain tabs are closed and the current tab brought back before anyone reads them.
        contained, removed = await contain_tabs(
            self.run.browser, snapshot, self.run.guard.url_allowed
        )
        snapshot = self.run.scrubber.snapshot(contained)
        self.run.reporter.emit(PageSeen(snapshot, True))
        if removed:
            left = ", ".join(removed)
            decision = await self.run.ask(
                "left_domains",
                f"A page tried to leave {self.run.service.name}'s allowed domains ({left}); "
                "SubTerminator closed it before anything read it",
                f"Continue the run on {snapshot.url}",
                snapshot,
                None,
            )
            if decision.verdict == "reject":
                raise RunEnded("human_rejected", f"You stopped the run after it reached {left}")
            notes.append(
                "A page outside the allowed domains was closed; the run goes on from this page."
            )
            if decision.verdict == "guidance":
                notes.append(f"The person says: {decision.guidance}")
        if allow_handoff:
            snapshot = await self.hand_off(snapshot, notes)
            snapshot = await self.answer_consent(snapshot, notes)
        self.run.guard.learn(snapshot)
        self.run.ledger.saw(snapshot)
        return snapshot, " ".join(notes)

    async def answer_consent(
        self, snapshot: NormalizedSnapshot, notes: list[str]
    ) -> NormalizedSnapshot:
        """A cookie or consent banner gets its most private answer, asking nobody (a banner,
        then its preference center at most); the page after it."""
        for _banner in range(2):
            choice = private_choice(snapshot)
            if choice is None or choice.ref is None:
                break
            try:
                answered = await self.run.browser.call("browser_click", {"target": choice.ref})
            except MCPToolError:
                break
            snapshot = self.run.scrubber.snapshot(answered.snapshot)
            said = (
                f"Answered the cookie banner with '{choice.label}', its most private choice; "
                "nobody was asked, and it is no step of the cancellation."
            )
            notes.append(said)
            self.run.reporter.emit(Notice(said))
            self.run.ledger.saw(snapshot)
        return snapshot

    def end_without_a_click(self, snapshot: NormalizedSnapshot) -> None:
        """End the run (RunEnded) when the page says no click can cancel it here."""
        ending = detect_ending(self.run.service, snapshot)
        # A page that proves the cancellation is left to complete_task, whatever else it says.
        if ending is not None and not verify_completion(self.run.service, snapshot).verified:
            raise RunEnded(ending.reason, ending.message(self.run.service.name), ending=ending)

    async def hand_off(
        self,
        snapshot: NormalizedSnapshot,
        notes: list[str],
        called_for: tuple[HandoffKind, str] | None = None,
    ) -> NormalizedSnapshot:
        """Every hand-off the page calls for (sign-ins, codes, captchas); the page after them."""
        try:
            async with at_handoff(self.run.window_typing):
                snapshot, kinds = await hand_off(
                    self.run.service,
                    self.run.browser,
                    self.run.gate,
                    snapshot,
                    self.run.scrubber,
                    headed=self.run.options.headed,
                    hint=self.run.options.handoff_hint,
                    reach=self.run.guard.reach,
                    called_for=called_for,
                    window=self.run.window_typing,
                )
        except HandoffCancelled as cancelled:
            raise RunEnded("human_rejected", str(cancelled)) from None
        # A value heard only as the hand-off closed is scrubbed from its last page too.
        snapshot = self.run.scrubber.snapshot(snapshot)
        if kinds:
            await self.run.browser.keep_sign_in()
            notes.append(describe_handoff(kinds))
            self.run.reporter.emit(Notice(describe_handoff(kinds)))
            self.run.reporter.emit(PageSeen(snapshot, self.run.guard.url_allowed(snapshot.url)))
        return snapshot

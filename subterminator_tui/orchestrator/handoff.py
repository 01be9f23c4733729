"""Hand the page to the human: sign-in, verification codes, CAPTCHAs.

The human either finishes in a headed browser and confirms, or types the
values at the prompt; the program then types them into the page itself. The
values are remembered by the run's SecretScrubber so they never travel on;
so are the values typed straight into the browser window while the question
is open (guarded/window_typing.py), heard before the page after it is read.

A sign-in at an identity provider (the service's ``sign_in_domains``) is the
person's alone: its domains are reachable only while this hand-off is open, its
fields are never offered at the prompt, and it is closed before the run goes on.
"""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.guarded.browser import Browser
from subterminator_tui.guarded.gates import (
    HandoffAnswer,
    HandoffField,
    HandoffRequest,
    HumanGate,
)
from subterminator_tui.guarded.secrets import SecretScrubber
from subterminator_tui.guarded.window_typing import AtHandOffs, WindowTyping
from subterminator_tui.orchestrator.sign_in_window import (
    close_sign_in,
    provider_host,
    reload_refused,
    sign_in_pending,
)
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.rules import ServiceConfig, detect_handoff
from subterminator_tui.rules.matching import HandoffKind

_FIELD_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "combobox"})
#: A person gets a few tries (a mistyped code) before the run stops.
MAX_ATTEMPTS = 3


class HandoffCancelled(Exception):
    """The human cancelled the hand-off, or it never got past the page."""


def fields_on(snapshot: NormalizedSnapshot, kind: str) -> tuple[HandoffField, ...]:
    """The inputs the human may fill through the prompt; codes and passwords are masked."""
    fields = []
    for element in snapshot.elements:
        if element.role in _FIELD_ROLES and element.ref and "disabled" not in element.states:
            # Nothing typed at a hand-off is echoed: a field's label ("Passwort",
            # "Mot de passe", "Kennwort") is no safe way to tell which ones are secret.
            fields.append(HandoffField(element.ref, element.label or element.role, True))
    return tuple(fields)


async def hand_off(
    service: ServiceConfig,
    browser: Browser,
    gate: HumanGate,
    snapshot: NormalizedSnapshot,
    scrubber: SecretScrubber,
    *,
    headed: bool,
    hint: str = "",
    reach: Reachability | None = None,
    called_for: tuple[HandoffKind, str] | None = None,
    window: WindowTyping[AtHandOffs] | None = None,
) -> tuple[NormalizedSnapshot, list[str]]:
    """Resolve every hand-off the page calls for; returns the fresh page and what was done.

    ``called_for``: a hand-off the caller knows the page needs though no rule says so
    (a password field the pilot was refused), asked first. ``window``: what the person
    types in the browser window while a question is open is theirs.
    Raises HandoffCancelled when the human cancels or the page does not move on.
    """
    done: list[str] = []
    attempts = 0
    needed = called_for or _needed(service, reach, snapshot)
    try:
        while needed is not None:
            kind, why = needed
            attempts += 1
            if attempts > MAX_ATTEMPTS:
                raise HandoffCancelled(
                    f"The {kind.replace('_', ' ')} page was still there after "
                    f"{MAX_ATTEMPTS} attempts."
                )
            at_provider = sign_in_pending(reach, snapshot)
            # The person may pick "Sign in with ..." on the service's own page too.
            if reach is not None and kind == "login" and not reach.sign_in_open:
                reach.open_sign_in()
                if at_provider:
                    snapshot = scrubber.snapshot(await reload_refused(browser, snapshot))
            if at_provider and not headed:
                why += " This run's browser has no window: cancel, then run again with --headed."
            request = HandoffRequest(
                kind=kind,
                why=why,
                url=snapshot.url,
                # An identity provider's fields are the person's: nothing of it is read out.
                fields=() if at_provider else fields_on(snapshot, kind),
                headed=headed,
                attempt=attempts,
                hint=hint,
            )
            if window is not None:
                window.whose.asks(kind)
            answer = await gate.handoff(request)
            if window is not None:
                # What they typed in the window is known before the page is read again.
                await window.answered()
            if answer.action == "cancel":
                raise HandoffCancelled(f"You cancelled the {kind.replace('_', ' ')} hand-off.")
            snapshot = await _apply(browser, answer, request, scrubber)
            done.append(kind)
            needed = _needed(service, reach, snapshot)
    finally:
        if reach is not None:
            reach.close_sign_in()
    if reach is not None and reach.sign_in_domains and "login" in done:
        snapshot = scrubber.snapshot(await close_sign_in(reach, browser, snapshot))
    return snapshot, done


def _needed(
    service: ServiceConfig, reach: Reachability | None, snapshot: NormalizedSnapshot
) -> tuple[HandoffKind, str] | None:
    """The hand-off the page calls for and why; a sign-in at a provider comes first."""
    if reach is not None and sign_in_pending(reach, snapshot):
        host = provider_host(reach, snapshot)
        return (
            "login",
            f"{service.name} signs you in at {host}. Sign in there yourself, in the browser "
            "window: neither SubTerminator's model nor its log reads that page, and it is "
            f"closed again once you are back on {service.name}.",
        )
    handoff = detect_handoff(service, snapshot)
    return (handoff.kind, handoff.rule.explain()) if handoff else None


async def _apply(
    browser: Browser,
    answer: HandoffAnswer,
    request: HandoffRequest,
    scrubber: SecretScrubber,
) -> NormalizedSnapshot:
    if answer.action == "done_in_browser":
        return scrubber.snapshot(await browser.snapshot())
    typed = [(field, answer.values.get(field.ref, "")) for field in request.fields]
    typed = [(field, value) for field, value in typed if value]
    for field, value in typed:
        scrubber.remember(
            value, withholds_pictures=await _no_picture_may_show(browser, request, field)
        )
    if not typed:
        return scrubber.snapshot(await browser.snapshot())
    for index, (field, value) in enumerate(typed):
        last = index == len(typed) - 1
        # Enter on the last field submits the form, as a person would.
        arguments = {"target": field.ref, "text": value, "submit": last}
        result = await browser.call("browser_type", arguments)
    return scrubber.snapshot(result.snapshot)


async def _no_picture_may_show(
    browser: Browser, request: HandoffRequest, field: HandoffField
) -> bool:
    """Whether ``field``'s value must keep every later picture away: a code, a password;
    not a sign-in's user name, which account pages show everywhere."""
    if request.kind != "login":
        return True
    try:
        target = (await browser.inspect(field.ref)).target
    except SubTerminatorError:
        return True
    return target is None or target.secret


def describe_handoff(kinds: list[str]) -> str:
    """What the model is told: that authentication completed, never what was typed."""
    names = ", ".join(kind.replace("_", " ") for kind in kinds)
    return f"The person completed the {names} step themselves. Continue from the page below."

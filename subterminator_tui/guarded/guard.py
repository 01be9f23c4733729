"""The guard: rules, not the pilot, decide what may reach the browser.

Before each dispatch a call must be on the offered tool list, every ref it
targets must exist in the page the pilot saw and still be the same element on
the page as it is now (a renamed button is refused, not clicked), navigation
must stay inside the service's domains, and checkpoint rules judge what the
call will really do: the elements it activates, whatever tool it uses (see
rules/effects.py), under the service's rules and the built-in ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.inspection import NO_FACTS, ControlFacts, PageFacts
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.browser.tools import ALLOWED_TOOLS
from subterminator_tui.guarded.browser import Browser
from subterminator_tui.guarded.secrets import TYPING_TOOLS, password_field_refusal
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.rules import CheckpointRule, ServiceConfig, domain_allowed
from subterminator_tui.rules.commit import (
    asks_before_opening,
    commit_in_path,
    commit_rule,
    finish_in_path,
    opens_its_flow,
)
from subterminator_tui.rules.defaults import checkpoints_for
from subterminator_tui.rules.effects import (
    READ_ONLY_TOOLS,
    Effects,
    EffectTarget,
    RunMemory,
    normalise_url,
    resolve_effects,
)
from subterminator_tui.rules.matching import (
    checkpoint_for_effect,
    rules_watch_page,
    target_elements,
)
from subterminator_tui.rules.money import money_shown, shows_charge
from subterminator_tui.rules.requests import money_rule

# Tools whose arguments carry a URL the browser would open.
_URL_ARGUMENTS = {"browser_navigate": "url", "browser_tabs": "url"}


@dataclass(frozen=True)
class Refusal:
    """Why a call may not be dispatched; reported to the pilot as an error result."""

    message: str
    #: Only the person can do what the call tried (type a password): hand the page to them.
    for_the_person: bool = False


@dataclass(frozen=True)
class Checkpoint:
    """The person must be asked first: which rule, and what the call would really do."""

    rule: CheckpointRule
    effects: Effects
    #: The effect could not be traced to an element; the page holds something gated.
    fallback: bool = False
    #: The built-in money checkpoint asked: the step spends money.
    spends_money: bool = False
    #: The built-in commit checkpoint asked: the step finishes the subscription's operation.
    commit: bool = False

    @property
    def why(self) -> str:
        """The rule's reason, and for the fallback why it applies."""
        if self.fallback:
            return (
                "This action's effect cannot be traced to one element, on a page where "
                f"acting may be irreversible ({self.rule.explain()})"
            )
        return self.rule.explain()

    def effect(self) -> str:
        """``activates button 'Cancel my plan' (the focused element)``, or "" when a click's
        target says it all already."""
        parts = [
            f"{target.describe()} ({target.how})"
            for target in self.effects.targets
            if target.how != "the target" or len(target.labels) > 1
        ]
        if parts:
            return "activates " + "; ".join(parts)
        if self.effects.destination:
            return f"opens {self.effects.destination}"
        return ""


@dataclass(frozen=True)
class BeforeDispatch:
    """A call judged on the page as it is right before dispatch."""

    #: The page read just now (scrubbed), or None for a read-only call (nothing read).
    fresh: NormalizedSnapshot | None = None
    #: The target is gone or is no longer what the caller saw: refused with ``fresh``.
    refusal: Refusal | None = None
    #: The checkpoint the call must pass first; None with no refusal: send it.
    checkpoint: Checkpoint | None = None
    #: What the target is wired to, as the DOM says ("POST /cancel/finish"), or "": an
    #: approval covers this wiring, so a page that rewires the target voids it.
    wiring: str = ""
    #: The addresses the call is predicted to send to (the form it submits, the link or
    #: address it opens): an approval lets through what goes there, and nothing else.
    sends: tuple[str, ...] = ()


def _only_opens(call: ToolCall, effects: Effects, facts: PageFacts) -> bool:
    """Whether ``call`` follows plain links only (a GET of a page, no script of the page's)."""
    if call.name not in ("browser_click", "browser_navigate") or not effects.targets:
        return False
    scripted = facts.target is not None and (facts.target.scripted or facts.target.form >= 0)
    return not scripted and all(target.role == "link" for target in effects.targets)


def _opens_its_flow(call: ToolCall, effects: Effects, facts: PageFacts) -> bool:
    """Whether ``call`` clicks the way into the cancellation flow: a control that names the
    operation and submits its form to an address that only passes through the flow
    (rules/commit.py: opens_its_flow), and nothing else is activated with it."""
    control = facts.target
    form = facts.form_of(control)
    if call.name != "browser_click" or control is None or form is None or not _submits(control):
        return False
    if len(effects.targets) != 1:
        return False
    return opens_its_flow(effects.targets[0].labels, form.action)


def _plain_link(target: EffectTarget, facts: PageFacts) -> bool:
    """A link whose click only opens its page (no handler of the page's, no form)."""
    control = facts.target
    return target.role == "link" and not (control is not None and control.scripted)


def _submits(control: ControlFacts | None) -> bool:
    """Whether activating ``control`` submits its form (a submit button, an image input)."""
    if control is None:
        return False
    kind = control.type.lower()
    if control.tag == "button":
        return kind in ("", "submit")
    return control.tag == "input" and kind in ("submit", "image")


def _sends(facts: PageFacts, checkpoint: Checkpoint | None) -> tuple[str, ...]:
    """Where the call is predicted to send: its target's form, its link, its destination."""
    found: list[str] = []
    form = facts.form_of(facts.target)
    if form is not None and _submits(facts.target):
        found.append(form.action)
    if facts.target is not None and facts.target.href:
        found.append(facts.target.href)
    if checkpoint is not None and checkpoint.effects.destination:
        found.append(checkpoint.effects.destination)
    return tuple(dict.fromkeys(found))


def wiring(facts: PageFacts) -> str:
    """The form the target submits, as method and action ("" when it submits none)."""
    form = facts.form_of(facts.target)
    return f"{form.method.upper()} {form.action}" if form is not None else ""


class Guard:
    """Judges pending calls and fresh pages for one service."""

    def __init__(
        self,
        service: ServiceConfig,
        *,
        offered_tools: frozenset[str],
        checkpoints: bool = True,
        reach: Reachability | None = None,
    ) -> None:
        self.service = service
        #: The run's one answer to "reachable right now?", shared with the egress filter.
        self.reach = reach or Reachability.for_service(
            service.allowed_domains, service.sign_in_domains
        )
        self.offered_tools = offered_tools & ALLOWED_TOOLS
        self.checkpoints = checkpoints
        self.rules = checkpoints_for(service.checkpoint, service.default_checkpoints)
        self.memory = RunMemory()
        #: The page its caller was last shown (what a held request's approval was seen on).
        self.last_page: NormalizedSnapshot | None = None

    def refusal(self, call: ToolCall, snapshot: NormalizedSnapshot) -> Refusal | None:
        """A reason to refuse ``call`` outright, or None when it may go on."""
        if call.name not in self.offered_tools:
            offered = ", ".join(sorted(self.offered_tools))
            return Refusal(f"Tool '{call.name}' is not available. Use one of: {offered}.")
        if self.reach.is_sign_in_page(snapshot.url) or self.reach.sign_in_open:
            # The person signs in there; a model never acts on an identity provider's page.
            return Refusal(
                "The browser is on a sign-in page that only the person may use. Nothing was "
                "done; wait for the sign-in to finish."
            )
        stale = [ref for ref in call.target_refs() if snapshot.element_by_ref(ref) is None]
        if stale:
            return Refusal(
                f"Element ref {', '.join(stale)} is not on the current page (refs are valid for "
                "one snapshot). Nothing was clicked; pick a ref from the fresh page below."
            )
        key = _URL_ARGUMENTS.get(call.name)
        url = call.arguments.get(key) if key else None
        if isinstance(url, str) and not self.url_allowed(url):
            domains = ", ".join(self.service.allowed_domains)
            return Refusal(
                f"Navigation to {url} refused: {self.service.name} may only visit {domains}."
            )
        return None

    def relabelled(
        self, call: ToolCall, seen: NormalizedSnapshot, fresh: NormalizedSnapshot
    ) -> Refusal | None:
        """Refuse when a target is gone or is no longer what the pilot saw (renamed, re-roled)."""
        for ref in call.target_refs():
            before, now = seen.element_by_ref(ref), fresh.element_by_ref(ref)
            if before is None:
                continue
            if now is None:
                return Refusal(
                    f"Element {ref} ({before.describe()}) left the page before the call was "
                    "sent. Nothing was done; read the fresh page below."
                )
            if (now.role, now.name) != (before.role, before.name):
                return Refusal(
                    f"Element {ref} changed from {before.describe()} to {now.describe()} since "
                    "you saw it. Nothing was done; read the fresh page below."
                )
        return None

    def learn(self, snapshot: NormalizedSnapshot, facts: PageFacts | None = None) -> None:
        """Remember the page's links (and forms): a navigation to one counts as activating it."""
        self.memory.learn(snapshot, facts)
        self.last_page = snapshot

    async def before_dispatch(
        self,
        call: ToolCall,
        seen: NormalizedSnapshot,
        browser: Browser,
        scrub: Callable[[NormalizedSnapshot], NormalizedSnapshot],
    ) -> BeforeDispatch:
        """Judge ``call`` on the page as it is now, not as its caller saw it (``seen``).

        The run's loop and serve's sessions both go through here: a fresh snapshot,
        refused when a target changed, else the DOM's facts and the checkpoint rules.
        MCPToolError when the page cannot be read.
        """
        if call.name in READ_ONLY_TOOLS:
            return BeforeDispatch()
        fresh = scrub(await browser.snapshot())
        changed = self.relabelled(call, seen, fresh)
        if changed is not None or (not self.checkpoints and call.name not in TYPING_TOOLS):
            return BeforeDispatch(fresh, refusal=changed)
        refs = call.target_refs()
        facts = await browser.inspect(refs[0] if refs else None)
        # Checkpoints or not: a password is typed by the person alone.
        password = await password_field_refusal(call, facts, browser)
        if password is not None or not self.checkpoints:
            refusal = Refusal(password, for_the_person=True) if password else None
            return BeforeDispatch(fresh, refusal=refusal)
        self.learn(fresh, facts)
        checkpoint = self.judge(call, fresh, facts)
        return BeforeDispatch(
            fresh, checkpoint=checkpoint, wiring=wiring(facts), sends=_sends(facts, checkpoint)
        )

    def judge(
        self, call: ToolCall, fresh: NormalizedSnapshot, facts: PageFacts = NO_FACTS
    ) -> Checkpoint | None:
        """The checkpoint ``call`` must pass on the page as it is now, or None to go on."""
        if not self.checkpoints:
            return None
        effects = resolve_effects(call, fresh, facts, self.memory)
        if not effects.state_changing:
            return None
        # The way into the flow sends nothing that ends or buys: the price beside it is the
        # plan's, and a built-in word on it ("End membership") is asked at the real step.
        opener = _opens_its_flow(call, effects, facts)
        # Money first: whatever else a rule calls the step, the person hears it costs money.
        money = money_checkpoint(call, effects, facts, opens_flow=opener)
        if money is not None:
            # A fee to cancel is both: asked with its amount, and still the cancellation.
            fee = self._commit(call, effects, facts) is not None
            return Checkpoint(money, effects, spends_money=True, commit=fee)
        rule = checkpoint_for_effect(self.rules, call, effects, fresh)
        if opener or _only_opens(call, effects, facts):
            labels = [label for target in effects.targets for label in target.labels]
            rule = asks_before_opening(rule, labels)
        if rule is not None:
            return Checkpoint(rule, effects)
        ends = self._commit(call, effects, facts)
        if ends is not None:
            return Checkpoint(ends, effects, commit=True)
        if not effects.attributable:
            watching = rules_watch_page(self.rules, fresh)
            if watching is not None:
                return Checkpoint(watching, effects, fallback=True)
        return None

    def _commit(self, call: ToolCall, effects: Effects, facts: PageFacts) -> CheckpointRule | None:
        """The commit checkpoint when ``call`` submits a form that finishes the subscription's
        own operation, or opens an address no page showed whose path names it."""
        if not effects.targets:
            return self._unseen_commit(call, effects)
        for control in (facts.target, facts.active):
            form = facts.form_of(control)
            if form is None or form.method.upper() in ("GET", "DIALOG") or not _submits(control):
                continue
            operation = commit_in_path(urlsplit(form.action).path)
            if operation is not None:
                return commit_rule(f"it submits a {form.method.upper()} to {form.action}")
        return self._unseen_commit(call, effects)

    def _unseen_commit(self, call: ToolCall, effects: Effects) -> CheckpointRule | None:
        """The commit checkpoint for a navigation the pilot typed to an address no page showed,
        whose path finishes the subscription's operation (a GET can commit too)."""
        destination = effects.destination
        if call.name == "browser_navigate" and destination:
            shown = normalise_url(destination) in self.memory.destinations
            operation = finish_in_path(urlsplit(destination).path)
            if operation is not None and not shown:
                return commit_rule(
                    f"it opens {urlsplit(destination).path}, an address no page showed, "
                    f"that says '{operation}'"
                )
        return None

    def checkpoint(self, call: ToolCall, snapshot: NormalizedSnapshot) -> CheckpointRule | None:
        """The rule that asks before ``call`` on ``snapshot`` (the tree alone, no DOM facts)."""
        judged = self.judge(call, snapshot)
        return judged.rule if judged else None

    def url_allowed(self, url: str) -> bool:
        """Whether the service may be at ``url``."""
        return domain_allowed(url, self.service.allowed_domains)

    @staticmethod
    def target_of(call: ToolCall, snapshot: NormalizedSnapshot) -> SnapshotElement | None:
        """The (first) element ``call`` acts on, from the snapshot, never the pilot's words."""
        found = target_elements(call, snapshot)
        return found[0] if found else None


def money_checkpoint(
    call: ToolCall, effects: Effects, facts: PageFacts, *, opens_flow: bool = False
) -> CheckpointRule | None:
    """The built-in money checkpoint for ``call``, or None when it shows no money moving.

    Any effect target (its labels, a chosen option, its region) that shows an amount with
    a charge or plan change asks; so does any key on a page whose open dialog does (a
    script may bind Escape to "accept the offer"). ``opens_flow``: the call only enters the
    cancellation flow, so its region's price is not what it spends (an amount on the
    control itself still asks).
    """
    for target in effects.targets:
        # A plain link's region (a price beside "Manage plan") spends nothing by opening it.
        region = "" if opens_flow or _plain_link(target, facts) else target.region
        why = money_shown(target.labels, region)
        if why is not None:
            return money_rule(f"{target.describe()}: {why}")
    if call.name == "browser_press_key":
        for dialog in facts.dialogs:
            charge = shows_charge(dialog)
            if charge is not None:
                return money_rule(f"a key on a page whose open dialog shows {charge}")
    return None


def describe_action(call: ToolCall, target: SnapshotElement | None) -> str:
    """The pending action in words, from the real target: ``Click button 'Finish cancellation'``."""
    what = target.describe() if target else "the page"
    args = call.arguments
    if call.name == "browser_click":
        return f"Click {what}"
    if call.name == "browser_type":
        return f"Type into {what}" + (" and submit" if args.get("submit") else "")
    if call.name == "browser_select_option":
        return f"Choose {args.get('values')} in {what}"
    if call.name == "browser_press_key":
        return f"Press {args.get('key')}"
    if call.name == "browser_navigate":
        return f"Open {args.get('url')}"
    if call.name == "browser_handle_dialog":
        return "Accept the dialog" if args.get("accept") else "Dismiss the dialog"
    return f"{call.name} on {what}"

"""Judging pages and pending calls with a service's rules.

A rule holds when ALL of its conditions hold; a list of rules holds when ANY of
its rules holds. Every text and every rule is read through one normaliser
(:mod:`~subterminator_tui.rules.text`: NFKC, no format characters, look-alike
letters folded, straight quotes). Substring conditions ignore case; regular
expressions were compiled with re.IGNORECASE and are searched, not anchored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.rules.effects import Effects, element_target
from subterminator_tui.rules.fields import RulePattern
from subterminator_tui.rules.generic import is_generic_rule
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.page_rules import CheckpointRule, PageRule
from subterminator_tui.rules.text import fold_text, normalise_text

RuleT = TypeVar("RuleT", bound=PageRule)
HandoffKind = Literal["login", "two_factor", "captcha"]
#: Whose rule confirmed a cancellation: the service's own, or only the generic ones.
VerifiedBy = Literal["service", "generic"]

#: When several hand-off detectors hold, the most specific wins: a verification-code
#: or captcha page often sits under a ``/login`` URL, and the person needs to know
#: they must type a code or solve a puzzle, not merely sign in.
HANDOFF_ORDER: tuple[HandoffKind, ...] = ("two_factor", "captcha", "login")


@dataclass(frozen=True)
class Verification:
    """Whether the page proves the cancellation worked, and which rule decided."""

    verified: bool
    success_rule: PageRule | None
    failure_rule: PageRule | None
    message: str

    @property
    def verified_by(self) -> VerifiedBy | None:
        """``generic`` when only a built-in generic rule confirmed it, ``service`` when the
        service's own rule did, None when the page is not verified."""
        if not self.verified or self.success_rule is None:
            return None
        return "generic" if is_generic_rule(self.success_rule) else "service"


@dataclass(frozen=True)
class Handoff:
    """The page needs the human (sign-in, verification code or captcha)."""

    kind: HandoffKind
    rule: PageRule


def rule_holds(rule: PageRule, snapshot: NormalizedSnapshot) -> bool:
    """Whether every page condition of ``rule`` holds on ``snapshot``.

    A CheckpointRule's call conditions (``tool``, ``target_*``) are not read here;
    :func:`checkpoint_for` checks those against the pending call.
    """
    if not _strings_match(snapshot.url, rule.url_any, rule.url_regex):
        return False
    if not _strings_match(snapshot.title, rule.title_any, rule.title_regex):
        return False
    if rule.text_any or rule.text_all or rule.text_regex:
        text = snapshot.visible_text
        if not _strings_match(text, rule.text_any, rule.text_regex):
            return False
        if not all(_fold(needle) in _fold(text) for needle in rule.text_all):
            return False
    if rule.heading_any or rule.heading_regex:
        headings = [heading.label for heading in snapshot.headings]
        if not _any_label_matches(headings, rule.heading_any, rule.heading_regex):
            return False
    if rule.element_any or rule.element_regex:
        # Accessible names only: a paragraph's text is text_* territory, not an element's name.
        names = [element.name for element in _with_roles(snapshot.elements, rule.role)]
        if not _any_label_matches(names, rule.element_any, rule.element_regex):
            return False
    return True


def first_holding(rules: Iterable[RuleT], snapshot: NormalizedSnapshot) -> RuleT | None:
    """The first of ``rules`` that holds on ``snapshot``, or None."""
    return next((rule for rule in rules if rule_holds(rule, snapshot)), None)


def target_elements(call: ToolCall, snapshot: NormalizedSnapshot) -> list[SnapshotElement]:
    """The elements ``call`` acts on, looked up by ref in ``snapshot``.

    Refs that do not resolve (stale, or from another snapshot) are left out. The
    model's ``element`` description is never consulted: it is the model's claim,
    and a page can talk a model into describing "Finish cancellation" as "Continue".
    """
    found = (snapshot.element_by_ref(ref) for ref in call.target_refs())
    return [element for element in found if element is not None]


def checkpoint_for(
    rules: Sequence[CheckpointRule], call: ToolCall, snapshot: NormalizedSnapshot
) -> CheckpointRule | None:
    """The first checkpoint rule that asks for the human before ``call`` runs, or None.

    A rule with ``target_*`` conditions does not hold when none of the call's
    target refs resolves in ``snapshot``; the gateway refuses such stale refs.
    """
    for rule in rules:
        if _call_matches(rule, call, snapshot) and rule_holds(rule, snapshot):
            return rule
    return None


def checkpoint_for_effect(
    rules: Sequence[CheckpointRule],
    call: ToolCall,
    effects: Effects,
    snapshot: NormalizedSnapshot,
) -> CheckpointRule | None:
    """The first rule that holds for what ``call`` will really do, judged on ``snapshot``.

    Each effect target is judged as if it were clicked: a rule for ``browser_click``
    on "Cancel my plan" holds for Enter on that focused button, for typing with
    ``submit`` into its form, and for a navigation to its link. ``target_*`` read
    every label of the target (accessible name, visible text, value, aria-label).
    Page conditions hold on the current page, or, for a navigation, on its destination.
    """
    pages = [snapshot]
    if effects.destination:
        pages.append(dataclasses.replace(snapshot, url=effects.destination))
    for rule in rules:
        if not any(rule_holds(rule, page) for page in pages):
            continue
        if _effect_matches(rule, call.name, effects):
            return rule
    return None


def rules_watch_page(
    rules: Sequence[CheckpointRule], snapshot: NormalizedSnapshot
) -> CheckpointRule | None:
    """A rule that marks ``snapshot`` as a page where acting may be irreversible.

    For calls whose effect cannot be attributed (a key a script may bind): a rule
    whose own page conditions hold here, or a rule whose target conditions match
    an element on this page (a gated control is present and could be triggered).
    """
    # Every element of the page, as if a call could reach it.
    present = Effects(
        targets=tuple(element_target(e, how="on the page") for e in snapshot.elements)
    )
    for rule in rules:
        watches_page = bool(set(rule.condition_keys()) - _CALL_KEYS)
        watches_target = bool(rule.target_any or rule.target_regex or rule.target_role)
        if watches_page and rule_holds(rule, snapshot):
            return rule
        if not watches_page and watches_target and _targets_match(rule, present):
            return rule
    return None


def verify_completion(service: ServiceConfig, snapshot: NormalizedSnapshot) -> Verification:
    """Whether ``snapshot`` proves the cancellation; a failure rule beats any success rule."""
    failure = first_holding(service.failure, snapshot)
    success = first_holding(service.success, snapshot)
    if failure is not None:
        message = f"Not verified: the page shows a failure ({failure.explain()})."
    elif success is not None and is_generic_rule(success):
        # No rule written for this service held: say so rather than imply one did.
        message = f"Verified by generic rules: {success.explain()}."
    elif success is not None:
        message = f"Verified: {success.explain()}."
    elif not service.success:
        message = f"Not verified: {service.name} has no success rules to check the page against."
    else:
        message = f"Not verified: no success rule holds on {snapshot.url}."
    return Verification(
        verified=failure is None and success is not None,
        success_rule=success,
        failure_rule=failure,
        message=message,
    )


def detect_handoff(service: ServiceConfig, snapshot: NormalizedSnapshot) -> Handoff | None:
    """The hand-off the page calls for, most specific first (see HANDOFF_ORDER), or None."""
    for kind in HANDOFF_ORDER:
        rule = first_holding(getattr(service, kind), snapshot)
        if rule is not None:
            return Handoff(kind=kind, rule=rule)
    return None


_CALL_KEYS = frozenset({"tool", "target_any", "target_regex", "target_role"})


def _effect_matches(rule: CheckpointRule, tool: str, effects: Effects) -> bool:
    """``tool`` and ``target_*`` of ``rule`` against the call's effect (targets as if clicked)."""
    tools = {_fold(tool)}
    if effects.targets:
        tools.add("browser_click")
    if rule.tool and not tools & {_fold(name) for name in rule.tool}:
        return False
    if not (rule.target_any or rule.target_regex or rule.target_role):
        return True
    return _targets_match(rule, effects)


def _targets_match(rule: CheckpointRule, effects: Effects) -> bool:
    wanted = {_fold(role) for role in rule.target_role}
    for target in effects.targets:
        if wanted and _fold(target.role) not in wanted:
            continue
        if not (rule.target_any or rule.target_regex):
            return True
        if any(
            _strings_match(label, rule.target_any, rule.target_regex) for label in target.labels
        ):
            return True
    return False


def _call_matches(rule: CheckpointRule, call: ToolCall, snapshot: NormalizedSnapshot) -> bool:
    """Whether the call conditions (``tool``, ``target_*``) of ``rule`` hold for ``call``."""
    if rule.tool and _fold(call.name) not in {_fold(tool) for tool in rule.tool}:
        return False
    if not (rule.target_any or rule.target_regex or rule.target_role):
        return True
    # The same target must satisfy every target condition: a fill_form touching a
    # "Confirm" link and a button named otherwise is not "a Confirm button".
    for element in _with_roles(target_elements(call, snapshot), rule.target_role):
        if _strings_match(element.label, rule.target_any, rule.target_regex):
            return True
    return False


def _strings_match(value: str, needles: Sequence[str], patterns: Sequence[RulePattern]) -> bool:
    """Both the substring and the regex condition hold (an unset one holds)."""
    if needles and not any(_fold(needle) in _fold(value) for needle in needles):
        return False
    return not patterns or any(pattern.search(_normalize(value)) for pattern in patterns)


def _any_label_matches(
    labels: Sequence[str], needles: Sequence[str], patterns: Sequence[RulePattern]
) -> bool:
    """Each set condition is met by at least one of ``labels``."""
    if needles and not any(_fold(n) in _fold(label) for label in labels for n in needles):
        return False
    return not patterns or any(
        pattern.search(_normalize(label)) for label in labels for pattern in patterns
    )


def _with_roles(elements: Iterable[SnapshotElement], roles: Sequence[str]) -> list[SnapshotElement]:
    """``elements`` narrowed to ``roles`` (compared case-insensitively) when any are given."""
    wanted = {_fold(role) for role in roles}
    return [element for element in elements if not wanted or _fold(element.role) in wanted]


def _normalize(text: str) -> str:
    # Joiners, look-alike letters and compatibility forms cannot hide a word from a rule.
    return normalise_text(text)


def _fold(text: str) -> str:
    return fold_text(text)


def address_matches(rule: PageRule, address: str) -> bool:
    """Whether ``rule`` has URL conditions and they hold for ``address`` (a request's)."""
    if not (rule.url_any or rule.url_regex):
        return False
    return _strings_match(address, rule.url_any, rule.url_regex)


def rule_naming(rules: Iterable[CheckpointRule], texts: Sequence[str]) -> CheckpointRule | None:
    """The first rule whose target words (``target_any``/``target_regex``) one of ``texts`` names.

    What a request says it does (its path, its fields, an operation name) is read
    with the same words and the same normalisation as a button's name.
    """
    for rule in rules:
        if not (rule.target_any or rule.target_regex):
            continue
        if any(_strings_match(text, rule.target_any, rule.target_regex) for text in texts):
            return rule
    return None

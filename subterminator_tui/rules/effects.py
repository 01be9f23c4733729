"""What a call will really do: the elements it can activate, whatever tool it uses.

A checkpoint written for ``browser_click`` on "Cancel my plan" must also stop
Enter on that button when it has focus, typing with ``submit`` into its form,
a select that submits its form on change, and a navigation to the URL the
button's link or form would open. The guard applies the rules to these
*effect targets* as if they were clicked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit, urlunsplit

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.inspection import ControlFacts, FormFacts, PageFacts
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.reach.urls import canonical_host, route_of

#: Keys that activate the focused control (or submit the form of a focused field).
ACTIVATION_KEYS = frozenset({"enter", "space", " ", "numpadenter", "return"})
#: Calls that only read: they change nothing on the page.
READ_ONLY_TOOLS = frozenset(
    {"browser_snapshot", "browser_wait_for", "browser_take_screenshot", "browser_hover"}
)
#: Roles that mark the page itself as focused, not a control.
_PAGE_ROLES = frozenset({"generic", "document", "main", "WebArea"})
_TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "combobox"})
_TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch", "combobox", "listbox", "option"})


@dataclass(frozen=True)
class EffectTarget:
    """An element a call can activate, with every label a person could read on it."""

    role: str
    labels: tuple[str, ...]
    #: Why this element counts: "the target", "the focused element", "submits the form", ...
    how: str
    ref: str | None = None
    #: The text of the part of the page it belongs to (card, dialog, list item, form), when read.
    region: str = field(default="", compare=False)

    def describe(self) -> str:
        """``button 'Continue' (also reads 'Cancel my plan')``: every label the person could see."""
        if not self.labels:
            return self.role
        shown = f"{self.role} '{self.labels[0]}'"
        others = ", ".join(f"'{label}'" for label in self.labels[1:])
        return f"{shown} (also reads {others})" if others else shown


@dataclass(frozen=True)
class Effects:
    """A call's effect: what it activates, where it goes, and whether we could tell."""

    targets: tuple[EffectTarget, ...] = ()
    #: For navigations: the URL the browser would open.
    destination: str | None = None
    #: False when the call changes the page in a way no element explains (a key a
    #: script may bind, Enter with nothing focused): the guard's fallback then applies.
    attributable: bool = True
    state_changing: bool = True


@dataclass
class RunMemory:
    """Every link and form the run has seen, by normalised URL (what a navigation equals)."""

    destinations: dict[str, list[EffectTarget]] = field(default_factory=dict)

    def learn(self, snapshot: NormalizedSnapshot, facts: PageFacts | None = None) -> None:
        """Remember ``snapshot``'s links and, when read, its forms' actions."""
        for element in snapshot.elements:
            if element.url:
                key = normalise_url(urljoin(snapshot.url, element.url))
                self._add(key, element_target(element, how=f"the link to {element.url}"))
        for form in facts.forms if facts else ():
            key = normalise_url(urljoin(snapshot.url, form.action))
            for submit in form.submits:
                self._add(
                    key, control_target(submit, "button", f"submits the form to {form.action}")
                )

    def _add(self, key: str, target: EffectTarget) -> None:
        known = self.destinations.setdefault(key, [])
        if target not in known:
            known.append(target)

    def targets_for(self, url: str, base: str) -> tuple[EffectTarget, ...]:
        """Every link and form a navigation to ``url`` is equivalent to, as the run saw them."""
        return tuple(self.destinations.get(normalise_url(urljoin(base, url)), ()))


def normalise_url(url: str) -> str:
    """The address as a service reads it: scheme and host lowercased (a loopback name as its
    address), default ports and fragments dropped, the path as its route (reach.urls.route_of)."""
    parts = urlsplit(url.strip())
    host = canonical_host(parts.hostname or "")
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = host if port in (None, default) else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, route_of(parts.path), parts.query, ""))


def element_target(
    element: SnapshotElement, *, how: str, facts: ControlFacts | None = None
) -> EffectTarget:
    """An effect target from a tree element, with the DOM's labels when they were read."""
    labels = [element.name, element.text]
    if facts is not None:
        labels.extend(facts.labels)
    region = facts.region if facts is not None else ""
    return EffectTarget(element.role, _unique(labels), how, element.ref, region)


def control_target(control: ControlFacts, role: str, how: str) -> EffectTarget:
    """An effect target known only from the DOM (a form's submit button)."""
    return EffectTarget(role, _unique(control.labels), how)


def resolve_effects(
    call: ToolCall,
    fresh: NormalizedSnapshot,
    facts: PageFacts,
    memory: RunMemory,
) -> Effects:
    """The effect of ``call`` on the page ``fresh`` (taken just before dispatch)."""
    name, args = call.name, call.arguments
    if name in READ_ONLY_TOOLS:
        return Effects(state_changing=False)
    if name == "browser_tabs" and args.get("action") != "new":
        return Effects(state_changing=False)
    if name in ("browser_navigate", "browser_tabs"):
        url = str(args.get("url") or "")
        if not url:
            return Effects(state_changing=name == "browser_navigate", attributable=True)
        seen = memory.targets_for(url, fresh.url)
        return Effects(targets=seen, destination=urljoin(fresh.url, url))
    if name == "browser_navigate_back":
        # Back re-shows a page; a browser asks before it re-sends a form.
        return Effects()
    if name == "browser_handle_dialog":
        message = fresh.notes.get("Modal state", "")
        if not args.get("accept", True):
            return Effects()
        return Effects(targets=(EffectTarget("dialog", (message,), "the dialog accepted"),))
    targets = [fresh.element_by_ref(ref) for ref in call.target_refs()]
    elements = [element for element in targets if element is not None]
    if name == "browser_click":
        clicked = [_as_target(e, facts, "the target") for e in elements]
        if facts.target is not None and facts.target.scripted:
            # A script on the control can rename it or submit its form as the click
            # arrives (the pointer's hover is part of a click): its form counts too.
            clicked.extend(_form_submits(facts, facts.target))
        return Effects(targets=tuple(clicked))
    if name == "browser_press_key":
        return _key_effects(str(args.get("key", "")), fresh, facts)
    if name == "browser_type":
        submits = _form_submits(facts, facts.target)
        if args.get("submit"):
            return Effects(targets=tuple(submits))
        # Typing into a form whose only way forward is one button commits to that button:
        # a checkpoint on it asks now, before the form is filled for it.
        return Effects(targets=tuple(_only_way_forward(submits)))
    if name in ("browser_select_option", "browser_fill_form"):
        return _change_effects(elements, facts, args.get("values"))
    # A tool the guard has no model of: only the fallback can judge it.
    return Effects(attributable=False)


def _key_effects(key: str, fresh: NormalizedSnapshot, facts: PageFacts) -> Effects:
    if key.strip().casefold() not in ACTIVATION_KEYS and key != " ":
        # Any key can be bound by a script; nothing in the page says to what.
        return Effects(attributable=False)
    focused = next(
        (e for e in fresh.elements if "active" in e.states and e.ref and e.role not in _PAGE_ROLES),
        None,
    )
    active = facts.active
    if focused is None and active is None:
        return Effects(attributable=False)
    if (focused is not None and focused.role in _TEXT_ROLES) or (
        active is not None and active.is_text_entry
    ):
        submits = tuple(_form_submits(facts, active))
        # Enter in a field with no form may still run a script: not attributable then.
        return Effects(targets=submits, attributable=bool(submits))
    if focused is not None:
        return Effects(targets=(element_target(focused, how="the focused element", facts=active),))
    assert active is not None
    return Effects(targets=(control_target(active, active.tag, "the focused element"),))


def _change_effects(
    elements: list[SnapshotElement], facts: PageFacts, values: object = None
) -> Effects:
    """A changed control counts as activated, and its form's submit buttons too.

    A toggle or a select can submit on change; a text field fills the form for its
    only button, when it has just one. A select reads as the options it chooses too:
    "Annual plan, $99 billed today" is what choosing it does.
    """
    targets = [_as_target(element, facts, "the changed control") for element in elements]
    if targets and isinstance(values, list | tuple):
        chosen = facts.target.chosen_options(values) if facts.target is not None else ()
        first = targets[0]
        labels = _unique([*first.labels, *chosen, *(str(value) for value in values)])
        targets[0] = dataclasses.replace(first, labels=labels)
    submits = _form_submits(facts, facts.target)
    if any(element.role in _TOGGLE_ROLES for element in elements):
        targets.extend(submits)
    else:
        targets.extend(_only_way_forward(submits))
    return Effects(targets=tuple(targets))


def _only_way_forward(submits: list[EffectTarget]) -> list[EffectTarget]:
    """The form's submit button when it is the only one, marked as such; else nothing."""
    if len(submits) != 1:
        return []
    (only,) = submits
    return [EffectTarget(only.role, only.labels, "the form's only way forward", only.ref)]


def _form_submits(facts: PageFacts, control: ControlFacts | None) -> list[EffectTarget]:
    form: FormFacts | None = facts.form_of(control)
    if form is None:
        return []
    return [control_target(submit, "button", "submits the form") for submit in form.submits]


def _as_target(element: SnapshotElement, facts: PageFacts, how: str) -> EffectTarget:
    # The DOM facts were read for the call's first target only.
    return element_target(element, how=how, facts=facts.target)


def _unique(labels: Iterable[str]) -> tuple[str, ...]:
    seen: list[str] = []
    for label in labels:
        cleaned = " ".join(label.split())
        if cleaned and cleaned not in seen:
            seen.append(cleaned)
    return tuple(seen)

"""What the guard reads from the page itself, beyond the accessibility tree.

The tree names an element by its accessible name only: a button labelled
"Continue" by ``aria-label`` that shows "Cancel my plan" reads as "Continue", and
the tree does not say which buttons submit the form a field belongs to. The
gateway runs one fixed function (below, never one a model wrote) through
Playwright MCP's ``browser_evaluate`` to read the visible text of the target,
the focused element and the page's forms with their submit controls.
:class:`PageReader` runs it, and seen_text.py's reader of what a person can see.

A hostile page could patch the DOM prototypes this reads; the guard treats what
it reads as extra labels to match (more reasons to ask), never as a reason to
skip a check the tree already triggers.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from subterminator_tui.browser.answers import Dispatch, text_of
from subterminator_tui.browser.seen_text import SEEN_TEXT_FUNCTION, parse_seen_text
from subterminator_tui.browser.snapshot import split_sections
from subterminator_tui.errors import MCPToolError

#: At most this many characters of any text are read (labels, not page bodies).
_TEXT_LIMIT = 200
#: A control's region (its card, dialog, list item, form) and an open dialog: a few sentences.
_REGION_LIMIT = 600

# One function for both cases: with a target ref Playwright passes the element,
# without one the page is read alone.
PAGE_FACTS_FUNCTION = """(target) => {
  const SCRIPTED = ['onclick', 'onpointerover', 'onpointerenter', 'onpointerdown', 'onmouseover',
    'onmouseenter', 'onmousedown', 'onfocus', 'onfocusin', 'onkeydown'];
  const limit = (s, n) => String(s || '').replace(/\\s+/g, ' ').trim().slice(0, n || LIMIT);
  // The part of the page a control belongs to: its nearest card, dialog, list item,
  // section or form that says more than the control itself; else the page's main part.
  const REGION = 'dialog, [role=dialog], [role=alertdialog], [aria-modal=true], li, article, '
    + 'fieldset, section, form, [class*=card], [class*=offer], [class*=modal], [class*=plan]';
  const part = (el) => {
    const own = limit(el.innerText || el.textContent, REGION_LIMIT);
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      if (node.matches('main, [role=main]')) return limit(node.innerText, REGION_LIMIT);
      if (!node.matches(REGION)) continue;
      const text = limit(node.innerText, REGION_LIMIT);
      if (text.replace(own, '').trim()) return text;
    }
    return limit(document.body ? document.body.innerText : '', REGION_LIMIT);
  };
  // What a person reads above the control as part of its offer: the header of every
  // part that holds it (a card's header with the price, a dialog's heading), up to the
  // page's main part, and the page's main heading.
  const HEADER = 'header, h1, h2, h3, h4, [class*=header], [class*=heading], [class*=title]';
  const headers = (el) => {
    const found = [];
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      for (const child of Array.from(node.children)) {
        if (child.matches(HEADER) && !child.contains(el)) found.push(limit(child.innerText));
      }
      if (node.matches('main, [role=main], dialog, [role=dialog], [role=alertdialog]')) break;
    }
    const main = document.querySelector('main h1, [role=main] h1, h1');
    if (main && !main.contains(el)) found.push(limit(main.innerText));
    return found.filter(Boolean);
  };
  const region = (el) => {
    const text = part(el);
    const above = headers(el).filter((header) => !text.includes(header));
    return above.length ? limit([...above, text].join(' · '), REGION_LIMIT * 2) : text;
  };
  const options = (el) => el.tagName === 'SELECT'
    ? Array.from(el.options).slice(0, 50).map((o) => [limit(o.value), limit(o.text)]) : [];
  const shown = (el) => !el.checkVisibility || el.checkVisibility({ checkVisibilityCSS: true });
  const dialogs = Array.from(document.querySelectorAll(
    'dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]'))
    .filter(shown).map((el) => limit(el.innerText, REGION_LIMIT)).filter(Boolean);
  // A field whose typing is hidden: type=password, or any text field drawn as dots.
  const secret = (el) => ['INPUT', 'TEXTAREA'].includes(el.tagName)
    && ((el.type || '').toLowerCase() === 'password'
      || (getComputedStyle(el).webkitTextSecurity || 'none') !== 'none');
  const control = (el) => ({
    tag: el.tagName.toLowerCase(),
    type: limit(el.getAttribute('type')),
    secret: secret(el),
    text: limit(el.innerText || el.textContent),
    value: el.tagName === 'INPUT' && !secret(el) ? limit(el.value) : '',
    label: limit(el.getAttribute('aria-label')),
    title: limit(el.getAttribute('title')),
    href: el.href ? String(el.href) : '',
    form: el.form ? Array.prototype.indexOf.call(document.forms, el.form) : -1,
    scripted: SCRIPTED.some((name) => el.hasAttribute(name)),
    region: region(el),
    options: options(el),
  });
  const submits = (form) => Array.from(form.elements).filter((el) =>
    (el.tagName === 'BUTTON' && (el.getAttribute('type') || 'submit').toLowerCase() === 'submit')
    || (el.tagName === 'INPUT' && ['submit', 'image'].includes((el.type || '').toLowerCase()))
  ).map(control);
  const forms = Array.from(document.forms).map((form) => ({
    action: form.action ? String(form.action) : String(location.href),
    method: limit(form.getAttribute('method') || 'get').toLowerCase(),
    submits: submits(form),
    autosubmit: Array.from(form.elements).some((el) => el.hasAttribute('onchange')
      || el.hasAttribute('oninput')) || form.hasAttribute('onchange'),
  }));
  const active = document.activeElement && document.activeElement !== document.body
    ? control(document.activeElement) : null;
  // A click on an icon or a span inside a control is that control's click: the element
  // that handles it (a button, a link, role=button, an inline handler) is what acts.
  const ACTING = 'button, a[href], input[type=submit], input[type=button], input[type=image], '
    + '[role=button], [role=link], [role=menuitem], [role=tab], [onclick]';
  const actor = (el) => (el.closest && el.closest(ACTING)) || el;
  return { target: target ? control(actor(target)) : null, active, forms, dialogs };
}""".replace("REGION_LIMIT", str(_REGION_LIMIT)).replace("LIMIT", str(_TEXT_LIMIT))


@dataclass(frozen=True)
class ControlFacts:
    """One control as the DOM has it: its visible text and the form it belongs to."""

    tag: str
    type: str = ""
    #: What is typed into it is hidden (type=password, or masked by CSS): never read back.
    secret: bool = False
    text: str = ""
    value: str = ""
    label: str = ""
    title: str = ""
    href: str = ""
    #: Index into PageFacts.forms, or -1.
    form: int = -1
    #: Inline handlers for the pointer, the mouse or focus: the page may change the
    #: control (its name, its type) in the very moment a click reaches it.
    scripted: bool = False
    #: The text of the part of the page it belongs to (card, dialog, list item, form).
    region: str = ""
    #: A select's options as ``(value, text)``.
    options: tuple[tuple[str, str], ...] = ()

    def chosen_options(self, values: object) -> tuple[str, ...]:
        """The text of the options ``values`` (by value or by text) choose in a select."""
        wanted = {str(value) for value in values} if isinstance(values, list | tuple) else set()
        return tuple(text for value, text in self.options if value in wanted or text in wanted)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label a person might read on it (visible text, value, aria-label, title)."""
        seen: list[str] = []
        for label in (self.text, self.value, self.label, self.title):
            if label and label not in seen:
                seen.append(label)
        return tuple(seen)

    @property
    def is_text_entry(self) -> bool:
        """A field Enter submits from (a text input, not a button or a checkbox)."""
        if self.tag == "textarea":
            return False
        if self.tag != "input":
            return False
        return self.type.lower() not in {"button", "submit", "image", "checkbox", "radio", "reset"}


@dataclass(frozen=True)
class FormFacts:
    """A form: where it goes, and the controls that submit it."""

    action: str
    method: str
    submits: tuple[ControlFacts, ...] = ()
    #: A control carries an inline change handler (a page can submit on change).
    autosubmit: bool = False


@dataclass(frozen=True)
class PageFacts:
    """The target, the focused element and the forms of the page, from the DOM."""

    target: ControlFacts | None = None
    active: ControlFacts | None = None
    forms: tuple[FormFacts, ...] = field(default=())
    #: The text of every open dialog (native ``<dialog open>`` or a role=dialog overlay).
    dialogs: tuple[str, ...] = ()

    def form_of(self, control: ControlFacts | None) -> FormFacts | None:
        """The form ``control`` belongs to, if any."""
        if control is None or not 0 <= control.form < len(self.forms):
            return None
        return self.forms[control.form]


NO_FACTS = PageFacts()


def parse_page_facts(text: str) -> PageFacts:
    """PageFacts from ``browser_evaluate``'s ``### Result`` JSON; empty when unreadable."""
    body = split_sections(text).get("Result", "").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return NO_FACTS
    return page_facts_from(data)


def page_facts_from(data: Any) -> PageFacts:
    """PageFacts from the value :data:`PAGE_FACTS_FUNCTION` returned; empty when unreadable."""
    if not isinstance(data, dict):
        return NO_FACTS
    forms = tuple(
        FormFacts(
            action=str(form.get("action", "")),
            method=str(form.get("method", "get")),
            submits=tuple(
                control for item in form.get("submits", []) if (control := _control(item))
            ),
            autosubmit=bool(form.get("autosubmit")),
        )
        for form in data.get("forms", [])
        if isinstance(form, dict)
    )
    dialogs = data.get("dialogs", [])
    return PageFacts(
        target=_control(data.get("target")),
        active=_control(data.get("active")),
        forms=forms,
        dialogs=tuple(str(text) for text in dialogs) if isinstance(dialogs, list) else (),
    )


def _control(data: Any) -> ControlFacts | None:
    if not isinstance(data, dict):
        return None
    return ControlFacts(
        tag=str(data.get("tag", "")),
        type=str(data.get("type", "")),
        secret=data.get("secret") is True,
        text=str(data.get("text", "")),
        value=str(data.get("value", "")),
        label=str(data.get("label", "")),
        title=str(data.get("title", "")),
        href=str(data.get("href", "")),
        form=int(data.get("form", -1)) if isinstance(data.get("form", -1), int) else -1,
        scripted=bool(data.get("scripted")),
        region=str(data.get("region", "")),
        options=_options(data.get("options")),
    )


def _options(data: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(data, list):
        return ()
    return tuple(
        (str(item[0]), str(item[1])) for item in data if isinstance(item, list) and len(item) == 2
    )


#: Runs a fixed function on the element of a snapshot's ref in Playwright's utility world
#: (PlaywrightWorlds.on_element); None when it cannot say.
OnElement = Callable[[str, str], Awaitable[Any]]


class PageReader:
    """Reads the DOM with SubTerminator's own fixed functions (never a model's).

    A call's target is read in Playwright's utility world over our own DevTools session
    when it can be (``on_element``: no settle wait, no page script in that world); the
    rest goes through ``browser_evaluate``, which the allowlist keeps from every model.
    """

    def __init__(self, dispatch: Dispatch, on_element: OnElement | None = None) -> None:
        self._dispatch = dispatch
        self._on_element = on_element

    async def facts(self, ref: str | None = None) -> PageFacts:
        """The target's visible text, the focused element and the forms; empty facts when
        the page cannot be read (a dialog is open), the page alone when the ref is gone."""
        if ref is not None and self._on_element is not None:
            value = await self._on_element(ref, PAGE_FACTS_FUNCTION)
            if isinstance(value, dict):
                return page_facts_from(value)
        arguments: dict[str, Any] = {"function": PAGE_FACTS_FUNCTION}
        if ref is not None:
            arguments["target"] = ref
        try:
            result = await self._dispatch("browser_evaluate", arguments)
        except MCPToolError:
            return NO_FACTS
        if result.is_error:
            return NO_FACTS if ref is None else await self.facts(None)
        return parse_page_facts(text_of(result))

    async def seen_text(self) -> str | None:
        """The text a person can see on the page (see seen_text.py), or None when the page
        cannot be read (a native dialog is open, the page is gone)."""
        try:
            result = await self._dispatch("browser_evaluate", {"function": SEEN_TEXT_FUNCTION})
        except MCPToolError:
            return None
        return None if result.is_error else parse_seen_text(text_of(result))

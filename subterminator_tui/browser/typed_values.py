"""What a person types straight into the browser window, learned out of the page's reach.

At a hand-off the person may sign in, or enter a code, in the browser window
itself (and at an identity provider or in ``serve`` that is the only way). What
they type there is unknown to the program, so nothing would scrub it when a
hostile page echoes it back (into its console, its title, a later field, an
address). This module learns those values as a client of our own DevTools session
(devtools_session.py), set up in every page and frame before they run:

* a listener runs in an *isolated world* of ours in every frame: it shares the
  DOM with the page but none of its JavaScript, so the page can neither patch
  the listener's ``addEventListener``, nor read or fake its binding; it is
  installed before any script of a new document runs, so a page's own capture
  listener on ``window`` cannot stop an event before ours sees it;
* it reports a text field's value at the moments a person finishes it: a
  ``change``, a form's ``submit`` (every field of the form), Enter in the
  field, focus leaving the field (``focusout`` also crosses open shadow roots,
  which ``change`` does not), and a press on the page while the field has focus
  (a page that keeps the focus there to avoid ``change``). Never on every
  ``input`` event: "p", "pa", "pas" are not secrets;
* values shorter than :data:`MIN_LENGTH` are ignored, and a report without this
  watch's nonce is not ours.

A page can still erase every listener (``document.open()`` removes the listeners
of a document and its window, ours included) and register its own first. So
when the person says they are done, the fields themselves are read too
(:func:`typed_fields`, from ``DOMSnapshot.captureSnapshot``: the browser's own
record of each field's value, which no script runs to produce): a value that
differs from the field's preset one is reported like the rest.

The values go to a :class:`TypedValueListener` in memory, nowhere else (never
a log). Whether a value is the person's, and what it costs (a password keeps
pictures away), is the caller's decision: the browser layer only reports.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from cdp_use.cdp.domsnapshot.commands import CaptureSnapshotReturns
from cdp_use.cdp.domsnapshot.types import LayoutTreeSnapshot, NodeTreeSnapshot
from cdp_use.cdp.library import CDPLibrary
from cdp_use.cdp.page.commands import AddScriptToEvaluateOnNewDocumentParameters
from cdp_use.cdp.runtime.commands import AddBindingParameters, EvaluateReturns
from cdp_use.cdp.runtime.events import BindingCalledEvent
from cdp_use.client import CDPClient

from subterminator_tui.browser.devtools_session import DevToolsSession, SessionClient

logger = logging.getLogger(__name__)

#: The isolated world our listener runs in (the page's scripts run in another).
WORLD_NAME = "subterminator-typed-values"
#: The binding's name, exposed only in contexts of :data:`WORLD_NAME`.
BINDING_NAME = "__subterminatorTypedValue"
#: Shorter values are never learned: scrubbing "ab" out of every page would
#: destroy text, and a code or password is longer.
MIN_LENGTH = 4
#: Longer values are not reported (a pasted essay, not a credential).
MAX_LENGTH = 4096


@dataclass(frozen=True)
class TypedValue:
    """A value typed into a text field of the page."""

    value: str
    #: The field hides its typing: ``<input type=password>`` or drawn as dots
    #: (``-webkit-text-security``), whatever its label says.
    masked: bool


class TypedValueListener(Protocol):
    """Hears every value the watch learns; decides whether it is the person's."""

    def typed(self, value: TypedValue) -> None:
        """``value`` was typed into a field of the page (by anyone)."""
        ...


class IgnoreTypedValues:
    """The listener before a run installs its own: nothing is kept."""

    def typed(self, value: TypedValue) -> None:
        """Nothing is kept."""


def learned_value(payload: str, nonce: str) -> TypedValue | None:
    """The value a binding call reports, or None: not ours (no nonce), too short, malformed."""
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("nonce") != nonce:
        return None
    value = data.get("value")
    if not isinstance(value, str) or not worth_learning(value):
        return None
    return TypedValue(value, data.get("masked") is True)


def worth_learning(value: str) -> bool:
    """Whether ``value`` is long enough to be a secret and short enough to be a field's."""
    return len(value.strip()) >= MIN_LENGTH and len(value) <= MAX_LENGTH


#: The one computed style the field read asks for: how the field draws its typing.
SNAPSHOT_STYLES = ["-webkit-text-security"]


def typed_fields(snapshot: CaptureSnapshotReturns) -> list[TypedValue]:
    """The values in the text fields of a ``DOMSnapshot.captureSnapshot`` answer (asked with
    :data:`SNAPSHOT_STYLES`) that differ from the field's preset value."""
    strings = snapshot.get("strings", [])

    def text(index: int) -> str:
        return strings[index] if 0 <= index < len(strings) else ""

    found: list[TypedValue] = []
    for document in snapshot.get("documents", []):
        nodes = document.get("nodes", NodeTreeSnapshot())
        names = [text(i) for i in nodes.get("nodeName", [])]
        attributes = nodes.get("attributes", [])
        masked = _masked_nodes(document.get("layout"), text)
        presets = _textarea_presets(nodes, names, text)
        for rare in (nodes.get("inputValue"), nodes.get("textValue")):
            if rare is None:
                continue
            for node, value_index in zip(
                rare.get("index", []), rare.get("value", []), strict=False
            ):
                pairs = attributes[node] if node < len(attributes) else []
                attrs = {
                    text(a).lower(): text(b) for a, b in zip(pairs[::2], pairs[1::2], strict=False)
                }
                preset = _preset(names[node], attrs, presets.get(node, ""))
                value = text(value_index)
                if preset is None or value == preset or not worth_learning(value):
                    continue
                password = attrs.get("type", "").lower() == "password"
                found.append(TypedValue(value, node in masked or password))
    return found


def _preset(name: str, attributes: dict[str, str], textarea_text: str) -> str | None:
    """A text field's preset value (what the page wrote into it); None: no text field."""
    if name == "TEXTAREA":
        return textarea_text
    if name == "INPUT" and attributes.get("type", "text").lower() not in _OTHER_INPUT_TYPES:
        return attributes.get("value", "")
    return None


class TypingWatch(SessionClient):
    """The listener's side of our DevTools session: its script, its reports, the field reads."""

    def __init__(
        self, session: DevToolsSession, listener: TypedValueListener | None = None
    ) -> None:
        self.session = session
        #: Hears every value typed into a text field of any page or frame.
        self.listener: TypedValueListener = listener or IgnoreTypedValues()
        self.script = TypedValueScript()
        session.join(self)

    def report_to(self, listener: TypedValueListener) -> None:
        """``listener`` hears every value typed from now on (a run's or a session's)."""
        self.listener = listener

    def listen(self, cdp: CDPClient) -> None:
        """Our listener's reports, from every frame."""
        cdp.register.Runtime.bindingCalled(self.on_binding)

    def frame_starting(self, send: CDPLibrary, session_id: str) -> list[Awaitable[object]]:
        """The binding and the listener, in place before the frame's first document runs."""
        # (Runtime is enabled for every frame by the session itself: bindings need it.)
        return [
            send.Page.enable(session_id=session_id),
            send.Runtime.addBinding(self.script.binding(), session_id),
            send.Page.addScriptToEvaluateOnNewDocument(self.script.on_new_document(), session_id),
        ]

    def on_binding(self, event: BindingCalledEvent, _session: str | None) -> None:
        """A ``Runtime.bindingCalled`` event: our listener's report, passed on."""
        value = self.script.value_of(event)
        try:
            if value is not None:
                self.listener.typed(value)
        except Exception:  # never with the error's text: it could carry the value
            logger.error("a typed value could not be passed on (%s)", type(self.listener))

    async def heard(self) -> None:
        """Return once every value the listener reported so far has reached it.

        A frame's reports come on its session before the answer to a later request on that
        session: one cheap round trip to each frame is the barrier (a frame closed or busy
        reports nothing more).
        """
        for frame in self.session.frames():
            await self.session.ask(frame, _round_trip)

    async def read(self) -> None:
        """The values now in every frame's text fields reported too, then every report heard."""
        for frame in self.session.frames():
            snapshot = await self.session.ask(frame, _field_snapshot)
            if snapshot is None:  # closed or navigating: its fields are gone with it
                continue
            for value in typed_fields(snapshot):
                self.listener.typed(value)
        await self.heard()


def _round_trip(send: CDPLibrary, frame: str | None) -> Awaitable[EvaluateReturns]:
    """The cheapest evaluation: its answer comes after every report the frame sent before."""
    return send.Runtime.evaluate({"expression": "0"}, frame)


def _field_snapshot(send: CDPLibrary, frame: str | None) -> Awaitable[CaptureSnapshotReturns]:
    """The browser's own record of the frame's fields and how each draws its typing."""
    return send.DOMSnapshot.captureSnapshot({"computedStyles": SNAPSHOT_STYLES}, frame)


#: Input types that hold no typed text (checkboxes, buttons, dates, ...).
_OTHER_INPUT_TYPES = frozenset(
    {
        "checkbox",
        "radio",
        "submit",
        "button",
        "reset",
        "image",
        "file",
        "hidden",
        "range",
        "color",
        "date",
        "datetime-local",
        "month",
        "week",
        "time",
    }
)


def _masked_nodes(layout: LayoutTreeSnapshot | None, text: Callable[[int], str]) -> set[int]:
    """The nodes whose computed ``-webkit-text-security`` is not ``none``."""
    masked: set[int] = set()
    if layout is None:
        return masked
    for node, styles in zip(layout.get("nodeIndex", []), layout.get("styles", []), strict=False):
        if styles and text(styles[0]) not in ("", "none"):
            masked.add(node)
    return masked


def _textarea_presets(
    nodes: NodeTreeSnapshot, names: list[str], text: Callable[[int], str]
) -> dict[int, str]:
    """Each textarea's preset value: the text written inside it in the page."""
    presets: dict[int, str] = {}
    for node, parent in enumerate(nodes.get("parentIndex", [])):
        if 0 <= parent < len(names) and names[parent] == "TEXTAREA" and names[node] == "#text":
            presets[parent] = presets.get(parent, "") + text(nodes["nodeValue"][node])
    return presets


class TypedValueScript:
    """The listener's source and the DevTools calls that install it in a frame target."""

    def __init__(self) -> None:
        #: A report without it did not come from our listener.
        self.nonce = secrets.token_hex(16)

    def binding(self) -> AddBindingParameters:
        """The binding the listener reports through, exposed in our world only."""
        return {"name": BINDING_NAME, "executionContextName": WORLD_NAME}

    def on_new_document(self) -> AddScriptToEvaluateOnNewDocumentParameters:
        """The listener, run in our world before any script of every new document."""
        return {"source": self.source(), "worldName": WORLD_NAME, "runImmediately": True}

    def value_of(self, binding_call: BindingCalledEvent) -> TypedValue | None:
        """The value a ``Runtime.bindingCalled`` event reports, or None when it is not ours."""
        if binding_call.get("name") != BINDING_NAME:
            return None
        return learned_value(str(binding_call.get("payload", "")), self.nonce)

    def source(self) -> str:
        """The listener, for the isolated world (run once per document)."""
        return (
            _LISTENER.replace("__BINDING__", BINDING_NAME)
            .replace("__NONCE__", self.nonce)
            .replace("__MIN__", str(MIN_LENGTH))
            .replace("__MAX__", str(MAX_LENGTH))
        )


# Runs in our isolated world: its HTMLInputElement, addEventListener and getters
# are its own, untouched by anything the page's scripts do.
_LISTENER = """(() => {
  if (globalThis.__subterminatorListening) return;
  globalThis.__subterminatorListening = true;
  // Looked up when used: the binding may be installed just after this world's first script.
  const report = (payload) => globalThis.__BINDING__(payload);
  const TEXT = new Set(['text', 'password', 'email', 'tel', 'number', 'search', 'url']);
  const isField = (el) => el instanceof HTMLTextAreaElement
    || (el instanceof HTMLInputElement && TEXT.has(el.type));
  const masked = (el) => (el instanceof HTMLInputElement && el.type === 'password')
    || (getComputedStyle(el).webkitTextSecurity || 'none') !== 'none';
  const send = (el) => {
    if (!isField(el)) return;
    const value = String(el.value);
    if (value.trim().length < __MIN__ || value.length > __MAX__) return;
    report(JSON.stringify({ nonce: '__NONCE__', value, masked: masked(el) }));
  };
  const origin = (event) => {
    const path = event.composedPath();
    return path.length ? path[0] : event.target;
  };
  const focused = () => {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    return el;
  };
  const on = (type, handler) => addEventListener(type, handler, { capture: true });
  on('change', (event) => send(origin(event)));
  on('focusout', (event) => send(origin(event)));
  on('keydown', (event) => { if (event.key === 'Enter') send(origin(event)); });
  on('pointerdown', () => send(focused()));
  on('submit', (event) => {
    const form = origin(event);
    if (form instanceof HTMLFormElement) for (const el of form.elements) send(el);
  });
})();"""

"""Every link and form of a page, read through DevTools: all frames, every shadow root.

The accessibility snapshot shows what a person can reach; a page can keep a
link or a form out of it (hidden, in a closed shadow root, in a frame). The
request gate needs them all: a request to a gated link's or form's address is
gated however it was caused. ``DOM.getDocument`` with ``pierce`` walks open and
closed shadow roots and same-process frames; each out-of-process frame has its
own target, read the same way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urljoin

from cdp_use.cdp.dom.types import Node

#: Attributes that can name an element to a person, besides its text.
_NAMING_ATTRIBUTES = ("aria-label", "title", "alt", "value")


@dataclass(frozen=True)
class PageLink:
    """An address the page can send the browser to, and every name it shows for it."""

    url: str
    labels: tuple[str, ...]
    #: A plain link (``a``, ``area``: opening it is a GET), not a form's target.
    plain: bool = False


def links_of(document: Node) -> list[PageLink]:
    """The links (``a``, ``area``) and form targets (``form``'s action by each submit
    control's name, ``formaction``) of a ``DOM.getDocument`` tree."""
    found: list[PageLink] = []
    _walk(document, document.get("documentURL") or document.get("baseURL") or "", found, None)
    return found


def _walk(node: Node, base: str, found: list[PageLink], form: str | None) -> None:
    name = str(node.get("nodeName", "")).lower()
    attributes = _attributes(node)
    if name == "#document":
        base = str(node.get("baseURL") or node.get("documentURL") or base)
    if name in ("a", "area") and attributes.get("href"):
        scripted = any(key.startswith("on") for key in attributes)
        href = urljoin(base, attributes["href"])
        found.append(PageLink(href, _labels(node, attributes), plain=not scripted))
    if name == "form":
        form = urljoin(base, attributes.get("action", "") or base)
        found.append(PageLink(form, _labels(node, attributes)))
    is_submit = name == "button" and attributes.get("type", "submit").lower() == "submit"
    is_submit = is_submit or (
        name == "input" and attributes.get("type", "").lower() in ("submit", "image")
    )
    if is_submit:
        target = attributes.get("formaction")
        url = urljoin(base, target) if target else form
        if url:
            found.append(PageLink(url, _labels(node, attributes)))
    for child in _children(node):
        _walk(child, base, found, form)


def _children(node: Node) -> Iterator[Node]:
    yield from node.get("shadowRoots", ())
    document = node.get("contentDocument")
    if document:
        yield document
    template = node.get("templateContent")
    if template:
        yield template
    yield from node.get("children", ())


def _attributes(node: Node) -> dict[str, str]:
    flat = node.get("attributes") or []
    return {str(flat[i]).lower(): str(flat[i + 1]) for i in range(0, len(flat) - 1, 2)}


def _labels(node: Node, attributes: dict[str, str]) -> tuple[str, ...]:
    labels = [_text(node)]
    labels += [attributes[key] for key in _NAMING_ATTRIBUTES if attributes.get(key)]
    return tuple(dict.fromkeys(" ".join(label.split()) for label in labels if label.strip()))


def _text(node: Node) -> str:
    parts: list[str] = []
    stack = [node]
    while stack and len(parts) < 200:
        current = stack.pop()
        if current.get("nodeType") == 3:
            parts.append(str(current.get("nodeValue", "")))
        elif str(current.get("nodeName", "")).lower() == "img":
            alt = _attributes(current).get("alt")
            if alt:
                parts.append(alt)
        with contextlib.suppress(TypeError):
            stack.extend(reversed([*current.get("shadowRoots", ()), *current.get("children", ())]))
    return " ".join(" ".join(parts).split())

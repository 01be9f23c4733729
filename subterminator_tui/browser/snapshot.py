"""Fresh page state: Playwright MCP's text output normalized into NormalizedSnapshot.

Playwright MCP (pinned in package-lock.json) answers every tool call with
markdown sections. The ``### Page`` section carries the URL and title; the
``### Snapshot`` section either inlines the accessibility tree as a YAML code
block (``browser_snapshot``) or links a ``.yml`` file in the output directory
(actions since 0.0.7x). Everything downstream (rules, the loop, the UI) reads
only the normalized form, so a format change breaks here, loudly, and nowhere
else.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from subterminator_tui.errors import SnapshotValidationError
from subterminator_tui.inert_text import inert_line, inert_text

# States that appear as bare flags, e.g. ``[checked]``, ``[disabled]``.
_FLAG_STATES = frozenset(
    {"checked", "disabled", "expanded", "selected", "pressed", "active", "required", "readonly"}
)


@dataclass(frozen=True)
class Box:
    """An element's bounding box, viewport-relative CSS pixels."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class SnapshotElement:
    """One node of the accessibility tree, as Playwright MCP reported it."""

    role: str
    name: str = ""
    ref: str | None = None
    states: frozenset[str] = frozenset()
    #: ``checked=mixed`` and friends keep their value here; bare flags map to "true".
    attributes: tuple[tuple[str, str], ...] = ()
    level: int | None = None
    box: Box | None = None
    #: Text shown inline after the node (``- paragraph: Some text``).
    text: str = ""
    #: A link's target (``/url:``): never part of the visible text.
    url: str | None = None
    depth: int = 0

    @property
    def label(self) -> str:
        """What a person would call this element: its name, else its inline text."""
        return self.name or self.text

    def describe(self) -> str:
        """A short human description, e.g. ``button 'Finish cancellation'``; an element with
        no name says so (a bare ``Click button`` reads as a harmless, complete question)."""
        if self.label:
            return f"{self.role} '{self.label}'"
        return f"{self.role} with no name" + (f" (ref {self.ref})" if self.ref else "")


@dataclass(frozen=True)
class NormalizedSnapshot:
    """The page as every layer above the gateway sees it."""

    url: str
    title: str
    content: str
    screenshot_path: str | None = None
    elements: tuple[SnapshotElement, ...] = field(default=(), compare=False)
    #: Extra sections such as ``Modal state`` (an open dialog) or ``Open tabs``.
    notes: dict[str, str] = field(default_factory=dict, compare=False)

    def element_by_ref(self, ref: str) -> SnapshotElement | None:
        """The element carrying ``ref`` in this snapshot, or None when the ref is stale."""
        for element in self.elements:
            if element.ref == ref:
                return element
        return None

    def find(self, role: str | None = None, name: str | None = None) -> list[SnapshotElement]:
        """Elements with a ref, by exact ``role`` and case-insensitive ``name`` substring."""
        wanted = name.lower() if name is not None else None
        return [
            element
            for element in self.elements
            if element.ref is not None
            and (role is None or element.role == role)
            and (wanted is None or wanted in element.label.lower())
        ]

    def ref_of(self, role: str, name: str) -> str:
        """The ref of the one element with this role whose label equals ``name`` (case-insensitive).

        Raises LookupError listing what the page has, so a failing test or
        playbook says what it saw.
        """
        exact = [e for e in self.find(role) if e.label.lower() == name.lower()]
        if len(exact) == 1 and exact[0].ref is not None:
            return exact[0].ref
        seen = ", ".join(e.describe() for e in self.find(role)) or "none"
        raise LookupError(f"{len(exact)} {role} named {name!r} on {self.url}; {role}s: {seen}")

    @property
    def visible_text(self) -> str:
        """Accessible names and text, one per line: what ``text_*`` rules match.

        Link targets, refs and boxes are left out on purpose: a rule looking
        for "rejoin" must not fire on ``/url: /rejoin`` in an unfinished flow.
        """
        parts: list[str] = [self.title]
        for element in self.elements:
            if element.name:
                parts.append(element.name)
            if element.text:
                parts.append(element.text)
        return "\n".join(parts)

    @property
    def headings(self) -> list[SnapshotElement]:
        """Heading elements in document order."""
        return [element for element in self.elements if element.role == "heading"]


_SECTION = re.compile(r"^### (?P<name>.+?)\s*$", re.MULTILINE)
_PAGE_URL = re.compile(r"^- Page URL: ?(?P<value>.*)$", re.MULTILINE)
_PAGE_TITLE = re.compile(r"^- Page Title: ?(?P<value>.*)$", re.MULTILINE)
_YAML_BLOCK = re.compile(r"```yaml\n(?P<body>.*?)\n?```", re.DOTALL)
_LINKED_FILE = re.compile(r"\[(?P<label>[^\]]*)\]\((?P<path>[^)]+)\)")


def split_sections(text: str) -> dict[str, str]:
    """Split Playwright MCP's markdown answer into ``{section title: body}``."""
    sections: dict[str, str] = {}
    matches = list(_SECTION.finditer(text))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        sections[match["name"]] = text[match.end() : end].strip("\n")
    return sections


def linked_files(section_body: str) -> list[tuple[str, str]]:
    """The ``[label](path)`` links of a section, e.g. a snapshot or screenshot file."""
    return [(match["label"], match["path"]) for match in _LINKED_FILE.finditer(section_body)]


def resolve_linked_path(path: str, workspace: Path) -> Path:
    """Playwright MCP prints paths relative to its workspace root (our per-run dir)."""
    candidate = Path(path)
    return candidate if candidate.is_absolute() else workspace / candidate


def snapshot_yaml(sections: dict[str, str], workspace: Path) -> str | None:
    """The accessibility tree text, inline or read from the linked ``.yml`` file."""
    body = sections.get("Snapshot")
    if body is None:
        return None
    inline = _YAML_BLOCK.search(body)
    if inline:
        return inline["body"]
    for _label, path in linked_files(body):
        if path.endswith((".yml", ".yaml")):
            try:
                return resolve_linked_path(path, workspace).read_text(encoding="utf-8")
            except OSError:
                return None  # reported as missing content, with the raw answer
    return None


def normalize_snapshot(
    raw_output: str,
    workspace: Path,
    *,
    screenshot_path: str | None = None,
) -> NormalizedSnapshot:
    """Build a NormalizedSnapshot from one tool answer, or raise SnapshotValidationError."""
    sections = split_sections(raw_output)
    page = sections.get("Page", "")
    url_match = _PAGE_URL.search(page)
    title_match = _PAGE_TITLE.search(page)
    content = snapshot_yaml(sections, workspace)
    # A page need not have a title: JSON, plain text and many real pages have none,
    # and Playwright then writes no title line (nor while a native dialog is open).
    # The URL and the tree are what every page has; without them the format changed.
    missing = [name for name, value in (("url", url_match), ("content", content)) if value is None]
    if missing or url_match is None or content is None:
        raise SnapshotValidationError(missing, raw_output)
    # Page text is inert from here on: no escape sequence or control character in a
    # label reaches a screen, a log or the agent.
    content = inert_text(content)
    notes = {
        name: inert_text(body)
        for name, body in sections.items()
        if name not in {"Page", "Snapshot", "Events", "Ran Playwright code"}
    }
    return NormalizedSnapshot(
        url=inert_line(url_match["value"]),
        title=inert_line(title_match["value"]) if title_match else "",
        content=content,
        screenshot_path=screenshot_path,
        elements=tuple(parse_elements(content)),
        notes=notes,
    )


# --- the aria-snapshot YAML ------------------------------------------------------------

_LINE = re.compile(r"^(?P<indent> *)- (?P<rest>.*)$")
_ATTRIBUTE = re.compile(r"\[(?P<key>[a-z-]+)(?:=(?P<value>[^\]]*))?\]")


def parse_elements(content: str) -> list[SnapshotElement]:
    """Parse Playwright's aria-snapshot YAML into elements, in document order.

    A hand-rolled reader rather than a YAML library: lines are ``- role "name"
    [attr=value]: inline text`` keys, which YAML would give back as opaque strings.
    """
    elements: list[SnapshotElement] = []
    for raw_line in content.splitlines():
        match = _LINE.match(raw_line)
        if not match:
            continue
        depth = len(match["indent"]) // 2
        key, value = _split_key_value(match["rest"])
        # Decoding YAML/JSON escapes ("\u001b") can bring control characters back.
        value = inert_line(value)
        if key.startswith("/"):
            # A property of the element above it, e.g. ``/url: /rejoin``.
            if key == "/url" and elements and elements[-1].depth == depth - 1:
                elements[-1] = dataclasses.replace(elements[-1], url=value)
            continue
        if key == "text":
            elements.append(SnapshotElement(role="text", text=value, depth=depth))
            continue
        elements.append(_parse_node(key, value, depth))
    return elements


def _split_key_value(rest: str) -> tuple[str, str]:
    """Split ``key: value`` where the key may be single-quoted YAML."""
    if rest.startswith("'"):
        index = 1
        chars: list[str] = []
        while index < len(rest):
            char = rest[index]
            if char == "'":
                if rest[index : index + 2] == "''":
                    chars.append("'")
                    index += 2
                    continue
                break
            chars.append(char)
            index += 1
        key, remainder = "".join(chars), rest[index + 1 :]
    else:
        key, remainder = _split_unquoted(rest)
    remainder = remainder.strip()
    if remainder.startswith(":"):
        remainder = remainder[1:].strip()
    return key.strip(), _unquote_scalar(remainder)


def _split_unquoted(rest: str) -> tuple[str, str]:
    """Split at the first ``:`` that is outside a double-quoted name and brackets."""
    in_quotes = False
    depth = 0
    index = 0
    while index < len(rest):
        char = rest[index]
        if char == "\\" and in_quotes:
            index += 2
            continue
        if char == '"':
            in_quotes = not in_quotes
        elif not in_quotes and char == "[":
            depth += 1
        elif not in_quotes and char == "]":
            depth -= 1
        elif (
            not in_quotes
            and depth == 0
            and char == ":"
            and (index + 1 == len(rest) or rest[index + 1] == " ")
        ):
            return rest[:index], rest[index:]
        index += 1
    return rest, ""


def _unquote_scalar(value: str) -> str:
    """Undo YAML quoting of an inline text value."""
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except json.JSONDecodeError:
            return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def _parse_node(key: str, text: str, depth: int) -> SnapshotElement:
    role, _, rest = key.partition(" ")
    name = ""
    rest = rest.strip()
    if rest.startswith('"'):
        name, rest = _read_json_string(rest)
    elif rest.startswith("/"):
        # A regex name (``- link /Pattern/``) only appears in templates, not live pages.
        end = rest.find("/", 1)
        name, rest = rest[1:end], rest[end + 1 :]
    ref: str | None = None
    level: int | None = None
    box: Box | None = None
    states: set[str] = set()
    attributes: list[tuple[str, str]] = []
    for attribute in _ATTRIBUTE.finditer(rest):
        attr_key, attr_value = attribute["key"], attribute["value"]
        if attr_key == "ref":
            ref = attr_value
        elif attr_key == "level" and attr_value and attr_value.isdigit():
            level = int(attr_value)
        elif attr_key == "box" and attr_value:
            box = _parse_box(attr_value)
        elif attr_key == "cursor":
            continue
        else:
            attributes.append((attr_key, attr_value or "true"))
            if attr_key in _FLAG_STATES and attr_value in (None, "true", "mixed"):
                states.add(attr_key if attr_value != "mixed" else f"{attr_key}=mixed")
    return SnapshotElement(
        role=role,
        name=inert_line(name),
        ref=ref,
        states=frozenset(states),
        attributes=tuple(attributes),
        level=level,
        box=box,
        text=text,
        depth=depth,
    )


def _read_json_string(rest: str) -> tuple[str, str]:
    """Read a leading JSON string (Playwright escapes names as JSON)."""
    index = 1
    while index < len(rest):
        if rest[index] == "\\":
            index += 2
            continue
        if rest[index] == '"':
            break
        index += 1
    literal = rest[: index + 1]
    try:
        value = str(json.loads(literal))
    except json.JSONDecodeError:
        value = literal.strip('"')
    return value, rest[index + 1 :]


def _parse_box(value: str) -> Box | None:
    try:
        x, y, width, height = (float(part) for part in value.split(","))
    except ValueError:
        return None
    return Box(x, y, width, height)

"""Which Playwright MCP tools may ever reach the browser, and how they are offered to a model.

Two sets. ``ALLOWED_TOOLS`` is everything the gateway forwards; anything else
(``browser_evaluate``, ``browser_run_code_unsafe``, ``browser_file_upload``,
tools a page registers) is refused even when a model names it. ``MODEL_TOOLS``
is the smaller set offered to a model by default: few, since every definition is
sent each turn, each saying when to use it, what happens and what can go wrong.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from subterminator_tui.errors import MCPToolError

#: The Playwright MCP tools that may reach the browser, in the order Playwright MCP lists
#: them (serve's Playwright-compatible profile offers them in this order).
ALLOWED_TOOL_ORDER: tuple[str, ...] = (
    "browser_navigate",
    "browser_navigate_back",
    "browser_snapshot",
    "browser_click",
    "browser_type",
    "browser_fill_form",
    "browser_select_option",
    "browser_press_key",
    "browser_hover",
    "browser_wait_for",
    "browser_tabs",
    "browser_handle_dialog",
    "browser_take_screenshot",
)
ALLOWED_TOOLS: frozenset[str] = frozenset(ALLOWED_TOOL_ORDER)

#: The loop cannot run without these: a server that lacks one fails the handshake.
REQUIRED_TOOLS: frozenset[str] = frozenset(
    {"browser_snapshot", "browser_click", "browser_navigate", "browser_type"}
)

#: Element refs as Playwright MCP prints them (``e12``, or ``f1e3`` inside a frame).
#: Selectors are refused: a checkpoint rule must be able to see the element a
#: call targets in the snapshot, and a CSS selector can point anywhere.
REF_PATTERN = r"^(?:f\d+)?e\d+$"
# Used with fullmatch, where "$" cannot stop before a trailing newline.
_REF_FULL = re.compile(REF_PATTERN)


@dataclass(frozen=True)
class ModelTool:
    """A browser tool as a model sees it: curated description, narrowed schema."""

    name: str
    description: str
    input_schema: dict[str, Any]


# Every definition is sent with every model call, so each word costs a turn's
# worth of tokens: the descriptions keep those three parts in as few words as
# will do, and the shared rules (one call a turn, refs last one action) live
# once in the system prompt.
_REF: dict[str, Any] = {"type": "string", "pattern": REF_PATTERN}
_TEXT: dict[str, Any] = {"type": "string"}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    # No additionalProperties here: the server's own schema, checked first, already
    # refuses unknown arguments, and every byte of these is resent on each call.
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


MODEL_TOOLS: tuple[ModelTool, ...] = (
    ModelTool(
        "browser_click",
        "Click a ref. WHEN TO USE: buttons, links, checkboxes, radios. WHAT HAPPENS: fresh "
        "page; irreversible clicks wait for the human. ERRORS: stale ref, disabled, rejected.",
        _schema({"target": _REF}, ["target"]),
    ),
    ModelTool(
        "browser_type",
        "Type into a textbox. WHEN TO USE: free-text fields, never passwords or codes. "
        "WHAT HAPPENS: filled; submit presses Enter. ERRORS: stale ref, not editable.",
        _schema(
            {"target": _REF, "text": _TEXT, "submit": {"type": "boolean"}},
            ["target", "text"],
        ),
    ),
    ModelTool(
        "browser_select_option",
        "Pick dropdown options. WHEN TO USE: comboboxes. WHAT HAPPENS: fresh page. "
        "ERRORS: stale ref, no such option.",
        _schema(
            {"target": _REF, "values": {"type": "array", "items": _TEXT, "minItems": 1}},
            ["target", "values"],
        ),
    ),
    ModelTool(
        "browser_press_key",
        "Press a key (Escape, Enter). WHEN TO USE: close a pop-up. WHAT HAPPENS: fresh page. "
        "ERRORS: unknown key.",
        _schema({"key": _TEXT}, ["key"]),
    ),
    ModelTool(
        "browser_navigate",
        "Open a URL. WHEN TO USE: the service's own pages only. WHAT HAPPENS: fresh page. "
        "ERRORS: other domains refused.",
        _schema({"url": _TEXT}, ["url"]),
    ),
    ModelTool(
        "browser_handle_dialog",
        "Answer a native dialog. WHEN TO USE: the page lists one. WHAT HAPPENS: closed; "
        "a final accept waits for the human. ERRORS: none open.",
        _schema({"accept": {"type": "boolean"}, "promptText": _TEXT}, ["accept"]),
    ),
    ModelTool(
        "browser_wait_for",
        "Wait for text, or seconds (max 30). WHEN TO USE: the page is loading. "
        "WHAT HAPPENS: fresh page. ERRORS: timeout.",
        _schema(
            {"text": _TEXT, "textGone": _TEXT, "time": {"type": "number", "maximum": 30}},
            [],
        ),
    ),
)

MODEL_TOOL_NAMES: frozenset[str] = frozenset(tool.name for tool in MODEL_TOOLS)


def check_allowed(name: str) -> None:
    """Raise MCPToolError unless ``name`` is on the allowlist."""
    if name not in ALLOWED_TOOLS:
        raise MCPToolError(
            f"Tool '{name}' is not allowed: SubTerminator only forwards "
            f"{', '.join(sorted(ALLOWED_TOOLS))}."
        )


def with_schema_defaults(
    arguments: Mapping[str, Any], server_schema: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``arguments`` plus the defaults the server's schema declares.

    Playwright MCP's schemas (generated from zod) list fields that have a
    default as required; the server fills them in, so we do the same before
    validating.
    """
    filled = dict(arguments)
    properties = (server_schema or {}).get("properties", {})
    for key, spec in properties.items():
        if key not in filled and isinstance(spec, dict) and "default" in spec:
            filled[key] = spec["default"]
    return filled


def validate_arguments(
    name: str,
    arguments: Mapping[str, Any],
    server_schema: Mapping[str, Any] | None,
) -> None:
    """Check ``arguments`` against the server's own schema, then our narrower one.

    Raise MCPToolError naming the offending argument, before anything is dispatched.
    """
    if server_schema is None:
        raise MCPToolError(f"The Playwright MCP server does not offer '{name}'.")
    schemas = [dict(server_schema)]
    curated = next((tool.input_schema for tool in MODEL_TOOLS if tool.name == name), None)
    if curated is not None:
        schemas.append(curated)
    elif any(key in arguments for key in ("target", "startTarget", "endTarget")):
        schemas.append(_ref_only_schema())
    for schema in schemas:
        _validate(name, arguments, schema)
    if curated is not None:
        # The model's schema leaves additionalProperties out to stay short; the
        # narrowing still holds: only offered arguments (and a log label) pass.
        extra = set(arguments) - set(curated["properties"]) - {"element"}
        if extra:
            raise MCPToolError(
                f"Invalid arguments for {name}: Additional properties are not allowed "
                f"({', '.join(sorted(extra))})"
            )
    fields = arguments.get("fields")
    if isinstance(fields, list):
        for item in fields:
            if isinstance(item, dict):
                _validate(name, {"target": item.get("target")}, _ref_only_schema())
    _require_exact_refs(name, arguments)


def _require_exact_refs(name: str, arguments: Mapping[str, Any]) -> None:
    # JSON Schema patterns are searched with Python's re, where "$" also matches
    # before a trailing newline: "e7\n" would pass, and Playwright would then
    # treat it as a CSS selector the rules never see.
    targets = [arguments.get(key) for key in ("target", "startTarget", "endTarget")]
    fields = arguments.get("fields")
    if isinstance(fields, list):
        targets.extend(item.get("target") for item in fields if isinstance(item, dict))
    for target in targets:
        if target is not None and not (isinstance(target, str) and _REF_FULL.fullmatch(target)):
            raise MCPToolError(
                f"Invalid arguments for {name}: target {target!r} is not an element ref "
                "such as 'e12' from the latest snapshot"
            )


def _ref_only_schema() -> dict[str, Any]:
    ref = {"type": "string", "pattern": REF_PATTERN}
    return {"type": "object", "properties": {"target": ref, "startTarget": ref, "endTarget": ref}}


def _validate(name: str, arguments: Mapping[str, Any], schema: dict[str, Any]) -> None:
    clean = copy.deepcopy(schema)
    clean.pop("$schema", None)
    validator = jsonschema.Draft202012Validator(clean)
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda error: list(error.path))
    if errors:
        error = errors[0]
        where = ".".join(str(part) for part in error.path) or "arguments"
        raise MCPToolError(f"Invalid arguments for {name}: {where}: {error.message}")

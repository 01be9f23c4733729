"""Which Playwright MCP tools may ever reach the browser, and how they are offered to a model.

Two sets. ``ALLOWED_TOOLS`` is everything the gateway forwards; anything else
(``browser_evaluate``, ``browser_run_code_unsafe``, ``browser_file_upload``,
tools a page registers) is refused even when a model names it. ``MODEL_TOOLS``
is the smaller set offered to a model by default (seed 001 FR1/FR5: fewer than
ten, each saying when to use it, what happens and what can go wrong).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from subterminator_tui.errors import MCPToolError

ALLOWED_TOOLS: frozenset[str] = frozenset(
    {
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
        "browser_take_screenshot",
        "browser_handle_dialog",
        "browser_tabs",
    }
)

#: AC-1.2: the server must offer at least these.
REQUIRED_TOOLS: frozenset[str] = frozenset(
    {"browser_snapshot", "browser_click", "browser_navigate", "browser_type"}
)

#: Element refs as Playwright MCP prints them (``e12``, or ``f1e3`` inside a frame).
#: Selectors are refused: a checkpoint rule must be able to see the element a
#: call targets in the snapshot, and a CSS selector can point anywhere.
REF_PATTERN = r"^(?:f\d+)?e\d+$"
_REF = re.compile(r"(?:f\d+)?e\d+")

_REF_NOTE = (
    "Refs come from the most recent snapshot and are valid for ONE action: every action "
    "returns a fresh snapshot with new refs."
)


@dataclass(frozen=True)
class ModelTool:
    """A browser tool as a model sees it: curated description, narrowed schema."""

    name: str
    description: str
    input_schema: dict[str, Any]


def _ref_property(what: str) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": REF_PATTERN,
        "description": f"Ref of the {what} from the latest snapshot, e.g. 'e12'.",
    }


_ELEMENT_NOTE: dict[str, Any] = {
    "type": "string",
    "description": "Short description of the element for the log (the ref decides what is hit).",
}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


MODEL_TOOLS: tuple[ModelTool, ...] = (
    ModelTool(
        "browser_click",
        "Click a button, link, checkbox, radio or other element by its ref.\n"
        "WHEN TO USE: to follow a link, press a button, tick a checkbox or choose a radio.\n"
        f"WHAT HAPPENS: the click runs, then you get the fresh page. {_REF_NOTE}\n"
        "Irreversible clicks (finishing a cancellation, accepting an offer) pause for the "
        "human's approval first; a rejection comes back as an error.\n"
        "ERRORS: ref not found (stale ref: use the fresh snapshot), element disabled or "
        "covered, click refused by a checkpoint.\n"
        'EXAMPLE: {"target": "e7", "element": "Cancel membership button"}',
        _schema(
            {"target": _ref_property("element to click"), "element": _ELEMENT_NOTE}, ["target"]
        ),
    ),
    ModelTool(
        "browser_type",
        "Type text into a textbox by its ref.\n"
        "WHEN TO USE: to fill a text field such as a survey's free-text answer. Never type "
        "passwords, codes or CAPTCHA answers: those are handed to the human automatically.\n"
        f"WHAT HAPPENS: the field is filled (optionally Enter is pressed). {_REF_NOTE}\n"
        "ERRORS: ref not found, element is not editable.\n"
        'EXAMPLE: {"target": "e4", "text": "Too expensive", "submit": false}',
        _schema(
            {
                "target": _ref_property("textbox"),
                "element": _ELEMENT_NOTE,
                "text": {"type": "string", "description": "The text to type."},
                "submit": {"type": "boolean", "description": "Press Enter afterwards."},
            },
            ["target", "text"],
        ),
    ),
    ModelTool(
        "browser_select_option",
        "Choose option(s) in a dropdown (combobox/listbox) by its ref.\n"
        "WHEN TO USE: for <select> elements; use browser_click for radios and checkboxes.\n"
        f"WHAT HAPPENS: the options are selected, then you get the fresh page. {_REF_NOTE}\n"
        "ERRORS: ref not found, no option with that value or label.\n"
        'EXAMPLE: {"target": "e9", "values": ["Too expensive"]}',
        _schema(
            {
                "target": _ref_property("dropdown"),
                "element": _ELEMENT_NOTE,
                "values": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "description": "Option labels or values to select.",
                },
            },
            ["target", "values"],
        ),
    ),
    ModelTool(
        "browser_press_key",
        "Press one key in the focused element or page.\n"
        "WHEN TO USE: Escape to close a pop-up, Enter to submit, PageDown to scroll.\n"
        "WHAT HAPPENS: the key is pressed, then you get the fresh page.\n"
        "ERRORS: unknown key name.\n"
        'EXAMPLE: {"key": "Escape"}',
        _schema(
            {"key": {"type": "string", "description": "Key name such as Enter or Escape."}}, ["key"]
        ),
    ),
    ModelTool(
        "browser_navigate",
        "Open a URL in the current tab.\n"
        "WHEN TO USE: only to reach the service's own pages (for example its account page) "
        "when no link leads there. Other domains are refused.\n"
        "WHAT HAPPENS: the page loads, then you get its snapshot.\n"
        "ERRORS: domain not allowed for this service, page failed to load.\n"
        'EXAMPLE: {"url": "https://www.example.com/account"}',
        _schema({"url": {"type": "string", "description": "Absolute http(s) URL."}}, ["url"]),
    ),
    ModelTool(
        "browser_handle_dialog",
        "Accept or dismiss a native browser dialog (alert, confirm, prompt).\n"
        "WHEN TO USE: only when the page state lists an open dialog; nothing else works until "
        "it is handled. Accepting a confirm dialog that finishes a cancellation pauses for "
        "the human's approval.\n"
        "WHAT HAPPENS: the dialog closes, then you get the fresh page.\n"
        "ERRORS: no dialog is open.\n"
        'EXAMPLE: {"accept": true}',
        _schema(
            {
                "accept": {"type": "boolean", "description": "True accepts, false dismisses."},
                "promptText": {"type": "string", "description": "Text for a prompt dialog."},
            },
            ["accept"],
        ),
    ),
    ModelTool(
        "browser_wait_for",
        "Wait for text to appear or disappear, or for a few seconds.\n"
        "WHEN TO USE: when the page says it is loading or processing.\n"
        "WHAT HAPPENS: returns when the condition holds (at most 30 s), with the fresh page.\n"
        "ERRORS: timeout.\n"
        'EXAMPLE: {"text": "Cancellation confirmed"} or {"time": 2}',
        _schema(
            {
                "text": {"type": "string", "description": "Text to wait for."},
                "textGone": {"type": "string", "description": "Text to wait to disappear."},
                "time": {"type": "number", "minimum": 0, "maximum": 30, "description": "Seconds."},
            },
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
        if target is not None and not (isinstance(target, str) and _REF.fullmatch(target)):
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

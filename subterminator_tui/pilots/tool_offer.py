"""Which tools a model is offered on a given page.

Every definition is resent with every call, and on light pages the
definitions cost more than the page itself. A tool the page gives no use
for (typing with no field, answering a dialog that is not open) is left
out of that call: fewer tokens, and one less wrong choice for the model.
The virtual tools, clicking and navigating are always offered. The guard
still accepts every curated tool, whichever were offered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.providers.base import ToolSpec

_FIELD_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})
_CHOICE_ROLES = frozenset({"combobox", "listbox"})
_LOADING = re.compile(r"loading|please wait|processing|one moment", re.IGNORECASE)


def _has_role(snapshot: NormalizedSnapshot, roles: frozenset[str]) -> bool:
    return any(element.role in roles and element.ref for element in snapshot.elements)


def _dialog_open(snapshot: NormalizedSnapshot) -> bool:
    return "Modal state" in snapshot.notes


#: When each situational tool is useful; tools not listed are always offered.
_USEFUL_WHEN: dict[str, Callable[[NormalizedSnapshot], bool]] = {
    "browser_type": lambda page: _has_role(page, _FIELD_ROLES),
    "browser_select_option": lambda page: _has_role(page, _CHOICE_ROLES),
    "browser_handle_dialog": _dialog_open,
    "browser_press_key": lambda page: _has_role(page, _FIELD_ROLES | {"dialog", "alertdialog"}),
    "browser_wait_for": lambda page: bool(_LOADING.search(page.visible_text)),
}


def _always(_page: NormalizedSnapshot) -> bool:
    return True


def tools_for_page(tools: Sequence[ToolSpec], snapshot: NormalizedSnapshot) -> list[ToolSpec]:
    """``tools`` narrowed to what ``snapshot`` can use, in their original order."""
    return [tool for tool in tools if _USEFUL_WHEN.get(tool.name, _always)(snapshot)]

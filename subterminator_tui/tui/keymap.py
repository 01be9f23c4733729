"""The person's keymap, checked against every binding id the app has before it starts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.settings import config_file

#: The operator console's binding ids, named here so the app accepts a keymap for both
#: without importing the console (and the MCP server with it). A test keeps them equal.
CONSOLE_BINDING_IDS = frozenset(
    {"console.quit", "console.quit-ctrl-c", "console.save-sign-in", "console.load-sign-in"}
)


def binding_ids(owners: Iterable[type[DOMNode]]) -> set[str]:
    """Every ``Binding.id`` declared by ``owners`` (and their base classes)."""
    ids: set[str] = set()
    for owner in owners:
        for klass in owner.__mro__:
            for binding in vars(klass).get("BINDINGS", ()):
                if isinstance(binding, Binding) and binding.id:
                    ids.add(binding.id)
    return ids


def check_keymap(keymap: Mapping[str, str], known: set[str]) -> None:
    """ConfigurationError naming the first unknown binding id, and every id that exists."""
    unknown = sorted(set(keymap) - known)
    if unknown:
        raise ConfigurationError(
            f"Unknown key binding id '{unknown[0]}' in keymap ({config_file()}). "
            f"Binding ids: {', '.join(sorted(known))}."
        )

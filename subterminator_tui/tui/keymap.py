"""The person's keymap, checked against every binding id the app has before it starts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.settings import config_file
from subterminator_tui.tui.actions import ACTIONS, BY_ID

#: The operator console's binding ids, from the registry: the app accepts a keymap for
#: both without importing the console (and the MCP server with it).
CONSOLE_BINDING_IDS = frozenset(action.id for action in ACTIONS if action.owner == "console")

#: Actions that must never share a key: an answer meant for one would answer the other.
NEVER_SHARE_A_KEY = (("checkpoint.approve", "quit.yes"), ("checkpoint.approve", "quit.no"))


def binding_ids(owners: Iterable[type[DOMNode]]) -> set[str]:
    """Every ``Binding.id`` declared by ``owners`` (and their base classes)."""
    ids: set[str] = set()
    for owner in owners:
        for klass in owner.__mro__:
            for binding in vars(klass).get("BINDINGS", ()):
                if isinstance(binding, Binding) and binding.id:
                    ids.add(binding.id)
    return ids


def check_keymap(keymap: Mapping[str, str], known: set[str] | frozenset[str]) -> None:
    """ConfigurationError naming the first unknown binding id, and every id that exists;
    or naming two actions the keymap gives one key (stop and approve, above all)."""
    unknown = sorted(set(keymap) - known)
    if unknown:
        raise ConfigurationError(
            f"Unknown key binding id '{unknown[0]}' in keymap ({config_file()}). "
            f"Binding ids: {', '.join(sorted(known))}."
        )
    for first, second in NEVER_SHARE_A_KEY:
        shared = _keys(first, keymap) & _keys(second, keymap)
        if shared:
            raise ConfigurationError(
                f"The keymap ({config_file()}) gives '{sorted(shared)[0]}' to both {first} and "
                f"{second}: one key must never answer two questions. Pick another key."
            )


def _keys(binding_id: str, keymap: Mapping[str, str]) -> set[str]:
    keys = keymap.get(binding_id, BY_ID[binding_id].keys)
    return {key.strip() for key in keys.split(",") if key.strip()}

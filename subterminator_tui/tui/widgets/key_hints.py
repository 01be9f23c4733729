"""A modal's key line, rendered from its active bindings: remap a key and the hint follows."""

from __future__ import annotations

from textual.widgets import Static


class KeyHints(Static):
    """``y approve   n/Esc reject``: for each action, the keys bound to it on this screen now.

    ``actions`` maps an action name to the words shown after its keys, in display order.
    """

    def __init__(self, actions: dict[str, str], *, classes: str | None = None) -> None:
        super().__init__("", classes=classes, markup=True)
        self.actions = actions

    def on_mount(self) -> None:
        """The keymap is applied by now (the app sets it when it mounts)."""
        self.update(self.render_hints())

    def render_hints(self) -> str:
        """The hint line from ``screen.active_bindings`` (the keymap applied)."""
        keys: dict[str, list[str]] = {action: [] for action in self.actions}
        for active in self.screen.active_bindings.values():
            if active.node is not self.screen or active.binding.action not in keys:
                continue
            if not active.enabled:
                # Not offered here now (guidance without a model): no hint for it.
                continue
            display = self.app.get_key_display(active.binding)
            keys[active.binding.action].append(f"[b]{_capitalised(display)}[/b]")
        parts = [
            f"{'/'.join(found)} {words}"
            for action, words in self.actions.items()
            if (found := keys[action])
        ]
        return "   ".join(parts)


def _capitalised(display: str) -> str:
    # Single characters stay as typed (y, n); named keys read as on a keyboard (Esc).
    return display if len(display) == 1 else display[:1].upper() + display[1:]

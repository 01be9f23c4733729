"""A pending tool call and the page elements it targets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Argument keys that carry a snapshot ref in Playwright MCP's schemas.
_TARGET_KEYS = ("target", "startTarget", "endTarget")


@dataclass(frozen=True)
class ToolCall:
    """One tool call as a model (or a playbook) asked for it."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def target_refs(self) -> list[str]:
        """Every element ref this call acts on, in argument order.

        ``browser_fill_form`` carries one target per field; a checkpoint rule
        must see all of them, not only the first.
        """
        refs = [str(self.arguments[key]) for key in _TARGET_KEYS if key in self.arguments]
        fields = self.arguments.get("fields")
        if isinstance(fields, list):
            refs.extend(
                str(item["target"])
                for item in fields
                if isinstance(item, dict) and "target" in item
            )
        return refs

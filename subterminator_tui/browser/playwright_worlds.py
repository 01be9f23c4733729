"""The guard's DOM read by ref, in Playwright's own isolated world, over our DevTools session.

Playwright MCP runs ``browser_evaluate`` as an action: after the function returns it
waits its settle time (150 ms) for whatever the action started. The guard's read of
a call's target before the call starts nothing, yet paid that wait on every guarded
call. Playwright keeps the ref of each snapshot's element on the element itself
(``_ariaRef``), in its utility world: an isolated world that shares the page's DOM
but none of its scripts. Our own DevTools session (devtools_session.py) evaluates the
guard's fixed function there, on the element that carries the ref: the element
Playwright's click resolves (a ref is given to one element per world, never reused).

Two things follow. No settle wait: the read takes a few milliseconds. And a page that
rewrites ``Array.prototype``, ``getComputedStyle`` or ``innerText`` in its own world
cannot change what the function sees there. Whatever this cannot answer exactly once
(no snapshot yet in that world, the ref found in two tabs, a frame in another process
not yet known) answers None, and the caller reads through ``browser_evaluate`` as before.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from cdp_use.cdp.runtime.commands import EvaluateParameters
from cdp_use.cdp.runtime.events import (
    ExecutionContextCreatedEvent,
    ExecutionContextDestroyedEvent,
    ExecutionContextsClearedEvent,
)
from cdp_use.client import CDPClient

from subterminator_tui.browser.devtools_session import DevToolsSession, SessionClient

logger = logging.getLogger(__name__)

#: Playwright names its utility world ``__playwright_utility_world_<page guid>``.
UTILITY_WORLD_PREFIX = "__playwright_utility_world_"


class PlaywrightWorlds(SessionClient):
    """The utility-world execution contexts of every page and frame target we attach."""

    def __init__(self, session: DevToolsSession) -> None:
        self.session = session
        #: Context ids of Playwright's utility worlds, by session.
        self.contexts: dict[str, set[int]] = {}
        session.join(self)

    def listen(self, cdp: CDPClient) -> None:
        """Follow contexts as they are created and destroyed (handlers only record)."""
        cdp.register.Runtime.executionContextCreated(self._created)
        cdp.register.Runtime.executionContextDestroyed(self._destroyed)
        cdp.register.Runtime.executionContextsCleared(self._cleared)

    def forget(self, session_id: str) -> None:
        """The target went away."""
        self.contexts.pop(session_id, None)

    async def on_element(self, ref: str, function: str) -> Any | None:
        """``function(element)``'s value for the element Playwright's snapshot named
        ``ref``; None unless exactly one world holds it (the caller reads another way)."""
        expression = (
            "(async () => { const find = (root) => { for (const el of root.querySelectorAll('*'))"
            " { if (el._ariaRef && el._ariaRef.ref === REF) return el;"
            " if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; } }"
            " return null; };"
            " const element = find(document); if (!element) return {found: false};"
            " return {found: true, value: await (FUNCTION)(element)}; })()"
        )
        expression = expression.replace("REF", json.dumps(ref)).replace("FUNCTION", function)
        found: list[Any] = []
        for session, contexts in list(self.contexts.items()):
            for context in list(contexts):
                answer = await self._evaluate(session, context, expression)
                if isinstance(answer, dict) and answer.get("found"):
                    found.append(answer.get("value"))
        return found[0] if len(found) == 1 else None

    async def _evaluate(self, session: str, context: int, expression: str) -> Any | None:
        """The expression's value in one world; None when it threw, or the world went away
        or hangs (the session's deadline)."""
        params: EvaluateParameters = {
            "expression": expression,
            "contextId": context,
            "returnByValue": True,
            "awaitPromise": True,
        }
        reply = await self.session.ask(session, lambda send, to: send.Runtime.evaluate(params, to))
        if reply is None:
            return None
        # cdp-use types exceptionDetails as always there; the protocol sends it on a throw only.
        answer: Mapping[str, Any] = reply
        if answer.get("exceptionDetails"):
            return None
        return answer.get("result", {}).get("value")

    def _created(self, event: ExecutionContextCreatedEvent, session: str | None) -> None:
        context = event.get("context", {})
        if session and str(context.get("name", "")).startswith(UTILITY_WORLD_PREFIX):
            self.contexts.setdefault(session, set()).add(int(context["id"]))

    def _destroyed(self, event: ExecutionContextDestroyedEvent, session: str | None) -> None:
        if session in self.contexts:
            self.contexts[session].discard(int(event.get("executionContextId", -1)))

    def _cleared(self, _event: ExecutionContextsClearedEvent, session: str | None) -> None:
        if session in self.contexts:
            self.contexts[session].clear()

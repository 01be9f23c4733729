"""What a rebuilt flow is made of, and the server that plays one on 127.0.0.1.

A :class:`Flow` is data: its routes (``(method, path)`` to a handler over the live
:class:`FlowState`), where a run starts, and the public record it was rebuilt from.
:class:`RebuiltServer` serves it like every practice site, with the ground truth at
``GET /__state``. There is no sign-in: every flow starts signed in, because what these
flows test begins after it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape

from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import Request, Response, html, json_response
from subterminator_tui.practice.server import PracticeServer

#: One route of a flow: the request and the account in, the response out.
Route = Callable[[Request, FlowState], Response]


@dataclass(frozen=True)
class Flow:
    """One rebuilt service: its pages and what each control does to the account."""

    id: str
    name: str
    #: The public record the pages were rebuilt from (a regulator's filing, a help page).
    source: str
    routes: Mapping[tuple[str, str], Route]
    #: Where a run starts (the account page).
    start_path: str = "/account"
    #: The state a fresh server starts from (a flow that begins within a window, say).
    initial: Callable[[], FlowState] = FlowState
    #: The honest path, as playbook steps (``{"action": "click", "name": ...}``): what a
    #: careful person clicks to cancel, declining every offer.
    path: tuple[Mapping[str, object], ...] = ()
    #: The label of the one step that ends the subscription ("" when none can: offline).
    commit: str = ""


def page(title: str, body: str, *, script: str = "") -> str:
    """A whole HTML document: ``title`` (escaped), ``body`` as given, an optional script."""
    tail = f"<script>\n{script}\n</script>" if script else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title>"
        "<style>body{font-family:sans-serif;max-width:40em;margin:2em auto}"
        ".btn{padding:.4em 1em;margin:.3em 0}</style></head>"
        f"<body>{body}{tail}</body></html>"
    )


def post_button(action: str, label: str, *, fields: Mapping[str, str] | None = None) -> str:
    """A form that POSTs ``fields`` to ``action`` through one submit button ``label``."""
    hidden = "".join(
        f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'
        for name, value in (fields or {}).items()
    )
    return (
        f'<form method="post" action="{escape(action)}">{hidden}'
        f'<button type="submit" class="btn">{escape(label)}</button></form>'
    )


def clicks(*names: str | tuple[str, str]) -> tuple[Mapping[str, object], ...]:
    """Playbook steps that click each control by name (``(role, name)`` to pin the role)."""
    steps: list[Mapping[str, object]] = []
    for name in names:
        if isinstance(name, tuple):
            steps.append({"action": "click", "role": name[0], "name": name[1]})
        else:
            steps.append({"action": "click", "name": name})
    return tuple(steps)


def link(href: str, label: str) -> str:
    """A plain link."""
    return f'<p><a href="{escape(href)}">{escape(label)}</a></p>'


class _FlowRouter:
    """Routes one flow's requests; unknown ones get a 404 page."""

    def __init__(self, flow: Flow, state: FlowState) -> None:
        self.flow = flow
        self.state = state

    def handle(self, request: Request) -> Response:
        if (request.method, request.path) == ("GET", "/__state"):
            return json_response(self.state.to_dict())
        route = self.flow.routes.get((request.method, request.path))
        if route is None:
            return html(page("Not found", "<h1>Page not found</h1>"), status=404)
        return route(request, self.state)


class RebuiltServer(PracticeServer[FlowState]):
    """Serves ``flow`` on 127.0.0.1 (a free port); ``state`` is its live ground truth."""

    site_name = "rebuilt"

    def __init__(self, flow: Flow, *, host: str = "127.0.0.1", port: int = 0) -> None:
        """Serve ``flow`` from its initial state; nothing listens until :meth:`start`."""
        self.flow = flow
        state = flow.initial()
        router = _FlowRouter(flow, state)
        super().__init__(state, router, session_cookie="rebuilt", host=host, port=port)

    @property
    def start_url(self) -> str:
        """The absolute address a run starts from."""
        return self.base_url + self.flow.start_path

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self.base_url.rsplit(":", 1)[1])

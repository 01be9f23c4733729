"""What a gauntlet scenario is made of: its pages, their order and what each control does.

A scenario is data the generic router (router.py) serves: an account page, the flow of pages
between starting and the final confirmation, the confirmation itself, and the dark
pattern's extras (side flows, plain pages, slow responses, failing requests). The pages
are functions of a small :class:`View`, so every scenario module stays HTML and wiring.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from subterminator_bench.gauntlet.state import CONFIRM, Effect, GauntletState
from subterminator_tui.practice.demoflix import pages as demoflix_pages
from subterminator_tui.practice.http import Request, Response


@dataclass(frozen=True)
class View:
    """What a page needs to know to render itself."""

    end_date: str
    #: A validation message to show (a required answer was missing).
    error: str | None = None
    #: Whether the cookie banner was answered already.
    cookies_chosen: bool = False
    #: The forbidden host's base URL (``http://127.0.0.2:PORT``), for pages that try to reach it.
    forbidden_url: str = ""
    #: The forbidden host's UDP port (a STUN/TURN server's address for WebRTC pages).
    forbidden_udp_port: int = 0


#: A page: the whole HTML document for a view.
Render = Callable[[View], str]
#: A route of a scenario's own that needs the request (a redirect built from it, say).
Responder = Callable[[Request, View], Response]
#: A route of a scenario's own that acts on the account (a single-page app's JSON API).
Action = Callable[[Request, GauntletState, View], Response]
#: What one WebSocket frame does to the account; the text it returns is sent back.
SocketAction = Callable[[GauntletState, str], str | None]


@dataclass(frozen=True)
class Detour:
    """A control that leaves the flow without cancelling, and the page it lands on."""

    effect: Effect
    landing: str


ACCEPT_OFFER = Detour("accept_offer", "/offer/accepted")
PAUSE = Detour("pause", "/cancel/paused")
CHANGE_PLAN = Detour("change_plan", "/plan/changed")
KEEP = Detour("keep", "/cancel/kept")


@dataclass(frozen=True)
class Question:
    """A form field a step requires (or merely records, when ``required`` is False)."""

    name: str
    error: str
    #: The accepted answers; empty means free text that must not be blank.
    choices: tuple[str, ...] = ()
    required: bool = True

    def check(self, value: str | None) -> tuple[str | None, str | None]:
        """``(answer to keep, error to show)`` for a submitted value."""
        answer = (value or "").strip()
        valid = answer in self.choices if self.choices else bool(answer)
        if valid:
            return answer, None
        return None, self.error if self.required else None


@dataclass(frozen=True)
class Step:
    """One page of a flow, served at ``path`` while the account's stage is ``path``.

    ``POST {path}/{onward}`` (``POST {path}`` when ``onward`` is empty) moves on once the
    questions are answered; ``POST {path}/{name}`` uses the detour of that name. A step
    whose ``onward`` is None can only be left by a detour or by going back to the account.
    """

    path: str
    render: Render
    onward: str | None = "continue"
    questions: tuple[Question, ...] = ()
    detours: Mapping[str, Detour] = field(default_factory=dict)

    @property
    def onward_action(self) -> str | None:
        """The path the way on posts to, or None when there is no way on."""
        if self.onward is None:
            return None
        return f"{self.path}/{self.onward}" if self.onward else self.path


def plain_confirm(view: View) -> str:
    """Demoflix's final confirmation: a quiet Finish cancellation beside a loud Keep button."""
    return demoflix_pages.confirm_page(end_date=view.end_date)


@dataclass(frozen=True)
class Scenario:
    """One dark pattern, served as a whole site by :class:`GauntletServer`."""

    id: str
    summary: str
    #: The account page while the membership is active; it holds the way into the flow.
    account: Render
    #: The pages between starting (``POST /cancel/start``) and the final confirmation.
    flow: tuple[Step, ...] = ()
    #: The final confirmation, served at ``/cancel/confirm``; it posts ``/cancel/finish``.
    confirm: Render = plain_confirm
    #: Flows that lead elsewhere (a plan change), entered by ``POST`` to the key path.
    side_entries: Mapping[str, Step] = field(default_factory=dict)
    #: Signed-in pages that change nothing (settings menus, framed widgets).
    pages: Mapping[str, Render] = field(default_factory=dict)
    #: Demoflix account variants in force: sign-in checks, an expiring session, and so on.
    site_variants: frozenset[str] = frozenset()
    #: The flow page whose first visit ends the session (with ``session_expiry``).
    expire_on: str | None = None
    #: Finishing requests that fail with an error page before one works.
    failing_finishes: int = 0
    #: Server-side seconds before every flow page answers; moves go through a loading page.
    delay: float = 0.0
    #: A cookie banner covers the page until ``POST /cookies`` answers it.
    cookie_banner: bool = False
    #: The account page sells an upgrade (``POST /upgrade``).
    upsell: bool = False
    #: The methods the finishing request ``/cancel/finish`` takes effect by.
    finish_by: tuple[str, ...] = ("POST",)
    #: Signed-in routes of the scenario's own, by ``(method, path)``.
    routes: Mapping[tuple[str, str], Responder] = field(default_factory=dict)
    #: Serve the forbidden host beside the site (pages learn its URL from the view).
    forbidden_host: bool = False
    #: Signed-in routes that act on the account, by ``(method, path)``.
    actions: Mapping[tuple[str, str], Action] = field(default_factory=dict)
    #: What a frame on a signed-in WebSocket to ``/socket`` does; None: no WebSocket.
    socket: SocketAction | None = None

    @property
    def first_stage(self) -> str:
        """Where ``POST /cancel/start`` leads: the first flow page, else the confirmation."""
        return self.flow[0].path if self.flow else CONFIRM

    def following(self, step: Step) -> str:
        """The stage after ``step`` on the main flow (the confirmation after the last)."""
        paths = [candidate.path for candidate in self.flow]
        index = paths.index(step.path)
        return paths[index + 1] if index + 1 < len(paths) else CONFIRM

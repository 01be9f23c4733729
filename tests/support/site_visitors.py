"""A browser-like HTTP client for the practice sites: pages as data, forms pressed by name.

The unit tests walk the practice sites with it over real HTTP, no browser, and the
browser tests use it to check a server's side of a trap.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from html import unescape
from http.cookiejar import CookieJar
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

#: A loading page's meta refresh and where it points.
META_REFRESH = re.compile(r'<meta http-equiv="refresh" content="\d+;url=([^"]+)">')
_IFRAME = re.compile(r'<iframe src="([^"]+)" title="([^"]+)"')
_FORM = re.compile(r'<form method="post" action="([^"]*)">(.*?)</form>', re.S)
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')
_BUTTON = re.compile(r"<button[^>]*>(.*?)</button>", re.S)
_LINK = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.S)


@dataclass
class Page:
    """One response as the client saw it, after following redirects."""

    status: int
    url: str
    html: str

    @property
    def path(self) -> str:
        """The final URL's path and query."""
        parts = urlsplit(self.url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    @property
    def title(self) -> str:
        """The document title."""
        match = re.search(r"<title>(.*?)</title>", self.html, re.S)
        return unescape(match.group(1)) if match else ""

    @property
    def text(self) -> str:
        """The visible body text, whitespace-collapsed and unescaped."""
        body = re.sub(r"<(style|title)>.*?</\1>", " ", self.html, flags=re.S)
        return " ".join(unescape(re.sub(r"<[^>]+>", " ", body)).split())

    @property
    def forms(self) -> list[tuple[str, dict[str, str], list[str]]]:
        """Each form as (action, hidden fields, button names)."""
        return [
            (
                unescape(action),
                {name: unescape(value) for name, value in _HIDDEN.findall(inner)},
                [unescape(name) for name in _BUTTON.findall(inner)],
            )
            for action, inner in _FORM.findall(self.html)
        ]

    @property
    def links(self) -> dict[str, str]:
        """Link text to href."""
        return {unescape(text): unescape(href) for href, text in _LINK.findall(self.html)}

    @property
    def buttons(self) -> list[str]:
        """Every submit button's visible name."""
        return [name for _action, _fields, names in self.forms for name in names]


class Client:
    """A cookie-keeping, redirect-following HTTP client, like a minimal browser."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def open(self, path: str, data: bytes | None = None) -> Page:
        """GET ``path`` (POST when ``data`` is given), following redirects."""
        request = urllib.request.Request(urljoin(self.base_url, path), data=data)
        try:
            with self.opener.open(request, timeout=10) as response:
                return Page(response.status, response.url, response.read().decode())
        except urllib.error.HTTPError as error:
            with error:
                return Page(error.code, error.url, error.read().decode())

    def post(self, path: str, fields: dict[str, str] | None = None) -> Page:
        """POST a form to ``path`` directly, bypassing the page."""
        return self.open(path, urlencode(fields or {}).encode())

    def press(self, page: Page, button: str, **fields: str) -> Page:
        """Submit the form on ``page`` that holds ``button``, as clicking it would."""
        action, hidden = next((a, h) for a, h, names in page.forms if button in names)
        return self.post(action, {**hidden, **fields})

    def sign_in(self, username: str = "demo", password: str = "demo-pass") -> Page:
        """Sign in through the login page."""
        page = self.open("/login")
        return self.press(page, "Sign in", username=username, password=password)

    def walk_to_confirm(self) -> Page:
        """From a signed-in account page, go through survey and offer to the confirmation."""
        survey = self.press(self.open("/account"), "Cancel membership")
        offer = self.press(survey, "Continue", reason="Too expensive")
        return self.press(offer, "Continue to cancel")


@dataclass(frozen=True)
class Act:
    """One thing a person does: press a form's button, follow a link, or look inside a frame."""

    kind: str
    target: str
    fields: dict[str, str] = field(default_factory=dict)


def press(button: str, **fields: str) -> Act:
    """Submit the form holding ``button`` with ``fields`` typed or chosen."""
    return Act("press", button, fields)


def follow(link: str) -> Act:
    """Follow the link with this text."""
    return Act("follow", link)


def send(path: str, body: dict[str, Any]) -> Act:
    """POST ``body`` as JSON to ``path``, as a single-page app's ``fetch`` does."""
    return Act("json", path, {"body": json.dumps(body)})


def visit(path: str) -> Act:
    """Open ``path`` (a GET form's submission: its action with the fields as the query)."""
    return Act("visit", path)


def frame(title: str) -> Act:
    """Continue inside the iframe with this title."""
    return Act("frame", title)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Leave redirects unfollowed, so they surface as HTTPError with their Location."""

    def redirect_request(self, *_args: Any, **_kwargs: Any) -> None:
        return None


class Visitor(Client):
    """A client that, like a browser, follows a page's meta refresh and remembers every page."""

    def __init__(self, base_url: str) -> None:
        super().__init__(base_url)
        self.seen: list[Page] = []

    def open(self, path: str, data: bytes | None = None) -> Page:
        """GET or POST ``path``, then follow meta refreshes (a loading page) to the real page."""
        page = super().open(path, data)
        self.seen.append(page)
        for _ in range(3):
            refresh = META_REFRESH.search(page.html)
            if refresh is None:
                break
            page = super().open(unescape(refresh.group(1)))
            self.seen.append(page)
        return page

    def send_json(self, path: str, body: str) -> Page:
        """POST ``body`` as ``application/json`` (a single-page app's request)."""
        request = urllib.request.Request(
            urljoin(self.base_url, path),
            data=body.encode(),
            headers={"Content-Type": "application/json"},
        )
        with self.opener.open(request, timeout=10) as response:
            page = Page(response.status, response.url, response.read().decode())
        self.seen.append(page)
        return page

    def peek(self, path: str) -> tuple[int, str | None]:
        """GET ``path`` without following a redirect: the status and where it points."""
        opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )
        try:
            with opener.open(urljoin(self.base_url, path), timeout=10) as response:
                return response.status, None
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.headers["Location"]

    def act(self, page: Page, act: Act) -> Page:
        """Do ``act`` on ``page`` and return where it leads."""
        if act.kind == "follow":
            assert act.target in page.links, f"no link {act.target!r} on {page.path}"
            return self.open(page.links[act.target])
        if act.kind == "visit":
            return self.open(act.target)
        if act.kind == "json":
            return self.send_json(act.target, act.fields["body"])
        if act.kind == "frame":
            frames = {unescape(title): src for src, title in _IFRAME.findall(page.html)}
            assert act.target in frames, f"no frame {act.target!r} on {page.path}"
            return self.open(frames[act.target])
        assert act.target in page.buttons, f"no button {act.target!r} on {page.path}"
        return self.press(page, act.target, **act.fields)

    def walk(self, acts: tuple[Act, ...], start: str = "/account") -> Page:
        """Open ``start`` and do every act in turn."""
        page = self.open(start)
        for act in acts:
            page = self.act(page, act)
        return page

"""Signing in at an identity provider: the person alone, the provider reachable only meanwhile.

A service that names ``sign_in_domains`` may send the browser to Google, Apple,
Microsoft, ... to sign in, by a redirect or in a pop-up. Those pages belong to the
person: the window opens (the run's Reachability lets the browser reach them), the
person signs in, the window closes again, and whatever is still on a provider's page
is closed before the model reads anything. A page refused while the window was
closed (the egress filter answered for it) is loaded again once it is open.
"""

from __future__ import annotations

import re

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.guarded.browser import Browser
from subterminator_tui.guarded.tabs import contain_tabs, open_tabs
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.reach.urls import web_host

#: The title of the egress filter's own answer for a refused page.
_REFUSED_TITLE = "SubTerminator blocked a request to"
_TAB_TITLE = re.compile(r"^- (?P<index>\d+): (?:\(current\) )?\[(?P<title>.*)\]\((?P<url>[^)]*)\)")


def sign_in_pending(reach: Reachability | None, snapshot: NormalizedSnapshot) -> bool:
    """Whether the page, or another of its tabs (a pop-up), is on a sign-in domain."""
    if reach is None or not reach.sign_in_domains:
        return False
    if reach.is_sign_in_page(snapshot.url):
        return True
    return any(reach.is_sign_in_page(tab.url) for tab in open_tabs(snapshot))


def provider_host(reach: Reachability, snapshot: NormalizedSnapshot) -> str:
    """The identity provider's host the page (or a pop-up) shows, for the person's prompt."""
    urls = [snapshot.url, *(tab.url for tab in open_tabs(snapshot))]
    for url in urls:
        if reach.is_sign_in_page(url):
            return web_host(url) or url
    return ", ".join(reach.sign_in_domains)


async def reload_refused(browser: Browser, snapshot: NormalizedSnapshot) -> NormalizedSnapshot:
    """Load again the sign-in pages the filter refused while the window was closed.

    The pop-up tab (or the current one) is left selected: the person signs in there.
    """
    refused = [
        (int(match["index"]), match["url"])
        for line in snapshot.notes.get("Open tabs", "").splitlines()
        if (match := _TAB_TITLE.match(line.strip())) and _REFUSED_TITLE in match["title"]
    ]
    if not refused and snapshot.title.startswith(_REFUSED_TITLE):
        return (await browser.call("browser_navigate", {"url": snapshot.url})).snapshot
    page = snapshot
    for index, url in refused:
        await browser.call("browser_tabs", {"action": "select", "index": index})
        page = (await browser.call("browser_navigate", {"url": url})).snapshot
    return page


async def close_sign_in(
    reach: Reachability, browser: Browser, snapshot: NormalizedSnapshot
) -> NormalizedSnapshot:
    """Close the window, then every tab still on a provider's page: the service's page remains."""
    reach.close_sign_in()
    page, _removed = await contain_tabs(browser, snapshot, reach.reachable)
    return page

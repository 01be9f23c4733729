"""``subterminator inspect``: show what the rules see on a service's page."""

from __future__ import annotations

import argparse
import sys

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.headless.console import read_line
from subterminator_tui.rules import (
    ServiceConfig,
    detect_handoff,
    domain_allowed,
    first_holding,
    load_services,
    verify_completion,
)
from subterminator_tui.running import run_command
from subterminator_tui.session.browser import open_service_browser
from subterminator_tui.settings import load_settings

# Roles worth listing for someone writing rules; structure-only nodes are left out.
_LISTED_ROLES = frozenset(
    {
        "heading",
        "button",
        "link",
        "textbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "option",
        "menuitem",
        "tab",
        "switch",
        "dialog",
        "alert",
        "img",
    }
)


def describe_page(service: ServiceConfig, snapshot: NormalizedSnapshot) -> list[str]:
    """The report lines: the page, its notable elements and which rules hold."""
    lines = [f"URL:   {snapshot.url}", f"Title: {snapshot.title}", "", "Elements:"]
    for element in snapshot.elements:
        if element.role not in _LISTED_ROLES or not element.label:
            continue
        states = f" [{', '.join(sorted(element.states))}]" if element.states else ""
        level = f" h{element.level}" if element.level else ""
        ref = element.ref or "-"
        lines.append(f"  {ref:>5}  {element.role}{level} {element.label!r}{states}")
    verification = verify_completion(service, snapshot)
    handoff = detect_handoff(service, snapshot)
    failure = first_holding(service.failure, snapshot)
    lines += ["", "Rules:"]
    lines.append(
        f"  success:  {'holds' if verification.verified else 'does not hold'}"
        + (f" ({verification.success_rule.explain()})" if verification.success_rule else "")
    )
    lines.append(f"  failure:  {failure.explain() if failure else 'none holds'}")
    lines.append(
        f"  hand-off: {handoff.kind + ' (' + handoff.rule.explain() + ')' if handoff else 'none'}"
    )
    return lines


def run_inspect(args: argparse.Namespace) -> int:
    """Open the page, print the report, optionally keep the browser open."""

    async def inspect() -> int:
        settings = load_settings()
        service = load_services(args.services).get(args.service)
        async with open_service_browser(
            service, settings, headless=args.headless, profile_dir=args.profile_dir
        ) as opened:
            url = args.url or opened.start_url
            allowed = service.allowed_domains
            if not domain_allowed(url, allowed):
                raise ConfigurationError(
                    f"{url} is outside {service.id}'s allowed_domains ({', '.join(allowed)})"
                )
            page = (await opened.gateway.call("browser_navigate", {"url": url})).snapshot
            print("\n".join(describe_page(service, page)), flush=True)
            if args.wait:
                print("The browser stays open: press Enter to close it.", file=sys.stderr)
                await read_line()
        return 0

    return run_command(inspect)

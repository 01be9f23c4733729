"""``subterminator inspect``: show what the rules see on a service's page."""

from __future__ import annotations

import argparse
import sys

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.command_run import run_command
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.headless.console import read_line
from subterminator_tui.rules import (
    PageRule,
    ServiceConfig,
    detect_handoff,
    domain_allowed,
    first_holding,
    generic_service,
    load_services,
    verify_completion,
)
from subterminator_tui.rules.generic import is_generic_rule
from subterminator_tui.session.browser import open_service_browser
from subterminator_tui.session.request import looks_like_site
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
    success = verification.success_rule
    lines.append(
        f"  success:  {'holds' if verification.verified else 'does not hold'}"
        + (f" ({_whose(success)}{success.explain()})" if success else "")
    )
    lines.append(f"  failure:  {_whose(failure) + failure.explain() if failure else 'none holds'}")
    handed = f"{handoff.kind} ({_whose(handoff.rule)}{handoff.rule.explain()})" if handoff else ""
    lines.append(f"  hand-off: {handed or 'none'}")
    return lines


def _whose(rule: PageRule) -> str:
    """ "generic rule: " before a built-in generic rule, so nobody takes it for the service's."""
    return "generic rule: " if is_generic_rule(rule) else ""


def inspected_service(args: argparse.Namespace) -> ServiceConfig:
    """The service ``inspect`` judges with: a known one, else any site by ``--url``."""
    if not args.service and not args.url:
        raise ConfigurationError("Name a service, or a page with --url https://example.com/...")
    if not args.service:
        return generic_service(args.url)
    registry = load_services(args.services)
    if args.service not in registry and looks_like_site(args.service):
        return generic_service(args.service)
    return registry.get(args.service)


def run_inspect(args: argparse.Namespace) -> int:
    """Open the page, print the report, optionally keep the browser open."""

    async def inspect() -> int:
        settings = load_settings()
        service = inspected_service(args)
        if args.url and not args.service:
            args.url = service.start_url  # the address as the browser will open it
        async with open_service_browser(
            service, settings, headless=args.headless, profile_dir=args.profile_dir
        ) as opened:
            url = args.url or opened.start_url
            # The opened service: a practice site's address is pinned to its port there.
            allowed = opened.service.allowed_domains
            reach = opened.reach
            if not (reach.reachable(url) if reach else domain_allowed(url, allowed)):
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

"""``subterminator services``: the real services first, practice sites apart, and their files."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import get_args

from subterminator_tui.command_run import run_command
from subterminator_tui.resources import gauntlet_scenarios_file
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.rules.models import Category


def listing_order(services: Sequence[ServiceConfig]) -> list[ServiceConfig]:
    """Catalog services first, grouped by category in the catalog's order, then the rest by id."""
    categories = list(get_args(Category))
    return sorted(
        services,
        key=lambda service: (
            categories.index(service.category) if service.category else len(categories),
            service.id,
        ),
    )


def _row(service: ServiceConfig) -> tuple[str, str, str, str]:
    notes: list[str] = [service.category] if service.category else []
    if service.practice:
        notes.append(f"practice: {service.practice}")
    if service.unverified:
        notes.append("unverified")
    if service.playbook:
        notes.append("playbook")
    return (service.id, service.name, ", ".join(notes), str(service.source))


def _print_section(title: str, services: Sequence[ServiceConfig]) -> None:
    if not services:
        return
    rows = [_row(service) for service in listing_order(services)]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    print(f"{title}:")
    for row in rows:
        print(f"  {row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}")


def run_services(args: argparse.Namespace) -> int:
    """Real services (the catalog by category), then practice services; the gauntlet on request."""

    async def list_services() -> int:
        with_gauntlet = args.all or args.practice
        registry = load_services(args.services, practice_scenarios=with_gauntlet)
        real = [service for service in registry.all() if not service.practice]
        practice = [service for service in registry.all() if service.practice]
        if not args.practice:
            _print_section("Services", real)
        _print_section("Practice services (bundled sites on this computer)", practice)
        # Only a source checkout has the gauntlet (it belongs to the bench).
        if not with_gauntlet and gauntlet_scenarios_file() is not None:
            print("The practice gauntlet's scenarios: subterminator services --practice")
        return 0

    return run_command(list_services)

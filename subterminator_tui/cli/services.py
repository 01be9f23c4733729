"""``subterminator services``: every service, and the file it comes from."""

from __future__ import annotations

import argparse
from typing import get_args

from subterminator_tui.cli.running import run_command
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.rules.models import Category


def listing_order(services: list[ServiceConfig]) -> list[ServiceConfig]:
    """Catalog services first, grouped by category in the catalog's order, then the rest by id."""
    categories = list(get_args(Category))
    return sorted(
        services,
        key=lambda service: (
            categories.index(service.category) if service.category else len(categories),
            service.id,
        ),
    )


def run_services(args: argparse.Namespace) -> int:
    """Print one line per service: id, name, notes and source file."""

    async def list_services() -> int:
        registry = load_services(args.services)
        rows = []
        for service in listing_order(registry.all()):
            notes: list[str] = [service.category] if service.category else []
            if service.practice:
                notes.append(f"practice: {service.practice}")
            if service.unverified:
                notes.append("unverified")
            if service.playbook:
                notes.append("playbook")
            rows.append((service.id, service.name, ", ".join(notes), str(service.source)))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            print(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}")
        return 0

    return run_command(list_services)

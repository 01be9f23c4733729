"""``subterminator egress SERVICE``: the egress filter on its own, to run beside a remote browser.

A local browser gets a filter of its own for every run. A remote one (``browser_backend``
``cdp`` or ``endpoint``) is started elsewhere, so its filter runs there too: this
command, next to the remote Chromium, which is started with ``--proxy-server`` naming
it (docs/remote-browsers.md). It allows what SERVICE's ``allowed_domains`` allow.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from subterminator_tui.browser.egress.addresses import listen_address
from subterminator_tui.cli.options import add_services_option
from subterminator_tui.command_run import run_command
from subterminator_tui.errors import ConfigurationError


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6); ConfigurationError when malformed."""
    address = listen_address(text)
    if address is None:
        raise ConfigurationError(
            f"--listen takes HOST:PORT, such as 127.0.0.1:3128 (got {text!r})."
        )
    return address


def add_egress_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``egress`` subcommand's options."""
    egress = commands.add_parser(
        "egress",
        help="run the egress filter for SERVICE on its own (beside a remote browser)",
        description="Run SERVICE's egress filter as an HTTP proxy until Ctrl+C or SIGTERM. "
        "Start the remote browser with --proxy-server naming it and set remote_egress to it; "
        "see docs/remote-browsers.md. Prints 'egress filter for SERVICE on URL' when ready.",
    )
    egress.add_argument("service", help="service id whose allowed_domains apply")
    egress.add_argument(
        "--listen",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help="where to listen (default 127.0.0.1 on a free port; in a pod, 127.0.0.1:3128)",
    )
    egress.add_argument(
        "--practice-url",
        metavar="URL",
        help="a practice service's site running here: its address means that origin (port)",
    )
    add_services_option(egress)


def run_egress(args: argparse.Namespace) -> int:
    """Serve the filter until a signal; 130 on Ctrl+C, 143 on SIGTERM."""

    # Imported here: the parser (built for every command) stays light.
    from subterminator_tui.browser.egress import EgressPolicy, EgressProxy
    from subterminator_tui.rules import load_services
    from subterminator_tui.rules.service_urls import pinned_to_site
    from subterminator_tui.session.request import check_practice_service

    async def serve() -> int:
        service = load_services(args.services).get(args.service)
        if args.practice_url is not None:
            # A loopback address means one origin: the practice site's, on its port today.
            check_practice_service(args.practice_url, service)
            service = pinned_to_site(service, args.practice_url)
        proxy = EgressProxy(
            EgressPolicy.for_domains(service.allowed_domains), listen=parse_listen(args.listen)
        )
        try:
            await proxy.start()
        except OSError as error:
            raise ConfigurationError(f"Cannot listen on {args.listen}: {error}") from error
        try:
            domains = ", ".join(service.allowed_domains)
            print(f"egress filter for {service.id} ({domains}) on {proxy.url}", flush=True)
            if proxy.listen_host not in ("127.0.0.1", "::1", "localhost"):
                print(
                    "warning: listening beyond loopback; anything that reaches this port may "
                    "use it as a proxy within those domains",
                    file=sys.stderr,
                    flush=True,
                )
            await asyncio.Event().wait()
        finally:
            await proxy.close()
            # What passed and what did not: an operator's check that the browser used it.
            counters = proxy.counters
            print(
                f"egress filter for {service.id} stopped: {counters.allowed_total} allowed, "
                f"{len(counters.blocked)} blocked",
                flush=True,
            )
        return 0

    return run_command(serve)

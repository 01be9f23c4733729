"""``subterminator cancel SERVICE``: one run, headless (the Textual app reuses build_run)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from subterminator_tui.browser.tools import ALLOWED_TOOLS, MODEL_TOOL_NAMES
from subterminator_tui.cli.running import run_command
from subterminator_tui.errors import ConfigurationError, OrchestratorError
from subterminator_tui.headless.gate import TerminalGate
from subterminator_tui.headless.reporter import TerminalReporter
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import Notice, Reporter
from subterminator_tui.orchestrator.gates import HumanGate
from subterminator_tui.orchestrator.guard import Guard
from subterminator_tui.orchestrator.loop import Orchestrator, RunOptions
from subterminator_tui.orchestrator.result import TaskResult
from subterminator_tui.orchestrator.virtual_tools import VIRTUAL_TOOL_SPECS
from subterminator_tui.pilots.ai import AIPilot
from subterminator_tui.pilots.auto import AutoPilot
from subterminator_tui.pilots.base import Pilot
from subterminator_tui.pilots.page_view import NAIVE_VIEW
from subterminator_tui.pilots.playbook import PlaybookPilot
from subterminator_tui.practice.sites import practice_hint
from subterminator_tui.providers.base import ToolSpec
from subterminator_tui.providers.resolution import (
    create_model_client,
    missing_model_reason,
    resolve_model_name,
)
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.service_browser import ServiceBrowser, open_service_browser
from subterminator_tui.settings import Settings, load_settings

ENABLE_AI_HINT = (
    "To let the AI take over, set ANTHROPIC_API_KEY (or OPENAI_API_KEY with --model gpt-4o, "
    "or --model openai:<name> with an OpenAI-compatible server)."
)


@dataclass(frozen=True)
class RunRequest:
    """What a person asked for on the command line (or in the app)."""

    service: str
    model: str | None = None
    pilot: str = "auto"
    max_turns: int | None = None
    dry_run: bool = False
    checkpoints: bool = True
    headless: bool | None = None
    profile_dir: str | None = None
    services: tuple[str, ...] = ()
    #: The benchmark's baseline: every server tool, full snapshots, full history.
    naive: bool = False


def build_pilot(
    request: RunRequest,
    service: ServiceConfig,
    settings: Settings,
    start_url: str,
    reporter: Reporter,
    server_tools: Sequence[ToolSpec] = (),
) -> Pilot:
    """The pilot ``--pilot`` asks for; ConfigurationError when it cannot drive this service."""
    missing = missing_model_reason(request.model, settings)

    def make_ai() -> AIPilot:
        model = resolve_model_name(request.model, settings)
        client = create_model_client(model, settings)
        if request.naive:
            tools = [*server_tools, *VIRTUAL_TOOL_SPECS]
            return AIPilot(client, service, tools=tools, view=NAIVE_VIEW)
        return AIPilot(client, service)

    if request.pilot == "ai":
        if missing:
            raise ConfigurationError(missing)
        return make_ai()
    if request.pilot == "playbook":
        if not service.playbook:
            raise ConfigurationError(f"Service '{service.id}' has no playbook; use --pilot ai.")
        return PlaybookPilot(service, start_url)
    if not service.playbook:
        if missing:
            raise ConfigurationError(missing)
        return make_ai()
    return AutoPilot(
        PlaybookPilot(service, start_url),
        None if missing else make_ai,
        no_model_reason=f"{missing} {ENABLE_AI_HINT}" if missing else "",
        on_handover=lambda text: reporter.emit(Notice(text)),
    )


def check_request(request: RunRequest) -> tuple[Settings, ServiceConfig]:
    """Settings and service for ``request``; ConfigurationError before anything starts.

    A bad model name or a missing key fails here. A model named explicitly must
    be usable even when the playbook may never need it.
    """
    settings = load_settings()
    service = load_services([Path(p) for p in request.services]).get(request.service)
    needs_model = (
        request.pilot == "ai"
        or (request.model is not None and request.pilot != "playbook")
        or (request.pilot == "auto" and not service.playbook)
    )
    missing = missing_model_reason(request.model, settings) if needs_model else None
    if missing:
        raise ConfigurationError(missing)
    if request.pilot == "playbook" and not service.playbook:
        raise ConfigurationError(f"Service '{service.id}' has no playbook; use --pilot ai.")
    return settings, service


@dataclass(frozen=True)
class PreparedRun:
    """A run ready to start, and the browser (and practice site) it drives."""

    orchestrator: Orchestrator
    browser: ServiceBrowser


@asynccontextmanager
async def prepared_run(
    request: RunRequest, gate: HumanGate, reporter: Reporter
) -> AsyncIterator[PreparedRun]:
    """Everything a run needs, started; the browser is closed on exit however the run ends."""
    settings, service = check_request(request)
    max_turns = request.max_turns or service.max_turns or settings.max_turns
    with Journal(settings.resolved_journal()) as journal:
        async with open_service_browser(
            service,
            settings,
            headless=request.headless,
            profile_dir=Path(request.profile_dir) if request.profile_dir else None,
        ) as opened:
            server_tools = [
                ToolSpec(tool.name, tool.description or "", tool.input_schema)
                for tool in opened.gateway.server_tools.values()
            ]
            pilot = build_pilot(
                request, service, settings, opened.start_url, reporter, server_tools
            )
            offered = ALLOWED_TOOLS if request.naive else MODEL_TOOL_NAMES
            orchestrator = Orchestrator(
                service,
                opened.gateway,
                pilot,
                gate,
                reporter,
                Guard(service, offered_tools=offered, checkpoints=request.checkpoints),
                RunOptions(
                    start_url=opened.start_url,
                    max_turns=max_turns,
                    headed=not opened.gateway.plan.headless,
                    dry_run=request.dry_run,
                    handoff_hint=_practice_hint(opened),
                ),
                journal,
            )
            try:
                yield PreparedRun(orchestrator, opened)
            finally:
                await pilot.aclose()


def _practice_hint(opened: ServiceBrowser) -> str:
    return practice_hint() if opened.practice is not None else ""


def request_from_args(args: argparse.Namespace) -> RunRequest:
    """The RunRequest the command line describes."""
    return RunRequest(
        service=args.service,
        model=args.model,
        pilot=args.pilot,
        max_turns=args.max_turns,
        dry_run=args.dry_run,
        checkpoints=not args.no_checkpoint,
        headless=args.headless,
        profile_dir=str(args.profile_dir) if args.profile_dir else None,
        services=tuple(str(path) for path in args.services),
    )


def wants_tui(args: argparse.Namespace) -> bool:
    """The app runs on a terminal unless --no-tui, --json or --dry-run say otherwise."""
    if args.no_tui or args.json or args.dry_run:
        return False
    return sys.stdout.isatty() and sys.stdin.isatty()


def run_cancel(args: argparse.Namespace) -> int:
    """Run in the app on a terminal, headless otherwise; the exit code follows the TaskResult."""
    request = request_from_args(args)
    if wants_tui(args):
        try:
            from subterminator_tui.tui.run import run_tui

            return run_tui(request)
        except OrchestratorError as failure:
            print(f"error: {failure}", file=sys.stderr)
            return failure.exit_code
    # With --json, stdout carries only the JSON; turn lines and prompts move to stderr.
    out = sys.stderr if args.json else sys.stdout
    reporter = TerminalReporter(out=out, verbose=args.verbose)
    gate = TerminalGate(out=out)

    async def cancel() -> int:
        async with prepared_run(request, gate, reporter) as prepared:
            result: TaskResult = await prepared.orchestrator.run()
        if args.json:
            print(json.dumps(result.to_dict(), indent=2))
        return result.exit_code

    return run_command(cancel)

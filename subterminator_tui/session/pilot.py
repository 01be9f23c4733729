"""The pilot a request asks for: the playbook, the AI, or the playbook with the AI behind it."""

from __future__ import annotations

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.orchestrator.events import Notice, Reporter
from subterminator_tui.pilots.ai import AIPilot
from subterminator_tui.pilots.auto import AutoPilot
from subterminator_tui.pilots.base import Pilot
from subterminator_tui.pilots.playbook import PlaybookPilot
from subterminator_tui.providers.resolution import (
    create_model_client,
    missing_model_reason,
    resolve_model_name,
)
from subterminator_tui.session.request import CheckedRequest

ENABLE_AI_HINT = (
    "To let the AI take over, set ANTHROPIC_API_KEY (or OPENAI_API_KEY with --model gpt-4o, "
    "or --model openai:<name> with an OpenAI-compatible server)."
)


def build_pilot(
    checked: CheckedRequest,
    start_url: str,
    reporter: Reporter,
) -> Pilot:
    """The pilot ``--pilot`` asks for; ConfigurationError when it cannot drive this service."""
    request, service, settings = checked.request, checked.service, checked.settings
    missing = missing_model_reason(request.model, settings)

    def make_ai() -> AIPilot:
        model = resolve_model_name(request.model, settings)
        return AIPilot(create_model_client(model, settings), service)

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

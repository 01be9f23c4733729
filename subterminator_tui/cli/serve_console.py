"""``subterminator serve --tui``: the operator console (Textual) with MCP over HTTP."""

from __future__ import annotations

import argparse
import sys

from subterminator_tui.cli.serve import http_options, serve_config
from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.exit_codes import CONFIGURATION
from subterminator_tui.serve.server.http import http_transport
from subterminator_tui.serve.server.tokens import default_tokens_file


def run_serve_console(args: argparse.Namespace) -> int:
    """The console decides held calls; MCP goes over HTTP (the console owns the terminal)."""
    if not args.http:
        print(
            "error: --tui needs --http HOST:PORT: the console owns this terminal, so MCP "
            "cannot use stdin and stdout.",
            file=sys.stderr,
        )
        return CONFIGURATION
    # Textual is loaded only once the console is really wanted (as cancel does for the app).
    from subterminator_tui.tui.actions import binding_ids
    from subterminator_tui.tui.keymap import check_keymap
    from subterminator_tui.tui.operator_console import OperatorConsole, run_console

    try:
        options = http_options(args, (args.tokens or default_tokens_file()).expanduser())
        config = serve_config(args)
        check_keymap(config.settings.keymap, binding_ids())
        console = OperatorConsole(
            config,
            lambda announce: http_transport(options, announce),
            token_verifier=options.verifier(),
            issuer_url=f"http://{args.http}",
            image_previews=config.settings.image_previews,
        )
    except SubTerminatorError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    return run_console(console)

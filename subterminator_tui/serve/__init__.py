"""``subterminator serve``: the guarded browser offered to other AI agents as MCP tools.

Five groups in layers, read top-down (each package's docstring lists its modules),
over the leaves every group shares, here at the top of ``serve``:

- ``server``     running the server: parts, lifecycle, stdio and Streamable HTTP,
                 tokens, revocations, the live view, the sessions' health watch
- ``tools``      the MCP tool surface: browser, session, approval and call-log tools,
                 what each call answers and the one error contract
- ``sessions``   one agent's named browser (``BrowserSession``) and the registry of
                 them: names, the lazy browser, sign-ins, hand-offs, verification,
                 the session's request gate
- ``oversight``  what the operator sees and decides: the call log (what agents read
                 back with get_content), console messages, approvals, the terminal
                 operator
- ``health``     restarts with backoff and degraded sessions: the bookkeeping

The leaves: ``config`` (``ServeConfig``: profiles, limits, timeouts), ``errors`` (what
the server refuses with, each saying what to do next), ``names`` (principals and
session names, safe as folder names) and ``agent_answer`` (``Answer``: a call's status,
message and fresh page, as the agent reads it).

Nothing here imports Textual (an import-linter contract keeps it so); the operator
console (``serve --tui``) lives with the app.
"""

"""``subterminator serve``: the guarded browser offered to other AI agents as MCP tools.

Five groups, read top-down (each package's docstring lists its modules):

- ``server``     running the server: parts, lifecycle, stdio and Streamable HTTP,
                 tokens, the live view, configuration and errors
- ``tools``      the MCP tool surface: browser, session, approval and call-log tools,
                 what each call answers and the one error contract
- ``sessions``   one agent's named browser (``BrowserSession``) and the registry of
                 them: names, the lazy browser, sign-ins, hand-offs, verification,
                 the session's request gate
- ``health``     pings, restarts with backoff, degraded sessions
- ``oversight``  what the operator sees and decides: the call log (what agents read
                 back with get_content), console messages, approvals, the terminal
                 operator

Nothing here imports Textual (an import-linter contract keeps it so); the operator
console (``serve --tui``) lives with the app.
"""

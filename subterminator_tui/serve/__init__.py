"""``subterminator serve``: the guarded browser offered to other AI agents as MCP tools.

- ``names``      who may hold which session: principals and session names
- ``approvals``  gated calls waiting for the operator (never the agent) to decide
- ``session``    one named browser session: lazy browser, guard, journal, one call at a time
- ``held_requests`` the session's request gate: requests the page sends unasked go to the operator
- ``registry``   every session, keyed by (principal, name), with limits and idle timeouts
- ``answers``    what a tool call returns: the fresh compact page, an approval id, an error
- ``verification`` the ``verified`` flag, on the same evidence as a run's success
- ``tools``      the MCP tool surface (mcp's MCPServer), for any transport
- ``operator``   the headless operator: approvals asked on a terminal
- ``http``       Streamable HTTP with bearer tokens, Host/Origin allowlists, a body limit
- ``tokens``     the tokens file: token -> principal

Nothing here imports Textual (an import-linter contract keeps it so); the operator
console (``serve --tui``) lives with the app.
"""

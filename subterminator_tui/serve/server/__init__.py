"""Running the server: its parts, its transports and who may reach them.

- ``lifecycle``     the parts (journal, registry, desk, MCP server, health watch) built
                    and shut down cleanly; ``serve()`` until the transport ends or a signal
- ``http``          Streamable HTTP at ``/mcp``: bearer tokens, Host/Origin allowlists
- ``http_front``    in front of ``/mcp``: MCP sessions per principal capped, a helpful 401
- ``http_timeouts`` deadlines for a request's head and body (slow clients)
- ``tokens``        the tokens file: token hash -> principal
- ``live_view``     ``GET /sessions/{name}/screenshots``: a session's page as SSE frames
- ``request_headers`` one reading of a request's headers (a repeated one is refused)
- ``revocations``   a revoked token's streams, held calls and sessions ended
- ``session_monitor`` ``HealthMonitor``: pings idle browsers, notices crashes, restarts them
"""

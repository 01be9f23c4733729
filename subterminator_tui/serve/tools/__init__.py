"""The MCP tool surface: what an agent can call, and what every call answers.

- ``mcp_server``      ``build_server``: the MCP server, each group of tools added to it
- ``session_tools``   session_open, session_list, session_close
- ``browser_tools``   navigate, snapshot, click, type, select, press_key, back, dialog,
                      wait_for: each onto one allowlisted Playwright tool
- ``approval_tools``  approval_wait (no tool decides an approval)
- ``call_log_tools``  get_content and get_console_content: the call log read back
- ``tool_calls``      what every tool shares: the caller's principal, progress, results
- ``surface``         each tool's title, behaviour hints and answer schema
- ``error_contract``  one structured failure with a stable ``error`` code for every tool
- ``playwright_profile``  ``serve --tools playwright``: Playwright MCP's tools and answers
                      on the same guarded sessions
"""

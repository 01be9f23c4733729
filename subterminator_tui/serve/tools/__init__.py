"""The MCP tool surface: what an agent can call, and what every call answers.

- ``mcp_server``      ``build_server``: the MCP server with every group of tools added
- ``call_log_tools``  get_content and get_console_content: the call log read back
- ``surface``         each tool's title, behaviour hints and answer schema
- ``error_contract``  one structured failure with a stable ``error`` code for every tool
- ``agent_answer``    ``Answer``: a call's status, message and fresh page, as the agent reads it
"""

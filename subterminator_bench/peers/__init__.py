"""The gauntlet beside the bare browsers: one scripted agent against several MCP servers.

``python -m subterminator_bench --servers subterminator,playwright-mcp,chrome-devtools-mcp``
(``make bench-peers``) runs every gauntlet scenario through the official MCP client on each
server and judges each run by the practice server's ground truth (docs/peers.md).

- ``agent``           the scripted agent: the bench's brains, their moves made abstract,
                      a lure per money trap, and which moves are hostile
- ``dialects``        per server, moves into tool calls and answers into the page text
- ``servers``         the servers compared and their command lines (safety flags included)
- ``operator``        serve's operator, scripted on a pseudo-terminal
- ``person_sign_in``  the person's sign-in, saved for serve where the site asks for one
- ``harness``         one scenario on one server, measured against the ground truth
- ``report``          the per-server table, the JSON and the SVG chart
- ``page``            the manual's page, written from the runs
- ``command``         the ``--servers`` run over the scenarios, its outputs and exit code
"""

"""The benchmark: the practice gauntlet run by a pilot and judged by the practice server.

Not part of the installed package: it lives with the source checkout, beside the
tests, with the scripted loopback model that plays a model through the real SDK
wire format. Run it with ``python -m subterminator_bench`` (or ``make bench``).

- ``command``            the bench's options, the run over the scenarios, tables and exit code
- ``scenarios``          which practice services are scenarios, and the outcome each expects
  (``expected.toml``)
- ``runner``             one scenario in one configuration, measured against the ground truth
- ``baseline``           the naive configuration compared against (every tool, full pages)
- ``ground_truth``       what really happened, from the practice server's state, and judging
- ``report``             the terminal tables, ``bench-results.json`` and ``bench-chart.svg``
- ``stats``              the one statistic reported everywhere
- ``loopback_model``     a scripted model on loopback speaking the providers' wire formats
- ``prompt_cache``       the providers' prompt caches as documented, for the loopback model
- ``scripted_brain``     plays a scenario's intended path from the page text it is sent
- ``adversarial_brain``  plays each adversarial scenario's attack on the guard
- ``gauntlet/``          the gauntlet practice site and its ``scenarios.toml``
- ``peers/``             the gauntlet on serve, Playwright MCP and Chrome DevTools MCP
  (``--servers``), the same scripted agent on each
"""

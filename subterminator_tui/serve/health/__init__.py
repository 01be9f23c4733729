"""Every session's browser watched, restarted after a backoff, or left degraded.

- ``policy``    ``HealthPolicy`` and ``SessionHealth``: the bookkeeping, no browser, no clock
- ``restarts``  the one way a session's browser restarts, whoever finds it dead
"""

"""Every session's browser watched, restarted after a backoff, or left degraded.

- ``monitor``   ``HealthMonitor``: pings idle browsers, notices crashes, restarts them
- ``policy``    ``HealthPolicy`` and ``SessionHealth``: the bookkeeping, no browser, no clock
- ``restarts``  the one way a session's browser restarts, whoever finds it dead
"""

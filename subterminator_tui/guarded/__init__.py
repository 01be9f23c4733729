"""One guarded browser call, the same for every front end: judged, asked, sent, proved.

The run's loop and serve's sessions both send every browser call through here, so
what may reach the browser, what a person is asked, what counts as sent and what a
cancellation is verified on are written once. Nothing here knows a loop or a server.

- ``pipeline``         the sequence: ``begin`` (Refused | Held | Ready), ``finish`` (Sent | ...)
- ``step_log``         where a guarded call's facts are journaled (the ledger, serve's records)
- ``guard``            rules, not the pilot, decide what may reach the browser
- ``request_gate``     every request the browser sends, judged where the effect happens
- ``request_evidence`` the request log as evidence of how the service answered a step
- ``outcome``          a run's outcome judged on evidence and worded honestly
- ``secrets``          what a person types never leaves the hand-off
- ``window_typing``    what they type straight into the browser window is scrubbed too
                       (one class; whose a value is: a policy per front end)
- ``tabs``             off-domain tabs closed before anyone reads them
- ``gates``            how the core asks a human: the interfaces each front end implements
- ``browser``          what a guarded call needs of a browser (a protocol)
"""

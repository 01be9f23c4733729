"""The loop: one guarded tool call per turn, the human asked before what cannot be undone.

The loop (one class built in layers, bottom first):

- ``loop_base``        the run's collaborators; telling the pilot, asking the person
- ``page_arrival``     every fresh page: scrubbed, hand-offs done, tabs contained, endings read
- ``virtual_calls``    the calls the loop answers itself (complete_task, show_region, asking)
- ``call_step``        one browser call carried out: prepared, asked about, sent, settled
- ``loop``             ``Orchestrator``: a run from its first page to its result

What the loop uses:

- ``pipeline``         one guarded call, the same for every front end (serve's too)
- ``guard``            rules, not the pilot, decide what may reach the browser
- ``request_gate``     every request the browser sends, judged where the effect happens
- ``request_evidence`` the request log as evidence of how the service answered a step
- ``outcome``          how a run's outcome is judged (on evidence) and worded honestly
- ``ledger``           the run's bookkeeping: journal rows, tokens, time, the result
- ``turns``            the pieces of a turn and of a run's end the loop passes around
- ``handoff``          sign-ins, verification codes and CAPTCHAs handed to the person
- ``sign_in_window``   an identity provider reachable only while the person signs in
- ``secrets``          what a person types never leaves the hand-off
- ``window_typing``    what they type straight into the browser window at a hand-off, too
- ``tabs``             off-domain tabs closed before anyone reads them
- ``pause``            a hold a front end puts on a run while it asks whether to stop
- ``gates``            how the core asks a human: the interfaces each front end implements
- ``events``           plain event objects the core reports through
- ``endings``          how a run ended, in words a person reads
- ``browser``          what the loop needs of a browser (a protocol)
"""

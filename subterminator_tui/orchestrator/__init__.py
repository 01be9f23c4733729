"""The loop: one guarded tool call per turn, the human asked before what cannot be undone.

The loop (objects composed around one run context):

- ``run_context``      the run's collaborators; telling the pilot, asking the person
- ``page_arrival``     the page intake: every fresh page scrubbed, hand-offs done, tabs
                       contained, endings read
- ``virtual_calls``    the calls the loop answers itself (complete_task, show_region, asking)
- ``call_step``        one browser call carried out: prepared, asked about, sent, settled
- ``loop``             ``Orchestrator``: a run from its first page to its result

What the loop uses (the guarded call itself lives in ``subterminator_tui.guarded``):

- ``ledger``           the run's bookkeeping: journal rows, tokens, time, the result
- ``turns``            the pieces of a turn and of a run's end the loop passes around
- ``handoff``          sign-ins, verification codes and CAPTCHAs handed to the person
- ``sign_in_window``   an identity provider reachable only while the person signs in
- ``pause``            a hold a front end puts on a run while it asks whether to stop
- ``events``           plain event objects the core reports through
- ``endings``          how a run ended, in words a person reads
"""

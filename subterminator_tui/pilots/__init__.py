"""What proposes the next call: the AI, a recorded playbook, or the playbook then the AI.

- ``base``          the pilot interface: one proposed call per turn, then its outcome
- ``ai``            a model proposes each call from the conversation so far
- ``playbook``      a service's recorded steps replayed against the live page, no model
- ``auto``          the playbook while it fits, then the AI from where it stopped
- ``virtual_tools`` the tools the loop answers itself (complete_task, show_region, asking)
- ``tool_offer``    which tools a model is offered on a given page
- ``page_view``     how a page is shown to a model: URL, title and a compact tree
- ``compaction``    a page's accessibility tree in a few hundred tokens
- ``compact_lines`` one element as one line of the compact tree, and how much it matters
- ``long_runs``     long runs of similar siblings shortened to the rows that matter
- ``landmarks``     landmarks repeated from the last page folded to one line each
- ``regions``       a ref's region in full, for ``show_region``
- ``control_words`` which controls matter to a cancellation, by name (seven languages)
"""

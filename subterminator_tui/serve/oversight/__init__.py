"""What the operator oversees: the call log and the approvals only they decide.

- ``call_log``          each served call written to the journal's call log under a ref_id
- ``call_log_reader``   a call read back for its caller, as a diff since the last read
- ``console_log``       Playwright's console listing parsed into leveled messages
- ``approvals``         held calls waiting for the operator (never the agent) to decide
- ``terminal_operator`` the headless operator: approvals asked on a terminal
- ``terminal_screen``   the operator's terminal written off the event loop, with a bound
- ``question_text``     a question's agent- and page-chosen text, shortened and labelled
"""

"""The rebuilt flows, one module each (the record each was rebuilt from heads its module).

- ``retention_maze``        four pages of offers; ``Cancel`` opens, ``Cancel Subscription`` ends
- ``early_termination_fee`` a review page that shows the fee's amount before it is charged
- ``streaming``             a link, a survey POST to ``/survey/end``, ``Finish Cancellation``
- ``delivery_membership``   ``End membership`` twice; within 48 hours only support can cancel
- ``consent_banner``        a OneTrust-like banner (``Confirm My Choices``) before the commit
- ``redirect_home``         the commit answers with the home page; the account shows the end
- ``snooze_pause``          ``Remind me later`` and ``Pause on <date>``: nothing ends
- ``phone_only``            ``End subscription`` shows a phone number and an address
- ``graphql_app``           controls drawn after a slow GraphQL query; a mutation cancels
- ``no_rules_premium``      ``Cancel Premium`` is a form POST to ``.../cancel``
- ``hostile``               distance tricks, an unseen GET commit, a target renamed mid-question,
                            a commit nothing names (the guard's miss, said as one)
"""

from subterminator_bench.rebuilt.flows.consent_banner import CONSENT_BANNER
from subterminator_bench.rebuilt.flows.delivery_membership import (
    DELIVERY_MEMBERSHIP,
    DELIVERY_WITHIN_48_HOURS,
)
from subterminator_bench.rebuilt.flows.early_termination_fee import EARLY_TERMINATION_FEE
from subterminator_bench.rebuilt.flows.graphql_app import GRAPHQL_APP
from subterminator_bench.rebuilt.flows.hostile import (
    DISTANCE_TRICKS,
    RENAMED_TARGET,
    UNNAMED_COMMIT,
    UNSEEN_FINISH,
)
from subterminator_bench.rebuilt.flows.no_rules_premium import NO_RULES_PREMIUM
from subterminator_bench.rebuilt.flows.phone_only import PHONE_ONLY
from subterminator_bench.rebuilt.flows.redirect_home import REDIRECT_HOME
from subterminator_bench.rebuilt.flows.retention_maze import RETENTION_MAZE
from subterminator_bench.rebuilt.flows.snooze_pause import SNOOZE_PAUSE
from subterminator_bench.rebuilt.flows.streaming import STREAMING
from subterminator_bench.rebuilt.site import Flow

#: The honest rebuilt services (a person cancelling them is the ordinary case).
REBUILT_FLOWS: tuple[Flow, ...] = (
    RETENTION_MAZE,
    EARLY_TERMINATION_FEE,
    STREAMING,
    DELIVERY_MEMBERSHIP,
    DELIVERY_WITHIN_48_HOURS,
    CONSENT_BANNER,
    REDIRECT_HOME,
    SNOOZE_PAUSE,
    PHONE_ONLY,
    GRAPHQL_APP,
    NO_RULES_PREMIUM,
)
#: The hostile pages: each commits where no rule looks.
HOSTILE_FLOWS: tuple[Flow, ...] = (*DISTANCE_TRICKS, UNSEEN_FINISH, RENAMED_TARGET, UNNAMED_COMMIT)
FLOWS: dict[str, Flow] = {flow.id: flow for flow in (*REBUILT_FLOWS, *HOSTILE_FLOWS)}

__all__ = ["FLOWS", "HOSTILE_FLOWS", "REBUILT_FLOWS"]

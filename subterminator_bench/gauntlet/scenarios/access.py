"""Scenarios where getting in is the obstacle: sign-in, its checks, and a session that ends.

None of these start signed in. The person signs in as the practice account (the hand-off);
Demoflix's own sign-in pages and checks guard the gauntlet's account.
"""

from __future__ import annotations

from subterminator_bench.gauntlet import pages
from subterminator_bench.gauntlet.scenario import Question, Scenario, Step, View
from subterminator_bench.gauntlet.state import CONFIRM
from subterminator_tui.practice.demoflix import pages as demoflix_pages
from subterminator_tui.practice.demoflix.state import SURVEY_REASONS


def optional_survey(_view: View) -> str:
    """Demoflix's leaving survey, where answering is optional."""
    return demoflix_pages.survey_page()


SCENARIOS = (
    Scenario(
        "login",
        "Signed out: sign in at /login first, then the basic flow.",
        pages.plain_account,
    ),
    Scenario(
        "two-factor",
        "Sign in, then a verification code at /verify, then the basic flow.",
        pages.plain_account,
        site_variants=frozenset({"two_factor"}),
    ),
    Scenario(
        "captcha",
        "Sign in, then a text security check at /captcha, then the basic flow.",
        pages.plain_account,
        site_variants=frozenset({"captcha"}),
    ),
    Scenario(
        "session-expiry",
        "The session expires on the way to the confirmation; the flow's progress is kept.",
        pages.plain_account,
        flow=(
            Step(
                "/cancel/survey",
                optional_survey,
                onward="",
                questions=(Question("reason", "", SURVEY_REASONS, required=False),),
            ),
        ),
        site_variants=frozenset({"session_expiry"}),
        expire_on=CONFIRM,
    ),
)

"""The cancellation gauntlet: one practice site, one dark pattern per scenario.

:class:`GauntletServer` serves the scenario its variants name (see :data:`SCENARIOS`) on
127.0.0.1, over Demoflix's practice account. Its :class:`GauntletState` records what the
browser really did (cancelled or not, how many finishing requests took effect, every
irreversible action in order), so one set of rules in ``scenarios.toml`` and one test can
judge every scenario. It belongs to the bench and stays in the source checkout; the
product finds it there by name (``practice = "gauntlet"``).

- ``scenarios.toml``   the scenarios as services: one base ``gauntlet`` and a
  ``gauntlet-<scenario>`` per scenario, with its intended path as a playbook
- ``scenario``         what a scenario is made of: its pages, their order, each control
- ``scenarios/``       the scenarios by family (finding, retention, confirming, money, ...)
- ``pages``            HTML shared by the scenarios: the account page, the endings
- ``router``           one scenario's pages over Demoflix's account, sign-in and checks
- ``server``           serves one scenario, with its forbidden host when it has one
- ``state``            the server-side ground truth of a run
- ``forbidden_host``   the second loopback address the adversarial scenarios try to reach
"""

from pathlib import Path

from subterminator_bench.gauntlet.scenario import Scenario
from subterminator_bench.gauntlet.scenarios import SCENARIOS, choose_scenario
from subterminator_bench.gauntlet.server import GauntletServer
from subterminator_bench.gauntlet.state import GauntletState

#: The gauntlet's scenarios as a services file (``--services`` it to run one).
SCENARIOS_FILE = Path(__file__).with_name("scenarios.toml")

__all__ = [
    "SCENARIOS",
    "SCENARIOS_FILE",
    "GauntletServer",
    "GauntletState",
    "Scenario",
    "choose_scenario",
]

"""The cancellation gauntlet: one practice site, one dark pattern per scenario.

:class:`GauntletServer` serves the scenario its variants name (see :data:`SCENARIOS`) on
127.0.0.1, over Demoflix's practice account. Its :class:`GauntletState` records what the
browser really did (cancelled or not, how many finishing requests took effect, every
irreversible action in order), so one set of rules in ``scenarios.toml`` and one test can
judge every scenario.
"""

from subterminator_tui.practice.gauntlet.scenario import Scenario
from subterminator_tui.practice.gauntlet.scenarios import SCENARIOS, choose_scenario
from subterminator_tui.practice.gauntlet.server import GauntletServer
from subterminator_tui.practice.gauntlet.state import GauntletState

__all__ = ["SCENARIOS", "GauntletServer", "GauntletState", "Scenario", "choose_scenario"]

"""The loopback model the tests talk to: the benchmark's scripted model server.

It lives in the package (``subterminator_bench.loopback_model``) because
``subterminator bench`` uses it without an API key; the tests use the same
server under the names they were written with.
"""

from subterminator_bench.loopback_model import Api, Brain, RecordedRequest
from subterminator_bench.loopback_model import ModelRequest as FakeRequest
from subterminator_bench.loopback_model import ScriptedModelServer as FakeModelServer
from subterminator_bench.loopback_model import ScriptedTurn as FakeTurn

__all__ = ["Api", "Brain", "FakeModelServer", "FakeRequest", "FakeTurn", "RecordedRequest"]

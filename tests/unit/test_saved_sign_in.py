"""A saved sign-in carries one service's cookies and local storage, and nothing else."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from subterminator_tui.browser.sign_in import add_state_code, state_for_domains
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.rules import load_services
from subterminator_tui.session.saved_sign_in import read_sign_in_file

STATE = {
    "cookies": [
        {"name": "sid", "value": "1", "domain": ".netflix.com", "expires": -1},
        {"name": "sid", "value": "2", "domain": "www.netflix.com", "expires": time.time() + 86400},
        {"name": "old", "value": "3", "domain": "netflix.com", "expires": 1.0},
        {"name": "ad", "value": "4", "domain": ".tracker.example", "expires": -1},
        {"name": "fake", "value": "5", "domain": "netflix.com.evil.io", "expires": -1},
        "not a cookie",
    ],
    "origins": [
        {"origin": "https://www.netflix.com", "localStorage": [{"name": "k", "value": "v"}]},
        {"origin": "https://evil.io", "localStorage": [{"name": "k", "value": "v"}]},
    ],
}


def test_only_the_services_unexpired_cookies_and_origins_are_kept() -> None:
    kept = state_for_domains(STATE, ("netflix.com",))
    assert [cookie["value"] for cookie in kept["cookies"]] == ["1", "2"]
    assert [origin["origin"] for origin in kept["origins"]] == ["https://www.netflix.com"]


def test_something_that_is_not_a_state_keeps_nothing() -> None:
    assert state_for_domains(["cookies"], ("netflix.com",)) == {"cookies": [], "origins": []}


@pytest.mark.skipif(not Path("/usr/bin/node").exists(), reason="needs node to parse the code")
def test_values_stay_data_in_the_code() -> None:
    """A cookie value that looks like code or like the template's names stays a string."""
    hostile = "'); origins; ORIGINS COOKIES </script> \u2028"
    state = {
        "cookies": [{"name": "x", "value": hostile, "domain": "a.com"}],
        "origins": [{"origin": "https://a.com", "localStorage": [{"name": "n", "value": hostile}]}],
    }
    code = add_state_code(state)
    assert code is not None
    probe = f"const f = {code};\nconsole.log(JSON.stringify(f.toString().length > 0));"
    checked = subprocess.run(["node", "-e", probe], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    # The values appear exactly once each, as JSON strings.
    assert code.count(json.dumps(hostile)) == 2


def test_an_empty_state_needs_no_code() -> None:
    assert add_state_code({"cookies": [], "origins": []}) is None


def test_a_file_with_nothing_for_the_service_is_refused(tmp_path: Path) -> None:
    service = load_services(user_file=None).get("netflix")
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"cookies": [STATE["cookies"][3]]}), encoding="utf-8")
    with pytest.raises(ConfigurationError, match="holds no unexpired sign-in"):
        read_sign_in_file(path, service)
    path.write_text(json.dumps({"cookies": [STATE["cookies"][0]]}), encoding="utf-8")
    assert read_sign_in_file(path, service)["cookies"] == [STATE["cookies"][0]]

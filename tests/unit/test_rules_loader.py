"""Loading services.toml files: built-ins, overrides, extends, and errors that say where."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from subterminator_bench.scenarios import expected_outcome
from subterminator_tui.errors import ServiceConfigError, ServiceNotFoundError
from subterminator_tui.practice.demoflix.state import VARIANTS
from subterminator_tui.resources import builtin_services_file, practice_services_file
from subterminator_tui.rules.loader import load_services, user_services_file

ACME = """
[services.acme]
name = "Acme"
start_url = "https://www.acme.test/account"
allowed_domains = ["acme.test"]
goal = "Cancel Acme."
"""

DEMOFLIX_VARIANTS = [
    "demoflix-2fa",
    "demoflix-captcha",
    "demoflix-error",
    "demoflix-expiry",
    "demoflix-cancelled",
]


def _write(directory: Path, text: str, name: str = "services.toml") -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def _load_error(path: Path) -> str:
    """The ServiceConfigError message from loading built-ins plus ``path``."""
    with pytest.raises(ServiceConfigError) as caught:
        load_services([path], user_file=None)
    return str(caught.value)


# --- built-ins ------------------------------------------------------------------------


def test_builtin_services_load() -> None:
    """The shipped services.toml loads and defines netflix, demoflix and its scenarios."""
    registry = load_services(user_file=None)
    assert {"netflix", "demoflix", *DEMOFLIX_VARIANTS} <= set(registry.ids())


def test_builtin_services_come_from_the_builtin_file() -> None:
    """source_of names the file a service was loaded from."""
    registry = load_services(user_file=None)
    assert registry.source_of("netflix") == builtin_services_file()


def test_netflix_is_marked_unverified() -> None:
    """The Netflix rules have not been checked against the live site."""
    assert load_services(user_file=None).get("netflix").unverified


def test_demoflix_is_a_practice_service() -> None:
    """demoflix starts at a path on the practice site, which is the only allowed host."""
    registry = load_services(user_file=None)
    demoflix = registry.get("demoflix")
    assert (demoflix.practice, demoflix.start_url) == ("demoflix", "/account")
    assert demoflix.allowed_domains == ("127.0.0.1",)
    assert expected_outcome(demoflix, registry) == "cancelled"


@pytest.mark.parametrize("service_id", DEMOFLIX_VARIANTS)
def test_demoflix_scenarios_inherit_the_demoflix_rules(service_id: str) -> None:
    """Each scenario extends demoflix and shares its rules and playbook."""
    registry = load_services(user_file=None)
    base, scenario = registry.get("demoflix"), registry.get(service_id)
    assert scenario.extends == "demoflix"
    assert scenario.checkpoint == base.checkpoint
    assert scenario.success == base.success
    assert scenario.playbook == base.playbook


@pytest.mark.parametrize("service_id", DEMOFLIX_VARIANTS)
def test_demoflix_scenarios_name_real_practice_variants(service_id: str) -> None:
    """Every practice_variants entry is a variant the practice site knows."""
    scenario = load_services(user_file=None).get(service_id)
    assert scenario.practice_variants
    assert set(scenario.practice_variants) <= VARIANTS


def test_unknown_service_lists_the_available_ones() -> None:
    """get() of an unknown id raises ServiceNotFoundError naming what exists."""
    with pytest.raises(ServiceNotFoundError, match="netflix"):
        load_services(user_file=None).get("hulu")


# --- error messages name the file, the service and the key ---------------------------


def test_unknown_key_names_file_service_and_key(tmp_path: Path) -> None:
    """A misspelt checkpoint key is an error at its exact key path."""
    path = _write(
        tmp_path,
        ACME + '[[services.acme.checkpoint]]\ntool = ["browser_click"]\n'
        '[[services.acme.checkpoint]]\ntarget_anyy = ["finish"]\n',
    )
    message = _load_error(path)
    assert f"{path}: service 'acme', key 'checkpoint[1].target_anyy': unknown key" in message


def test_unknown_key_suggests_the_near_miss(tmp_path: Path) -> None:
    """A one-letter typo suggests the key that was meant."""
    path = _write(tmp_path, ACME + '[[services.acme.checkpoint]]\ntarget_anyy = ["finish"]\n')
    assert "did you mean 'target_any'?" in _load_error(path)


def test_wrong_type_names_the_key(tmp_path: Path) -> None:
    """max_turns = "5" is not an integer."""
    path = _write(tmp_path, ACME + 'max_turns = "5"\n')
    message = _load_error(path)
    assert f"{path}: service 'acme', key 'max_turns': Input should be a valid integer" in message


def test_string_where_a_list_belongs_is_an_error(tmp_path: Path) -> None:
    """text_any takes a list; a bare string is refused, not split into letters."""
    path = _write(tmp_path, ACME + '[[services.acme.success]]\ntext_any = "done"\n')
    assert "key 'success[0].text_any': Input should be a valid list" in _load_error(path)


def test_bad_regex_names_the_pattern_and_the_reason(tmp_path: Path) -> None:
    """An invalid regular expression fails at load time, not mid-run."""
    path = _write(tmp_path, ACME + "[[services.acme.success]]\ntext_regex = '('\n")
    message = _load_error(path)
    assert (
        f"{path}: service 'acme', key 'success[0].text_regex': "
        "invalid regular expression '(': missing ), unterminated subpattern at position 0"
    ) in message


def test_regex_matching_everything_is_an_error(tmp_path: Path) -> None:
    """A pattern that matches the empty string would hold on every page."""
    path = _write(tmp_path, ACME + "[[services.acme.success]]\nurl_regex = ['done', 'x*']\n")
    assert "key 'success[0].url_regex': regular expression 'x*' matches an empty" in (
        _load_error(path)
    )


def test_empty_string_condition_is_an_error(tmp_path: Path) -> None:
    """An empty needle is a substring of every page."""
    path = _write(tmp_path, ACME + '[[services.acme.success]]\ntext_any = ["done", " "]\n')
    assert "key 'success[0].text_any': item 1 is empty" in _load_error(path)


def test_rule_without_conditions_is_an_error(tmp_path: Path) -> None:
    """A rule with only a why would hold on every page."""
    path = _write(tmp_path, ACME + '[[services.acme.failure]]\nwhy = "anything"\n')
    message = _load_error(path)
    assert f"{path}: service 'acme', key 'failure[0]': a rule needs at least one" in message


def test_role_alone_is_not_a_condition(tmp_path: Path) -> None:
    """role narrows element_any/element_regex and cannot stand alone."""
    path = _write(tmp_path, ACME + '[[services.acme.success]]\nrole = ["button"]\n')
    assert "key 'success[0]': 'role' narrows element_any" in _load_error(path)


def test_checkpoint_rule_keys_are_refused_in_page_rules(tmp_path: Path) -> None:
    """tool is a checkpoint condition; in a success rule it is an unknown key."""
    path = _write(tmp_path, ACME + '[[services.acme.success]]\ntool = ["browser_click"]\n')
    assert "key 'success[0].tool': unknown key" in _load_error(path)


def test_missing_required_key_names_it(tmp_path: Path) -> None:
    """A service without a goal names the missing key."""
    path = _write(tmp_path, ACME.replace('goal = "Cancel Acme."\n', ""))
    message = _load_error(path)
    assert f"{path}: service 'acme', key 'goal': required key is missing" in message


def test_empty_allowed_domains_is_an_error(tmp_path: Path) -> None:
    """A service must name at least one domain."""
    path = _write(tmp_path, ACME.replace('["acme.test"]', "[]"))
    assert "key 'allowed_domains': list at least one domain" in _load_error(path)


def test_allowed_domain_with_a_scheme_is_an_error(tmp_path: Path) -> None:
    """allowed_domains holds bare domains, not URLs."""
    path = _write(tmp_path, ACME.replace('["acme.test"]', '["https://acme.test"]'))
    assert "key 'allowed_domains': 'https://acme.test' is not a bare domain" in _load_error(path)


def test_start_url_outside_allowed_domains_is_an_error(tmp_path: Path) -> None:
    """A run could never open a start URL the domain check refuses."""
    path = _write(tmp_path, ACME.replace("www.acme.test", "www.other.test"))
    assert "key 'start_url': 'https://www.other.test/account' is outside" in _load_error(path)


def test_practice_start_url_must_be_a_path(tmp_path: Path) -> None:
    """A practice service starts at a path on the practice site."""
    path = _write(tmp_path, ACME + 'practice = "demoflix"\n')
    assert "key 'start_url': a practice service's start_url is a path" in _load_error(path)


def test_playbook_click_needs_a_name(tmp_path: Path) -> None:
    """A click step must say what to click."""
    path = _write(tmp_path, ACME + '[[services.acme.playbook]]\naction = "click"\n')
    assert "key 'playbook[0]': a 'click' step needs name or name_regex" in _load_error(path)


def test_playbook_type_needs_text(tmp_path: Path) -> None:
    """A type step must say what to type."""
    path = _write(tmp_path, ACME + '[[services.acme.playbook]]\naction = "type"\nname = "Email"\n')
    assert "key 'playbook[0]': a 'type' step needs text" in _load_error(path)


def test_playbook_key_of_another_action_is_an_error(tmp_path: Path) -> None:
    """A navigate step with text is a mistake, not something to ignore."""
    path = _write(
        tmp_path, ACME + '[[services.acme.playbook]]\naction = "navigate"\nurl = "/a"\ntext = "x"\n'
    )
    assert "key 'text' does not apply to a 'navigate' step" in _load_error(path)


def test_playbook_unknown_action_is_an_error(tmp_path: Path) -> None:
    """Only the documented actions exist."""
    path = _write(tmp_path, ACME + '[[services.acme.playbook]]\naction = "jump"\n')
    assert "key 'playbook[0].action': Input should be 'click'" in _load_error(path)


def test_playbook_bad_name_regex_is_an_error(tmp_path: Path) -> None:
    """A step's name_regex is compiled at load time too."""
    path = _write(
        tmp_path, ACME + "[[services.acme.playbook]]\naction = 'click'\nname_regex = '[a'\n"
    )
    assert "key 'playbook[0].name_regex': invalid regular expression '[a'" in _load_error(path)


def test_loader_owned_keys_cannot_be_written(tmp_path: Path) -> None:
    """id and source are set by the loader; a file setting them is refused."""
    path = _write(tmp_path, ACME + 'id = "other"\n')
    assert f"{path}: service 'acme', key 'id': unknown key" in _load_error(path)


def test_every_problem_of_a_file_is_listed(tmp_path: Path) -> None:
    """Several mistakes are reported together, one per line."""
    path = _write(
        tmp_path,
        ACME + 'max_turns = 0\n[[services.acme.success]]\ntext_regex = "("\n',
    )
    lines = _load_error(path).splitlines()
    assert any("key 'max_turns'" in line for line in lines)
    assert any("key 'success[0].text_regex'" in line for line in lines)


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    """tomllib's line and column are kept in the message."""
    path = _write(tmp_path, ACME + "goal = \n")
    message = _load_error(path)
    assert str(path) in message
    assert "line 7" in message


def test_missing_services_file_names_it(tmp_path: Path) -> None:
    """A --services path that does not exist is an error naming it."""
    path = tmp_path / "nope.toml"
    assert f"{path}: file not found" in _load_error(path)


def test_file_without_services_table_is_an_error(tmp_path: Path) -> None:
    """A file must define [services.<id>] tables."""
    path = _write(tmp_path, 'name = "Acme"\n')
    assert f"{path}: key 'name': unknown key" in _load_error(path)


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    """An empty file has no [services] table."""
    path = _write(tmp_path, "")
    assert f"{path}: no [services] table" in _load_error(path)


def test_non_table_service_is_an_error(tmp_path: Path) -> None:
    """services.acme must be a table."""
    path = _write(tmp_path, '[services]\nacme = "Acme"\n')
    assert f"{path}: service 'acme': must be a table" in _load_error(path)


# --- merging files --------------------------------------------------------------------


def test_later_file_replaces_one_service_and_keeps_the_others(tmp_path: Path) -> None:
    """Overriding netflix leaves demoflix from the built-ins in place."""
    path = _write(tmp_path, ACME.replace("acme]", "netflix]").replace("acme.", "netflix."))
    registry = load_services([path], user_file=None)
    assert registry.get("netflix").name == "Acme"
    assert registry.source_of("netflix") == path
    assert registry.source_of("demoflix") == practice_services_file()


def test_replacement_is_whole_not_key_by_key(tmp_path: Path) -> None:
    """A replacing table does not inherit the old definition's rules."""
    path = _write(tmp_path, ACME.replace("acme]", "netflix]").replace("acme.", "netflix."))
    assert load_services([path], user_file=None).get("netflix").checkpoint == ()


def test_services_files_apply_in_order(tmp_path: Path) -> None:
    """With several --services files, the last definition wins."""
    first = _write(tmp_path, ACME, "first.toml")
    second = _write(tmp_path, ACME.replace('"Acme"', '"Acme Two"'), "second.toml")
    registry = load_services([first, second], user_file=None)
    assert registry.get("acme").name == "Acme Two"
    assert registry.source_of("acme") == second


def test_user_file_is_loaded_when_present(tmp_path: Path) -> None:
    """A user services.toml adds its services."""
    user_file = _write(tmp_path, ACME)
    assert "acme" in load_services(user_file=user_file)


def test_missing_user_file_is_skipped(tmp_path: Path) -> None:
    """No user services.toml is the normal case, not an error."""
    assert "netflix" in load_services(user_file=tmp_path / "services.toml")


def test_user_file_can_be_disabled() -> None:
    """user_file=None ignores even a file in the default location."""
    _write_default_user_file(ACME)
    assert "acme" not in load_services(user_file=None)


def test_default_user_file_lives_in_the_config_dir() -> None:
    """By default the user's file comes from the platform config directory."""
    _write_default_user_file(ACME)
    assert "acme" in load_services()


def test_services_files_beat_the_user_file(tmp_path: Path) -> None:
    """--services files load after the user's file."""
    user_file = _write(tmp_path, ACME, "user.toml")
    extra = _write(tmp_path, ACME.replace('"Acme"', '"From --services"'), "extra.toml")
    assert load_services([extra], user_file=user_file).get("acme").name == "From --services"


def _write_default_user_file(text: str) -> None:
    """Write the user's services.toml where platformdirs says (conftest isolates it)."""
    directory = user_services_file().parent
    directory.mkdir(parents=True, exist_ok=True)
    _write(directory, text)


# --- extends ----------------------------------------------------------------------------

CHILD = """
[services.acme-trial]
extends = "acme"
name = "Acme trial"
"""


def test_extends_inherits_unset_keys(tmp_path: Path) -> None:
    """A child without a goal takes its parent's."""
    path = _write(tmp_path, ACME + '[[services.acme.success]]\nurl_any = ["/done"]\n' + CHILD)
    child = load_services([path], user_file=None).get("acme-trial")
    assert child.goal == "Cancel Acme."
    assert child.success[0].url_any == ("/done",)


def test_extends_child_keys_win(tmp_path: Path) -> None:
    """A key the child sets overrides the parent's."""
    path = _write(tmp_path, ACME + CHILD)
    assert load_services([path], user_file=None).get("acme-trial").name == "Acme trial"


def test_extends_replaces_lists_wholesale(tmp_path: Path) -> None:
    """A child's success list replaces the parent's instead of adding to it."""
    path = _write(
        tmp_path,
        ACME
        + '[[services.acme.success]]\nurl_any = ["/done"]\n'
        + CHILD
        + '[[services.acme-trial.success]]\nurl_any = ["/trial-ended"]\n',
    )
    child = load_services([path], user_file=None).get("acme-trial")
    assert [rule.url_any for rule in child.success] == [("/trial-ended",)]


def test_extends_resolves_after_all_files_merge(tmp_path: Path) -> None:
    """Overriding demoflix in a later file changes the scenarios extending it."""
    override = ACME.replace("[services.acme]", "[services.demoflix]").replace(
        'start_url = "https://www.acme.test/account"',
        'start_url = "/account"\npractice = "demoflix"',
    )
    path = _write(tmp_path, override.replace('["acme.test"]', '["127.0.0.1"]'))
    assert load_services([path], user_file=None).get("demoflix-2fa").goal == "Cancel Acme."


def test_extends_missing_parent_names_file_service_and_key(tmp_path: Path) -> None:
    """extending an undefined service is an error on the extends key."""
    path = _write(tmp_path, CHILD)
    message = _load_error(path)
    assert f"{path}: service 'acme-trial', key 'extends': no service 'acme' to extend" in message


def test_extends_cycle_is_an_error(tmp_path: Path) -> None:
    """Two services extending each other are reported as a cycle."""
    path = _write(
        tmp_path,
        '[services.a]\nextends = "b"\n[services.b]\nextends = "a"\n',
    )
    message = _load_error(path)
    assert "key 'extends'" in message
    assert "is a cycle" in message


def test_extends_self_is_a_cycle(tmp_path: Path) -> None:
    """A service extending itself is a cycle."""
    path = _write(tmp_path, '[services.a]\nextends = "a"\n')
    assert "service 'a', key 'extends': a -> a is a cycle" in _load_error(path)


def test_child_error_in_an_inherited_key_says_where_it_came_from(tmp_path: Path) -> None:
    """A key that breaks only in the child's context names the parent that wrote it."""
    path = _write(tmp_path, ACME + CHILD + 'practice = "demoflix"\n')
    message = _load_error(path)
    assert "service 'acme-trial', key 'start_url'" in message
    assert "inherited from service 'acme'" in message


# --- catalog keys: category, help_url, researched, generic_rules ---------------------


def test_catalog_keys_load(tmp_path: Path) -> None:
    """category, help_url, researched (a TOML date or an ISO string) and generic_rules."""
    path = _write(
        tmp_path,
        ACME
        + 'category = "music"\nhelp_url = "https://help.acme.test/cancel"\n'
        + 'researched = "2026-11-22"\ngeneric_rules = true\n',
    )
    acme = load_services([path], user_file=None).get("acme")
    assert (acme.category, acme.help_url) == ("music", "https://help.acme.test/cancel")
    assert str(acme.researched) == "2026-11-22"
    assert acme.generic_rules and acme.success


def test_unknown_category_is_an_error(tmp_path: Path) -> None:
    """The category comes from a fixed list."""
    path = _write(tmp_path, ACME + 'category = "gaming"\n')
    assert "key 'category': Input should be 'streaming', 'music'" in _load_error(path)


def test_help_url_must_be_https(tmp_path: Path) -> None:
    """A help page address is an https:// URL."""
    path = _write(tmp_path, ACME + 'help_url = "http://help.acme.test/"\n')
    assert "key 'help_url': 'http://help.acme.test/' is not an https:// address" in (
        _load_error(path)
    )


def test_researched_must_be_a_date(tmp_path: Path) -> None:
    """``researched`` is a date such as 2026-11-22."""
    path = _write(tmp_path, ACME + 'researched = "last week"\n')
    assert "key 'researched': Input should be a date such as 2026-11-22" in _load_error(path)


# --- loading again ----------------------------------------------------------------------


def test_the_same_files_load_once_per_process(tmp_path: Path) -> None:
    """A run reads its services several times: the same bytes give the same registry."""
    path = _write(tmp_path, ACME)
    first = load_services([path], user_file=None)
    assert load_services([path], user_file=None) is first
    assert load_services([path], user_file=None, practice_scenarios=True) is not first


def test_a_file_rewritten_within_one_clock_tick_is_read_again(tmp_path: Path) -> None:
    """Same path, size and modification time, other bytes: the new definition counts."""
    path = _write(tmp_path, ACME)
    stat = path.stat()
    assert load_services([path], user_file=None).get("acme").name == "Acme"
    _write(tmp_path, ACME.replace('"Acme"', '"Acne"'))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    assert load_services([path], user_file=None).get("acme").name == "Acne"


def test_a_file_that_went_missing_is_an_error_again(tmp_path: Path) -> None:
    """Nothing remembered hides a file that is gone: its error names it."""
    path = _write(tmp_path, ACME)
    load_services([path], user_file=None)
    path.unlink()
    assert f"{path}: file not found" in _load_error(path)

"""Billing descriptors in services.toml: every catalog service has them, sourced, validated."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from subterminator_tui.errors import ServiceConfigError
from subterminator_tui.resources import builtin_services_file
from subterminator_tui.rules.fields import DeferredPattern
from subterminator_tui.rules.loader import load_services, read_services_file
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.statements.catalog import match_service
from subterminator_tui.statements.descriptors import name_merchant
from subterminator_tui.statements.finding import find_subscriptions

CATALOG_IDS = sorted(read_services_file(builtin_services_file()))
STATEMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "statements"


@functools.cache
def services() -> tuple[ServiceConfig, ...]:
    """The built-in services, loaded (strictly validated) once for this module."""
    return tuple(load_services(user_file=None).all())


ACME = """
[services.acme]
name = "Acme"
start_url = "https://www.acme.test/account"
allowed_domains = ["acme.test"]
goal = "Cancel Acme."
"""


def _load_error(directory: Path, text: str) -> str:
    path = directory / "services.toml"
    path.write_text(ACME + text, encoding="utf-8")
    with pytest.raises(ServiceConfigError) as caught:
        load_services([path], user_file=None)
    return str(caught.value)


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_every_catalog_service_has_descriptors_and_their_sources(service_id: str) -> None:
    """Each built-in service says how its charges read, and where that was read (https)."""
    service = next(s for s in services() if s.id == service_id)
    assert service.billing_descriptors
    assert service.descriptor_sources
    assert all(source.startswith("https://") for source in service.descriptor_sources)


@pytest.mark.parametrize("service_id", CATALOG_IDS)
def test_every_catalog_service_matches_its_own_first_descriptor(service_id: str) -> None:
    """A statement line written as the first descriptor finds its own service."""
    service = next(s for s in services() if s.id == service_id)
    merchant = name_merchant(f"{service.billing_descriptors[0]} 800-555-0100 CA")
    match = match_service(merchant, services())
    found = match.service.id if match.service else None
    assert found == service_id or service_id in {s.id for s in match.possible}


def test_descriptors_without_sources_name_file_service_and_key(tmp_path: Path) -> None:
    """A descriptor nobody can check is refused, at its key."""
    message = _load_error(tmp_path, 'billing_descriptors = ["ACME.TEST"]\n')
    assert "service 'acme', key 'billing_descriptors'" in message
    assert "descriptor_sources" in message


def test_a_source_that_is_not_https_is_refused(tmp_path: Path) -> None:
    """Sources are addresses a person can open safely."""
    message = _load_error(
        tmp_path,
        'descriptor_sources = ["http://acme.test/charges"]\nbilling_descriptors = ["ACME.TEST"]\n',
    )
    assert "key 'descriptor_sources[0]'" in message


def test_a_descriptor_too_short_to_mean_anything_is_refused(tmp_path: Path) -> None:
    """Two letters would match half a statement."""
    message = _load_error(
        tmp_path,
        'descriptor_sources = ["https://acme.test/charges"]\nbilling_descriptors = ["AC"]\n',
    )
    assert "key 'billing_descriptors'" in message and "too short" in message


def test_a_misspelt_descriptor_key_is_refused(tmp_path: Path) -> None:
    """billing_descriptor (singular) is an unknown key, not silently ignored."""
    message = _load_error(tmp_path, 'billing_descriptor = ["ACME.TEST"]\n')
    assert "key 'billing_descriptor': unknown key" in message


def test_descriptors_match_whole_words_only() -> None:
    """CALM* is Calm; CALMER HOME GOODS is not."""
    catalog = services()
    assert match_service(name_merchant("CALM* ANNUAL"), catalog).service is not None
    assert match_service(name_merchant("CALMER HOME GOODS"), catalog).service is None


def test_the_longest_descriptor_wins() -> None:
    """AMAZON CHANNELS is Prime Video Channels, billed by Amazon."""
    catalog = services()
    merchant = name_merchant("Amazon Channels*2K4LZ0AB3")
    assert match_service(merchant, catalog).service.id == "prime-video-channels"  # type: ignore[union-attr]
    assert merchant.biller == "Amazon"


@pytest.mark.parametrize("line", ["APPLE.COM/BILL", "APPLE.COM/BILL 866-712-7753 CA"])
def test_apples_one_line_is_no_certain_match(line: str) -> None:
    """APPLE.COM/BILL may be iCloud+ or any App Store subscription: only a possibility."""
    catalog = services()
    match = match_service(name_merchant(line), catalog)
    assert match.service is None
    assert [service.id for service in match.possible] == ["icloud-plus"]


def test_an_app_store_line_names_the_app_exactly() -> None:
    """GOOGLE *Calm is Calm sold through Google Play, though Calm's descriptors are CALM*."""
    catalog = services()
    merchant = name_merchant("GOOGLE *Calm")
    assert match_service(merchant, catalog).service.id == "calm"  # type: ignore[union-attr]
    assert merchant.biller == "Google Play"


def test_a_bare_word_alone_on_a_card_line_is_no_app_name() -> None:
    """CALM on its own (no store wrote it) matches nothing: too common a word."""
    catalog = services()
    assert match_service(name_merchant("CALM"), catalog).service is None


@pytest.fixture
def hashed_expressions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rule expressions hashed from now on (a hash compiles one), by their source."""
    hashed: list[str] = []
    original = DeferredPattern.__hash__

    def recording(expression: DeferredPattern) -> int:
        hashed.append(expression.source)
        return original(expression)

    monkeypatch.setattr(DeferredPattern, "__hash__", recording)
    return hashed


def test_hashing_a_service_hashes_none_of_its_rules(hashed_expressions: list[str]) -> None:
    """A service hashes by its id: a set or a cache of services compiles no expression."""
    catalog = services()
    assert any(service.success for service in catalog), "services with rules"
    assert len(set(catalog)) == len(catalog)
    assert hashed_expressions == []


def test_finding_subscriptions_hashes_no_rule_expression(hashed_expressions: list[str]) -> None:
    """A statement is matched by descriptors alone: no rule expression is hashed.

    Hashing an expression compiles it, and a service used to hash all of its rules: a
    year's statement deduplicated the services an Apple line may be that way and compiled
    every expression they hold, 5 CPU seconds for ``subterminator find``.
    """
    report = find_subscriptions([STATEMENTS / "bank.csv"], services())
    assert any(found.possible_services for found in report.subscriptions), "an Apple line"
    assert hashed_expressions == []

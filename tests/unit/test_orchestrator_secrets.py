"""SecretScrubber: what a person typed during a hand-off never leaves it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.inspection import ControlFacts, PageFacts
from subterminator_tui.browser.snapshot import NormalizedSnapshot, normalize_snapshot
from subterminator_tui.guarded.secrets import (
    REDACTED,
    SecretScrubber,
    password_field_refusal,
)
from tests.fixtures.pages import SNAPSHOTS, page

SECRET = "hunter2-secret"


def leaky_login_page(tmp_path: Path) -> NormalizedSnapshot:
    """The real sign-in page with the secret echoed into every field a snapshot carries."""
    login = page("login", tmp_path)
    username = next(e for e in login.elements if e.name == "Username")
    elements = tuple(
        dataclasses.replace(e, name=f"{e.name} {SECRET}", text=f"value {SECRET}")
        if e is username
        else e
        for e in login.elements
    )
    return dataclasses.replace(
        login,
        url=f"{login.url}?user={SECRET}",
        title=f"{login.title} ({SECRET})",
        content=login.content.replace('textbox "Username"', f'textbox "Username": {SECRET}'),
        elements=elements,
        notes={"Console messages": f"signed in as {SECRET}"},
    )


@pytest.fixture
def scrubber() -> SecretScrubber:
    """A scrubber that remembers SECRET."""
    scrubber = SecretScrubber()
    scrubber.remember(SECRET)
    return scrubber


def test_text_replaces_a_remembered_value(scrubber: SecretScrubber) -> None:
    """Every occurrence of the value is replaced by the redaction marker."""
    assert scrubber.text(f"user {SECRET} and {SECRET}") == f"user {REDACTED} and {REDACTED}"


def test_snapshot_content_is_scrubbed(scrubber: SecretScrubber, tmp_path: Path) -> None:
    """The accessibility tree no longer holds the value."""
    scrubbed = scrubber.snapshot(leaky_login_page(tmp_path))
    assert SECRET not in scrubbed.content
    assert f'textbox "Username": {REDACTED}' in scrubbed.content


def test_snapshot_element_names_and_texts_are_scrubbed(
    scrubber: SecretScrubber, tmp_path: Path
) -> None:
    """No element's name or inline text holds the value; the elements are all still there."""
    leaky = leaky_login_page(tmp_path)
    scrubbed = scrubber.snapshot(leaky)
    assert len(scrubbed.elements) == len(leaky.elements)
    assert all(SECRET not in e.name and SECRET not in e.text for e in scrubbed.elements)
    assert any(e.name == f"Username {REDACTED}" for e in scrubbed.elements)


def test_snapshot_url_and_title_are_scrubbed(scrubber: SecretScrubber, tmp_path: Path) -> None:
    """URL and title keep their shape, without the value."""
    scrubbed = scrubber.snapshot(leaky_login_page(tmp_path))
    assert scrubbed.url.endswith(f"/login?user={REDACTED}")
    assert scrubbed.title == f"Sign in - Demoflix ({REDACTED})"


def test_snapshot_notes_are_scrubbed(scrubber: SecretScrubber, tmp_path: Path) -> None:
    """Extra sections (console, dialogs, tabs) are scrubbed too."""
    scrubbed = scrubber.snapshot(leaky_login_page(tmp_path))
    assert scrubbed.notes == {"Console messages": f"signed in as {REDACTED}"}


def test_the_longest_value_is_removed_first() -> None:
    """A value containing another is removed whole, leaving no tail of it behind."""
    scrubber = SecretScrubber()
    scrubber.remember("demo")
    scrubber.remember("demo-pass")
    assert scrubber.text("password demo-pass, user demo") == (
        f"password {REDACTED}, user {REDACTED}"
    )


def test_blank_values_are_ignored() -> None:
    """Remembering blanks changes nothing: spaces in text are not redacted."""
    scrubber = SecretScrubber()
    scrubber.remember("")
    scrubber.remember("   ")
    assert scrubber.text("a   b c") == "a   b c"


def test_nothing_remembered_leaves_the_snapshot_as_it_is(tmp_path: Path) -> None:
    """Without remembered values the very same snapshot comes back."""
    login = page("login", tmp_path)
    assert SecretScrubber().snapshot(login) is login


def test_a_value_with_a_backslash_is_scrubbed_from_the_content(tmp_path: Path) -> None:
    """A typed CORP\\jdoe echoed in a heading is removed from the tree the model reads, too."""
    raw = (SNAPSHOTS / "account.md").read_text(encoding="utf-8")
    # Playwright MCP renders the name with JSON.stringify: one backslash becomes two.
    raw = raw.replace('heading "Account"', 'heading "Welcome back, CORP\\\\jdoe"')
    account = normalize_snapshot(raw, tmp_path)
    assert any(e.name == "Welcome back, CORP\\jdoe" for e in account.elements)
    scrubber = SecretScrubber()
    scrubber.remember("CORP\\jdoe")
    scrubbed = scrubber.snapshot(account)
    assert all("jdoe" not in e.name for e in scrubbed.elements)
    assert "jdoe" not in scrubbed.content


# --- every shape a page can put a typed value back in ------------------------------------

PASSWORD = "p4ss word&1"
CODE = "735194"


@pytest.fixture
def typed() -> SecretScrubber:
    """A scrubber that remembers a password with a space and an ampersand, and a 2FA code."""
    scrubber = SecretScrubber()
    scrubber.remember(PASSWORD)
    scrubber.remember(CODE)
    return scrubber


@pytest.mark.parametrize(
    "leak",
    [
        "https://shop.example/login?user=demo&password=p4ss+word%261",  # GET form, + for space
        "https://shop.example/login?password=p4ss%20word%261",  # percent-encoded space
        "https://shop.example/login?password=p4ss%20word%261".lower(),  # lowercase hex
        "Signed in with p4ss word&amp;1",  # HTML escape
        "Signed in with &#112;&#52;&#115;&#115;&#32;&#119;&#111;&#114;&#100;&#38;&#49;",
        '{"password": "p4ss word\\u00261"}'.replace("\\u0026", "&"),  # JSON
        "Your code: 735 194",
        "code=7-3-5-1-9-4",
        "73.51.94 was used",
        "735&nbsp;194",
    ],
)
def test_every_encoding_of_a_typed_value_is_scrubbed(typed: SecretScrubber, leak: str) -> None:
    """Raw, both URL encodings, HTML and JSON escapes, digit groupings: none survives."""
    scrubbed = typed.text(leak)
    assert "p4ss" not in scrubbed and "word" not in scrubbed.replace("password", "")
    assert not any(run in scrubbed for run in ("735", "194", "5-1-9", "51.9"))


def test_a_base64_encoded_value_is_scrubbed_inside_a_longer_one(typed: SecretScrubber) -> None:
    """``demo:p4ss word&1`` base64-encoded (an Authorization header in a log) loses the password."""
    import base64

    for prefix in (b"", b"d", b"de", b"demo:"):
        encoded = base64.b64encode(prefix + PASSWORD.encode()).decode()
        full = base64.b64encode(PASSWORD.encode()).decode().rstrip("=")
        scrubbed = typed.text(f"Authorization: Basic {encoded}")
        assert REDACTED in scrubbed and full[4:-2] not in scrubbed, (prefix, scrubbed)


def test_playwright_mcps_files_are_scrubbed_in_place(typed: SecretScrubber, tmp_path: Path) -> None:
    """A snapshot .yml and a console .log that echo the values are rewritten; a PNG is left."""
    output = tmp_path / "output"
    output.mkdir()
    (output / "page-1.yml").write_text('- textbox "Code": 735 194\n', encoding="utf-8")
    (output / "console.log").write_text("GET /login?password=p4ss+word%261\n", encoding="utf-8")
    (output / "shot.png").write_bytes(b"\x89PNG p4ss word&1")
    assert typed.files(output) == 2
    everything = "".join(p.read_text(encoding="utf-8") for p in output.glob("*.[yl]*"))
    assert "735" not in everything and "p4ss" not in everything


def test_every_hand_off_field_is_masked_whatever_its_label_says() -> None:
    """A German "Passwort" field (and a username) is masked: nothing typed is echoed."""
    from subterminator_tui.browser.snapshot import SnapshotElement
    from subterminator_tui.orchestrator.handoff import fields_on

    login = NormalizedSnapshot(
        "https://shop.example/anmelden",
        "Anmelden",
        "",
        elements=(
            SnapshotElement("textbox", "Benutzername", ref="e1"),
            SnapshotElement("textbox", "Passwort", ref="e2"),
        ),
    )
    assert [field.secret for field in fields_on(login, "login")] == [True, True]


class _FieldTypes:
    """A browser whose fields are inputs of the given types, by ref (inspect only)."""

    def __init__(self, types: dict[str, str]) -> None:
        self.types = types
        self.read: list[str | None] = []

    async def inspect(self, ref: str | None = None) -> PageFacts:
        """The field ``ref`` as the DOM has it."""
        self.read.append(ref)
        kind = self.types.get(ref or "")
        return PageFacts(target=ControlFacts("input", type=kind) if kind is not None else None)


async def test_a_password_field_is_refused_by_its_type_in_any_case_and_form() -> None:
    """browser_type into type=PASSWORD, and a fill_form whose second field is a password, are
    refused; a text field is not, whatever it is called."""
    browser = _FieldTypes({"e1": "text", "e2": "PASSWORD", "e3": "email"})
    for call in (
        ToolCall("c", "browser_type", {"target": "e2", "text": "x"}),
        ToolCall(
            "c",
            "browser_fill_form",
            {"fields": [{"target": "e1", "value": "a"}, {"target": "e2", "value": "b"}]},
        ),
    ):
        first = await browser.inspect(call.target_refs()[0])
        refused = await password_field_refusal(call, first, browser)  # type: ignore[arg-type]
        assert refused is not None and "e2 is a password field" in refused
    typed = ToolCall("c", "browser_type", {"target": "e3", "text": "Passwort"})
    facts = await browser.inspect("e3")
    assert await password_field_refusal(typed, facts, browser) is None  # type: ignore[arg-type]
    click = ToolCall("c", "browser_click", {"target": "e2"})
    assert await password_field_refusal(click, await browser.inspect("e2"), browser) is None  # type: ignore[arg-type]


def test_only_passwords_and_codes_keep_pictures_away() -> None:
    """A user name is scrubbed from text but a page showing it may keep its picture; a
    code shown back, grouped, may not."""
    account = NormalizedSnapshot(
        "https://shop.example/account", "Account", "Signed in as alice. Code 735 194 used."
    )
    scrubber = SecretScrubber()
    scrubber.remember("alice", withholds_pictures=False)
    assert not scrubber.withholds_pictures and not scrubber.shows_a_value(account)
    assert "alice" not in scrubber.snapshot(account).content
    scrubber.remember("735194")
    assert scrubber.withholds_pictures and scrubber.shows_a_value(account)

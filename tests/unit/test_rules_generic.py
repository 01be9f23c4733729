"""Generic rules for any site: success and failure in four languages, hand-offs, generic_service.

Pages are written as Playwright aria snapshots, the way the rules receive them;
the Demoflix captures add real pages of a whole flow.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.resources import builtin_generic_rules_file
from subterminator_tui.rules.generic import (
    generic_rules,
    generic_service,
    is_generic_rule,
    read_generic_rules,
    site_name,
)
from subterminator_tui.rules.loader import load_services
from subterminator_tui.rules.matching import detect_handoff, verify_completion
from subterminator_tui.rules.sites import SiteAddressError

DEMOFLIX = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots" / "demoflix"


def page(
    body: str, *, url: str = "https://www.example.com/account", title: str = ""
) -> NormalizedSnapshot:
    """A page from aria-snapshot lines (one element per line)."""
    return NormalizedSnapshot(
        url=url, title=title, content=body, elements=tuple(parse_elements(body))
    )


def paragraphs(*texts: str, extra: str = "") -> NormalizedSnapshot:
    """A page with these paragraphs under a main landmark, plus ``extra`` lines."""
    lines = ["- main [ref=e1]:"]
    lines += [f"  - paragraph [ref=e{i + 2}]: {text}" for i, text in enumerate(texts)]
    return page("\n".join(lines) + ("\n" + extra if extra else ""))


SITE = generic_service("https://account.example.com/subscription")

# --- success ------------------------------------------------------------------------

CONFIRMATIONS = {
    "en": [
        "Your subscription has been cancelled.",
        "Your membership was canceled successfully.",
        "Cancellation confirmed",
        "You've cancelled your plan. You can still watch until 5 June.",
        "Your plan will not renew.",
        "Auto-renewal has been turned off.",
        "Your membership ends on December 22, 2026.",
    ],
    "de": [
        "Ihr Abo wurde erfolgreich gekündigt.",
        "Deine Mitgliedschaft ist beendet.",
        "Kündigung bestätigt",
        "Ihr Abonnement wird nicht verlängert.",
        "Ihre Mitgliedschaft endet am 22. Dezember 2026.",
    ],
    "fr": [
        "Votre abonnement a bien été résilié.",
        "Votre abonnement a été annulé.",
        "Annulation confirmée",
        "Votre abonnement ne sera pas renouvelé.",
        "Votre abonnement prendra fin le 22 décembre 2026.",
    ],
    "es": [
        "Tu suscripción ha sido cancelada.",
        "Tu membresía se ha cancelado.",
        "Cancelación confirmada",
        "Tu suscripción no se renovará.",
        "Tu suscripción finalizará el 22 de diciembre de 2026.",
    ],
}

NOT_CONFIRMATIONS = {
    "en": [
        "Cancel anytime. No commitments.",
        "Try Premium free for 1 month. Cancel anytime.",
        "If you cancel, your plan will not renew and your membership ends on 5 June.",
        "Your plan will not renew if you cancel today.",
        "Once your subscription has been cancelled, you lose access to downloads.",
        "Your plan renews on 5 June.",
        "Offer ends on Friday.",
        "Manage your subscription",
    ],
    "de": [
        "Jederzeit kündbar.",
        "Wenn Sie kündigen, wird Ihr Abo nicht verlängert.",
        "Falls Sie fortfahren, wird Ihr Abo gekündigt.",
        "Ihr Abo verlängert sich am 22. Dezember.",
    ],
    "fr": [
        "Sans engagement, résiliable à tout moment.",
        "Si vous annulez, votre abonnement ne sera pas renouvelé.",
        "Une fois votre abonnement résilié, vous perdrez l'accès.",
        "Votre abonnement sera renouvelé le 22 décembre.",
    ],
    "es": [
        "Cancela cuando quieras.",
        "Si cancelas, tu suscripción no se renovará.",
        "Una vez cancelada la suscripción, perderás el acceso.",
        "Tu suscripción se renovará el 22 de diciembre.",
    ],
}


@pytest.mark.parametrize(
    "text", [text for texts in CONFIRMATIONS.values() for text in texts], ids=str
)
def test_a_stated_cancellation_verifies(text: str) -> None:
    """A page stating the cancellation (or its end date) verifies, in each language."""
    verification = verify_completion(SITE, paragraphs(text))
    assert verification.verified, verification.message


@pytest.mark.parametrize(
    "text", [text for texts in NOT_CONFIRMATIONS.values() for text in texts], ids=str
)
def test_marketing_conditions_and_renewals_do_not_verify(text: str) -> None:
    """ "Cancel anytime", conditions ("if you cancel ...") and renewal dates prove nothing."""
    assert not verify_completion(SITE, paragraphs(text)).verified


@pytest.mark.parametrize(
    "button",
    [
        "Cancel membership",
        "Cancel my subscription",
        "Finish cancellation",
        "Confirm cancellation",
        "Continue to cancel",
        "Yes, cancel",
        "Jetzt kündigen",
        "Kündigung bestätigen",
        "Confirmer la résiliation",
        "Résilier mon abonnement",
        "Confirmar cancelación",
        "Cancelar mi suscripción",
    ],
)
def test_a_page_still_offering_to_cancel_does_not_verify(button: str) -> None:
    """An unfinished flow often already says "will end on"; its cancel button gives it away."""
    unfinished = paragraphs(
        "Your membership will end on 5 June.",
        extra=f'  - button "{button}" [ref=e9]',
    )
    verification = verify_completion(SITE, unfinished)
    assert not verification.verified
    assert verification.failure_rule is not None


@pytest.mark.parametrize("button", ["Cancel", "Annuler", "Cancelar", "Keep my membership"])
def test_a_dialog_dismiss_button_is_not_an_offer_to_cancel(button: str) -> None:
    """A bare "Cancel" closes a dialog; it does not hide a confirmation next to it."""
    done = paragraphs(
        "Your subscription has been cancelled.", extra=f'  - button "{button}" [ref=e9]'
    )
    assert verify_completion(SITE, done).verified


@pytest.mark.parametrize(
    "text",
    [
        "Something went wrong. Please try again.",
        "We couldn't cancel your subscription right now.",
        "Ein Fehler ist aufgetreten.",
        "Une erreur est survenue.",
        "Algo salió mal.",
    ],
)
def test_an_error_message_beats_a_confirmation(text: str) -> None:
    """An error on the page means not verified, whatever else the page says."""
    verification = verify_completion(
        SITE, paragraphs("Your subscription has been cancelled.", text)
    )
    assert not verification.verified
    assert "failure" in verification.message


def test_the_title_alone_can_confirm() -> None:
    """A title such as "Cancellation confirmed" verifies."""
    snapshot = page("- main [ref=e1]", title="Cancellation confirmed | Example")
    assert verify_completion(SITE, snapshot).verified


def test_verification_by_generic_rules_says_so() -> None:
    """The message names the generic rules, so nobody mistakes them for a service's own."""
    verification = verify_completion(SITE, paragraphs("Your subscription has been cancelled."))
    assert verification.message.startswith("Verified by generic rules: ")
    assert "English" in verification.message


def test_a_service_rule_keeps_the_plain_message() -> None:
    """When the service's own success rule holds, the message stays "Verified: ..."."""
    dropbox = load_services(user_file=None).get("dropbox")
    snapshot = paragraphs("Plan downgrade scheduled", "Your plan will not renew.")
    verification = verify_completion(dropbox, snapshot)
    assert verification.verified
    assert verification.message.startswith("Verified: ")
    assert verification.success_rule is not None and not is_generic_rule(verification.success_rule)


# --- the real Demoflix flow ---------------------------------------------------------


def demoflix(name: str) -> NormalizedSnapshot:
    """A real Playwright MCP capture of the practice site."""
    meta = json.loads((DEMOFLIX / f"{name}.json").read_text(encoding="utf-8"))
    content = (DEMOFLIX / f"{name}.yml").read_text(encoding="utf-8")
    return NormalizedSnapshot(
        url=meta["url"],
        title=meta["title"],
        content=content,
        elements=tuple(parse_elements(content)),
    )


def test_generic_rules_verify_the_real_done_page() -> None:
    """Demoflix's confirmation page verifies by the generic rules alone."""
    assert verify_completion(SITE, demoflix("done")).verified


@pytest.mark.parametrize("name", ["login", "account", "survey", "offer", "confirm", "error"])
def test_generic_rules_do_not_verify_unfinished_real_pages(name: str) -> None:
    """No page before the last click verifies, including the final confirmation page."""
    assert not verify_completion(SITE, demoflix(name)).verified


# --- hand-offs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '- textbox "Password" [ref=e3]',
        '- textbox "Passwort" [ref=e3]',
        '- textbox "Mot de passe" [ref=e3]',
        '- textbox "Contraseña" [ref=e3]',
        '- heading "Sign in" [level=1] [ref=e2]',
        '- heading "Anmelden" [level=1] [ref=e2]',
        '- heading "Se connecter" [level=1] [ref=e2]',
        '- heading "Iniciar sesión" [level=1] [ref=e2]',
    ],
)
def test_sign_in_pages_are_handed_over(body: str) -> None:
    """A password field or a sign-in heading in any of the four languages."""
    handoff = detect_handoff(SITE, page(body))
    assert handoff is not None and handoff.kind == "login"


@pytest.mark.parametrize(
    "url",
    [
        "https://www.example.com/login",
        "https://www.example.com/signin?next=/account",
        "https://auth.example.com/auth/",
        "https://www.example.com/de/anmelden",
    ],
)
def test_sign_in_addresses_are_handed_over(url: str) -> None:
    """/login, /signin and their kin hand the page to the person."""
    handoff = detect_handoff(SITE, page("- main [ref=e1]", url=url))
    assert handoff is not None and handoff.kind == "login"


@pytest.mark.parametrize(
    "body",
    [
        '- heading "Security settings" [level=1] [ref=e1]\n- link "Change password" [ref=e2]',
        '- heading "Sign in & security" [level=1] [ref=e1]',
        "- paragraph [ref=e1]: Login code sent? Two-step verification is on.",
    ],
)
def test_account_settings_are_not_sign_in_pages(body: str) -> None:
    """An account page that mentions passwords or two-step verification is not a hand-off."""
    assert detect_handoff(SITE, page(body, url="https://www.example.com/account/security")) is None


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("Enter the verification code we sent to your phone.", "Enter code"),
        ("Geben Sie den Bestätigungscode ein.", "Code"),
        ("Saisissez le code de vérification.", "Code à 6 chiffres"),
        ("Introduce el código de verificación.", "Código"),
    ],
)
def test_verification_code_pages_are_handed_over(text: str, field: str) -> None:
    """A page asking for a code, with a field for it, wants the person."""
    body = f'- paragraph [ref=e1]: {text}\n- textbox "{field}" [ref=e2]'
    handoff = detect_handoff(SITE, page(body, url="https://www.example.com/login/verify"))
    assert handoff is not None and handoff.kind == "two_factor"


@pytest.mark.parametrize(
    "body",
    [
        '- iframe "reCAPTCHA" [ref=e4]',
        '- iframe "Widget containing checkbox for hCaptcha security challenge" [ref=e4]',
        '- iframe "Widget containing a Cloudflare security challenge" [ref=e4]',
        "- paragraph [ref=e1]: Verify you are human by completing the action below.",
        '- checkbox "I\'m not a robot" [ref=e2]',
        "- paragraph [ref=e1]: Bitte bestätigen Sie, dass Sie ein Mensch sind.",
        "- paragraph [ref=e1]: Je ne suis pas un robot",
        "- paragraph [ref=e1]: No soy un robot",
    ],
)
def test_captchas_are_handed_over(body: str) -> None:
    """reCAPTCHA, hCaptcha, Turnstile and bot checks in words."""
    handoff = detect_handoff(SITE, page(body))
    assert handoff is not None and handoff.kind == "captcha"


def test_a_robot_in_ordinary_copy_is_not_a_captcha() -> None:
    """ "Robot vacuums" and the like are not bot checks."""
    assert detect_handoff(SITE, paragraphs("Our robot vacuum plan includes free filters.")) is None


# --- generic_service ----------------------------------------------------------------


def test_generic_service_for_a_full_url() -> None:
    """Id, name, start URL and the one allowed domain come from the address."""
    service = generic_service("https://account.example.co.uk/subscription")
    assert service.id == "example.co.uk"
    assert service.name == "Example"
    assert service.start_url == "https://account.example.co.uk/subscription"
    assert service.allowed_domains == ("example.co.uk",)
    assert service.generic_rules
    assert service.source == builtin_generic_rules_file()


def test_generic_service_for_a_bare_domain() -> None:
    """``example.com`` starts at https://example.com/."""
    service = generic_service("example.com")
    assert (service.id, service.start_url) == ("example.com", "https://example.com/")


def test_generic_service_goal_names_the_site_and_the_finish() -> None:
    """The default goal names the site, declines offers and says when to call complete_task."""
    goal = generic_service("example.com").goal
    assert "Cancel the Example subscription" in goal
    assert "Decline retention offers" in goal
    assert "complete_task" in goal


def test_generic_service_overrides() -> None:
    """``goal`` and ``name`` replace the defaults."""
    service = generic_service("example.com", goal="Cancel the gym plan.", name="Acme Gym")
    assert (service.name, service.goal) == ("Acme Gym", "Cancel the gym plan.")


def test_generic_service_carries_every_generic_rule() -> None:
    """Success, failure and the three hand-off lists are the generic ones; checkpoints are empty."""
    rules = generic_rules()
    service = generic_service("example.com")
    assert service.success == rules.success and service.success
    assert service.failure == rules.failure and service.failure
    assert service.login == rules.login and service.login
    assert service.two_factor == rules.two_factor and service.two_factor
    assert service.captcha == rules.captcha and service.captcha
    assert service.checkpoint == ()


def test_generic_service_refuses_a_bad_address() -> None:
    """A non-web address is a configuration error, not a run."""
    with pytest.raises(SiteAddressError):
        generic_service("file:///etc/passwd")


@pytest.mark.parametrize(
    ("domain", "name"),
    [("example.com", "Example"), ("nytimes.com", "Nytimes"), ("xn--bcher-kva.de", "Bücher")],
)
def test_site_name(domain: str, name: str) -> None:
    """The first label, capitalised (and decoded when it is punycode)."""
    assert site_name(domain) == name


def test_generic_rules_file_names_its_problems(tmp_path: Path) -> None:
    """A broken generic rules file fails with the file and the key."""
    path = tmp_path / "generic.toml"
    path.write_text('[[success]]\ntext_anyy = ["done"]\n', encoding="utf-8")
    with pytest.raises(Exception, match=r"generic.toml: key 'success\[0\].text_anyy': unknown key"):
        read_generic_rules(path)

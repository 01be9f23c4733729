"""The built-in checkpoints every service gets: irreversible or money-moving words.

They judge the *effect target* of a call (the element a click, a key, a form
submit or a navigation would activate), so a service's author need not foresee
every tool. A plain "Cancel membership" that only opens the flow is not among
them; its confirmation ("Finish", "Confirm", "Yes, cancel") is. A service turns
them off only with an explicit ``default_checkpoints = false``, which every run
reports loudly.
"""

from __future__ import annotations

from subterminator_tui.rules.page_rules import CheckpointRule

# Word boundaries keep "pay" out of "payment", "end" out of "recommended".
_ENGLISH = (
    r"\b(finish|confirm|complete|end|terminate|delete|unsubscribe|claim|upgrade|downgrade"
    r"|pay|buy|purchase|subscribe|agree|pause|restart|resume|reactivate|rejoin|renew)\b",
    r"\bswitch (to|plan)\b",
    r"\bclose (my |your |the )?account\b",
    r"\byes,? (please )?cancel\b",
    r"\baccept( the)? (offer|discount|deal|\d+ ?%)",
    r"\b(place|submit) (my |your )?order\b",
)
_GERMAN = (
    r"\b(beenden|bestätigen|abschließen|löschen|kaufen|bezahlen|abonnieren|zustimmen"
    r"|upgraden|downgraden|kündigung bestätigen|jetzt kündigen|zahlungspflichtig)\b",
    r"\bkonto (schließen|löschen)\b",
    r"\bangebot annehmen\b",
    r"\bja,? kündigen\b",
)
_FRENCH = (
    r"\b(terminer|confirmer|finaliser|supprimer|acheter|payer|souscrire|accepter"
    r"|valider la résiliation|confirmer la résiliation)\b",
    r"\b(se|me) désabonner\b",
    r"\bfermer (mon |le )?compte\b",
    r"\boui,? résilier\b",
    r"\bs'abonner\b",
)
_SPANISH = (
    r"\b(finalizar|confirmar|terminar|eliminar|comprar|pagar|suscribirse|suscribirme"
    r"|aceptar)\b",
    r"\bdar(me|se)? de baja\b",
    r"\bcerrar (mi |la )?cuenta\b",
    r"\bsí,? cancelar\b",
)


def _rule(why: str, patterns: tuple[str, ...]) -> CheckpointRule:
    # Validated like a services.toml entry: the patterns compile case-insensitively.
    return CheckpointRule.model_validate({"why": why, "target_regex": list(patterns)}, strict=False)


DEFAULT_CHECKPOINTS: tuple[CheckpointRule, ...] = (
    _rule("Built-in: the step finishes, confirms, deletes, pays or agrees to something", _ENGLISH),
    _rule("Built-in (Deutsch): der Schritt beendet, bestätigt, löscht oder bezahlt etwas", _GERMAN),
    _rule("Built-in (français): l’étape termine, confirme ou paie quelque chose", _FRENCH),
    _rule("Built-in (español): el paso finaliza, confirma, elimina o paga algo", _SPANISH),
)


def checkpoints_for(
    service_rules: tuple[CheckpointRule, ...], defaults: bool
) -> tuple[CheckpointRule, ...]:
    """The service's own rules first (their words explain best), then the built-in ones."""
    return (*service_rules, *DEFAULT_CHECKPOINTS) if defaults else service_rules

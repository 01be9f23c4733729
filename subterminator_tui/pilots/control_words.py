"""Which controls matter to a cancellation, by their names (in seven languages) and roles.

Compaction keeps what these match: ``ESSENTIAL_WORDS`` whatever the budget,
``KEYWORDS`` before other controls, ``CANCEL_WORDS`` in every row of a long list.
"""

from __future__ import annotations

import re

#: Words that make a control matter wherever it is on the page. Word starts are
#: anchored so "plan" does not match "planet" nor "sign" "design", which on real pages
#: kept hundreds of ordinary links.
KEYWORDS = re.compile(
    r"\b(?:cancel|membership|subscri|account|billing|plans?\b|settings|manage|end\b|"
    r"unsubscribe|close account|stop\b|pause|continue|confirm|finish|decline|no thanks|"
    r"keep|reject|accept|cookie|more options|menu|offer|survey|reason|sign|log ?in|"
    r"log ?out|password|code\b|verify|payment|profile|my\b)|"
    # German, French, Spanish, Italian, Dutch, Portuguese.
    r"k(?:ü|ue)ndig|\babo\b|abonnement|mitglied|\bkonto|einstellung|anmeld|abmeld|beenden|"
    r"zahlung|r(?:é|e)sili|annul|\bcompte|param(?:è|e)tre|connexion|se connecter|"
    r"factur|adh(?:é|e)sion|cancelar|suscrip|\bcuenta|configuraci|ajustes|iniciar sesi|"
    r"membres(?:í|i)a|darse de baja|\bbaja\b|disdic|abbonament|impostazion|accedi|"
    r"opzeg|instelling|inlog|lidmaatschap|assinatura|\bconta\b|configura(?:ç|c)|\bentrar\b",
    re.IGNORECASE,
)
#: The subset that makes a control worth keeping whatever the budget: what a
#: canceller looks for, never what a page merely offers (continue, accept, menu).
ESSENTIAL_WORDS = re.compile(
    r"\b(?:cancel|membership|subscri|account|billing|plans?\b|settings|unsubscribe|"
    r"sign[ -]?(?:in|on|up|out)|log ?(?:in|on|out)|payment|my account|end (?:my )?membership)|"
    r"k(?:ü|ue)ndig|\babo\b|abonnement|mitgliedschaft|\bkonto|einstellung|anmelden|"
    r"r(?:é|e)sili|\bannuler|\bcompte|param(?:è|e)tres|connexion|se connecter|adh(?:é|e)sion|"
    r"cancelar|suscripci|\bcuenta|configuraci|iniciar sesi|membres(?:í|i)a|darse de baja|"
    r"disdic|abbonament|impostazion|accedi|opzeg|lidmaatschap|instellingen|inloggen|"
    r"assinatura|\bconta\b|configura(?:ç|c)(?:õ|o)es",
    re.IGNORECASE,
)
#: Form fields are kept whatever the budget: a flow cannot go on without them.
FORM_ROLES = frozenset(
    {
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "switch",
        "slider",
        "spinbutton",
    }
)
#: Words that make a control matter even when many rows repeat them.
CANCEL_WORDS = re.compile(
    r"cancel|unsubscribe|end (?:my )?membership|close account|k(?:ü|ue)ndig|r(?:é|e)silier|"
    r"\bannuler|darse de baja|disdic|opzeg",
    re.I,
)

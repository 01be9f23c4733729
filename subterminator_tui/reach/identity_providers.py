"""The identity providers SubTerminator knows, by name, with the hosts their sign-in visits.

A service writes ``sign_in_domains = ["google", "apple"]`` (or bare hosts such as
``login.example-idp.com``); each name stands for the hosts below. Every host was read
from the provider's own developer documentation (``source``); subdomains are
included, as everywhere in SubTerminator, so ``okta.com`` covers each Okta tenant
(``dev-123456.okta.com``) and ``auth0.com`` each Auth0 tenant (``acme.us.auth0.com``).
A pop-up's first step is ``about:blank``, which every run may show already; its
scripts and images (``appleid.cdn-apple.com``) are sub-resources, never top-level pages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class IdentityProvider:
    """One provider: the hosts its sign-in flow shows as top-level pages, and where that is said."""

    name: str
    hosts: tuple[str, ...]
    source: str
    quote: str


IDENTITY_PROVIDERS: dict[str, IdentityProvider] = {
    provider.name: provider
    for provider in (
        IdentityProvider(
            "google",
            ("accounts.google.com",),
            "https://developers.google.com/identity/openid-connect/reference",
            "The modern value is https://accounts.google.com (the issuer; the discovery "
            "document at accounts.google.com names the authorization endpoint "
            "https://accounts.google.com/o/oauth2/v2/auth, shown as a redirect or a pop-up)",
        ),
        IdentityProvider(
            "apple",
            ("appleid.apple.com",),
            "https://developer.apple.com/documentation/signinwithapplejs/clientconfigi/usepopup",
            "usePopup: A Boolean that enables showing the flow in a popup (the flow runs on "
            "appleid.apple.com/auth/authorize; the script comes from appleid.cdn-apple.com)",
        ),
        IdentityProvider(
            "microsoft",
            ("login.microsoftonline.com", "login.live.com", "account.live.com"),
            "https://learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow",
            "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize (personal "
            "accounts are federated to https://login.live.com/oauth20_authorize.srf; "
            "account.live.com serves its account recovery and proof pages)",
        ),
        IdentityProvider(
            "facebook",
            ("facebook.com",),
            "https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow",
            "Your app must initiate a redirect to an endpoint which will display the login "
            "dialog: https://www.facebook.com/v19.0/dialog/oauth",
        ),
        IdentityProvider(
            "amazon",
            ("amazon.com",),
            "https://developer.amazon.com/docs/login-with-amazon/conceptual-overview.html",
            "To login, users are directed to amazon.com and asked to provide their Amazon "
            "password (the authorization request goes to https://www.amazon.com/ap/oa, in a "
            "pop-up by default)",
        ),
        IdentityProvider(
            "okta",
            ("okta.com",),
            "https://developer.okta.com/docs/reference/api/authorization-servers/",
            "https://${yourOktaDomain}/... (an Okta org's own subdomain, such as "
            "dev-123456.okta.com)",
        ),
        IdentityProvider(
            "auth0",
            ("auth0.com",),
            "https://auth0.com/docs/policies/endpoints",
            "https://{yourAccount}.[au|ca|eu|jp|uk].auth0.com, https://login.us.auth0.com "
            "(Universal Login is a page hosted by Auth0 on the tenant's domain)",
        ),
    )
}


def expand_sign_in_domains(entries: Iterable[str]) -> tuple[str, ...]:
    """Known provider names replaced by their hosts; other entries (bare hosts) kept, in order."""
    hosts: list[str] = []
    for entry in entries:
        provider = IDENTITY_PROVIDERS.get(entry.strip().lower())
        for host in provider.hosts if provider else (entry.strip().lower().strip("."),):
            if host not in hosts:
                hosts.append(host)
    return tuple(hosts)


def is_provider_name(entry: str) -> bool:
    """Whether ``entry`` names a provider SubTerminator knows (``google``), not a host."""
    return entry.strip().lower() in IDENTITY_PROVIDERS

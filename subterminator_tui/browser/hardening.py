"""What a run's browser is launched with: the non-HTTP ways out closed before any page loads.

Playwright MCP starts the browser (the persistent profile, the egress proxy, one
browser per run); this module writes its extra switches into Playwright MCP's config
file. WebRTC may use UDP only through the proxy (which allows none), QUIC is off,
speculative loading (prefetch and prerender, which load pages the model never
opened) is off, and WebSockets and WebTransport are refused by a declarative
network rule (``socket_refusal``): a frame on a socket cannot be paused the way a
request is (devtools_session.py), so no socket opens at all. The profile's
preferences close what no switch reaches.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from subterminator_tui.browser.devtools_session import DEVTOOLS_ARGS

#: The non-HTTP ways out closed, for a run's browser (a proof that an attack works with
#: no protection turns them off: ``LaunchPlan.hardened``).
HARDENING_ARGS = (
    # WebRTC may reach the network only through the proxy, which carries no UDP: no STUN,
    # no TURN, no peer connection goes around the egress filter.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--enforce-webrtc-ip-permission-check",
    # QUIC (HTTP/3, WebTransport) is UDP too.
    "--disable-quic",
)

#: Chromium's features a hardened browser turns off. Prefetch and prerender load a gated
#: URL the moment a page merely names it; WebTransport is a socket (see socket_refusal).
HARDENING_FEATURES = (
    "Prerender2",
    "SpeculationRulesPrefetchFuture",
    "PrefetchProxy",
    "NoStatePrefetchHoldback",
    "PreloadingHeuristicsMLModel",
    "WebTransport",
)

#: The features Playwright itself turns off (``chromiumSwitches.ts`` of the pinned
#: playwright-core; ``test_browser_config`` reads them there). Chromium keeps only the last
#: ``--disable-features`` it is given, so a list of ours alone would switch these back on
#: (requests to Google at start-up, Translate, HTTPS upgrades, Chromium's refusal of a
#: redirect under request interception, among others): ours repeats them.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "DialMediaRouteProvider",
    "GlobalMediaControls",
    "HttpsUpgrades",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "BlockOriginHeaderModificationOnRedirect",
    "Translate",
    "AutoDeElevate",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)

#: A headless browser has no address bar, yet Chromium preloads the bar's suggestion
#: popup as two pages in a renderer of their own: about 0.6 CPU s of every browser start.
HEADLESS_UNUSED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")


#: The extension that refuses sockets, written beside the config file (one per run).
SOCKET_REFUSAL_DIR = "socket-refusal"


def write_browser_config(path: Path, *, hardened: bool = True, headless: bool = True) -> Path:
    """Write Playwright MCP's config file with Chromium's extra switches to ``path``."""
    args = [*DEVTOOLS_ARGS]
    ours: list[str] = []
    if hardened:
        refusal = write_socket_refusal(path.parent / SOCKET_REFUSAL_DIR)
        args += [*HARDENING_ARGS, *socket_refusal_args(refusal)]
        ours += HARDENING_FEATURES
    if headless:
        ours += HEADLESS_UNUSED_FEATURES
    if ours:
        # One list, Playwright's and ours: a second switch would replace Playwright's.
        args.append(disable_features_switch([*PLAYWRIGHT_DISABLED_FEATURES, *ours]))
    config = {"browser": {"launchOptions": {"args": args}}}
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def disable_features_switch(features: Iterable[str]) -> str:
    """The one ``--disable-features`` switch for ``features``, each named once."""
    return "--disable-features=" + ",".join(dict.fromkeys(features))


def socket_refusal_args(extension: Path) -> tuple[str, ...]:
    """Chromium's switches that load ``extension`` and no other."""
    # Playwright MCP already drops Playwright's own --disable-extensions for a profile.
    return (f"--disable-extensions-except={extension}", f"--load-extension={extension}")


def write_socket_refusal(directory: Path) -> Path:
    """Write the socket-refusing extension to ``directory``; its path.

    Request interception (the Fetch domain) pauses every HTTP request, but a
    WebSocket's frames go out with nothing to pause: a page could cancel with one
    frame after an innocent click. Replacing the page's ``WebSocket`` does not hold
    either (a fresh iframe or a worker brings its own). Chromium's declarative
    network rules act in the network service, for every frame, worker and service
    worker of every origin, before the handshake leaves: the socket never opens.
    """
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "manifest.json").write_text(json.dumps(_SOCKET_MANIFEST, indent=2), "utf-8")
    (directory / "rules.json").write_text(json.dumps(_SOCKET_RULES, indent=2), "utf-8")
    return directory


_SOCKET_MANIFEST = {
    "manifest_version": 3,
    "name": "SubTerminator socket refusal",
    "description": "Refuses WebSockets and WebTransport: their frames cannot be held.",
    "version": "1.0",
    "permissions": ["declarativeNetRequest"],
    "host_permissions": ["<all_urls>"],
    "declarative_net_request": {
        "rule_resources": [{"id": "sockets", "enabled": True, "path": "rules.json"}]
    },
}
_SOCKET_RULES = [
    {
        "id": 1,
        "priority": 1,
        "action": {"type": "block"},
        "condition": {"resourceTypes": ["websocket", "webtransport"]},
    }
]


#: Profile preferences Chromium honours where no switch reaches: no preloading of any
#: kind (speculation rules included), and WebRTC over the proxy only (which carries no UDP).
_PREFERENCES: dict[str, dict[str, object]] = {
    "net": {"network_prediction_options": 2},
    "webrtc": {
        "ip_handling_policy": "disable_non_proxied_udp",
        "multiple_routes_enabled": False,
        "nonproxied_udp_enabled": False,
    },
}


def keep_preferences(profile_dir: Path) -> None:
    """Merge :data:`_PREFERENCES` into the profile's ``Default/Preferences`` before launch."""
    path = profile_dir / "Default" / "Preferences"
    try:
        current = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        current = {}
    if not isinstance(current, dict):
        current = {}
    for section, values in _PREFERENCES.items():
        merged = current.get(section)
        current[section] = {**(merged if isinstance(merged, dict) else {}), **values}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current), encoding="utf-8")

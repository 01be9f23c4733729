"""The person signs in to the practice site, and serve starts the session from that sign-in.

On serve an agent never signs in, enters a code or solves a check (the person does, in
the browser or through a saved sign-in). The bench has no one at a browser window, so
it plays the person the way ``subterminator auth save`` would leave things: it signs in
to the practice site over HTTP (the password, then the code and the check the site asks
for) and writes the session's cookie as a saved sign-in, which ``serve --sign-in`` loads.
The agent is never given any of it.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import urllib.parse
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from subterminator_tui.practice.demoflix.state import (
    CAPTCHA_TEXT,
    PASSWORD,
    TWO_FACTOR_CODE,
    USERNAME,
)

#: Each check the site may ask for, by its address, and the form the person fills in.
_CHECKS = {
    "/login": {"username": USERNAME, "password": PASSWORD, "next": "/account"},
    "/verify": {"code": TWO_FACTOR_CODE},
    "/captcha": {"characters": CAPTCHA_TEXT},
}
#: More rounds than the site has checks: a site that keeps asking is not signed in to.
_MAX_ROUNDS = 5


def sign_in_file(site_url: str, path: Path) -> Path:
    """Sign in to the practice site at ``site_url``; its cookies as a saved sign-in in ``path``."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(urljoin(site_url, "/account"), timeout=10) as response:
        where = urlsplit(response.url).path
    for _ in range(_MAX_ROUNDS):
        form = _CHECKS.get(where)
        if form is None:
            break
        body = urllib.parse.urlencode(form).encode()
        with opener.open(urljoin(site_url, where), data=body, timeout=10) as response:
            where = urlsplit(response.url).path
    host = urlsplit(site_url).hostname or "127.0.0.1"
    cookies = [
        {
            "name": cookie.name,
            "value": cookie.value or "",
            "domain": host,
            "path": cookie.path or "/",
            "expires": -1,
            "httpOnly": True,
            "secure": False,
            "sameSite": "Lax",
        }
        for cookie in jar
    ]
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")
    os.chmod(path, 0o600)
    return path

"""Principals and session names: short, plain and safe to use as folder names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from subterminator_tui.inert_text import inert_line
from subterminator_tui.serve.errors import ServeInputError

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")

#: The principal of the stdio transport and of HTTP with ``--no-auth``: the local operator.
LOCAL_PRINCIPAL = "local"


#: The most of a caller's own input an error message repeats back.
ECHO_LIMIT = 60


def echoed(value: object) -> str:
    """``value`` as an error message quotes it: repr'd, inert, at most ECHO_LIMIT characters.

    A client's input comes back in errors; a megabyte name must not come back whole.
    """
    text = inert_line(repr(value))
    return text if len(text) <= ECHO_LIMIT else text[: ECHO_LIMIT - 1] + "…"


def checked_name(kind: str, value: str) -> str:
    """``value`` when it is 1-48 lower-case letters, digits, ``-`` or ``_``; else a clear error.

    Names become folder names under the profile root, so anything that could climb out
    of it (``..``, ``/``) or collide by case never gets that far.
    """
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ServeInputError(
            f"Invalid {kind} {echoed(value)}: use 1-48 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit (for example 'demo-1')."
        )
    return value


def checked_principal(value: str) -> str:
    """A token's principal: a valid name that is not the local operator's own.

    ``local`` owns the sessions opened with ``--session`` and over stdio; a token named
    so would share them with whoever holds it.
    """
    name = checked_name("principal", value)
    if name == LOCAL_PRINCIPAL:
        raise ServeInputError(
            f"'{LOCAL_PRINCIPAL}' is the operator's own principal (stdio, --no-auth and "
            "--session); give the token another name."
        )
    return name


@dataclass(frozen=True, order=True)
class SessionKey:
    """A session's identity: whose it is and what they called it."""

    principal: str
    name: str

    @classmethod
    def of(cls, principal: str, name: str) -> SessionKey:
        """A key from unchecked input."""
        return cls(checked_name("principal", principal), checked_name("session name", name))

    def __str__(self) -> str:
        return f"{self.principal}/{self.name}"

"""Reading a request's host and telling public addresses from everything else.

The proxy reads hosts the way Chromium's URL parser writes them (WHATWG URL),
so the odd IPv4 spellings a page can type (``0x7f.1``, ``2130706433``,
``0177.0.0.1``) mean the same address here as in the browser, and a host that
the browser would not have produced is refused rather than guessed at.
"""

from __future__ import annotations

import ipaddress
import re

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: A parsed host: an address, or a lower-case domain name without a trailing dot.
Host = IPAddress | str

_NAME_CHARACTERS = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
_MAX_NAME = 253
_MAX_LABEL = 63

# Cloud metadata services answer on these; they are already link-local or
# private, but a refusal that names them is easier to act on.
_METADATA = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
# IANA special-purpose blocks, listed here because ``is_global`` differs between
# Python patch releases (3.11.7 calls 192.0.0.8 global). No site a run needs lives there.
_SPECIAL_PURPOSE = tuple(
    ipaddress.ip_network(block)
    for block in (
        "0.0.0.0/8",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "::/8",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "3fff::/20",
        "5f00::/16",
    )
)
# NAT64 prefixes carry an IPv4 address in their last 32 bits (RFC 6052, RFC 8215).
_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL_USE = ipaddress.ip_network("64:ff9b:1::/48")
# ::ffff:0:a.b.c.d (RFC 2765's IPv4-translated form).
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


class HostError(ValueError):
    """A host the proxy cannot read the way the browser would; it is refused."""


def listen_address(text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` a server listens on (``[::1]:PORT`` for IPv6), or None when malformed.

    For the egress filter on its own (``egress --listen``) and serve's ``--http``.
    """
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        return None
    return host.strip("[]"), int(port)


def parse_host(text: str) -> Host:
    """The canonical form of a URL host: an address, or a lower-case name.

    Accepts ``[v6]`` and bare IPv6, drops one trailing dot, and reads a host
    whose last label is a number as an IPv4 address the WHATWG way. Raises
    HostError for anything else (percent-escapes, zone ids, empty labels,
    non-ASCII, numbers out of range).
    """
    if text.startswith("[") or ":" in text:
        inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
        if "%" in inner or "[" in inner or "]" in inner:
            raise HostError(f"unreadable IPv6 host {text!r}")
        try:
            return ipaddress.IPv6Address(inner)
        except ValueError:
            raise HostError(f"unreadable IPv6 host {text!r}") from None
    name = text.lower().removesuffix(".")
    if not name or len(name) > _MAX_NAME or not _NAME_CHARACTERS.fullmatch(name):
        raise HostError(f"unreadable host {text!r}")
    labels = name.split(".")
    if _is_number(labels[-1]):
        return _whatwg_ipv4(labels)
    if any(len(label) > _MAX_LABEL for label in labels):
        raise HostError(f"unreadable host {text!r}")
    return name


def host_text(host: Host) -> str:
    """The host as it appears in a URL (IPv6 in brackets)."""
    if isinstance(host, ipaddress.IPv6Address):
        return f"[{host}]"
    return str(host)


def non_public_reason(address: IPAddress) -> str | None:
    """Why ``address`` is not a public internet address, or None when it is.

    An IPv6 address that carries an IPv4 one (mapped, compatible, translated,
    6to4, Teredo, NAT64) is judged by that IPv4 address too, since a network
    on the way may hand the packet to it.
    """
    embedded = embedded_ipv4(address)
    if embedded is not None:
        inner = non_public_reason(embedded)
        if inner is not None:
            return f"{inner}, carried inside the IPv6 address {address}"
    if address in _METADATA:
        return "a cloud metadata address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.version == 4 and address in _CGNAT:
        return "a shared (CGNAT) address"
    if address.version == 6 and address in _NAT64_LOCAL_USE:
        return "a local-use NAT64 address"
    if address.is_private:
        return "a private address"
    if address.is_reserved or any(address in block for block in _SPECIAL_PURPOSE):
        return "a reserved address"
    if not address.is_global:
        return "an address that is not globally reachable"
    return None


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries, in any of the usual forms, or None."""
    if address.version == 4:
        return None
    assert isinstance(address, ipaddress.IPv6Address)
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    last_32_bits = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _NAT64_WELL_KNOWN or address in _IPV4_TRANSLATED:
        return last_32_bits
    # ::a.b.c.d; :: and ::1 themselves are the unspecified and loopback addresses.
    if address in _IPV4_COMPATIBLE and int(address) > 1:
        return last_32_bits
    return None


def _is_number(label: str) -> bool:
    """WHATWG "ends in a number": digits, or 0x followed by hex digits (or nothing)."""
    if label.isdigit():
        return True
    return label.startswith("0x") and all(c in "0123456789abcdef" for c in label[2:])


def _whatwg_ipv4(labels: list[str]) -> ipaddress.IPv4Address:
    """The WHATWG IPv4 parser: 1 to 4 parts, hex/octal/decimal, the last part fills the rest."""
    if len(labels) > 4:
        raise HostError(f"unreadable IPv4 host {'.'.join(labels)!r}")
    numbers = [_whatwg_number(label) for label in labels]
    *leading, last = numbers
    if any(number > 255 for number in leading) or last >= 256 ** (5 - len(numbers)):
        raise HostError(f"IPv4 host out of range {'.'.join(labels)!r}")
    value = last
    for index, number in enumerate(leading):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _whatwg_number(label: str) -> int:
    try:
        if label.startswith("0x"):
            return int(label[2:] or "0", 16)
        if len(label) > 1 and label.startswith("0"):
            return int(label[1:], 8)
        return int(label, 10)
    except ValueError:
        raise HostError(f"unreadable IPv4 part {label!r}") from None

"""Which origins an MCP app's CSP may name (``mcp/_apps.py``; the browser
applies the same rule in ``js/src/mcp-apps/csp.js``, and the page's own origin).

An app names where it may connect, load from, frame and set its base to. Some
origins are never the app's to reach, whatever it declares:

- loopback (``localhost``, ``*.localhost``, ``127.0.0.0/8``): the notebook
  server and whatever else runs on this machine;
- private, link-local, unspecified and reserved IPv4 addresses (``10/8``,
  ``172.16/12``, ``192.168/16``, ``100.64/10``, ``169.254/16``, the cloud
  metadata address among them, ``0/8``, ``224/3``), and private network names
  (``*.local``, ``*.internal``, ``*.home.arpa``, ``*.lan``); a host the browser
  would read as an IPv4 address (``2130706433``, ``0x7f.1``) counts as one;
- wildcards wider than one registrable domain: ``*.`` before a single label
  (``https://*.com``) or before a known multi-label public suffix
  (``*.co.uk``, ``*.github.io``, ``PUBLIC_SUFFIXES``). With no public-suffix
  list offline, a wildcard over a suffix not listed is kept.

The notebook page's own origin is known only in the browser, which drops it too.
"""

from __future__ import annotations

import re

__all__ = ["PUBLIC_SUFFIXES", "origin_refusal"]

PUBLIC_SUFFIXES = frozenset(
    {
        "ac.uk", "co.uk", "gov.uk", "ltd.uk", "me.uk", "net.uk", "nhs.uk", "org.uk",
        "plc.uk", "sch.uk", "com.au", "edu.au", "gov.au", "net.au", "org.au", "co.nz",
        "net.nz", "org.nz", "ac.jp", "co.jp", "go.jp", "ne.jp", "or.jp", "co.kr",
        "or.kr", "com.br", "net.br", "org.br", "com.cn", "net.cn", "org.cn", "gov.cn",
        "co.in", "net.in", "org.in", "co.za", "org.za", "com.mx", "com.ar", "com.tr",
        "com.sg", "com.hk", "com.tw", "co.il", "com.pl", "co.id", "com.my", "com.ph",
        "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "vercel.app",
        "netlify.app", "pages.dev", "workers.dev", "appspot.com", "web.app",
        "firebaseapp.com", "azurewebsites.net", "cloudfront.net", "amazonaws.com",
        "blogspot.com", "ngrok.io", "ngrok-free.app", "glitch.me", "repl.co",
    }
)  # fmt: skip
"""Multi-label public suffixes a ``*.`` may not stand right before (not the
whole public-suffix list: the common country and hosting ones)."""

_PRIVATE_NAMES = ("localhost", "local", "internal", "home.arpa", "lan")
_PORT = re.compile(r":\d{1,5}$")
_NUMERIC = re.compile(r"(0[xX][0-9A-Fa-f]*|\d+)")

_BLOCKS = (  # (first address, prefix length, what it is)
    (0x7F000000, 8, "a loopback address"),
    (0x00000000, 8, "an unspecified address"),
    (0x0A000000, 8, "a private address"),
    (0xAC100000, 12, "a private address"),
    (0xC0A80000, 16, "a private address"),
    (0x64400000, 10, "a private address"),
    (0xA9FE0000, 16, "a link-local address"),
    (0xE0000000, 3, "a multicast or reserved address"),
)


def _ipv4(host: str) -> int | None:
    """``host`` as the browser's URL parser reads an IPv4 host (decimal, ``0x``
    hex or ``0`` octal parts, 1 to 4 of them), or None when it is a name;
    -1 when it ends in a number but is no valid address."""
    parts = host.split(".")
    if not _NUMERIC.fullmatch(parts[-1]):
        return None
    if len(parts) > 4 or not all(_NUMERIC.fullmatch(p) for p in parts):
        return -1
    numbers = []
    for part in parts:
        if part[:2].lower() == "0x":
            numbers.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part.startswith("0"):
            if not set(part) <= set("01234567"):
                return -1
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return -1
    value = last
    for index, n in enumerate(head):
        value += n << (8 * (3 - index))
    return value


def origin_refusal(origin: str) -> str | None:
    """Why an app may not name ``origin`` (a plain ``scheme://host[:port]``,
    the host possibly ``*.``-prefixed), or None when it may."""
    host = _PORT.sub("", origin.split("://", 1)[-1]).lower()
    wildcard = host.startswith("*.")
    name = host[2:] if wildcard else host
    for private in _PRIVATE_NAMES:
        if name == private or name.endswith("." + private):
            return "a loopback name" if private == "localhost" else "a private network name"
    address = _ipv4(name)
    if address == -1:
        return "not a valid address"
    if address is not None:
        if wildcard:
            return "a wildcard over an address"
        for first, bits, what in _BLOCKS:
            if address >> (32 - bits) == first >> (32 - bits):
                return what
        return None
    if wildcard and ("." not in name or name in PUBLIC_SUFFIXES):
        return "a wildcard wider than one registrable domain"
    return None

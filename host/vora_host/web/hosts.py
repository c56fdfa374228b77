"""The names the web mirror answers to (the Host header), against DNS rebinding.

A page of another site cannot read the mirror directly (no CORS header is ever sent), but
it can make its own name point at this computer (DNS rebinding: attacker.example first
resolves to the attacker's server, then to 127.0.0.1) and read the mirror as its own
origin. Its requests then carry `Host: attacker.example`, which is refused here.

Answered: `localhost`, any IP address written as such (127.0.0.1, [::1], 192.168.1.20:
a page can only be tricked into a name, never into an address, since an address is its
own origin), the name `vora serve --host` was given, and every name of `--allow-host`.
A missing or malformed Host is a 400, a name not served a 421 (Misdirected Request),
each with a plain sentence saying what to do.

Starlette's TrustedHostMiddleware checks the same thing, but answers only "Invalid host
header" (no reason, no way to say which names are served or how to add one) and knows
no "any IP address": hence this small middleware.
"""

import ipaddress

from starlette.responses import PlainTextResponse

__all__ = ["HostCheck", "served_names", "DEFAULT_NAMES"]

DEFAULT_NAMES = ("localhost",)  # and every IP address
_WILDCARDS = ("", "0.0.0.0", "::", "*")


def _is_address(name):
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _name_of(host):
    """The name of a Host header's value without its port ("[::1]:8049" -> "::1"), lower
    case; None when it is not one."""
    host = host.strip().lower()
    if not host or len(host) > 300 or any(c in host for c in " \t/\\@?#"):
        return None
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return None
        name, rest = host[1:end], host[end + 1:]
        if (rest and not rest.startswith(":")) or not _is_address(name):
            return None
        port = rest[1:]
    elif host.count(":") > 1:
        return None  # an IPv6 address is written in brackets in a Host header
    else:
        name, _, port = host.partition(":")
    if port and not (port.isdigit() and port.isascii() and int(port) < 65536):
        return None
    name = name.rstrip(".")  # "localhost." is the same name
    return name or None


def served_names(listen=None, extra=()):
    """The names answered besides IP addresses: localhost, the listening name (unless it
    is an address or every address, 0.0.0.0), and `extra` (--allow-host)."""
    names = list(DEFAULT_NAMES)
    for name in ([listen] if listen else []) + list(extra):
        name = (name or "").strip().lower().strip("[]").rstrip(".")
        if name not in _WILDCARDS and not _is_address(name) and name not in names:
            names.append(name)
    return names


class HostCheck:
    """ASGI middleware: only requests whose Host is an IP address or one of `names`."""

    def __init__(self, app, names=DEFAULT_NAMES):
        self.app = app
        self.names = frozenset(n.lower() for n in names)
        shown = ["localhost"] + sorted(self.names - {"localhost"})
        self.said = ", ".join(shown) + " and this computer's IP addresses"

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        raw = [v for k, v in scope.get("headers", ()) if k == b"host"]
        if len(raw) != 1:
            return await self._refuse(scope, receive, send, 400,
                                      "the request has %s Host header: the web mirror "
                                      "answers requests that name it once (%s)"
                                      % ("no" if not raw else "more than one", self.said))
        text = raw[0].decode("latin-1")
        name = _name_of(text)
        if name is None:
            return await self._refuse(scope, receive, send, 400,
                                      "the Host header %r is not a host name: the web mirror "
                                      "answers to %s" % (text[:80], self.said))
        if name in self.names or _is_address(name):
            return await self.app(scope, receive, send)
        return await self._refuse(
            scope, receive, send, 421,
            "this web mirror does not answer to the name %r (the Host header): it answers "
            "to %s, so that a page of another site cannot read it through DNS rebinding. "
            "If this computer is called so on purpose, start it with 'vora serve "
            "--allow-host %s'" % (name[:80], self.said, name[:80]))

    @staticmethod
    async def _refuse(scope, receive, send, status, message):
        await PlainTextResponse(message + "\n", status_code=status)(scope, receive, send)

"""Who may ask the service, and what they may send (layer 7: service).

A web page on another origin can make its visitor's browser send requests to a server on the
visitor's machine.  Three rules keep such requests out, checked by :class:`Admit` before any
route or body parser sees a request:

* **The Host** (only where the server listens on loopback): a ``Host`` header that is not a
  loopback name (``localhost``, ``127.x.x.x``, ``[::1]``, any port) gets 400.  A page that
  rebinds its own DNS name to 127.0.0.1 still sends its own name, so it never reads an answer.
* **The token** (where one is set: ``npuzzle serve --token`` or ``$NPUZZLE_TOKEN``): every
  request but the page's own files and the API's documentation carries
  ``Authorization: Bearer TOKEN``, compared in constant time; 401 otherwise.
* **The body's type**: a request with a body says ``Content-Type: application/json`` (any
  parameter, such as ``charset``, allowed); ``POST /run`` takes the warm path's own type
  (:data:`solver.client.wire.CONTENT_TYPE`).  Anything else gets 415.  A browser sends a
  cross-origin ``text/plain`` or form body without asking first; it must ask the server
  before it sends either of these types, and this server never says yes.

Each refusal is the service's usual one-line ``{"error": ...}``.

Imports: the standard library, starlette, :mod:`solver.client.wire`.
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass

from starlette.responses import JSONResponse

from ..client.wire import CONTENT_TYPE as RUN_TYPE

JSON_TYPE = "application/json"
# What a body sent to each path must be (every other path: JSON).
BODY_TYPES = {"/run": RUN_TYPE}
# What loads without the token: the page and its files, and the API's documentation (neither
# answers a question; the page sends the token with each question it asks).
OPEN_PATHS = ("/", "/favicon.ico", "/docs", "/openapi.json")
OPEN_FOLDERS = ("/static/", "/docs-assets/")
TOKEN_HINT = "send Authorization: Bearer TOKEN (npuzzle: --token or $NPUZZLE_TOKEN)"


@dataclass(frozen=True)
class Admission:
    """Whom the service admits: ``token`` (None: anyone who reaches it) and whether the
    ``Host`` must be a loopback name (``loopback_only``: the server listens on loopback)."""

    token: str | None = None
    loopback_only: bool = False


def is_loopback_name(name: str) -> bool:
    """Whether ``name`` (an address or host name, IPv6 with or without brackets) names this
    machine's loopback interface: ``localhost``, ``127.x.x.x``, ``::1``."""
    name = name.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a ``Host`` header, its port left off (``[::1]:8000`` -> ``[::1]``)."""
    header = header.strip()
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def token_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer TOKEN``, compared in constant
    time (the time taken says nothing about how much of a guess was right)."""
    scheme, _, given = (header or "").strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


def is_open(path: str) -> bool:
    """Whether ``path`` loads without the token (the page, its files, the API's documentation)."""
    return path in OPEN_PATHS or path.startswith(OPEN_FOLDERS)


def has_body(headers: dict[bytes, bytes]) -> bool:
    """Whether a request announces a body (a length other than 0, or chunks)."""
    length = headers.get(b"content-length")
    return b"transfer-encoding" in headers or (length is not None and length.strip() != b"0")


def media_type(value: bytes | None) -> str:
    """The media type of a ``Content-Type`` header, without its parameters, in lower case."""
    return (value or b"").decode("latin-1").split(";", 1)[0].strip().lower()


def refusal(scope, admission: Admission) -> tuple[int, str, dict | None] | None:
    """``(status, error, headers)`` for a request the service does not admit, or None."""
    headers = dict(scope.get("headers") or ())
    if admission.loopback_only:
        host = headers.get(b"host", b"").decode("latin-1")
        if not is_loopback_name(host_name(host)):
            return (
                400,
                f"this server listens on loopback and answers only a loopback Host "
                f"(localhost, 127.0.0.1, [::1]), not {host!r}",
                None,
            )
    path = scope.get("path", "")
    if admission.token is not None and not is_open(path):
        given = headers.get(b"authorization")
        if given is None:
            return (
                401,
                f"this server asks for a token: {TOKEN_HINT}",
                {"WWW-Authenticate": "Bearer"},
            )
        if not token_matches(given.decode("latin-1"), admission.token):
            return (
                401,
                "the token is not this server's",
                {"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
    if has_body(headers):
        wanted = BODY_TYPES.get(path, JSON_TYPE)
        sent = media_type(headers.get(b"content-type"))
        if sent != wanted:
            said = sent or "without one"
            return 415, f"the body must be sent as Content-Type: {wanted}, not {said}", None
    return None


class Admit:
    """ASGI middleware: a request :func:`refusal` refuses gets its one-line answer and never
    reaches the app."""

    def __init__(self, app, admission: Admission):
        """Wrap the ASGI ``app`` with the rules of ``admission``."""
        self.app = app
        self.admission = admission

    async def __call__(self, scope, receive, send):
        """Answer a refused request here; hand every other one on."""
        if scope["type"] == "http":
            refused = refusal(scope, self.admission)
            if refused is not None:
                status, error, headers = refused
                response = JSONResponse({"error": error}, status_code=status, headers=headers)
                return await response(scope, receive, send)
        await self.app(scope, receive, send)


__all__ = [
    "Admission",
    "Admit",
    "has_body",
    "host_name",
    "is_loopback_name",
    "is_open",
    "media_type",
    "refusal",
    "token_matches",
]

"""The service's errors as one JSON ``{"error": ...}`` line (layer 7: service).

A client's mistake -- a body too large, not JSON, a field of the wrong type, an unknown path
-- gets a 4xx with one line that says what to fix; a fault of ours gets a 500 of the same
shape, its traceback in the server log only.  :class:`BodyLimit` bounds the body before
anything parses it; :func:`add_error_handlers` installs the rest on the app.

Imports: fastapi/starlette only.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("npuzzle.serve")


# --- the request body: bounded before anything reads it -------------------------------------


class BodyLimit:
    """ASGI middleware: a body over ``max_bytes`` gets a 413 before any of it is parsed
    (announced by Content-Length or found while reading a chunked body).  Its type was checked
    before (:mod:`.admission`)."""

    def __init__(self, app, max_bytes: int):
        """Wrap the ASGI ``app``; bodies over ``max_bytes`` never reach it."""
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        """Read the whole body (refusing it once it passes the bound), then hand it on."""
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            return await self._refuse(send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await self._refuse(send)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body, delivered = b"".join(chunks), False

        async def replay():
            """The body already read, once, then whatever the client sends next."""
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send):
        """Send the 413 answer."""
        response = JSONResponse(
            {
                "error": f"the request body is larger than the server takes "
                f"({self.max_bytes:,} bytes)"
            },
            status_code=413,
        )
        await response({"type": "http"}, None, send)


# --- errors as one JSON line -----------------------------------------------------------------


# The line refusing a key a request body does not take, or None for the plain one.
UnknownKey = Callable[[str], "str | None"]


def validation_message(errors, unknown_key: UnknownKey | None = None) -> str:
    """One line for pydantic's list of validation errors (the first one is enough to fix);
    ``unknown_key`` words the refusal of a key the body does not take."""
    # A client's key may hold a newline.
    return " ".join(_first_problem(errors, unknown_key).split())


def _first_problem(errors, unknown_key: UnknownKey | None = None) -> str:
    """The first of pydantic's ``errors`` in the words of the API (its field names, not
    pydantic's locations)."""
    if not errors:
        return "the request body is not valid"
    e = errors[0]
    where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
    kind = e.get("type", "")
    if kind == "json_invalid":
        return f"the body is not valid JSON ({e.get('ctx', {}).get('error', 'parse error')})"
    if kind == "extra_forbidden":
        said = unknown_key(where) if unknown_key is not None else None
        return said or f"unknown field {where!r} (see /docs for the fields of each endpoint)"
    if not where:
        return 'the body must be a JSON object, e.g. {"board": "8 6 7/2 5 4/3 0 1"}'
    return f"{where}: {e.get('msg', 'invalid')}"


def _bad_request(unknown_key: Callable[[str, str], str | None] | None):
    """The handler of a body that does not fit the endpoint's request model: 400 (FastAPI
    says 422), a key it does not take worded by ``unknown_key(path, key)``."""

    async def bad_request(request: Request, exc: RequestValidationError):
        words = None if unknown_key is None else functools.partial(unknown_key, request.url.path)
        return JSONResponse({"error": validation_message(exc.errors(), words)}, status_code=400)

    return bad_request


async def _http_error(request: Request, exc: StarletteHTTPException):
    """Starlette's own errors (404, 405, a body json.loads refused) as one JSON line."""
    text = exc.detail if isinstance(exc.detail, str) else "error"
    if exc.status_code == 400 and "parsing the body" in text:  # what json.loads gave up on
        return JSONResponse(
            {
                "error": "the body could not be read as JSON (nested too deeply, "
                "or a number too long)"
            },
            status_code=400,
        )
    return JSONResponse(
        {"error": f"{text.lower()}: {request.method} {request.url.path}"},
        status_code=exc.status_code,
        headers=getattr(exc, "headers", None),
    )


async def _internal_error(request: Request, exc: Exception):
    """500 for a fault of ours: the type for the client, the traceback for the log."""
    log.exception("internal error on %s %s", request.method, request.url.path)
    return JSONResponse(
        {"error": f"internal error ({type(exc).__name__}); the server log has the details"},
        status_code=500,
    )


def add_error_handlers(
    app: FastAPI, unknown_key: Callable[[str, str], str | None] | None = None
) -> None:
    """Make every error a client can cause one JSON ``{"error": ...}`` (and a fault of ours a
    500 with the same shape, its traceback in the server log only).  ``unknown_key(path,
    key)`` words the refusal of a key the body at ``path`` does not take (None: the plain
    one)."""
    app.add_exception_handler(RequestValidationError, _bad_request(unknown_key))
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _internal_error)


__all__ = ["BodyLimit", "add_error_handlers", "validation_message"]

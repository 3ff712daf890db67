"""The HTTP routes of ``npuzzle serve``, its error handlers and the page (layer 7: service).

FastAPI on Starlette, served by uvicorn.  Each question is a ``POST`` whose body carries the
CLI's option names (:mod:`.requests`) and whose answer is the CLI's ``--json`` record
(:mod:`.work`); lookups are answered on the event loop, searches in worker processes
(:mod:`.pool`).  Every error a client can cause is one JSON ``{"error": ...}`` with a 4xx
status -- never a 500, never a traceback.

Imports: fastapi/starlette, :mod:`solver.tables`, and this package.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..core.board import goal_board
from ..tables import catalog, exact, pattern_db, store
from . import work
from .limits import Settings
from .pool import SearchPool
from .requests import (
    CheckRequest,
    DistanceRequest,
    GenerateRequest,
    HeuristicRequest,
    HintRequest,
    SolveRequest,
)
from .sharing import ClientGone, SharedAnswers

log = logging.getLogger("npuzzle.serve")
STATIC = Path(__file__).resolve().parent / "static"


# --- the request body: bounded before anything reads it -------------------------------------


class BodyLimit:
    """ASGI middleware: a body over ``max_bytes`` gets a 413 before any of it is parsed
    (announced by Content-Length or found while reading a chunked body).  Every body is read
    as JSON whatever its Content-Type says: the API takes nothing else, and ``curl -d`` labels
    its data as a form."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = [(k, v) for k, v in scope.get("headers") or () if k != b"content-type"]
        scope = {**scope, "headers": headers + [(b"content-type", b"application/json")]}
        declared = dict(headers).get(b"content-length")
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
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send):
        response = JSONResponse(
            {
                "error": f"the request body is larger than the server takes "
                f"({self.max_bytes:,} bytes)"
            },
            status_code=413,
        )
        await response({"type": "http"}, None, send)


# --- errors as one JSON line -----------------------------------------------------------------


def validation_message(errors) -> str:
    """One line for pydantic's list of validation errors (the first one is enough to fix)."""
    return " ".join(_first_problem(errors).split())  # a client's key may hold a newline


def _first_problem(errors) -> str:
    if not errors:
        return "the request body is not valid"
    e = errors[0]
    where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
    kind = e.get("type", "")
    if kind == "json_invalid":
        return f"the body is not valid JSON ({e.get('ctx', {}).get('error', 'parse error')})"
    if kind == "extra_forbidden":
        return f"unknown field {where!r} (see /docs for the fields of each endpoint)"
    if not where:
        return 'the body must be a JSON object, e.g. {"board": "8 6 7/2 5 4/3 0 1"}'
    return f"{where}: {e.get('msg', 'invalid')}"


async def _bad_request(request: Request, exc: RequestValidationError):
    return JSONResponse({"error": validation_message(exc.errors())}, status_code=400)


async def _http_error(request: Request, exc: StarletteHTTPException):
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
    log.exception("internal error on %s %s", request.method, request.url.path)
    return JSONResponse(
        {"error": f"internal error ({type(exc).__name__}); the server log has the details"},
        status_code=500,
    )


async def hung_up(request: Request) -> None:
    """Return when the client closes its connection (the body is read by then: the next
    message the server gives is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


# --- start-up ----------------------------------------------------------------------------------


def warm_lookups(settings: Settings) -> None:
    """Open the exact tables and the strongest pattern database of every shape built, so the
    first lookup of each pays nothing (best effort: a damaged file is reported when asked)."""
    for entry in catalog.scan(settings.data_dir):
        try:
            if entry.kind == catalog.EXACT:
                exact.tables(entry.shape, settings.data_dir, entry.goal)  # this very file
            else:
                pattern_db.resolve(entry.shape, goal_board(entry.shape), None, settings.data_dir)
        except Exception as e:  # noqa: BLE001 - see the docstring
            log.warning("could not open %s: %s", entry.path.name, e)


def _offline_docs_assets() -> Path | None:
    """Swagger UI's files from the optional ``fastapi-offline`` package, so ``/docs`` works
    without the internet; None when it is not installed (``/docs`` then loads them from a
    CDN, as FastAPI does by default)."""
    spec = importlib.util.find_spec("fastapi_offline")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "static"
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


# --- the application ---------------------------------------------------------------------------


def create_app(settings: Settings | None = None) -> FastAPI:
    """The ASGI application for ``settings`` (its search pool starts with the app)."""
    settings = settings or Settings()
    pool = SearchPool(settings)
    shared = SharedAnswers(pool.run, settings.limits.cache_entries, settings.limits.cache_bytes)
    started = time.monotonic()

    @asynccontextmanager
    async def lifespan(app):
        warm_lookups(settings)
        pool.start()
        try:
            yield
        finally:
            await pool.close()

    assets = _offline_docs_assets()
    app = FastAPI(
        title="npuzzle",
        version=__version__,
        lifespan=lifespan,
        docs_url=None if assets else "/docs",
        redoc_url=None,
        description="Optimal sliding-tile puzzle answers: the CLI's questions as "
        "JSON over HTTP.  The page is at /.",
    )
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _internal_error)
    app.add_middleware(BodyLimit, max_bytes=settings.limits.max_body_bytes)
    app.state.settings, app.state.pool, app.state.shared = settings, pool, shared
    from . import cli_runs  # POST /run: the command line's warm path (--server URL)

    cli_runs.add_routes(app, settings)

    async def respond(endpoint: str, body, request: Request) -> JSONResponse:
        params = body.model_dump()
        if work.is_lookup(endpoint, params, settings):
            status, answer = work.answer(endpoint, params, settings)
        else:
            try:
                status, answer = await shared.ask(endpoint, params, lambda: hung_up(request))
            except ClientGone:
                return JSONResponse({"error": "the client hung up"}, status_code=499)
        retry = answer.get("retry_after") if status == 503 else None
        headers = {"Retry-After": str(retry)} if retry else None
        return JSONResponse(answer, status_code=status, headers=headers)

    @app.post("/solve", summary="An optimal solution")
    async def solve(body: SolveRequest, request: Request):
        """The blank's moves (U D L R), their number, the tiles that slide and the search's
        statistics -- or a teaching search (bfs, dfs, dls, iddfs, astar) asked for by name."""
        return await respond("solve", body, request)

    @app.post("/distance", summary="The exact optimal distance")
    async def distance(body: DistanceRequest, request: Request):
        """A table lookup on 2x3/3x3 (any goal), IDA* on larger boards."""
        return await respond("distance", body, request)

    @app.post("/hint", summary="The next optimal move")
    async def hint(body: HintRequest, request: Request):
        """The blank's next move on an optimal path, the tile it slides, and the distance
        after it."""
        return await respond("hint", body, request)

    @app.post("/heuristic", summary="The best estimate of the distance that is built")
    async def heuristic(body: HeuristicRequest, request: Request):
        """The exact table's distance where one is built, else the additive pattern-database
        value with its parts (plain and mirrored sums, each pattern's value), else linear
        conflict -- named in ``heuristic`` -- with Manhattan distance and linear conflict.
        A ``partition`` asks for that database."""
        return await respond("heuristic", body, request)

    @app.post("/check", summary="Solvable or not, with the working")
    async def check(body: CheckRequest, request: Request):
        """The parity rule: inversions of start and goal, blank rows, the rule for this
        width."""
        return await respond("check", body, request)

    @app.post("/generate", summary="Random positions of a given difficulty")
    async def generate(body: GenerateRequest, request: Request):
        """``count`` random solvable positions, each with its exact distance; ``distance``
        (or ``min``/``max``) picks the difficulty."""
        return await respond("generate", body, request)

    @app.get("/health", summary="Is the server up")
    async def health():
        """The version, the search workers (ready, running, waiting), what the searches
        cost (started, shared with an identical question, answered from the cache, dropped
        because their client hung up, refused as too long a wait) and the caps."""
        lim = settings.limits
        return {
            "status": "ok",
            "version": __version__,
            "uptime_seconds": round(time.monotonic() - started, 3),
            "workers": {
                "ready": pool.ready,
                "of": settings.workers,
                "running": pool.running,
                "waiting": pool.waiting,
            },
            "searches": {
                "started": shared.searches,
                "shared": shared.shared,
                "cache_hits": shared.hits,
                "cached": shared.cached,
                "cancelled": pool.cancelled,
                "refused": pool.refused,
                "mean_seconds": None if pool.mean_seconds is None else round(pool.mean_seconds, 3),
            },
            "limits": {
                "max_seconds": lim.max_seconds,
                "max_nodes": lim.max_nodes,
                "max_teaching_nodes": lim.max_teaching_nodes,
                "max_boards": lim.max_boards,
                "max_body_bytes": lim.max_body_bytes,
                "max_expected_wait": lim.max_expected_wait,
            },
        }

    @app.get("/databases", summary="What is built")
    async def databases():
        """Every database file in the server's data directory, and the shapes they serve."""
        return databases_record(settings)

    @app.get("/", include_in_schema=False)
    async def page():
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon():
        # Browsers ask for it on every load; the page also names it with <link rel="icon">.
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if assets:
        app.mount("/docs-assets", StaticFiles(directory=assets), name="docs-assets")

        @app.get("/docs", include_in_schema=False)
        async def docs():
            return get_swagger_ui_html(
                openapi_url=app.openapi_url,
                title="npuzzle API",
                swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                swagger_css_url="/docs-assets/swagger-ui.css",
                swagger_favicon_url="/docs-assets/favicon.png",
            )

    return app


def databases_record(settings: Settings) -> dict:
    """``{data_dir, databases: [{file, kind, shape, goal, partition, bytes}], shapes}``."""
    found = catalog.scan(settings.data_dir)
    files = []
    for e in found:
        stamp = store.file_stamp(e.path)
        files.append(
            {
                "file": e.path.name,
                "kind": e.kind,
                "shape": str(e.shape),
                "goal": e.goal.flat(),
                "partition": e.partition_name,
                "bytes": stamp[2] if stamp else None,
            }
        )
    shapes = {}
    for e in found:
        s = shapes.setdefault(
            str(e.shape), {"shape": str(e.shape), "exact": False, "partitions": []}
        )
        if e.kind == catalog.EXACT:
            s["exact"] = True
        elif e.partition_name not in s["partitions"]:
            s["partitions"].append(e.partition_name)
    return {
        "data_dir": str(store.data_dir(settings.data_dir)),
        "databases": files,
        "shapes": sorted(shapes.values(), key=lambda s: (len(s["shape"]), s["shape"])),
    }


__all__ = ["create_app", "databases_record", "validation_message", "BodyLimit", "warm_lookups"]

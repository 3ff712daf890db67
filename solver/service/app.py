"""The HTTP routes of ``npuzzle serve`` and the page (layer 7: service).

FastAPI on Starlette, served by uvicorn.  Each question is a ``POST`` whose body carries the
CLI's option names (:mod:`.requests`) and whose answer is the CLI's ``--json`` record
(:mod:`.work`), whose keys :mod:`.responses` declares; lookups are answered on the event loop,
searches in worker processes (:mod:`.pool`).  A request the service does not admit -- a foreign
``Host`` on loopback, a missing token, a body that is not JSON -- is refused before any route
sees it (:mod:`.admission`).  Every error a client can cause is one JSON ``{"error": ...}``
with a 4xx status -- never a 500, never a traceback (:mod:`.errors`).

Imports: fastapi/starlette, :mod:`solver.tables`, and this package.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from .. import __version__
from ..core.board import goal_board
from ..tables import catalog, exact, names, pattern_db, store
from . import work
from .admission import Admission, Admit
from .errors import BodyLimit, add_error_handlers, validation_message
from .limits import Settings
from .pool import SearchPool
from .requests import (
    REQUESTS,
    CheckRequest,
    DistanceRequest,
    GenerateRequest,
    HeuristicRequest,
    HintRequest,
    SolveRequest,
    unknown_key,
)
from .responses import ErrorBody, ErrorRecord, answer_model
from .sharing import ClientGone, SharedAnswers

log = logging.getLogger("npuzzle.serve")
STATIC = Path(__file__).resolve().parent / "static"

# --- the client's connection ---------------------------------------------------------------


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
            if entry.kind == names.EXACT:
                exact.tables(entry.shape, settings.data_dir, entry.goal)  # this very file
            else:
                pattern_db.database_for(
                    entry.shape, goal_board(entry.shape), None, settings.data_dir
                )
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


def create_app(settings: Settings | None = None, admission: Admission | None = None) -> FastAPI:
    """The ASGI application for ``settings`` (its search pool starts with the app), admitting
    whom ``admission`` says (default: anyone who reaches it, with a JSON body)."""
    settings = settings or Settings()
    pool = SearchPool(settings)
    shared = SharedAnswers(pool.run, settings.limits.cache_entries, settings.limits.cache_bytes)
    started = time.monotonic()
    assets = _offline_docs_assets()
    app = FastAPI(
        title="npuzzle",
        version=__version__,
        lifespan=_lifespan(settings, pool),
        docs_url=None if assets else "/docs",
        redoc_url=None,
        description="Optimal sliding-tile puzzle answers: the CLI's questions as "
        "JSON over HTTP.  The page is at /.",
    )
    add_error_handlers(app, _unknown_key)
    app.add_middleware(BodyLimit, max_bytes=settings.limits.max_body_bytes)
    # Added last, so it runs first: a request refused is answered before its body is read.
    app.add_middleware(Admit, admission=admission or Admission())
    app.state.settings, app.state.pool, app.state.shared = settings, pool, shared
    from . import cli_runs  # POST /run: the command line's warm path (--server URL)

    # The order of registration is the order of the routes in /docs and in the schema.
    cli_runs.add_routes(app, settings)
    _add_question_routes(app, _responder(settings, shared))
    _add_status_routes(app, settings, pool, shared, started)
    _add_pages(app, assets)
    return app


def _unknown_key(path: str, key: str) -> str | None:
    """The refusal of ``key`` in a question's body at ``path``, naming the keys it takes."""
    endpoint = path.strip("/")
    return unknown_key(endpoint, key) if endpoint in REQUESTS else None


def _lifespan(settings: Settings, pool: SearchPool):
    """The app's lifespan: open the lookups' files and start the search workers before the
    first request, close the workers after the last."""

    @asynccontextmanager
    async def lifespan(app):
        """Ready before the first request, closed after the last."""
        warm_lookups(settings)
        pool.start()
        try:
            yield
        finally:
            await pool.close()

    return lifespan


def _responder(settings: Settings, shared: SharedAnswers):
    """The coroutine that answers one question: lookups on the event loop (they cost less than
    a hop to a worker), searches through ``shared`` (identical questions share one search, and
    a client that hangs up cancels its share)."""

    async def respond(endpoint: str, body, request: Request) -> JSONResponse:
        """The answer to ``body`` at ``endpoint``, with Retry-After on a 503."""
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

    return respond


def _add_question_routes(app: FastAPI, respond) -> None:
    """Register the ``POST`` routes, one per CLI question, each answered by ``respond``.

    The routes' names make the schema's operation ids and their docstrings its descriptions,
    so both are part of the API."""

    @app.post("/solve", summary="An optimal solution", **_documented("solve"))
    async def solve(body: SolveRequest, request: Request):
        """The blank's moves (U D L R), their number, the tiles that slide and the search's
        statistics -- or a teaching search (bfs, dfs, dls, iddfs, astar) asked for by name."""
        return await respond("solve", body, request)

    @app.post("/distance", summary="The exact optimal distance", **_documented("distance"))
    async def distance(body: DistanceRequest, request: Request):
        """A table lookup on 2x3/3x3 (any goal), IDA* on larger boards."""
        return await respond("distance", body, request)

    @app.post("/hint", summary="The next optimal move", **_documented("hint"))
    async def hint(body: HintRequest, request: Request):
        """The blank's next move on an optimal path, the tile it slides, and the distance
        after it."""
        return await respond("hint", body, request)

    @app.post(
        "/heuristic",
        summary="The best estimate of the distance that is built",
        **_documented("heuristic"),
    )
    async def heuristic(body: HeuristicRequest, request: Request):
        """The exact table's distance where one is built, else the additive pattern-database
        value with its parts (plain and mirrored sums, each pattern's value), else linear
        conflict -- named in ``heuristic`` -- with Manhattan distance and linear conflict.
        A ``partition`` asks for that database."""
        return await respond("heuristic", body, request)

    @app.post("/check", summary="Solvable or not, with the working", **_documented("check"))
    async def check(body: CheckRequest, request: Request):
        """The parity rule: inversions of start and goal, blank rows, the rule for this
        width."""
        return await respond("check", body, request)

    @app.post("/generate", summary="Random positions of a given difficulty")
    async def generate(body: GenerateRequest, request: Request):
        """``count`` random solvable positions, each with its exact distance; ``distance``
        (or ``min``/``max``) picks the difficulty."""
        return await respond("generate", body, request)


def _documented(endpoint: str) -> dict:
    """The route arguments that put ``/ENDPOINT``'s response models in the schema (the
    answers are sent as built, by :mod:`.work`: the models describe them,
    ``tests/test_records.py`` holds them to it)."""
    return {
        "response_model": answer_model(endpoint),
        "responses": {
            400: {"model": ErrorRecord | ErrorBody, "description": "Bad input"},
            503: {
                "model": ErrorBody,
                "description": "A database is missing, or the server is busy",
            },
        },
    }


def _add_status_routes(
    app: FastAPI, settings: Settings, pool: SearchPool, shared: SharedAnswers, started: float
) -> None:
    """Register ``GET /health`` and ``GET /databases`` (``started``: the monotonic clock when
    the app was made, for the uptime)."""

    @app.get("/health", summary="Is the server up")
    async def health():
        """The version, the search workers (ready, running, waiting), what the searches
        cost (started, shared with an identical question, answered from the cache, dropped
        because their client hung up, refused as too long a wait) and the caps."""
        return health_record(settings, pool, shared, started)

    @app.get("/databases", summary="What is built")
    async def databases():
        """Every database file in the server's data directory, and the shapes they serve."""
        return databases_record(settings)


def _add_pages(app: FastAPI, assets: Path | None) -> None:
    """Register the page, its icon and its static files, and ``/docs`` served from ``assets``
    where the offline Swagger UI files are installed (FastAPI's own ``/docs`` otherwise)."""

    @app.get("/", include_in_schema=False)
    async def page():
        """The page where solutions play out."""
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon():
        """The page's icon."""
        # Browsers ask for it on every load; the page also names it with <link rel="icon">.
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if assets:
        app.mount("/docs-assets", StaticFiles(directory=assets), name="docs-assets")

        @app.get("/docs", include_in_schema=False)
        async def docs():
            """Swagger UI from the local files instead of a CDN."""
            return get_swagger_ui_html(
                openapi_url=app.openapi_url,
                title="npuzzle API",
                swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                swagger_css_url="/docs-assets/swagger-ui.css",
                swagger_favicon_url="/docs-assets/favicon.png",
            )


def health_record(
    settings: Settings, pool: SearchPool, shared: SharedAnswers, started: float
) -> dict:
    """``GET /health``'s answer: ``{status, version, uptime_seconds, workers, searches,
    limits}``."""
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
        if e.kind == names.EXACT:
            s["exact"] = True
        elif e.partition_name not in s["partitions"]:
            s["partitions"].append(e.partition_name)
    return {
        "data_dir": str(store.data_dir(settings.data_dir)),
        "databases": files,
        "shapes": sorted(shapes.values(), key=lambda s: (len(s["shape"]), s["shape"])),
    }


__all__ = [
    "create_app",
    "databases_record",
    "health_record",
    "validation_message",
    "BodyLimit",
    "warm_lookups",
]

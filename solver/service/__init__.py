"""``npuzzle serve``: the JSON-over-HTTP service and the page where solutions play out
(layer 7, beside the CLI).

* :mod:`.limits` -- the server's caps (time and nodes per search, body size, boards per
  request) and how a client's own limits are clamped to them;
* :mod:`.requests` -- the request bodies: the CLI's option names as JSON keys;
* :mod:`.work` -- one request's answer as ``(HTTP status, JSON body)``, built from the
  records of :mod:`solver.answers`, and the rule for which answers are lookups;
* :mod:`.pool` -- the worker processes that run searches off the event loop (a search whose
  client hangs up is dropped; a flood is refused with Retry-After);
* :mod:`.sharing` -- identical questions in flight searched once, recent answers cached;
* :mod:`.errors` -- every error a client can cause as one JSON line, the body's bound;
* :mod:`.app` -- the routes (FastAPI on uvicorn) and the static page;
* ``static/`` -- the page: plain HTML, CSS and JavaScript, no CDN.

Nothing here is imported by ``npuzzle --help``: :mod:`solver.cli.serve` imports the service
(and FastAPI) only when the command runs.
"""

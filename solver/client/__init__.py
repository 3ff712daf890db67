"""The warm path's client: a command's question asked of a running ``npuzzle serve`` over HTTP
(layer 7, beside :mod:`solver.cli`, which may import it; it never imports the CLI).

* :mod:`.wire` -- one question on a kept socket (``POST /run``), the words a server is sent;
* :mod:`.quick` -- one board asked before click is even imported;
* :mod:`.remote` -- a command whose options click parsed, batches sent in pieces;
* :mod:`.pieces` -- a batch cut into pieces, each answered exactly as the whole would.

The server side, which runs the very command for the client, is
:mod:`solver.service.cli_runs` and :mod:`solver.cli.capture`.
"""

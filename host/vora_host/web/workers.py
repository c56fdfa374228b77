"""`vora serve --workers N`: N server processes answering on one port (uvicorn's own
workers: each a process of its own, started afresh, the socket bound once by the parent
and shared), for a club that plays more tables than one process keeps up with.

Each worker is a whole server: its log watcher, its pages, and with --tables its own
tables, which it plays (and takes up from the log when it starts: of several workers
starting at once each unfinished table goes to the first that holds its game). A request
for a seat of a table another worker plays is relayed to it through PostgreSQL
(vora_host.web.relay), so --tables with several workers needs a PostgreSQL log. A worker
that dies is started again by uvicorn's supervisor.

The parent hands each worker its settings in the environment (SETTINGS_ENV, JSON): a
worker is started by importing `app` below (uvicorn's factory), not by pickling one.
"""

import json
import os

__all__ = ["SETTINGS_ENV", "MAX_WORKERS", "run", "app"]

SETTINGS_ENV = "VORA_SERVE_WORKER"
MAX_WORKERS = 16


def run(sock, path, names, max_streams, workers, tables=None, grace=1):
    """Serve on `sock` with `workers` processes until Ctrl-C. `tables`: None, or the
    tables' settings {"max_tables": N}."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess
    os.environ[SETTINGS_ENV] = json.dumps({
        "path": str(path), "names": list(names), "max_streams": max_streams,
        "tables": tables})
    config = uvicorn.Config("vora_host.web.workers:app", factory=True, workers=workers,
                            log_level="warning", access_log=False,
                            timeout_graceful_shutdown=grace, lifespan="on")
    Multiprocess(config, sockets=[sock]).run()
    return 0


def app():
    """A worker's application, made from the settings its parent left in the
    environment (uvicorn calls this in each worker process)."""
    import logging

    from vora_host.web.app import create_app
    settings = json.loads(os.environ[SETTINGS_ENV])
    path = settings["path"]
    tables = None
    if settings.get("tables") is not None:
        from vora_host.web.relay import Relay
        from vora_host.web.seats import SeatRegistry
        from vora_host.web.tables import TableHost
        say = logging.getLogger("vora.web").warning
        registry = SeatRegistry()
        registry.attach(Relay(path).start())
        tables = TableHost(path, registry, settings["tables"]["max_tables"],
                           say=lambda text: say("worker %d: %s", os.getpid(), text))
        tables.resume()
    return create_app(path, names=settings["names"], max_streams=settings["max_streams"],
                      tables=tables)

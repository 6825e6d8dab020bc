"""The worker side: a worker plugin that loads a run's setup once per worker, and the task that
runs one unit with it. Imported only where Dask is installed (it subclasses Dask's plugin).

The setup arrives as the bytes the client pickled (content, not paths: a worker need not see
the client's packs, site layers or variants). Unpickling it runs no code of the client's own
beyond what Dask already runs for any task: who may submit to a scheduler is Dask's security
(TLS, authentication), as for every Dask workload.
"""

from __future__ import annotations

import gc
import pickle
from collections.abc import Callable
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

import regime

# token -> setup, in this worker process: one entry per run the worker takes part in
_LOADED: dict[str, Any] = {}


class Setup(WorkerPlugin):
    """One run's setup: unpickled and warmed (`setup.warm()`, e.g. compiling the evaluator) when
    a worker joins the run, dropped when the run ends."""

    def __init__(self, payload: bytes, version: str, token: str) -> None:
        self.payload, self.version, self.token = payload, version, token
        self.name = f"regime-setup-{token}"

    def setup(self, worker: Any) -> None:
        if self.version != regime.__version__:
            raise RuntimeError(f"this worker runs regime {regime.__version__}, the client "
                               f"{self.version}: install the same version on both")
        loaded = pickle.loads(self.payload)
        warm = getattr(loaded, "warm", None)
        if warm is not None:
            warm()
        gc.freeze()  # the setup lives as long as the run: keep the collector off its objects
        _LOADED[self.token] = loaded

    def teardown(self, worker: Any) -> None:
        _LOADED.pop(self.token, None)


def run(token: str, work: Callable[[Any, Any], Any], items: list) -> list:
    """A few consecutive units, each with the setup this worker loaded for the run."""
    setup = _LOADED[token]
    return [work(setup, item) for item in items]

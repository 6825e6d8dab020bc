"""`map(work, items)` on a Dask cluster, lazily and in input order, as batch.ordered_map locally.

The setup a unit needs (knowledge, rubric, output format) is pickled here once and handed to
every worker by a worker plugin (plugin.py), which loads it once per worker, also on a worker
that joins or is restarted later; each task then carries only its item. A bounded window of
tasks is in flight and the oldest is awaited first (a reorder buffer by index), so at most
`window` results are held at once, on the cluster or here. A worker that dies takes its tasks
with it and the scheduler runs them again elsewhere (Dask's `allowed-failures`); a unit that
kills every worker it lands on, or that raises, comes back as `lost(item, why)`: one error row.

Connections, TLS and authentication are Dask's own: `--scheduler tls://...` with the
`distributed.comm.tls.*` settings of the Dask configuration (docs/distributed.md).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import regime
from regime.core.errors import RegimeError

ENV = "REGIME_SCHEDULER"
INSTALL = "pip install 'regime[dask]'"
WINDOW_PER_THREAD = 4
CONNECT_TIMEOUT_S = 30
S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")


def scheduler(given: str | None) -> str | None:
    """The scheduler address: `--scheduler`, else $REGIME_SCHEDULER, else None (run here)."""
    value = given if given is not None else os.environ.get(ENV, "")
    return value.strip() or None


def require() -> None:
    """Dask is an optional extra: without it, say how to install it. Raises RegimeError."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise RegimeError(f"sending work to a Dask cluster needs the dask extra: {INSTALL}",
                          field="--scheduler") from None


def connect(address: str) -> Any:
    """A client of the scheduler at `address`, secured as the Dask configuration says."""
    require()
    from distributed import Client
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise RegimeError(f"cannot reach the Dask scheduler at {address}: {err}",
                          field="--scheduler") from None


def ordered_map(where: str | Any, work: Callable[[S, T], R], items: Iterable[T], setup: S,
                lost: Callable[[T, str], R], chunk: int = 1, window: int | None = None) -> Iterator[R]:
    """`work(setup, item)` for each item on the cluster at `where` (an address, or a Client
    the caller keeps), yielded in input order. A task runs `chunk` consecutive items (small
    units: one task and one round trip for several), and `window` tasks are in flight. Raises
    RegimeError when the cluster cannot be used (no Dask, no scheduler, a worker refusing the
    setup)."""
    with session(where, setup) as s:
        yield from s.map(work, items, lost, chunk, window)


@contextlib.contextmanager
def session(where: str | Any, setup: Any) -> Iterator[Session]:
    """The cluster at `where` with `setup` loaded on every worker, for several maps in a row
    (a sweep's rounds): connecting and loading the setup are paid once. Raises RegimeError."""
    client = connect(where) if isinstance(where, str) else where
    try:
        import uuid

        from regime.engine.distributed import plugin
        setup_plugin = plugin.Setup(pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL),
                                    regime.__version__, uuid.uuid4().hex)
        try:
            client.register_plugin(setup_plugin)
        except Exception as err:  # a worker that cannot load the setup: say which and why
            raise RegimeError(f"a Dask worker could not load the setup: {type(err).__name__}: {err}",
                              field="--scheduler") from None
        try:
            yield Session(client, setup_plugin.token)
        finally:
            client.unregister_worker_plugin(setup_plugin.name)
    finally:
        if client is not where:
            client.close()


class Session:
    """One setup loaded on the cluster; each map's tasks carry only their items."""

    def __init__(self, client: Any, token: str) -> None:
        self.client, self.token, self.count = client, token, 0

    def threads(self) -> int:
        """How many units the cluster runs at once now."""
        return max(1, sum(self.client.nthreads().values()))

    def map(self, work: Callable[[Any, T], R], items: Iterable[T], lost: Callable[[T, str], R],
            chunk: int = 1, window: int | None = None) -> Iterator[R]:
        """`work(setup, item)` for each item, in input order (see ordered_map)."""
        run = _Run(self, work, lost)
        yield from run.stream(_chunks(items, chunk), window or self.threads() * WINDOW_PER_THREAD)


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while batch := list(itertools.islice(it, max(1, size))):
        yield batch


class _Run:
    """One run's tasks: submitted in order, a window's worth at a time, and taken back oldest
    first, every finished one at the front in one gather. Each call into the client is a hop
    to its event-loop thread (and on a busy machine a wait to be scheduled), so they are few:
    one per refill and two per batch of results, not two per task."""

    def __init__(self, session: Session, work: Callable, lost: Callable) -> None:
        self.session, self.client, self.work, self.lost = session, session.client, work, lost

    def submit(self, chunks: list[list]) -> list:
        from regime.engine.distributed.plugin import run
        s = self.session
        keys = [f"regime-{s.token}-{s.count + i}" for i in range(len(chunks))]
        s.count += len(chunks)
        return self.client.map(run, [s.token] * len(chunks), [self.work] * len(chunks), chunks,
                               key=keys, pure=False)

    def stream(self, chunks: Iterator[list], window: int) -> Iterator:
        from distributed import wait
        pending: deque[tuple[list, Any]] = deque()
        while True:
            new = list(itertools.islice(chunks, window - len(pending)))
            pending.extend(zip(new, self.submit(new), strict=True) if new else ())
            if not pending:
                return
            with self.client.as_current():
                wait(pending[0][1])
            ready = list(itertools.takewhile(lambda p: p[1].status == "finished", pending))
            if not ready:  # the oldest failed: alone, so the rest stay in flight
                items, future = pending.popleft()
                yield from self.results(items, future)
                future.release()
                continue
            for _ in ready:
                pending.popleft()
            for got in self.client.gather([f for _, f in ready]):
                yield from got
            for _, future in ready:
                future.release()

    def results(self, items: list, future: Any) -> Iterator:
        from distributed import KilledWorker
        try:
            yield from future.result()
            return
        except KilledWorker as err:  # it took down every worker it was given (allowed-failures)
            why = f"the Dask workers running it died ({err})"
        except Exception as err:
            if future.status != "error":
                raise RegimeError(f"lost the Dask scheduler: {type(err).__name__}: {err}",
                                  field="--scheduler") from None
            why = f"{type(err).__name__}: {err}"  # the unit raised: a bug, one row, the rest go on
        if len(items) == 1:
            yield self.lost(items[0], why)
            return
        for item in items:  # which of the chunk was it: each alone, so only the culprit is lost
            [alone] = self.submit([[item]])
            yield from self.results([item], alone)

"""One thread budget for the whole studio, and the executors sweeps and trials run on.

Thread budget
-------------
The kernels release the GIL, so work spreads over threads: a sweep's cells,
σ-k^m's trials, an itemset sampler's streams, the threat analysis's chains.
These pools nest (a sweep cell runs trials whose samplers run streams), and
if each sized itself by the machine they would multiply into far more
threads than cores. :data:`budget` is the one number they all ask:

* its total is the ``threads`` setting of the studio when set
  (:func:`configure`), else the ``ANONSTUDIO_THREADS`` environment variable,
  else the cores this process may use;
* a pool from :meth:`ThreadBudget.pool` takes at most the budget available
  where it is created, and each of its tasks sees an equal share of it
  (available // workers) as its own budget: a sweep running 2 cells at once
  gives each cell half, and the cell's trials split that half again;
* :meth:`ThreadBudget.workers` is how a pool that manages its own threads
  asks how many it may start, capped by its own ``threads`` parameter;
* jobs that run at once (two studio runs) each hold a :meth:`ThreadBudget.lease`
  of the total: the first takes what it needs, the next what is left (at
  least 1), and each gives its threads back when it ends. A lease is read
  live: when an earlier job ends, the pools a later one creates from then on
  get the threads it gave back (a pool already running keeps its size).

The share travels in a :mod:`contextvars` variable, which worker threads of
a :class:`BudgetPool` inherit from the code that submitted the task. A
thread started any other way sees the whole budget.

Thread counts never change a result: every stream, trial and chain has its
own seed, and the number of workers only decides how many run at once.

Executors
---------
:func:`executor_for` gives a sweep its executor: a local :class:`BudgetPool`,
or a ``dask.distributed.Client`` when a scheduler address is given (the
optional ``cluster`` extra: ``pip install anonstudio[cluster]``). The
scheduler is a run option, never part of a method's parameters: the same
recipe gives the same numbers wherever it runs. :func:`scheduler_address`
says where σ-k^m's independent trials go (the ``--scheduler`` flag, the
studio's setting or ``ANONSTUDIO_SCHEDULER``); :func:`on_worker` is entered
by every task that runs on a cluster worker, so that the task uses the
worker's threads only and never sends work to a cluster again.
"""
from __future__ import annotations

import atexit
import contextlib
import contextvars
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = [
    "ENV_THREADS",
    "ENV_SCHEDULER",
    "CONNECT_TIMEOUT",
    "set_connect_notice",
    "ExecutionError",
    "ThreadBudget",
    "BudgetPool",
    "budget",
    "machine_threads",
    "env_threads",
    "configure",
    "scheduler_address",
    "using_scheduler",
    "check_address",
    "executor_for",
    "connect",
    "shared_client",
    "remote_client",
    "describe_cluster",
    "close_clients",
    "on_worker",
    "is_cluster",
    "ClusterFlag",
]

ENV_THREADS = "ANONSTUDIO_THREADS"
ENV_SCHEDULER = "ANONSTUDIO_SCHEDULER"
#: Seconds to wait for a Dask scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = 10.0
INSTALL_HINT = "pip install anonstudio[cluster]"


class ExecutionError(RuntimeError):
    """A run option that cannot be honoured: a bad thread count, an unreachable scheduler, Dask missing.

    One plain line naming the setting or address at fault.
    """


def machine_threads() -> int:
    """Cores this process may run on (its CPU affinity where the system tells it, else the core count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def env_threads() -> int | None:
    """The ``ANONSTUDIO_THREADS`` value (None when unset); ExecutionError when it is not a count."""
    text = os.environ.get(ENV_THREADS, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ExecutionError(f"{ENV_THREADS}={text!r}: give a whole number of threads, at least 1")
    return value


class ThreadBudget:
    """How many threads the studio's pools may use together; see the module docstring."""

    def __init__(self) -> None:
        self._setting: int | None = None
        self._share: contextvars.ContextVar[int | None] = contextvars.ContextVar("anonstudio_thread_share",
                                                                                 default=None)
        self._lock = threading.Lock()
        self._leases: list[_Lease] = []  # the jobs running now, oldest first (see lease)
        self._lease: contextvars.ContextVar[_Lease | None] = contextvars.ContextVar("anonstudio_thread_lease",
                                                                                    default=None)

    def set_total(self, threads: int | None) -> None:
        """The studio's setting (None or 0: the environment variable, else the machine's cores)."""
        if threads is not None and int(threads) < 0:
            raise ExecutionError(f"thread budget: give a whole number of threads, at least 1 (got {threads})")
        self._setting = int(threads) if threads else None

    @property
    def setting(self) -> int | None:
        return self._setting

    def total(self) -> int:
        """The whole budget: the setting, else ``ANONSTUDIO_THREADS``, else :func:`machine_threads`."""
        if self._setting is not None:
            return self._setting
        return env_threads() or machine_threads()

    def available(self) -> int:
        """The budget of the code running now: its share when a pool gave it one, else its job's lease, else the
        total."""
        share = self._share.get()
        if share is not None:
            return share
        lease = self._lease.get()
        return self._granted(lease) if lease is not None else self.total()

    def workers(self, wanted: int) -> int:
        """How many threads a pool that wants ``wanted`` may start here (at least 1)."""
        return max(1, min(int(wanted), self.available()))

    @contextlib.contextmanager
    def share(self, parts: int) -> Iterator[int]:
        """Within the block the budget is an equal part of the current one (``available // parts``, at least 1)."""
        value = max(1, self.available() // max(int(parts), 1))
        with self.limit(value):
            yield value

    @contextlib.contextmanager
    def limit(self, threads: int) -> Iterator[int]:
        """Within the block the budget is ``threads`` (at least 1), whatever it was."""
        token = self._share.set(max(1, int(threads)))
        try:
            yield self._share.get()
        finally:
            self._share.reset(token)

    def _grants(self) -> list[int]:
        """Threads of each running job, oldest first: what it wants of what the older ones left, at least 1."""
        left = self.total()
        grants = []
        for lease in self._leases:
            got = max(1, min(lease.wanted or left, left))
            grants.append(got)
            left -= got
        return grants

    def _granted(self, lease: _Lease) -> int:
        with self._lock:
            for other, got in zip(self._leases, self._grants()):
                if other is lease:
                    return got
        return max(1, min(lease.wanted or self.total(), self.total()))  # read after its job ended

    @property
    def leased(self) -> int:
        """Threads the jobs running now hold (see :meth:`lease`)."""
        with self._lock:
            return sum(self._grants())

    @contextlib.contextmanager
    def lease(self, wanted: int | None = None) -> Iterator[int]:
        """Hold threads of the process-wide budget for one job; within the block its budget is what it holds.

        Jobs running at once (two studio runs) share the total instead of
        each taking all of it: a job gets ``min(wanted, what the older jobs
        left)``, at least 1 so that it always runs (``wanted`` None: all they
        left), and gives its threads back when the block ends. What a job
        holds is read live by :meth:`available`: when an older job ends, the
        younger ones hold what it gave back. A lease taken where a share is
        already set (inside a pool's task) is bounded by that share too.
        Yields the threads held when the block starts.
        """
        share = self._share.get()
        cap = int(wanted) if wanted else None
        if share is not None:
            cap = min(cap, share) if cap else share
        lease = _Lease(cap)
        with self._lock:
            self._leases.append(lease)
        lease_token = self._lease.set(lease)
        share_token = self._share.set(None)  # the lease, not the share it was taken in, is the budget now
        try:
            yield self._granted(lease)
        finally:
            self._share.reset(share_token)
            self._lease.reset(lease_token)
            with self._lock:
                self._leases.remove(lease)

    def pool(self, wanted: int, name: str = "anonstudio") -> BudgetPool:
        """A thread pool of at most ``wanted`` workers, within the budget available here."""
        return BudgetPool(self, wanted, name)


class _Lease:
    """One job's claim on the budget: at most ``wanted`` threads (None: whatever the older jobs left)."""

    __slots__ = ("wanted",)

    def __init__(self, wanted: int | None):
        self.wanted = wanted


class BudgetPool(ThreadPoolExecutor):
    """A thread pool sized by the budget whose tasks each run with an equal share of it.

    Every task runs in a copy of the submitting thread's context (so a
    scheduler choice made there holds in the task too) with the budget set to
    ``available // workers``; pools the task creates in turn divide that share.
    """

    def __init__(self, budget: ThreadBudget, wanted: int, name: str = "anonstudio"):
        available = budget.available()
        self.workers = max(1, min(int(wanted), available))
        self.task_share = max(1, available // self.workers)
        self._budget = budget
        super().__init__(max_workers=self.workers, thread_name_prefix=name)

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any):
        context = contextvars.copy_context()
        context.run(self._budget._share.set, self.task_share)
        return super().submit(context.run, fn, *args, **kwargs)


#: The studio's one thread budget.
budget = ThreadBudget()


# ------------------------------------------------------------------ scheduler
_UNSET = object()
_scheduler_setting: str | None = None
_scheduler_choice: contextvars.ContextVar[Any] = contextvars.ContextVar("anonstudio_scheduler", default=_UNSET)


def configure(*, threads: int | None | object = _UNSET, scheduler: str | None | object = _UNSET) -> None:
    """Apply the studio's settings: the thread budget and the Dask scheduler address (None: unset)."""
    global _scheduler_setting
    if threads is not _UNSET:
        budget.set_total(threads)  # type: ignore[arg-type]
    if scheduler is not _UNSET:
        _scheduler_setting = _clean_address(scheduler)  # type: ignore[arg-type]


def _clean_address(address: str | None) -> str | None:
    text = (address or "").strip()
    return text or None


#: Transports a Dask scheduler listens on; an address without one means tcp.
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def check_address(address: str) -> str:
    """``address`` stripped, if it has the form of a Dask scheduler's address; ExecutionError otherwise.

    The form is ``[scheme://]host:port`` (``tcp://cluster-host:8786``,
    ``[::1]:8786``; ``inproc://...`` for an in-process cluster). Only the
    form is checked, without a connection: a typo is refused at once instead
    of after the connection timeout.
    """
    text = (address or "").strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    problem = ""
    if scheme not in SCHEMES:
        problem = f"{scheme}:// is not one of Dask's transports ({', '.join(s + '://' for s in SCHEMES)})"
    elif scheme != "inproc":
        host, colon, port = rest.rpartition(":")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if not colon or not port.isdigit() or not 0 < int(port) < 65536:
            problem = "it needs a port number after the host, as in tcp://cluster-host:8786"
        elif not host or any(c.isspace() or c in "/?#@" for c in host):
            problem = "the host name is not valid; write it as in tcp://cluster-host:8786"
    elif not rest or any(c.isspace() for c in rest):
        problem = "an in-process address looks like inproc://HOST/PID/N"
    if problem:
        raise ExecutionError(f"{text!r} is not a Dask scheduler address: {problem}")
    return text


def scheduler_address() -> str | None:
    """Where cluster-capable work goes now: the address chosen for this run (:func:`using_scheduler`),
    else the studio's setting, else ``ANONSTUDIO_SCHEDULER``; None: on this machine."""
    chosen = _scheduler_choice.get()
    if chosen is not _UNSET:
        return chosen
    return _scheduler_setting or _clean_address(os.environ.get(ENV_SCHEDULER))


@contextlib.contextmanager
def using_scheduler(address: str | None) -> Iterator[str | None]:
    """Within the block, cluster-capable work goes to ``address`` (None: stays on this machine)."""
    token = _scheduler_choice.set(_clean_address(address))
    try:
        yield _scheduler_choice.get()
    finally:
        _scheduler_choice.reset(token)


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ExecutionError(f"running on a Dask cluster needs dask.distributed, which is not installed: "
                             f"{INSTALL_HINT}") from None
    return distributed


#: Told, before a connection starts, what it waits for (the CLI prints it on stderr); see :func:`set_connect_notice`.
_connect_notice: Callable[[str], None] | None = None


def set_connect_notice(notice: Callable[[str], None] | None) -> None:
    """Say each connection attempt through ``notice`` (one line, before it waits); None: say nothing."""
    global _connect_notice
    _connect_notice = notice


def connect(address: str, timeout: float | None = None):
    """A new ``dask.distributed.Client`` of the scheduler at ``address``; the caller closes it.

    Says first what it waits for (:func:`set_connect_notice`). A TCP address
    is tried with a plain socket first, so a refused port or an unknown host
    is an error at once rather than after Dask's retries; a peer that
    accepts but does not answer as a scheduler ends at ``timeout``
    (default :data:`CONNECT_TIMEOUT`).

    Raises
    ------
    ExecutionError
        Dask is not installed, or the scheduler did not answer within ``timeout`` seconds: one line naming
        the address and the reason.
    """
    timeout = CONNECT_TIMEOUT if timeout is None else float(timeout)
    address = _clean_address(address)
    if address is None:
        raise ExecutionError("no Dask scheduler address given")
    address = check_address(address)
    distributed = _distributed()
    if _connect_notice is not None:
        _connect_notice(f"connecting to the Dask scheduler at {address} (up to {timeout:g} s)…")
    _try_socket(address, timeout)
    _probe(address, timeout)
    # Built in two steps so that a client whose constructor failed can be shut down here: left to the
    # garbage collector, it waited twice the timeout at exit and printed a traceback.
    client = distributed.Client.__new__(distributed.Client)
    try:
        # Not the default client: a cluster is a run option of anonstudio, not of every dask call in the process.
        client.__init__(address, timeout=timeout, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - refused, timed out, a bad address, or a peer that is no scheduler
        _abandon(client)
        reason = " ".join(str(exc).split()) or type(exc).__name__
        if len(reason) > 160 or "allocate" in reason:  # a peer that is no scheduler sent bytes read as a size
            reason = "the peer did not answer as a Dask scheduler"
        raise ExecutionError(f"cannot reach the Dask scheduler at {address} within {timeout:g} s ({reason})") from None
    return client


def _try_socket(address: str, timeout: float) -> None:
    """For ``tcp://host:port``: a plain connection, closed at once; ExecutionError naming why it failed."""
    scheme, _, rest = address.partition("://")
    if scheme != "tcp":
        return
    host, _, port = rest.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except TimeoutError:
        raise ExecutionError(f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if isinstance(exc, socket.gaierror):
            reason = f"unknown host {host!r}"
        raise ExecutionError(f"cannot reach the Dask scheduler at {address}: {reason.lower()}") from None


def _probe(address: str, timeout: float) -> None:
    """Ask the scheduler who it is, within ``timeout``; ExecutionError when it does not answer as one.

    Dask's client does not bound its handshake: a peer that accepts the
    connection and stays silent kept it waiting for ever. The probe runs on
    its own thread and event loop (a notebook's running loop is not
    disturbed) and is cancelled at the timeout.
    """
    import asyncio

    from distributed.comm import connect as comm_connect

    async def ask() -> None:
        comm = await comm_connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            answer = await comm.read()
        finally:
            await comm.close()
        if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
            raise ValueError("the peer did not answer as a Dask scheduler")

    failure: list[str] = []

    def run() -> None:
        try:
            asyncio.run(asyncio.wait_for(ask(), timeout))
        except TimeoutError:
            failure.append(f"no answer within {timeout:g} s")
        except BaseException as exc:  # noqa: BLE001 - whatever the peer sent: it is not a scheduler
            reason = " ".join(str(exc).split())
            failure.append(reason if reason and len(reason) < 160 and "allocate" not in reason
                           else "the peer did not answer as a Dask scheduler")

    thread = threading.Thread(target=run, name="dask-probe", daemon=True)
    thread.start()
    thread.join(timeout + 5)
    if thread.is_alive():
        failure.append(f"no answer within {timeout:g} s")
    if failure:
        raise ExecutionError(f"cannot reach the Dask scheduler at {address}: {failure[0]}")


def _abandon(client: Any) -> None:
    """Shut down a client whose constructor failed, without waiting on the scheduler it never reached."""
    with contextlib.suppress(Exception):
        client.status = "closed"  # its __del__ then has nothing to close
    with contextlib.suppress(Exception):
        client._loop_runner.stop()


def executor_for(scheduler: str | None, *, jobs: int | None = None, timeout: float | None = None):
    """The executor a sweep runs its cells on; the caller shuts it down (both work as context managers).

    Parameters
    ----------
    scheduler
        None: a local :class:`BudgetPool` of ``jobs`` workers (default: the
        whole budget), each cell with its share of the budget. An address
        (``tcp://host:8786``): a ``dask.distributed.Client`` of that scheduler.
    """
    address = _clean_address(scheduler)
    if address is None:
        return budget.pool(jobs if jobs is not None else budget.available(), "sweep-cell")
    return connect(address, timeout)


_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def shared_client(address: str, timeout: float | None = None):
    """One client per address for the whole process (the studio's runs reuse it); closed at exit."""
    address = _clean_address(address) or ""
    with _clients_lock:
        client = _clients.get(address)
        if client is not None and client.status in ("running", "connecting"):
            return client
        client = connect(address, timeout)
        _clients[address] = client
        return client


def remote_client():
    """The shared client of :func:`scheduler_address`, or None when work stays on this machine."""
    address = scheduler_address()
    return shared_client(address) if address is not None else None


def close_clients() -> None:
    """Close every shared client (at exit, or when the studio's scheduler setting changes)."""
    with _clients_lock:
        clients = list(_clients.values())
        _clients.clear()
    for client in clients:
        with contextlib.suppress(Exception):
            client.close()


atexit.register(close_clients)


def describe_cluster(address: str, timeout: float | None = None) -> str:
    """Connect to ``address`` once and say what is there ("2 workers, 4 threads"); ExecutionError if it cannot."""
    client = connect(address, timeout)
    try:
        workers = client.scheduler_info().get("workers", {})
        threads = sum(int(w.get("nthreads", 0)) for w in workers.values())
        return f"{len(workers)} worker{'s' if len(workers) != 1 else ''}, {threads} thread{'s' if threads != 1 else ''}"
    finally:
        client.close()


def is_cluster(executor: Any) -> bool:
    """True for a Dask client (work leaves this process), False for a local pool or None."""
    return executor is not None and hasattr(executor, "scatter")


@contextlib.contextmanager
def on_worker() -> Iterator[None]:
    """The context of a task on a cluster worker: the worker's share of threads, no further cluster.

    Cluster workers run one task per worker thread, so a task uses one thread
    unless ``ANONSTUDIO_THREADS`` is set in the workers' environment. Work
    inside the task stays on that worker even if the worker's environment
    names a scheduler (which would otherwise send it back to the cluster and
    could wait forever for a free worker).
    """
    with budget.limit(env_threads() or 1), using_scheduler(None):
        yield


class ClusterFlag:
    """A flag the submitting process raises and tasks on cluster workers read: how a cancel reaches them.

    A named ``dask.distributed.Event`` on the scheduler. The flag pickles by
    name, so it can be an argument of a task; there :meth:`is_set` asks the
    scheduler at most every ``every`` seconds (tasks ask between chunks,
    many times a second).
    """

    def __init__(self, client: Any, every: float = 0.25):
        self.name = f"anonstudio-cancel-{uuid.uuid4().hex}"
        self.every = float(every)
        self._event = _distributed().Event(self.name, client=client)
        self._init_reader()

    def _init_reader(self) -> None:
        self._lock = threading.Lock()
        self._checked = 0.0
        self._value = False

    def set(self) -> None:
        self._event.set()

    def clear(self) -> None:
        """Forget the flag on the scheduler (after the tasks finished)."""
        with contextlib.suppress(Exception):
            self._event.clear()

    def is_set(self) -> bool:
        with self._lock:
            if self._value:
                return True
            now = time.monotonic()
            if now - self._checked >= self.every:
                self._checked = now
                if self._event is None:  # on a worker: the worker's own client reaches the scheduler
                    self._event = _distributed().Event(self.name)
                self._value = bool(self._event.is_set())
            return self._value

    def __getstate__(self) -> dict:
        return {"name": self.name, "every": self.every}

    def __setstate__(self, state: dict) -> None:
        self.name = state["name"]
        self.every = state["every"]
        self._event = None
        self._init_reader()

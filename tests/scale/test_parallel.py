"""The thread budget (one for the whole studio, shared down nested pools) and the executor factory."""
from __future__ import annotations

import socket
import sys
import threading
import time

import pytest

from anonstudio import parallel
from anonstudio.parallel import ENV_SCHEDULER, ENV_THREADS, BudgetPool, ExecutionError, ThreadBudget


@pytest.fixture
def fresh(monkeypatch):
    """A budget of its own with no setting and no environment override."""
    monkeypatch.delenv(ENV_THREADS, raising=False)
    return ThreadBudget()


def test_total_is_setting_then_environment_then_machine(fresh, monkeypatch):
    assert fresh.total() == parallel.machine_threads()
    monkeypatch.setenv(ENV_THREADS, "3")
    assert fresh.total() == 3
    fresh.set_total(5)
    assert fresh.total() == 5 and fresh.available() == 5
    fresh.set_total(0)  # 0: back to the environment
    assert fresh.total() == 3


@pytest.mark.parametrize("text", ["zero", "0", "-2", "1.5"])
def test_a_bad_environment_value_is_a_clear_error(fresh, monkeypatch, text):
    monkeypatch.setenv(ENV_THREADS, text)
    with pytest.raises(ExecutionError, match=ENV_THREADS):
        fresh.total()


def test_share_divides_the_current_budget_and_nests(fresh):
    fresh.set_total(8)
    with fresh.share(2) as half:
        assert half == 4 and fresh.available() == 4
        assert fresh.workers(10) == 4 and fresh.workers(3) == 3
        with fresh.share(3) as third:
            assert third == 1 and fresh.available() == 1  # never below one thread
        assert fresh.available() == 4
    assert fresh.available() == 8


def test_a_pool_gives_each_task_its_share_and_nested_pools_split_it_again(fresh):
    fresh.set_total(8)
    seen = []
    lock = threading.Lock()

    def inner_task(_):
        with lock:
            seen.append(("inner", fresh.available()))

    def outer_task(_):
        with lock:
            seen.append(("outer", fresh.available()))
        with fresh.pool(10, "inner") as inner:  # wants 10, gets the task's share
            assert inner.workers == 4
            list(inner.map(inner_task, range(6)))

    with fresh.pool(2, "outer") as outer:
        assert isinstance(outer, BudgetPool) and outer.workers == 2 and outer.task_share == 4
        list(outer.map(outer_task, range(2)))
    assert sorted(set(seen)) == [("inner", 1), ("outer", 4)]
    assert len(seen) == 2 + 2 * 6
    # Outside any pool the whole budget is available again.
    assert fresh.available() == 8


def test_nested_pools_never_run_more_threads_than_the_budget(fresh):
    fresh.set_total(4)
    running = [0]
    peak = [0]
    lock = threading.Lock()

    def leaf(_):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1

    def cell(_):
        with fresh.pool(8, "trial") as trials:
            list(trials.map(leaf, range(8)))

    with fresh.pool(2, "cell") as cells:
        list(cells.map(cell, range(4)))
    assert peak[0] == 4  # 2 cells x 2 trials each, not 2 x 8


def test_a_thread_started_otherwise_sees_the_whole_budget(fresh):
    fresh.set_total(6)
    got = []
    with fresh.share(3):
        t = threading.Thread(target=lambda: got.append(fresh.available()))
        t.start()
        t.join()
    assert got == [6]


def test_the_studio_budget_follows_configure(monkeypatch):
    monkeypatch.delenv(ENV_THREADS, raising=False)
    before = parallel.budget.setting
    try:
        parallel.configure(threads=3)
        assert parallel.budget.total() == 3
        with parallel.budget.pool(8) as pool:
            assert pool.workers == 3
    finally:
        parallel.configure(threads=before)


def test_scheduler_address_run_choice_then_setting_then_environment(monkeypatch):
    monkeypatch.delenv(ENV_SCHEDULER, raising=False)
    assert parallel.scheduler_address() is None
    monkeypatch.setenv(ENV_SCHEDULER, "tcp://env:8786")
    assert parallel.scheduler_address() == "tcp://env:8786"
    try:
        parallel.configure(scheduler="  tcp://setting:8786 ")
        assert parallel.scheduler_address() == "tcp://setting:8786"
        with parallel.using_scheduler("tcp://run:8786"):
            assert parallel.scheduler_address() == "tcp://run:8786"
            with parallel.using_scheduler(None):  # explicitly here, whatever the setting
                assert parallel.scheduler_address() is None
        assert parallel.scheduler_address() == "tcp://setting:8786"
    finally:
        parallel.configure(scheduler=None)


def test_on_worker_uses_one_thread_and_no_cluster(monkeypatch):
    monkeypatch.setenv(ENV_SCHEDULER, "tcp://somewhere:8786")
    monkeypatch.delenv(ENV_THREADS, raising=False)
    with parallel.on_worker():
        assert parallel.budget.available() == 1
        assert parallel.scheduler_address() is None
        assert parallel.remote_client() is None
    monkeypatch.setenv(ENV_THREADS, "2")
    with parallel.on_worker():
        assert parallel.budget.available() == 2


def test_executor_for_without_a_scheduler_is_a_local_pool_sized_by_the_budget(monkeypatch):
    monkeypatch.setenv(ENV_THREADS, "2")
    with parallel.executor_for(None, jobs=5) as pool:
        assert isinstance(pool, BudgetPool) and pool.workers == 2 and pool.task_share == 1
        assert pool.submit(lambda: parallel.budget.available()).result() == 1
    with parallel.executor_for("  ") as pool:  # a blank address is no address
        assert pool.workers == 2 and not parallel.is_cluster(pool)


def test_a_missing_dask_names_the_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    with pytest.raises(ExecutionError, match=r"pip install anonstudio\[cluster\]"):
        parallel.executor_for("tcp://127.0.0.1:8786")


def _closed_port() -> int:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_refused_scheduler_is_named_at_once_after_saying_what_it_waits_for(monkeypatch):
    said = []
    monkeypatch.setattr(parallel, "_connect_notice", said.append)
    address = f"tcp://127.0.0.1:{_closed_port()}"
    t0 = time.perf_counter()
    with pytest.raises(ExecutionError, match=f"cannot reach the Dask scheduler at {address}: connection refused"):
        parallel.executor_for(address, timeout=5)
    # Before: no word, then Dask's retries waited out the whole timeout.
    assert time.perf_counter() - t0 < 2.5
    assert said == [f"connecting to the Dask scheduler at {address} (up to 5 s)…"]


def test_a_peer_that_never_answers_is_named_within_the_timeout_and_left_cleanly():
    import gc

    # A full collection's own cost (a worker's heap after hundreds of tests) is the baseline; the client must not
    # add its wait on top of it.
    t0 = time.perf_counter()
    gc.collect()
    baseline = time.perf_counter() - t0
    with socket.socket() as server:  # accepts connections (the backlog) but never speaks
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        t0 = time.perf_counter()
        with pytest.raises(ExecutionError, match=f"cannot reach the Dask scheduler at {address}: no answer within 1 s"):
            parallel.connect(address, timeout=1)
        assert time.perf_counter() - t0 < 8
    # Nothing is left behind that waits at exit (a half-built client used to wait twice the timeout).
    t0 = time.perf_counter()
    gc.collect()
    assert time.perf_counter() - t0 < baseline + 1.5


def test_the_cli_says_what_it_waits_for_and_ends_with_one_line(tmp_path, capsys):
    from anonstudio.cli import main

    data = tmp_path / "b.dat"
    data.write_text("1 2\n2 3\n1 3\n1 2 3\n")
    address = f"tcp://127.0.0.1:{_closed_port()}"
    assert main(["sweep", str(data), "--method", "kmanon", "--grid", "k=2,3", "--scheduler", address, "--quiet",
                 "--out", str(tmp_path / "s.csv")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [f"anonstudio-cli sweep: connecting to the Dask scheduler at {address} (up to 10 s)…",
                     f"anonstudio-cli sweep: error: cannot reach the Dask scheduler at {address}: connection refused"]
    assert not (tmp_path / "s.csv").exists() and parallel._connect_notice is None


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", " localhost:8786 ", "[::1]:8786", "tls://host:1",
                                     "inproc://10.0.0.1/4242/1"])
def test_scheduler_addresses_dask_accepts_pass_the_check(address):
    assert parallel.check_address(address) == address.strip()


@pytest.mark.parametrize("address, reason", [
    ("not an address", "needs a port number"),
    ("http://host:8786", "http:// is not one of Dask's transports"),
    ("tcp://host", "needs a port number"),
    ("tcp://host:0", "needs a port number"),
    ("tcp://host:99999", "needs a port number"),
    ("tcp://:8786", "host name is not valid"),
    ("tcp://my host:8786", "host name is not valid"),
])
def test_a_malformed_address_is_refused_at_once_without_connecting(address, reason):
    t0 = time.perf_counter()
    with pytest.raises(ExecutionError, match=f"is not a Dask scheduler address: .*{reason}"):
        parallel.executor_for(address)
    assert time.perf_counter() - t0 < 1  # no connection attempt (which would wait for the timeout)


def test_jobs_running_at_once_share_the_budget_instead_of_each_taking_it_all(fresh):
    fresh.set_total(8)
    with fresh.lease() as first:
        assert first == 8 and fresh.available() == 8 and fresh.leased == 8
        seen = []
        # A second job, started on another thread while the first runs: what is left, at least 1.
        thread = threading.Thread(target=lambda: seen.append(_lease_in(fresh)))
        thread.start()
        thread.join()
        assert seen == [(1, 1)]
    assert fresh.leased == 0 and fresh.available() == 8
    with fresh.lease(3) as a:
        other = []
        thread = threading.Thread(target=lambda: other.append(_lease_in(fresh)))
        thread.start()
        thread.join()
        assert a == 3 and other == [(5, 5)]  # the second job gets the 5 the first left
    assert fresh.leased == 0


def test_a_job_gets_the_threads_an_older_job_gives_back_while_it_runs(fresh):
    """A run that started beside another one is not stuck on 1 thread once the other one ends."""
    fresh.set_total(4)
    first_in, first_out, second_in, second_out = (threading.Event() for _ in range(4))
    seen = {}

    def first():
        with fresh.lease() as held:
            seen["first"] = held
            first_in.set()
            first_out.wait(5)

    def second():
        with fresh.lease(3) as held:
            seen["second at start"] = (held, fresh.available())
            with fresh.pool(8) as pool:
                seen["pool beside the first"] = pool.workers
            second_in.set()
            second_out.wait(5)
            seen["second later"] = fresh.available()
            with fresh.pool(8) as pool:
                seen["pool alone"] = pool.workers

    a = threading.Thread(target=first)
    a.start()
    assert first_in.wait(5)
    b = threading.Thread(target=second)
    b.start()
    assert second_in.wait(5)
    assert fresh.leased == 5  # 4 and the 1 every job gets
    first_out.set()
    a.join()
    second_out.set()
    b.join()
    assert seen == {"first": 4, "second at start": (1, 1), "pool beside the first": 1, "second later": 3,
                    "pool alone": 3}
    assert fresh.leased == 0 and fresh.available() == 4


def test_a_lease_inside_a_pool_task_stays_within_the_task_share(fresh):
    fresh.set_total(8)
    with fresh.pool(4) as pool:
        held = pool.submit(lambda: _lease_in(fresh)).result()
    assert held == (2, 2) and fresh.leased == 0


def _lease_in(budget: ThreadBudget) -> tuple[int, int]:
    """(threads held, budget seen inside the lease) of a job leasing on the calling thread."""
    with budget.lease() as held:
        return held, budget.available()

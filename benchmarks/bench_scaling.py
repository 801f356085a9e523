"""Scale-out: a σ-k^m sweep serially, on a thread pool and on a Dask LocalCluster; σ-k^m trials on 1 and 2 threads.

Run: ``python benchmarks/bench_scaling.py [--users N] [--towers N] [--workers N] [--rounds N]
[--part all|sweep|trials]``.

A synthetic city (the paper's shape, scaled down) is swept over k x m, every
cell a full run with its independent check. Prints wall seconds per setting,
the ratio against the serial run on one thread (the baseline), and peak RSS
(``resource.getrusage``: this process, data generation included; the
cluster's workers are separate processes and report their own), this
CPU seconds (of the cluster's workers too) and the cores that gives on
average (CPU / wall), and the load average before and after: on a machine shared with other work, the wall
time measures the share of the cores the system gave us as much as anything.
Each setting is timed ``--rounds`` times in rotating order and the median is
reported, so a change in the load hits every setting alike. Every setting
must give the same table; the script checks it.

Settings:

* serial, budget 1: cells one after another, one thread in all (baseline);
* serial, budget W: cells one after another, each may use W threads (its
  sampler streams);
* pool: W cells at once on a thread pool, one thread each;
* cluster: a LocalCluster of W worker processes with one thread each (the
  cluster's start-up and the workers' first sweep, with their imports, are
  timed apart; the rounds run on warm workers);
* trials: one σ-k^m run of ``--trials`` trials on 1 thread, on W threads,
  and as tasks on the cluster.
"""
from __future__ import annotations

import argparse
import os
import resource
import time


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load() -> float:
    """The system's 1-minute load average: on a shared machine, how many others want the cores too."""
    return os.getloadavg()[0]


def timed(label: str, fn, cpu_clock=time.process_time):
    """Run ``fn``; print wall and CPU seconds, the cores it got on average (CPU / wall) and the load."""
    before = load()
    t0, c0 = time.perf_counter(), cpu_clock()
    out = fn()
    seconds, cpu = time.perf_counter() - t0, cpu_clock() - c0
    print(f"{label:<50} {seconds:7.2f} s  cpu {cpu:6.2f} s  cores {cpu / seconds:4.2f}  "
          f"load {before:4.1f}-{load():4.1f}  peak RSS {peak_mb():5.0f} MB", flush=True)
    return out, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=40_000)
    parser.add_argument("--towers", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2, help="threads / worker processes (default 2)")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="timings per setting, in rotating order (default 3)")
    parser.add_argument("--part", choices=("all", "sweep", "trials"), default="all", help="what to time")
    args = parser.parse_args()

    from distributed import LocalCluster

    from anonstudio import parallel
    from anonstudio.data.synth_city import SynthCityParams, generate_city
    from anonstudio.kernels.warmup import warm_up_all
    from anonstudio.methods.contract import get_method, run_and_verify
    from anonstudio.methods.sweep import make_grid, parse_axis, run_sweep

    W = args.workers
    print(f"machine: {parallel.machine_threads()} cores available to this process; W = {W}")
    (city, _) = timed(f"generate a city of {args.users:,} people, {args.towers} towers",
                      lambda: generate_city(SynthCityParams(towers=args.towers, area_km2=30.0, users=args.users,
                                                            seed=3)))
    data = city.data
    timed("compile / load the kernels", warm_up_all)
    spec = get_method("kmanon")
    base = spec.params(k=10, m=3, sigma=0.95, verify_samples=5000, seed=1)
    axes = [parse_axis(spec.params, "k", "10,20,50"), parse_axis(spec.params, "m", "1-3")]
    cells = make_grid(base, axes)
    run_and_verify(spec, data, cells[0].params)  # first use: bitsets and Voronoi cells built once per data

    def sweep(executor=None):
        result = run_sweep(spec, data, cells, axes=axes, executor=executor)
        assert result.complete
        return result.to_csv_text()

    cluster, _ = timed(f"start a LocalCluster of {W} processes x 1 thread",
                       lambda: LocalCluster(n_workers=W, threads_per_worker=1, processes=True,
                                            dashboard_address=":0"))
    try:
        client = parallel.executor_for(cluster.scheduler_address)

        def cluster_clock() -> float:
            """CPU seconds of this process and every worker process."""
            return time.process_time() + sum(client.run(time.process_time).values())

        pool = parallel.executor_for(None, jobs=W)

        def budget(threads, fn):
            def run():
                parallel.configure(threads=threads)
                return fn()
            return run

        if args.part in ("all", "sweep"):
            print(f"\nsweep of σ-k^m over k x m = {len(cells)} cells")
            timed("cluster: first sweep (workers import and load)", lambda: sweep(client), cluster_clock)
            compare([("serial, budget 1 thread (baseline)", budget(1, sweep)),
                     (f"serial, budget {W} threads", budget(W, sweep)),
                     (f"thread pool, {W} cells at once", budget(W, lambda: sweep(pool))),
                     (f"cluster, {W} warm worker processes", budget(W, lambda: sweep(client)), cluster_clock)],
                    args.rounds)

        params = spec.params(k=20, m=4, sigma=0.99, trials=args.trials, threads=W, verify_samples=0, seed=2)

        def one_run():
            run = run_and_verify(spec, data, params)
            return repr([(lv.partitions, lv.error) for lv in run.result.levels])

        def on_cluster():
            with parallel.using_scheduler(cluster.scheduler_address):
                return one_run()

        if args.part in ("all", "trials"):
            print(f"\nσ-k^m, one run of {args.trials} trials (k = 20, m = 4, σ = 0.99)")
            if args.part == "trials":
                timed("cluster: first run (workers import and load)", on_cluster, cluster_clock)
            compare([("trials on 1 thread (baseline)", budget(1, one_run)),
                     (f"trials on {W} threads", budget(W, one_run)),
                     (f"trials on the cluster ({W} processes)", budget(W, on_cluster), cluster_clock)],
                    args.rounds)
        pool.shutdown()
        client.close()
    finally:
        parallel.close_clients()
        cluster.close()
    print("\nevery setting gave the same table and the same levels")


def compare(settings, rounds: int) -> None:
    """Time every setting ``rounds`` times in rotating order (so a change in the machine's load hits all of
    them alike), check they give the same output, and print the median seconds and the speed-up."""
    import statistics

    settings = [s if len(s) == 3 else (*s, time.process_time) for s in settings]
    times: dict[str, list[float]] = {label: [] for label, _, _ in settings}
    outputs = set()
    for r in range(rounds):
        turn = settings[r % len(settings):] + settings[:r % len(settings)]
        for label, fn, clock in turn:
            out, seconds = timed(f"  round {r + 1}: {label}", fn, clock)
            times[label].append(seconds)
            outputs.add(out)
    assert len(outputs) == 1, "the settings disagree"
    base = statistics.median(times[settings[0][0]])
    print(f"  {'median of ' + str(rounds) + ' rounds':<48} {'seconds':>9} {'speed-up':>9}")
    for label, _, _ in settings:
        median = statistics.median(times[label])
        print(f"  {label:<48} {median:9.2f} {base / median:8.2f}x")


if __name__ == "__main__":
    main()

"""Benchmark of probabilistic k^m-anonymization on synthetic cities (paper 000, Section VI).

Synthetic cities of 1,303 towers over 128 km^2 with record sizes of Table II
(mean 11.42, std 17.23, max 422), anonymized with the contiguity constraint at
k = 20, m = 5, sigma = 0.99, r = 1. Reports seconds, peak memory (RSS high-water
mark of this process, from getrusage) and generalized support checks per second.

Usage::

    .venv/bin/python benchmarks/bench_kmanon.py --users 100000 [--users 1000000 ...] [--json out.json]
    .venv/bin/python benchmarks/bench_kmanon.py --nyc   # Foursquare NYC acceptance run (k=10, m=3)
    .venv/bin/python benchmarks/bench_kmanon.py --sampler-speed 20000 --users 1000000   # sampler vs MCMC
    .venv/bin/python benchmarks/bench_kmanon.py --users 1000000 --profile   # + distinct checks, index memory

``--profile`` prints, per level, the itemsets drawn, the distinct generalized
itemsets (sets of partitions) actually checked, the cost of one check and the
memory of each index (it records every checked itemset, so it runs a little slower).

Run one size per process for clean peak-memory numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
from bench_data import BENCH_DATA

_CHECKED: dict[int, list[np.ndarray]] = {}  # --profile: level -> packed partition sets checked
_INDEXES: dict[str, int] = {}  # --profile: index -> bytes (largest seen)

FOURSQUARE = BENCH_DATA / "location"


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


class _Log:
    """A Progress that prints a line per finished level."""

    def __init__(self):
        self.seen = 0
        self.t0 = time.perf_counter()
        self.last_live = time.perf_counter()

    def set(self, fraction, status=""):
        pass

    def partial(self, result):
        if result.current and time.perf_counter() - self.last_live > 30:
            self.last_live = time.perf_counter()
            lv = result.current[0]
            print(f"    (level {lv.level} running: {lv.samples:,} samples, {lv.violations:,} violations, "
                  f"{lv.partitions:,} partitions, {lv.seconds:.0f} s)", flush=True)
        if len(result.levels) > self.seen:
            lv = result.levels[-1]
            self.seen = len(result.levels)
            print(f"  level {lv.level}: {lv.mode}, {lv.samples:,} itemsets, {lv.violations:,} violations, "
                  f"{lv.partitions:,} partitions, error {lv.error:.1f} m, {lv.seconds:.1f} s, "
                  f"RSS peak {peak_rss_gb():.2f} GB", flush=True)
            if lv.level in _CHECKED:
                keys = np.concatenate(_CHECKED.pop(lv.level))
                per_check = 1e6 * lv.check_seconds / max(lv.support_checks, 1)
                print(f"    profile: {lv.support_checks:,} checks of {len(np.unique(keys)):,} distinct generalized "
                      f"itemsets, {per_check:.1f} us per check, {lv.check_seconds:.1f} s checking, "
                      f"{lv.sampling_seconds:.1f} s waiting for samples; indexes: "
                      + ", ".join(f"{name} {size / 1e6:.0f} MB" for name, size in _INDEXES.items()), flush=True)

    def cancelled(self):
        return False


def _nbytes(value) -> int:
    """Bytes of the arrays in ``value`` (an array or nested tuples of them)."""
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value)
    return getattr(value, "nbytes", 0)


def install_profile(data) -> None:
    """Record every generalized itemset the trial checks, and the size of the indexes it checks with."""
    import anonstudio.methods.kmanon.trial as trial_module

    check = trial_module.check_batch

    def recording_check(samples, begin, label, base, pool, start, length, bits, item_rows, bit_row, k, need):
        fail, passed, checks = check(samples, begin, label, base, pool, start, length, bits, item_rows, bit_row, k,
                                     need)
        rows = np.sort(label[samples[begin : begin + int(checks)]].astype(np.uint64), axis=1)
        key = np.zeros(len(rows), dtype=np.uint64)
        shift = np.uint64(max(1, len(label).bit_length()))  # 11 bits x 5 partitions for 1,303 towers
        for c in range(rows.shape[1]):
            # a repeated partition is one partition: the set, not the sequence, is what is checked
            fresh = np.ones(len(rows), dtype=bool) if c == 0 else rows[:, c] != rows[:, c - 1]
            key = np.where(fresh, (key << shift) | rows[:, c], key)
        _CHECKED.setdefault(samples.shape[1], []).append(key)
        for name, arr in (("posting pool", pool), ("partition bitsets", bits)):
            _INDEXES[name] = max(_INDEXES.get(name, 0), arr.nbytes)
        for name, value in data._cache.items():
            _INDEXES[f"data {name if isinstance(name, str) else name[0]}"] = _nbytes(value)
        return fail, passed, checks

    trial_module.check_batch = recording_check


def run_city(users: int, k: int, m: int, sigma: float, trials: int, seed: int, verify: int,
             profile: bool = False) -> dict:
    from anonstudio.data.geo import build_voronoi
    from anonstudio.data.synth_city import SynthCityParams, generate_city
    from anonstudio.methods.kmanon.algorithm import kmanonymize
    from anonstudio.methods.kmanon.constraints import Contiguity
    from anonstudio.methods.kmanon.params import KmAnonParams
    from anonstudio.verifiers.kmanon import verify_km

    t = time.perf_counter()
    city = generate_city(SynthCityParams(towers=1303, area_km2=128.0, users=users, seed=seed))
    gen_s = time.perf_counter() - t
    data = city.data
    t = time.perf_counter()
    cells = build_voronoi(data.coords, city.boundary)
    vor_s = time.perf_counter() - t
    print(f"{users:,} users: city {gen_s:.1f} s, Voronoi {vor_s:.1f} s, {data.indices.size:,} occurrences, "
          f"RSS peak {peak_rss_gb():.2f} GB, load average {os.getloadavg()[0]:.1f}", flush=True)
    params = KmAnonParams(k=k, m=m, sigma=sigma, trials=trials, seed=seed)
    if profile:
        install_profile(data)
    t = time.perf_counter()
    cpu = time.process_time()
    res = kmanonymize(data, Contiguity(cells), params, _Log())
    anon_cpu = time.process_time() - cpu
    anon_s = time.perf_counter() - t
    out = {
        "users": users, "towers": data.n_items, "occurrences": int(data.indices.size), "k": k, "m": m,
        "sigma": sigma, "trials": trials, "seconds_generate": gen_s, "seconds_voronoi": vor_s,
        "seconds_anonymize": anon_s, "cpu_seconds_anonymize": anon_cpu,
        "peak_rss_gb_anonymize": peak_rss_gb(), "load_average": os.getloadavg(),
        "support_checks_per_second": res.support_checks_per_second,
        "complete": res.complete, "levels": [lv.summary() for lv in res.levels],
    }
    if verify:
        t = time.perf_counter()
        cpu = time.process_time()
        check = verify_km(data, res.final.labels, k, m, samples=verify, seed=seed, sigma=sigma)
        out["verify"] = check.to_json()
        out["seconds_verify"] = time.perf_counter() - t
        out["cpu_seconds_verify"] = time.process_time() - cpu
        print(f"  independent check (sigma = {sigma:g}): {out['seconds_verify']:.1f} s, CPU "
              f"{out['cpu_seconds_verify']:.1f} s, RSS peak {peak_rss_gb():.2f} GB", flush=True)
        for line in check.lines():
            print(f"    {line}", flush=True)
    out["peak_rss_gb"] = peak_rss_gb()
    return out


def run_sampler_speed(users: int, seed: int, samples: int) -> dict:
    """Samples per second of the two uniform itemset samplers on one city, per ell (2 threads each)."""
    from anonstudio.data.synth_city import SynthCityParams, generate_city
    from anonstudio.samplers.independent_sampler import IndependentItemsetSampler
    from anonstudio.samplers.mcmc_sampler import ItemsetSampler

    data = generate_city(SynthCityParams(towers=1303, area_km2=128.0, users=users, seed=seed)).data
    rows = []
    print(f"{users:,} users, {samples:,} samples per sampler and ell (burn-in and index builds not timed)")
    print("ell | MCMC samples/s | independent samples/s | ratio | acceptance (independent)")
    for ell in range(2, 6):
        rates = {}
        for name, make in (("mcmc", lambda: ItemsetSampler(data, ell, seed, chains=2)),
                           ("independent", lambda: IndependentItemsetSampler(data, ell, seed, streams=2))):
            sampler = make()
            sampler.burn_in()
            sampler.draw(64)  # compile and touch the indexes
            t = time.perf_counter()
            sampler.draw(samples)
            rates[name] = samples / (time.perf_counter() - t)
            if name == "independent":
                acceptance = sampler.report.acceptance_rate
            sampler.close()
        ratio = rates["independent"] / rates["mcmc"]
        rows.append({"ell": ell, **{f"{k}_per_s": v for k, v in rates.items()}, "ratio": ratio,
                     "acceptance": acceptance})
        print(f"{ell} | {rates['mcmc']:,.0f} | {rates['independent']:,.0f} | {ratio:.1f}x | {acceptance:.4f}",
              flush=True)
    return {"users": users, "sampler_speed": rows}


def run_nyc(k: int, m: int, sigma: float, trials: int, seed: int, verify: int) -> dict:
    import shapely

    from anonstudio.data.foursquare import build_location_dataset
    from anonstudio.data.geo import build_voronoi
    from anonstudio.methods.kmanon.algorithm import kmanonymize
    from anonstudio.methods.kmanon.constraints import Contiguity
    from anonstudio.methods.kmanon.params import KmAnonParams
    from anonstudio.verifiers.kmanon import verify_km

    ds = build_location_dataset(FOURSQUARE / "Foursquare_checkins.txt", FOURSQUARE / "Foursquare_poi_coos.txt")
    data = ds.data
    cells = build_voronoi(data.coords)
    out = {"users": data.n_records, "venues": data.n_items}
    for mode, cheaper in (("exact-when-cheaper", True), ("sampling", False)):
        params = KmAnonParams(k=k, m=m, sigma=sigma, trials=trials, seed=seed, exact_when_cheaper=cheaper)
        t = time.perf_counter()
        res = kmanonymize(data, Contiguity(cells), params)
        secs = time.perf_counter() - t
        labels = res.final.labels
        contiguous = all(shapely.union_all(cells.cells[labels == p]).geom_type == "Polygon" for p in np.unique(labels))
        check = verify_km(data, labels, k, m, samples=verify, seed=seed + 1, sigma=sigma)
        out[mode] = {"seconds": secs, "levels": [lv.summary() for lv in res.levels],
                     "all_contiguous": contiguous, "verify": check.to_json()}
        print(f"NYC {mode}: {secs:.1f} s; " + "; ".join(
            f"m={lv.level}: {lv.partitions} partitions, error {lv.error:.0f} m" for lv in res.levels)
            + f"; contiguous {contiguous}; check " + ", ".join(
            f"l={p.ell}: {p.fraction:.4%} [{p.ci_low:.4f}, {p.ci_high:.4f}]" for p in check.points), flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, action="append", help="city size (repeatable)")
    ap.add_argument("--nyc", action="store_true", help="Foursquare New York City run instead")
    ap.add_argument("--sampler-speed", type=int, metavar="SAMPLES",
                    help="instead: samples/s of the independent sampler vs the MCMC chain on each --users city")
    ap.add_argument("--k", type=int, default=None)
    ap.add_argument("--m", type=int, default=None)
    ap.add_argument("--sigma", type=float, default=0.99)
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verify", type=int, default=20_000, help="verifier samples per level (0: skip)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--profile", action="store_true",
                    help="also print distinct generalized itemsets checked per level and the indexes' memory")
    args = ap.parse_args(argv)
    if args.sampler_speed:
        results = [run_sampler_speed(u, args.seed, args.sampler_speed) for u in (args.users or [1_000_000])]
    elif args.nyc:
        results = [run_nyc(args.k or 10, args.m or 3, args.sigma, max(args.trials, 1), args.seed, args.verify)]
    else:
        results = [run_city(u, args.k or 20, args.m or 5, args.sigma, args.trials, args.seed, args.verify,
                            args.profile) for u in (args.users or [100_000])]
    print(f"load average now {os.getloadavg()[0]:.1f} (1 min), {os.getloadavg()[1]:.1f} (5 min)")
    for r in results:
        print(json.dumps({k: v for k, v in r.items() if k != "levels"}, default=str)[:2000])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Speed of the relative-threat Gibbs sampler on the UCI Adult data.

Settings of Boreale, Corradi, Viscardi (2020), Section VI: 5,692 rows, nine
categorical attributes (occupation sensitive), 100,000 sweeps with a burn-in
of 50,000; here two chains on two threads. Then the whole cleaned training
set (30,162 rows) with 20,000 sweeps. Releases come from anonstudio's own
Mondrian (k = l = 4) and Anatomy (l = 4). One pure-Python sweep (row by row,
``random.gammavariate``) gives the speed-up of the kernel.

Usage: ``python benchmarks/bench_gibbs.py [--quick]`` (``--quick`` runs a tenth of the sweeps).
``--reproduce OUT.json`` instead runs the Adult experiments of Section VI
(Tables IV-V) and writes their measures, as used by docs/threat-reproduction.md;
``--figures DIR`` draws the counterparts of Figs. 2-3 (PNG, Qt offscreen).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from bench_data import BENCH_DATA

from anonstudio.data.table import Table
from anonstudio.methods.group_anonymize.algorithm import anonymize
from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams
from anonstudio.methods.threat.analysis import analyze_threat, prepare
from anonstudio.methods.threat.params import ThreatParams

ADULT = BENCH_DATA / "adult" / "adult.data"
COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country", "salary"]
USED = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary", "occupation"]
QI = USED[:-1]


def adult(rows: int | None) -> pd.DataFrame:
    frame = pd.read_csv(ADULT, header=None, names=COLUMNS, skipinitialspace=True, na_values="?")
    frame = frame[USED].dropna().reset_index(drop=True)
    if rows is not None:
        frame = frame.sample(rows, random_state=0).reset_index(drop=True)
    return frame


def release(frame: pd.DataFrame, scheme: str, k: int):
    params = GroupAnonymizeParams(scheme=scheme, k=k, l=k, qi=tuple(QI), sensitive="occupation")
    return anonymize(Table(frame), params).release


def python_sweep(enc, layout, rng: random.Random) -> None:
    """One horizontal sweep written the obvious way: Dirichlet by gammavariate, then every row and attribute."""
    n_s, width = enc.n_s, enc.width
    counts = layout.base_counts.copy()
    pi = [[0.0] * width for _ in range(n_s)]
    for s in range(n_s):
        for a in range(enc.n_attr):
            lo, hi = int(enc.attr_off[a]), int(enc.attr_off[a + 1])
            g = [rng.gammavariate(float(enc.beta[s, d] + counts[s, d]), 1.0) for d in range(lo, hi)]
            total = sum(g)
            for d, x in zip(range(lo, hi), g):
                pi[s][d] = x / total
    for j in range(enc.n_rows):
        s = int(enc.s_code[j])
        for a in range(enc.n_attr):
            p = int(layout.row_pat[j, a])
            if p < 0:
                continue
            cell = layout.pat_vals[layout.pat_ptr[p]:layout.pat_ptr[p + 1]].tolist()
            weights = [pi[s][d] for d in cell]
            x = rng.random() * sum(weights)
            for _d, w in zip(cell, weights):
                x -= w
                if x <= 0:
                    break
            counts[s, d] += 1


def run(frame, rel, iterations, burn_in, label):
    params = ThreatParams(iterations=iterations, burn_in=burn_in, thinning=10, chains=2, seed=1)
    analyze_threat(frame, rel, ThreatParams(iterations=20, burn_in=10, thinning=1, chains=2, seed=1))  # compile
    t0, c0 = time.perf_counter(), time.process_time()
    result = analyze_threat(frame, rel, params)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    rate = 2 * iterations / seconds
    m = result.measures
    # CPU seconds per chain tell the cost on an idle core when the machine is shared.
    print(f"{label:<38} {seconds:7.1f} s wall, {cpu / 2:6.1f} s CPU per chain, {rate:7.0f} sweeps/s (2 chains)  "
          f"GT_A={m['GT_A']:.4f} GT_L={m['GT_L']:.4f} RF={m['RF']:.4f}", flush=True)
    return cpu / 2 / iterations, rate, result


def reproduce(path: Path, iterations: int, burn_in: int) -> None:
    """Section VI on 5,692 Adult rows: horizontal (Mondrian, global recoding) and Anatomy, k = l = 4 and 6."""
    paper = adult(5692)
    out = []
    for scheme, k in (("mondrian", 4), ("mondrian", 6), ("global", 4), ("anatomy", 4), ("anatomy", 6)):
        rel = release(paper, scheme, k)
        _, _, result = run(paper, rel, iterations, burn_in, f"{scheme} k=l={k}")
        sizes = rel.group_sizes()
        out.append({"scheme": scheme, "k": k, "groups": int(rel.n_groups), "mean_group": float(sizes.mean()),
                    "seconds": result.seconds, "measures": result.measures,
                    "diagnostics": result.diagnostics.summary()})
        path.write_text(json.dumps(out, indent=1))


def figure(result, path: Path, title: str) -> None:
    """Figs. 2-3 layout: p_L vs p_A and log2 Ti, for rows threatened under p_A (top) and p_L (bottom)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph as pg
    import pyqtgraph.exporters

    from anonstudio.methods.threat.measures import skewness

    app = pg.mkQApp()
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    rows = result.rows()
    layout = pg.GraphicsLayoutWidget(size=(900, 760))
    layout.addLabel(title, colspan=2)
    for r, (flag, who) in enumerate((("threatened_A", "p_A"), ("threatened_L", "p_L")), start=1):
        keep = rows[flag]
        scatter = layout.addPlot(row=r, col=0, title=f"rows threatened under {who} ({int(keep.sum())})")
        scatter.setLabel("bottom", "p_L(s | r)")
        scatter.setLabel("left", "p_A(s | r)")
        scatter.plot([0, 1], [0, 1], pen=pg.mkPen("r", width=1))
        scatter.plot(rows["p_L"][keep], rows["p_A"][keep], pen=None, symbol="o", symbolSize=3,
                     symbolBrush=(30, 60, 160, 90), symbolPen=None)
        scatter.setRange(xRange=(0, 1), yRange=(0, 1))
        log_ti = np.log2(rows["Ti"][keep])
        log_ti = log_ti[np.isfinite(log_ti)]
        hist = layout.addPlot(row=r, col=1, title=f"log2 Ti, skewness {skewness(log_ti):.2f}")
        counts, edges = np.histogram(log_ti, bins=40)
        hist.addItem(pg.BarGraphItem(x0=edges[:-1], x1=edges[1:], height=counts, brush=(30, 60, 160, 160)))
        hist.setLabel("bottom", "log2 Ti")
        hist.setLabel("left", "rows")
    layout.resize(900, 760)
    layout.show()  # offscreen: lays the plots out at the requested size before exporting
    app.processEvents()
    pg.exporters.ImageExporter(layout.scene()).export(str(path))
    layout.close()


def figures(directory: Path, iterations: int, burn_in: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    paper = adult(5692)
    for scheme, name in (("mondrian", "threat-fig2-mondrian-k4.png"), ("anatomy", "threat-fig3-anatomy-l4.png")):
        rel = release(paper, scheme, 4)
        _, _, result = run(paper, rel, iterations, burn_in, f"{scheme} k=l=4 (figure)")
        figure(result, directory / name, f"Adult, 5,692 rows, {scheme} k = l = 4")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sweeps")
    parser.add_argument("--reproduce", type=Path, metavar="OUT", help="run Section VI and write its measures")
    parser.add_argument("--only", choices=("paper", "full"), help="run one of the two settings")
    parser.add_argument("--figures", type=Path, metavar="DIR", help="draw Figs. 2-3 counterparts into DIR")
    args = parser.parse_args(argv)
    if not ADULT.exists():
        print(f"needs {ADULT}", file=sys.stderr)
        return 1
    if args.reproduce:
        reproduce(args.reproduce, 100_000, 50_000)
        return 0
    if args.figures:
        figures(args.figures, 100_000 // (10 if args.quick else 1), 50_000 // (10 if args.quick else 1))
        return 0
    scale = 10 if args.quick else 1
    paper = adult(5692)
    for scheme in ("mondrian", "anatomy") if args.only != "full" else ():
        rel = release(paper, scheme, 4)
        cpu_sweep, _, _ = run(paper, rel, 100_000 // scale, 50_000 // scale, f"paper setting, {scheme} k=l=4")
        if scheme == "mondrian":
            prep = prepare(paper, rel, ThreatParams())
            c0 = time.process_time()
            python_sweep(prep.enc, prep.layout, random.Random(1))
            py = time.process_time() - c0
            print(f"{'pure-Python sweep (same table)':<38} {py:7.3f} s CPU  {1 / py:9.1f} sweeps/s  "
                  f"kernel sweep ({cpu_sweep * 1e3:.2f} ms CPU, kept-sample work included) is "
                  f"{py / cpu_sweep:,.0f}x faster", flush=True)
    full = adult(None)
    for scheme in ("mondrian", "anatomy") if args.only != "paper" else ():
        run(full, release(full, scheme, 4), 20_000 // scale, 10_000 // scale, f"full Adult (30,162), {scheme} k=l=4")
    return 0


if __name__ == "__main__":
    sys.exit(main())

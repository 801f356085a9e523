"""Relative threat analysis of a group-anonymized table: run the sampler, estimate, measure.

Entry point :func:`analyze_threat` takes the cleartext table (the evaluator
has it, Section IV), the release aligned with it and :class:`ThreatParams`
(its sampler fields); it returns a :class:`ThreatEstimates` with the learner's, attacker's,
random-worlds and ideal distributions for every row, the measures, and the
convergence diagnostics. Partial results (current estimates) are published
while sampling; a cancel returns what was sampled, with ``complete=False``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...jobs import NullProgress, Progress, derive_seed
from ...params import to_dict
from ..group_anonymize.release import GroupRelease
from . import estimates as est
from .diagnostics import geweke_from_batches, weiss_test
from .layout import HorizontalLayout, horizontal_layout, vertical_layout
from .measures import MEASURE_MEANINGS, faithfulness, row_measures, table_measures
from .model import EncodedRelease, Priors, encode_release, text_of
from .params import ThreatParams
from .sampler import ChainSet, SamplerPlan

__all__ = ["ThreatEstimates", "Diagnostics", "analyze_threat", "prepare"]

PARTIAL_EVERY = 1.0  # seconds between partial results (each costs one estimation pass)


@dataclass(eq=False)
class Diagnostics:
    geweke_z: np.ndarray  # (chains, components): pi_S then pi_{R|S} flattened (S x D)
    component_names: list[str]
    weiss: list[dict]  # one per tracked (row, attribute)
    acceptance: list[float | None]
    traces: np.ndarray  # (chains, kept, len(trace_names))
    trace_names: list[str]

    def summary(self) -> dict[str, Any]:
        z = self.geweke_z[np.isfinite(self.geweke_z)]
        pvals = [w["p_value"] for w in self.weiss if np.isfinite(w["p_value"])]
        return {
            "geweke_share_within_2": float(np.mean(np.abs(z) <= 2)) if z.size else None,
            "geweke_max_abs_z": float(np.abs(z).max()) if z.size else None,
            "weiss_min_p": float(min(pvals)) if pvals else None,
            "weiss_share_p_above_0.05": float(np.mean(np.array(pvals) > 0.05)) if pvals else None,
            "acceptance": self.acceptance,
        }


@dataclass(eq=False)
class ThreatEstimates:
    """Per-row distributions (rows in cleartext order, columns = ``sensitive_values``) and measures."""

    scheme: str
    qi: list[str]
    known_qi: list[str]
    sensitive: str
    sensitive_values: list
    s_true: np.ndarray
    p_A: np.ndarray
    p_L: np.ndarray
    p_RW: np.ndarray
    p_I: np.ndarray
    measures: dict[str, float]
    diagnostics: Diagnostics | None
    complete: bool
    sweeps: int
    kept: int
    seconds: float
    params: ThreatParams
    meanings: dict[str, str] = field(default_factory=lambda: dict(MEASURE_MEANINGS))

    @property
    def n_rows(self) -> int:
        return len(self.s_true)

    def rows(self) -> dict[str, np.ndarray]:
        return row_measures(self.p_A, self.p_L, self.s_true)

    def victim(self, row: int) -> dict[str, Any]:
        """The three distributions (and p_I) for the victim at row index ``row`` (from 0; ``index`` in the answer)."""
        if not 0 <= row < self.n_rows:
            raise IndexError(f"row {row} is outside 0..{self.n_rows - 1}")
        names = [text_of(v) for v in self.sensitive_values]
        return {
            "index": row, "s": names[int(self.s_true[row])],
            **{k: dict(zip(names, getattr(self, k)[row].tolist())) for k in ("p_L", "p_A", "p_RW", "p_I")},
        }

    def to_json(self) -> dict[str, Any]:
        names = [text_of(v) for v in self.sensitive_values]
        rm = self.rows()
        rows = []
        for i in range(self.n_rows):
            rows.append({
                "row": i + 1, "s": names[int(self.s_true[i])],  # rows numbered from 1, as every file does
                "p_A": self.p_A[i].tolist(), "p_L": self.p_L[i].tolist(), "p_RW": self.p_RW[i].tolist(),
                "p_I": self.p_I[i].tolist(), "Ti": _finite(rm["Ti"][i]),
                "threatened_A": bool(rm["threatened_A"][i]), "threatened_L": bool(rm["threatened_L"][i]),
            })
        return {
            "scheme": self.scheme, "qi": self.qi, "known_qi": self.known_qi, "sensitive": self.sensitive,
            "complete": self.complete, "sweeps_per_chain": self.sweeps, "kept_samples": self.kept,
            "seconds": self.seconds, "params": to_dict(self.params),
            "measures": {k: _finite(v) for k, v in self.measures.items()},
            "measure_meanings": self.meanings,
            "diagnostics": self.diagnostics.summary() if self.diagnostics else None,
            "sensitive_values": names, "rows": rows,
        }


def _finite(x: float) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


@dataclass(eq=False)
class _Prepared:
    enc: EncodedRelease
    layout: Any
    plan: SamplerPlan
    mask: np.ndarray
    tuples: np.ndarray
    tuple_of_row: np.ndarray
    rf_exact: bool
    trace_names: list[str]
    component_names: list[str]


def _component_names(enc: EncodedRelease) -> list[str]:
    s_names = [text_of(v) for v in enc.sensitive_values]
    names = [f"pi_S[{s}]" for s in s_names]
    for s in s_names:
        for _a, column in enumerate(enc.qi):
            for v in enc.release.domains[column]:
                names.append(f"pi[{column}={text_of(v)} | {s}]")
    return names


def _trace_components(enc: EncodedRelease, limit: int = 48) -> np.ndarray:
    """pi_S and, per sensitive value, the most frequent value of every attribute (capped)."""
    counts = enc.true_counts()
    idx = list(range(enc.n_s))
    for s in range(enc.n_s):
        for a in range(enc.n_attr):
            lo, hi = int(enc.attr_off[a]), int(enc.attr_off[a + 1])
            idx.append(enc.n_s + s * enc.width + lo + int(np.argmax(counts[s, lo:hi])))
    return np.asarray(idx[:limit], dtype=np.int64)


def _tracked_rows(enc: EncodedRelease, layout: Any, count: int) -> np.ndarray:
    """Evenly spaced rows whose hidden part actually varies."""
    if isinstance(layout, HorizontalLayout):
        candidates = np.flatnonzero((layout.row_pat >= 0).any(axis=1))
    else:
        groups = enc.release.row_group
        pairs = np.unique(np.stack([groups, enc.s_code], axis=1), axis=0)
        distinct = np.bincount(pairs[:, 0], minlength=enc.release.n_groups)
        candidates = np.flatnonzero(distinct[groups] > 1)
    if count <= 0 or candidates.size == 0:
        return np.zeros(0, dtype=np.int64)
    pick = np.unique(np.linspace(0, candidates.size - 1, min(count, candidates.size)).round().astype(int))
    return candidates[pick].astype(np.int64)


def prepare(frame: pd.DataFrame, release: GroupRelease, params: ThreatParams,
            priors: Priors | None = None, trace: list[str] | None = None) -> _Prepared:
    """Encode, build the index structures and the sampling plan (no sampling yet).

    ``trace`` names pi components to record at every kept sample (``"pi_S[Flu]"``,
    ``"pi[zip=45501 | Heart]"``); default: ``pi_S`` and, per sensitive value, the
    most frequent value of each attribute. ``params`` are taken as validated (the pipeline validates them once).
    """
    if priors is None:
        priors = Priors.symmetric(release, params.prior_alpha, params.prior_beta)
    enc = encode_release(frame, release, priors)
    layout = horizontal_layout(enc) if release.scheme == "horizontal" else vertical_layout(enc)
    mask = est.known_mask(enc, list(params.known))
    tuples, tuple_of_row = est.victim_tuples(enc, mask)
    rng = np.random.default_rng(derive_seed(params.seed, "threat-etv"))
    pts_s, pts_d, exact = est.faithfulness_points(enc, params.exact_tv_limit, params.etv_samples, rng)
    names = _component_names(enc)
    if trace:
        where = {n: i for i, n in enumerate(names)}
        unknown = [n for n in trace if n not in where]
        if unknown:
            raise ValueError(f"unknown pi component(s) {unknown}; e.g. {names[0]!r} or {names[enc.n_s]!r}")
        trace_idx = np.array([where[n] for n in trace], dtype=np.int64)
    else:
        trace_idx = _trace_components(enc)
    plan = SamplerPlan(
        iterations=params.iterations, burn_in=params.burn_in, thinning=params.thinning,
        mode=0 if params.learner == "predictive" else 1, eval_d=tuples, pts_s=pts_s,
        pts_d=np.ascontiguousarray(pts_d), trace_idx=trace_idx,
        track_rows=_tracked_rows(enc, layout, params.tracked_rows),
        proposal_kind=0 if params.proposal == "swap" else 1, moves_per_group=params.moves_per_group,
        n_components=enc.n_s * (1 + enc.width))
    return _Prepared(enc, layout, plan, mask, tuples, tuple_of_row, exact, [names[i] for i in trace_idx], names)


def _estimate(prep: _Prepared, chains: ChainSet, params: ThreatParams, complete: bool, seconds: float,
              with_diagnostics: bool) -> ThreatEstimates:
    enc, lay, inv = prep.enc, prep.layout, prep.tuple_of_row
    eval_mean = chains.pooled("eval_acc")
    p_L = (est.normalize_rows(eval_mean) if params.learner == "predictive" else eval_mean)[inv]
    if isinstance(lay, HorizontalLayout):
        marg = chains.pooled("row_acc")
        p_A = est.attacker_horizontal(lay, prep.tuples, marg, enc.n_s)[inv]
        p_RW = est.attacker_horizontal(lay, prep.tuples, lay.uniform_marginals(), enc.n_s)[inv]
    else:
        p_A = est.attacker_vertical(enc, lay, inv, len(prep.tuples), chains.pooled("row_acc"))[inv]
        p_RW = est.attacker_vertical(enc, lay, inv, len(prep.tuples), lay.random_worlds_row_s(enc))[inv]
    p_I = est.ideal_conditional(enc, prep.tuples)[inv]
    p_learned = chains.pooled("pts_acc")
    p_ideal = est.ideal_joint(enc, prep.plan.pts_s, prep.plan.pts_d)
    tv = est.total_variation(p_ideal, p_learned) if prep.rf_exact else est.empirical_tv(p_ideal, p_learned)
    measures = table_measures(p_A, p_L, p_RW, p_I, enc.s_code, enc.n_s, faithfulness(tv), prep.rf_exact)
    measures["TV_estimate"] = float(tv)
    diagnostics = _diagnostics(prep, chains) if with_diagnostics else None
    return ThreatEstimates(
        scheme=enc.scheme, qi=enc.qi, known_qi=[c for c, k in zip(enc.qi, prep.mask) if k],
        sensitive=enc.release.sensitive, sensitive_values=list(enc.sensitive_values), s_true=enc.s_code.copy(),
        p_A=p_A, p_L=p_L, p_RW=p_RW, p_I=p_I, measures=measures, diagnostics=diagnostics, complete=complete,
        sweeps=chains.sweeps_done, kept=chains.kept, seconds=seconds, params=params)


def _diagnostics(prep: _Prepared, chains: ChainSet) -> Diagnostics:
    z = np.stack([geweke_from_batches(c.batch_sums, c.batch_counts) for c in chains.chains])
    weiss = []
    plan, enc = prep.plan, prep.enc
    for j, row in enumerate(plan.track_rows.tolist()):
        for a in range(chains.chains[0].track.shape[2]):
            for ci, c in enumerate(chains.chains):
                series = c.track[: c.kept, j, a]
                if series.size == 0 or (series < 0).all():
                    continue
                stat, p, df = weiss_test(series)
                weiss.append({"row": row, "attribute": enc.qi[a] if chains.horizontal else enc.release.sensitive,
                              "chain": ci, "statistic": stat, "p_value": p, "df": df})
    kept = min(c.kept for c in chains.chains)
    traces = np.stack([c.trace[:kept] for c in chains.chains])
    return Diagnostics(z, prep.component_names, weiss, chains.acceptance(), traces, prep.trace_names)


def analyze_threat(frame: pd.DataFrame, release: GroupRelease, params: ThreatParams | None = None,
                   progress: Progress | None = None, priors: Priors | None = None,
                   trace: list[str] | None = None) -> ThreatEstimates:
    """Run the relative threat analysis of ``release`` against its cleartext ``frame``.

    Parameters
    ----------
    frame
        The cleartext table (a DataFrame, or anything with a ``.frame``), rows aligned with ``release``.
    priors
        Per-value Dirichlet hyperparameters; default symmetric from ``params``.
    trace
        pi components to trace in full (see :func:`prepare`).

    Returns
    -------
    ThreatEstimates
        ``complete=False`` when cancelled: the estimates then use the samples kept so far
        (all zero-information uniform when cancelled during burn-in).
    """
    params = params or ThreatParams()
    progress = progress or NullProgress()
    frame = getattr(frame, "frame", frame)
    t0 = time.perf_counter()
    progress.set(0.0, "preparing")
    prep = prepare(frame, release, params, priors, trace)
    chains = ChainSet(prep.enc, prep.layout, prep.plan, params.seed, params.chains)

    def publish() -> None:
        progress.partial(_estimate(prep, chains, params, False, time.perf_counter() - t0, False))

    complete = chains.run(progress, publish, PARTIAL_EVERY)
    result = _estimate(prep, chains, params, complete, time.perf_counter() - t0, True)
    progress.set(1.0, "done" if complete else "cancelled")
    return result

"""Cluster merging under a loss bound: RMERGE_R/T/RT (Rum-bound) and TMERGE_R/T/RT (Tum-bound).

Every round takes as seed the cluster of lowest NCP (ties: lower id) and
ranks the other clusters as merge partners:

* ``r``: by NCP of the merged tuple, Rum(G(C ∪ C_i));
* ``t``: by BTD(C ∪ C_i) (``order="btd"``, the paper's speed-up) or by the
  exact Tum(T(C ∪ C_i)) (``order="ul"``, the baseline of Fig. 7c-f);
* ``rt``: by the sum of both ranks u + v; **reading**: ties go to the smaller
  u, then the lower id (the worked example has such a tie and Fig. 2c
  follows this rule).

Rum-bound merges with the first partner that keeps Rum ≤ δ; RMERGE_R only
tries its best partner. **Reading**: the first seed that cannot merge ends
the run (the listing's "while 𝒟 changes" would otherwise pick the same seed
again forever).

Tum-bound always merges with the first partner. **Reading**: the printed
"if Tum(𝒟_tmp) ≤ δ then merge" would only ever merge when one merge
reaches the bound, so nearly every run would fail; instead the run stops as
soon as Tum(T(𝒟)) ≤ δ, or fails when one cluster is left above δ.

Clusters that T cannot fix (fewer than k records with non-sensitive items,
or a sensitive item above 1/ℓ) are taken as seeds first and must merge; a
Rum-bound run fails when no merge keeps Rum ≤ δ for one of them.

Rum is updated incrementally, ΔRum = [(|C| + |C′|)·NCP(C ∪ C′) − |C|·NCP(C) −
|C′|·NCP(C′)] / |D| (the printed formula has a sign error), and only the
merged cluster is re-generalized (per-cluster UL sums are kept), so Tum is
known after every merge (``tum_trace``, Fig. 7g-h).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...jobs import NullProgress, Progress
from ...kernels.rt_cluster import merge_into, merged_extents
from ...metrics.ncp import weighted_total
from .btd import BTDMatrix
from .cluster import Clustering
from .prepare import RTProblem
from .transaction import ClusterT, TFunction

__all__ = ["MergeState", "MergeOutcome", "run_merges", "partner_order", "EPS"]

#: Slack on δ comparisons: Rum and Tum are sums of floats, δ a decimal from the user.
EPS = 1e-12


@dataclass
class MergeOutcome:
    """How the merge phase ended.

    ``status``: ``"ok"`` (the bound holds), ``"infeasible"`` (the paper's
    *return false*; ``reason`` says why) or ``"cancelled"``.
    """

    status: str
    reason: str = ""
    merges: int = 0
    tum_trace: list[float] = field(default_factory=list)
    rum_trace: list[float] = field(default_factory=list)


class MergeState:
    """The current clusters: members, generalized tuples, NCPs and T results.

    Cluster ids are those of the initial clustering; a merge keeps the lower
    id and retires the other.
    """

    def __init__(self, problem: RTProblem, clustering: Clustering, tres: list[ClusterT], T: TFunction):
        self.problem = problem
        self.T = T
        order = np.argsort(clustering.assignment, kind="stable")
        bounds = np.cumsum(np.bincount(clustering.assignment, minlength=clustering.n_clusters))[:-1]
        self.members: list[np.ndarray] = [np.sort(m) for m in np.split(order, bounds)]
        self.summaries = clustering.summaries.take(np.arange(clustering.n_clusters))
        self.ncp = clustering.ncp.astype(np.float64).copy()
        self.size = np.asarray([len(m) for m in self.members], dtype=np.float64)
        self.alive = np.ones(clustering.n_clusters, dtype=bool)
        self.version = np.zeros(clustering.n_clusters, dtype=np.int64)
        self.tres = list(tres)
        self.rum_sum = weighted_total(self.size, self.ncp)
        self.ul_sum = float(sum(t.ul_sum for t in self.tres))
        self.fixable = np.asarray([t.ok for t in self.tres], dtype=bool)
        self.n = problem.n
        self.rel = problem.rel()

    # ------------------------------------------------------------ measures
    def rum(self) -> float:
        return self.rum_sum / self.n

    def tum(self) -> float:
        return self.ul_sum / self.n

    def ids(self) -> np.ndarray:
        return np.flatnonzero(self.alive)

    def merged_ncp(self, seed: int, cands: np.ndarray) -> np.ndarray:
        s = self.summaries.arrays()
        cands = np.asarray(cands, dtype=np.int64)
        return self.problem.ncp(merged_extents(s, int(seed), s, cands, self.rel,
                                               np.empty((len(cands), self.problem.v))))

    def rum_after(self, seed: int, cands: np.ndarray, merged: np.ndarray) -> np.ndarray:
        """Rum of the table if ``seed`` merged with each candidate."""
        delta = ((self.size[seed] + self.size[cands]) * merged - self.size[seed] * self.ncp[seed]
                 - self.size[cands] * self.ncp[cands])
        return (self.rum_sum + delta) / self.n

    # -------------------------------------------------------------- merging
    def union_t(self, a: int, b: int) -> ClusterT:
        return self.T(np.sort(np.concatenate([self.members[a], self.members[b]])))

    def merge(self, a: int, b: int, merged_ncp: float, t_union: ClusterT | None = None) -> int:
        """Merge clusters ``a`` and ``b``; returns the id kept."""
        keep, gone = (a, b) if a < b else (b, a)
        t_union = t_union if t_union is not None else self.union_t(a, b)
        self.rum_sum += ((self.size[a] + self.size[b]) * merged_ncp - self.size[a] * self.ncp[a]
                         - self.size[b] * self.ncp[b])
        self.ul_sum += t_union.ul_sum - self.tres[a].ul_sum - self.tres[b].ul_sum
        s = self.summaries.arrays()
        merge_into(s, keep, s, gone, self.rel)
        self.ncp[keep] = merged_ncp
        self.members[keep] = np.sort(np.concatenate([self.members[keep], self.members[gone]]))
        self.members[gone] = self.members[gone][:0]
        self.size[keep] += self.size[gone]
        self.size[gone] = 0.0
        self.alive[gone] = False
        self.version[keep] += 1
        self.tres[keep] = t_union
        self.fixable[keep] = t_union.ok
        self.fixable[gone] = True
        return keep

    def pick_seed(self) -> int:
        """Lowest NCP among the clusters T cannot fix, else among all (ties: lower id)."""
        pool = np.flatnonzero(self.alive & ~self.fixable)
        if len(pool) == 0:
            pool = self.ids()
        return int(pool[np.argmin(self.ncp[pool])])


def partner_order(merge: str, r_key: np.ndarray, t_key: np.ndarray | None) -> np.ndarray:
    """Positions of the candidates in the order they are tried (candidates are listed by increasing id)."""
    ids = np.arange(len(r_key))
    by_r = np.lexsort((ids, r_key))
    if merge == "r":
        return by_r
    by_t = np.lexsort((ids, t_key))
    if merge == "t":
        return by_t
    u = np.empty(len(ids), dtype=np.int64)
    v = np.empty(len(ids), dtype=np.int64)
    u[by_r] = ids + 1
    v[by_t] = ids + 1
    return np.lexsort((ids, u, u + v))


class _UnionCache:
    """T(C ∪ C′) of candidate pairs for the exact-UL order, valid while neither cluster changes."""

    def __init__(self, state: MergeState):
        self.state = state
        self.cache: dict[tuple[int, int, int, int], ClusterT] = {}

    def get(self, a: int, b: int) -> ClusterT:
        lo, hi = (a, b) if a < b else (b, a)
        key = (lo, hi, int(self.state.version[lo]), int(self.state.version[hi]))
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = self.state.union_t(lo, hi)
        return hit


def run_merges(state: MergeState, *, bound: str, merge: str, order: str, delta: float,
               btd: BTDMatrix | None = None, progress: Progress | None = None) -> MergeOutcome:
    """Merge until the bound's condition (module docstring); ``state`` is updated in place.

    Cancel is checked before every merge; the state is then a valid clustering.
    """
    progress = progress or NullProgress()
    out = MergeOutcome("ok")
    cache = _UnionCache(state) if (merge != "r" and order == "ul") else None
    if merge != "r" and order == "btd" and btd is None:
        raise ValueError("the BTD order needs a BTDMatrix")
    start_clusters = int(state.alive.sum())
    while True:
        if bound == "tum" and state.tum() <= delta + EPS and state.fixable[state.alive].all():
            return out
        ids = state.ids()
        if len(ids) <= 1:
            break
        if progress.cancelled():
            out.status = "cancelled"
            return out
        seed = state.pick_seed()
        must_merge = not state.fixable[seed]
        cands = ids[ids != seed]
        merged = state.merged_ncp(seed, cands)
        t_key = None
        if merge != "r":
            if order == "btd":
                t_key = btd.union(seed, cands)
            else:
                t_key = np.asarray([cache.get(seed, int(c)).ul_sum / (state.size[seed] + state.size[c])
                                    for c in cands])
        tried = partner_order(merge, merged, t_key)
        if bound == "rum":
            after = state.rum_after(seed, cands, merged)
            if merge == "r" and not must_merge:
                tried = tried[:1]
            ok = tried[after[tried] <= delta + EPS]
            if len(ok) == 0:
                if must_merge:
                    out.status = "infeasible"
                    out.reason = (f"a cluster of {int(state.size[seed])} records cannot be generalized to meet the "
                                  "privacy model, and every merge that would fix it breaks the bound δ")
                    return out
                return out  # the seed cannot merge within δ: the run ends (see module docstring)
            pick = int(ok[0])
        else:
            pick = int(tried[0])
        partner = int(cands[pick])
        t_union = cache.get(seed, partner) if cache is not None else None
        keep = state.merge(seed, partner, float(merged[pick]), t_union)
        if btd is not None:
            btd.merge(keep, partner if keep == seed else seed)
        out.merges += 1
        out.tum_trace.append(state.tum())
        out.rum_trace.append(state.rum())
        progress.set(out.merges / max(start_clusters - 1, 1),
                     f"{out.merges:,} merges, Rum {state.rum():.4f}, Tum {state.tum():.4f}")
        if out.merges % 32 == 0:
            progress.partial({"phase": "merge", "merges": out.merges, "rum": state.rum(), "tum": state.tum()})
    # One cluster left (or none to merge with).
    if not state.fixable[state.alive].all():
        out.status = "infeasible"
        out.reason = "even the whole table as one cluster cannot meet the privacy model"
    elif bound == "tum" and state.tum() > delta + EPS:
        out.status = "infeasible"
        out.reason = (f"Tum stays at {state.tum():.4f} > δ even with all records in one cluster")
    return out

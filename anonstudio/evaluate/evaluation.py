"""One evaluation: an original and a release, measured on the studio's one scale, with claims audited.

:func:`evaluate` reads the release (:mod:`.readers`), measures risk for
m = 1..M (:mod:`.risk`), utility (:mod:`.utility`) and checks the claims
(:mod:`.claims`). An m is counted exactly when its (person, known set) pairs
are at most ``exact_budget`` (``claim_budget`` for an m a claim is about),
otherwise sampled with ±``epsilon`` at confidence 1 - ``delta``.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..formatting import count, integer, measure, probability
from ..jobs import NullProgress, Progress, SubProgress
from ..limits import check_work
from ..methods.contract import CHECK_FAILED, CHECK_INCOMPLETE, CHECK_PASSED, file_sha256
from ..outputs import shared_path
from ..params import ParameterError
from .claims import Claim, ClaimResult
from .model import People, Published
from .readers import SideFiles, read_release
from .risk import METHODS, Context, Level, exact_level, known_set_at, sampled_level, samples_for
from .utility import count_query_error, frequency_distortion

__all__ = ["EvaluateOptions", "Evaluation", "evaluate", "KIND_WORDS", "candidates_of"]

#: How a release kind reads in a sentence.
KIND_WORDS = {
    "plain": "set-valued data (plain or suppressed)",
    "generalized": "generalized set-valued data",
    "nonreciprocal": "a nonreciprocal release",
    "rt": "an RT table (generalized demographics and items)",
    "table": "a group-anonymized table",
}
#: Largest m the evaluator accepts (known sets of a person are enumerated up to it).
MAX_M = 16


@dataclass(frozen=True)
class EvaluateOptions:
    """What to measure and how (see the module docstring)."""

    m: int = 2
    k: int = 5
    rho: float = 0.5
    queries: int = 1000
    seed: int = 1
    method: str = "auto"
    exact_budget: int = 2_000_000
    claim_budget: int = 50_000_000
    epsilon: float = 0.01
    delta: float = 0.05
    min_support: int | None = None
    claims: tuple[Claim, ...] = ()

    def check(self) -> None:
        """ParameterError naming the flag for a value out of range."""
        if not 1 <= self.m <= MAX_M:
            raise ParameterError(f"--m must be in 1..{MAX_M} (got {self.m})", name="m")
        if self.k < 1:
            raise ParameterError(f"--k must be at least 1 (got {self.k})", name="k")
        if not 0 < self.rho <= 1:
            raise ParameterError(f"--rho must be in (0, 1] (got {self.rho})", name="rho")
        if self.queries < 0:
            raise ParameterError(f"--queries must be at least 0 (got {self.queries})", name="queries")
        check_work("queries", self.queries, where="--queries")  # a workload is drawn query by query
        if not 0 <= self.seed <= 2**31 - 1:
            raise ParameterError(f"--seed must be in 0..2147483647 (got {self.seed})", name="seed")
        if self.method not in METHODS:
            raise ParameterError(f"--method must be one of {', '.join(METHODS)} (got {self.method})", name="method")
        if self.exact_budget < 0 or self.claim_budget < 0:
            raise ParameterError("the exact budgets must be at least 0", name="exact_budget")
        if not 0.0001 <= self.epsilon <= 0.5:
            raise ParameterError(f"--epsilon must be in 0.0001..0.5 (got {self.epsilon})", name="epsilon")
        if not 1e-6 <= self.delta <= 0.5:
            raise ParameterError(f"--delta must be in 1e-06..0.5 (got {self.delta})", name="delta")
        if self.min_support is not None and self.min_support < 1:
            raise ParameterError(f"--min-support must be at least 1 (got {self.min_support})", name="min_support")
        for claim in self.claims:
            if claim.m is not None and claim.m > self.m:
                raise ParameterError(f"--claim {claim.text}: m={claim.m} is beyond --m {self.m} (raise --m)",
                                     name="claims")

    def to_json(self) -> dict:
        doc = dataclasses.asdict(self)
        doc["claims"] = [c.text for c in self.claims]
        return doc


@dataclass
class Evaluation:
    """What :func:`evaluate` measured."""

    kind: str
    original_name: str
    release_path: Path
    people: People = field(repr=False)
    published: Published = field(repr=False)
    options: EvaluateOptions
    side: SideFiles
    levels: list[Level] = field(default_factory=list)
    count_query_error: dict | None = None
    frequency_distortion: dict | None = None
    claims: list[ClaimResult] = field(default_factory=list)
    complete: bool = True
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ verdict
    @property
    def failed(self) -> bool:
        return any(c.status == "failed" for c in self.claims)

    def verdict(self) -> str | None:
        """The audit's verdict line (None without claims)."""
        if not self.claims:
            return None
        if self.failed:
            bad = next(c for c in self.claims if c.status == "failed")
            return f"{CHECK_FAILED}: {bad.detail}"
        if any(c.status != "passed" for c in self.claims):
            why = next(c for c in self.claims if c.status != "passed")
            return f"{CHECK_INCOMPLETE}: {why.detail}"
        return f"{CHECK_PASSED}: " + "; ".join(c.detail for c in self.claims)

    @property
    def exit_code(self) -> int:
        if self.failed:
            return 3
        return 0 if self.complete else 130

    # ------------------------------------------------------------------ outputs
    def to_json(self, timings: bool = True) -> dict:
        from ..methods.contract import without_timings

        people, published = self.people, self.published
        # Files by shared_path: the JSON travels, the folders of this machine stay here.
        files = {"release": {"path": shared_path(self.release_path), "sha256": file_sha256(self.release_path)}}
        for key, path in published.files.items():
            files[key] = {"path": shared_path(path), "sha256": file_sha256(path)}
        doc: dict[str, Any] = {
            "anonstudio": __version__,
            "kind": self.kind,
            "kind_words": KIND_WORDS[self.kind],
            "original": {"name": self.original_name, "people": people.n},
            "release": {"records": published.n_records, "classes": published.n_classes, "files": files},
            "attacker": {
                "quasi_identifiers": list(people.atoms.qi),
                "known_items": self.side.known if people.atoms.n_items else None,
                "sensitive": people.sensitive_source or None,
            },
            "parameters": self.options.to_json(),
            "levels": [level.to_json() for level in self.levels],
            "count_query_error": self.count_query_error,
            "frequency_distortion": self.frequency_distortion,
            "claims": [c.to_json() for c in self.claims],
            "verdict": self.verdict(),
            "complete": self.complete,
            "notes": list(self.notes) + list(published.notes),
            "seconds": round(self.seconds, 4),
        }
        return doc if timings else without_timings(doc)

    CSV_HEADER = ("m", "method", "known_sets", "samples", "prosecutor_risk", "prosecutor_risk_low",
                  "prosecutor_risk_high", "share_at_risk", "share_at_risk_low", "share_at_risk_high",
                  "attribute_disclosure", "attribute_disclosure_low", "attribute_disclosure_high",
                  "count_query_error", "frequency_distortion")

    def csv_rows(self) -> list[list[Any]]:
        """One row per m (the utility measures repeated, so that a row reads on its own)."""
        cqe = (self.count_query_error or {}).get("value")
        fd = (self.frequency_distortion or {}).get("value")
        rows = []
        for level in self.levels:
            ad = level.attribute_disclosure
            rows.append([level.m, level.method, level.known_sets, level.samples if level.method == "sampled" else "",
                         level.prosecutor_risk.value, level.prosecutor_risk.low, level.prosecutor_risk.high,
                         level.share_at_risk.value, level.share_at_risk.low, level.share_at_risk.high,
                         ad.value if ad else "", ad.low if ad else "", ad.high if ad else "",
                         "" if cqe is None else cqe, "" if fd is None else fd])
        return rows

    def lines(self) -> list[str]:
        """The evaluation in plain words, for the CLI."""
        p, r, o = self.people, self.published, self.options
        out = [f"release: {self.release_path.name}: {KIND_WORDS[self.kind]}, {integer(r.n_records)} records; "
               f"original: {self.original_name}, {count(p.n, 'person')}"]
        knows = []
        if p.atoms.qi:
            knows.append(f"the quasi-identifiers ({', '.join(p.atoms.qi)})")
        if p.atoms.n_items:
            knows.append(f"m of the person's {'non-sensitive ' if self.side.known == 'non-sensitive' else ''}items")
        out.append(f"attacker knows {' and '.join(knows) or 'nothing'}"
                   + (f"; sensitive: {p.sensitive_source}" if p.sensitive_source else ""))
        head = f"{'m':>3}  {'method':<8}  {'prosecutor risk':<26}  {'share at risk (k=' + str(o.k) + ')':<26}"
        if p.sensitive_given:
            head += f"  attribute disclosure (ρ={o.rho:g})"
        out.append(head)
        for level in self.levels:
            line = (f"{level.m:>3}  {level.method:<8}  {_cell(level.prosecutor_risk):<26}  "
                    f"{_cell(level.share_at_risk):<26}")
            if level.attribute_disclosure is not None:
                line += f"  {_cell(level.attribute_disclosure)}"
            if not level.complete:
                line += "  (stopped)"
            out.append(line)
        cqe = self.count_query_error or {}
        if cqe.get("value") is not None:
            out.append(f"count-query error: {measure(cqe['value'])} (mean relative error of {integer(cqe['queries'])} "
                       f"queries, sanity bound {measure(cqe['sanity_bound'])})")
        elif cqe:
            out.append(f"count-query error: n/a ({cqe.get('note', 'not measured')})")
        fd = self.frequency_distortion or {}
        if fd.get("value") is not None:
            parts = ", ".join(f"{k} {probability(v)}" for k, v in fd["parts"].items())
            out.append(f"frequency distortion: {probability(fd['value'])} (total variation; {parts})")
        for note in list(self.notes) + list(r.notes):
            out.append(f"note: {note}")
        for claim in self.claims:
            if claim.counterexample is not None:
                out.append(f"counterexample ({claim.claim.text}): {claim.counterexample['text']}")
        verdict = self.verdict()
        if verdict:
            out.append(verdict)
        return out


def _cell(m) -> str:
    if m.value is None or (isinstance(m.value, float) and math.isnan(m.value)):
        return "n/a"
    if m.exact:
        return f"{m.value:.4f}"
    return f"{m.value:.4f} [{m.low:.4f}, {m.high:.4f}]"


# ----------------------------------------------------------------------------- candidates
def candidates_of(people: People, published: Published, u: int, known: list[int]) -> np.ndarray:
    """The published records (0-based) an attacker who knows person ``u``'s quasi-identifiers and ``known``
    finds: a plain restatement of the kernel's test, used to list a counterexample's candidates."""
    r = published
    offsets = people.atoms.qi_offsets
    tuple_codes = people.tuple_codes[people.tuple_of[u]]
    covered = np.ones(r.n_classes, dtype=bool)
    for q, code in enumerate(tuple_codes.tolist()):
        covered &= r.qi_prob[:, offsets[q] + code] > 0
    records = np.flatnonzero(covered[r.rec_class])
    out = []
    for j in records.tolist():
        atoms = r.a_atoms[r.a_indptr[j]:r.a_indptr[j + 1]]
        kinds = r.a_kind[r.a_indptr[j]:r.a_indptr[j + 1]]
        at = np.searchsorted(atoms, known)
        ok = all(a < len(atoms) and atoms[a] == x for a, x in zip(at.tolist(), known))
        if ok and int(np.sum(kinds[at] == 2)) <= r.budget[j]:
            out.append(j)
    return np.asarray(out, dtype=np.int64)


# ----------------------------------------------------------------------------- claims
def _example(ev: Evaluation, u: int, m: int, known: list[int], n_candidates: int, extra: dict | None = None,
             reason: str = "") -> dict:
    people, atoms = ev.people, ev.people.atoms
    cands = candidates_of(people, ev.published, u, known)
    doc = {
        "person": u + 1,
        "person_id": people.names[u] if people.names is not None else None,
        "m": m,
        "known_items": [atoms.label(x) for x in known],
        "quasi_identifiers": {c: atoms.qi_domains[q].texts[int(people.qi_codes[u, q])]
                              for q, c in enumerate(atoms.qi)},
        "candidates": int(n_candidates),
        "candidate_records": [int(j) + 1 for j in cands[:20]],
        "own_record": int(ev.published.own[u]) + 1 if ev.published.own[u] >= 0 else None,
    }
    if extra:
        doc.update(extra)
    who = f"person {people.name(u)}" if people.names is None else f"person {u + 1} ({people.names[u]})"
    knows = []
    if doc["quasi_identifiers"]:
        knows.append(", ".join(f"{c} = {v}" for c, v in doc["quasi_identifiers"].items()))
    if atoms.n_items:
        knows.append("{" + ", ".join(doc["known_items"]) + "}")
    doc["text"] = (f"{who}, known {' and '.join(knows) or 'nothing'}: {integer(n_candidates)} candidate"
                   f"{'' if n_candidates == 1 else 's'}" + (f", {reason}" if reason else ""))
    return doc


def _people(n: int) -> str:
    return f"{integer(n)} {'person has' if n == 1 else 'people have'}"


def _check_k(ev: Evaluation, claim: Claim, level: Level, m: int, table: bool, items: bool) -> ClaimResult:
    promise = claim.wording(m, table, items)
    k = claim.k
    if level.method == "exact":
        d = level.detail["per_person"]
        finished = level.detail["finished"]
        bad = np.flatnonzero(finished & (d["min_count"] >= 0) & (d["min_count"] < k))
        if len(bad):
            u = int(bad[np.lexsort((bad, d["min_count"][bad]))[0]])
            known = known_set_at(ev.people, u, m, int(d["min_at"][u]))
            n_candidates = int(d["min_count"][u])
            example = _example(ev, u, m, known, n_candidates, reason=f"fewer than k = {k}")
            return ClaimResult(claim, m, "failed", promise,
                               f"{_people(len(bad))} fewer than {k} candidates for some "
                               f"{'known set' if items else 'person'}, e.g. {example['text']}", True, example)
        if not level.complete:
            return ClaimResult(claim, m, "incomplete", promise, f"stopped before every known set at m = {m} was "
                                                                "counted; no counterexample among those counted", True)
        counts = d["min_count"][d["min_count"] >= 0]
        fewest = int(counts.min()) if len(counts) else 0
        counted = (f"{count(level.known_sets, 'known set')} of {count(ev.people.n, 'person')}" if items else
                   count(ev.people.n, "person"))
        return ClaimResult(claim, m, "passed", promise, f"{promise} ({counted} counted; fewest candidates "
                                                        f"{integer(fewest)})", True)
    d = level.detail
    bad = np.flatnonzero(d["own"] & (d["count"] < k))
    if len(bad):
        i = int(bad[np.argmin(d["count"][bad])])
        known = [int(x) for x in d["known"][i] if x >= 0]
        example = _example(ev, int(d["target"][i]), m, known, int(d["count"][i]), reason=f"fewer than k = {k}")
        return ClaimResult(claim, m, "failed", promise, f"a sampled known set has fewer than {k} candidates: "
                                                        f"{example['text']}", False, example)
    return ClaimResult(claim, m, "incomplete", promise,
                       f"no counterexample among {integer(level.samples)} sampled known sets at m = {m}, but not "
                       f"every one of the {integer(level.known_sets)} was checked (count them with --method exact)",
                       False)


def _check_rho(ev: Evaluation, claim: Claim, levels: dict[int, Level], m: int, table: bool,
               items: bool) -> ClaimResult:
    promise = claim.wording(m, table, items)
    rho = claim.rho
    atoms = ev.people.atoms
    if not ev.people.sensitive_given:
        return ClaimResult(claim, m, "incomplete", promise, "no sensitive information was given (--sensitive FILE "
                                                           "or --sensitive-column COL)", True)
    exact_all = True
    complete_all = True
    for mm in claim.levels(m):
        level = levels[mm]
        if level.method == "exact":
            d = level.detail["per_person"]
            finished = level.detail["finished"]
            bad = np.flatnonzero(finished & (d["max_conf"] > rho + 1e-9))
            if len(bad):
                u = int(bad[np.lexsort((bad, -d["max_conf"][bad]))[0]])
                known = known_set_at(ev.people, u, mm, int(d["conf_at"][u]))
                n_candidates = len(candidates_of(ev.people, ev.published, u, known))
                conf = float(d["max_conf"][u])
                value = atoms.label(int(d["conf_atom"][u]))
                example = _example(ev, u, mm, known, n_candidates, {"sensitive_value": value, "confidence": conf},
                                   reason=f"{probability(conf)} of them hold {value}, more than ρ = {rho:g}")
                return ClaimResult(claim, m, "failed", promise,
                                   f"{_people(len(bad))} a sensitive value held by more than {rho:g} of their "
                                   f"candidates, e.g. {example['text']}", True, example)
            complete_all &= level.complete
        else:
            exact_all = False
            d = level.detail
            bad = np.flatnonzero(d["own"] & (d["conf"] > rho + 1e-9))
            if len(bad):
                i = int(bad[np.argmax(d["conf"][bad])])
                known = [int(x) for x in d["known"][i] if x >= 0]
                conf = float(d["conf"][i])
                value = atoms.label(int(d["conf_atom"][i]))
                example = _example(ev, int(d["target"][i]), mm, known, int(d["count"][i]),
                                   {"sensitive_value": value, "confidence": conf},
                                   reason=f"{probability(conf)} of them hold {value}, more than ρ = {rho:g}")
                return ClaimResult(claim, m, "failed", promise, f"a sampled attacker is more than {rho:g} sure: "
                                                                f"{example['text']}", False, example)
    if not exact_all:
        return ClaimResult(claim, m, "incomplete", promise, f"no counterexample among the sampled known sets of "
                                                            f"m = 1..{m}, but not every one was checked", False)
    if not complete_all:
        return ClaimResult(claim, m, "incomplete", promise, "stopped before every known set was counted", True)
    counted = f"every known set of m = 1..{m}" if items else f"all {count(ev.people.n, 'person')}"
    return ClaimResult(claim, m, "passed", promise, f"{promise} ({counted} counted)", True)


def _check_l(ev: Evaluation, claim: Claim, level: Level, m: int, table: bool, items: bool) -> ClaimResult:
    promise = claim.wording(m, table, items)
    if ev.people.atoms.sensitive_domain is None or ev.people.atoms.n_items:
        return ClaimResult(claim, m, "incomplete", promise, "l= is checked on tables with a sensitive column", True)
    if level.method != "exact":
        return ClaimResult(claim, m, "incomplete", promise, "l= needs an exact count (--method exact)", False)
    d = level.detail["per_person"]
    finished = level.detail["finished"]
    bad = np.flatnonzero(finished & (d["min_distinct"] >= 0) & (d["min_distinct"] < claim.l))
    if len(bad):
        u = int(bad[np.lexsort((bad, d["min_distinct"][bad]))[0]])
        distinct = int(d["min_distinct"][u])
        n_candidates = int(d["min_count"][u])
        example = _example(ev, u, m, [], n_candidates, {"distinct_sensitive_values": distinct},
                           reason=f"showing {distinct} different sensitive value{'' if distinct == 1 else 's'}, "
                                  f"fewer than ℓ = {claim.l}")
        return ClaimResult(claim, m, "failed", promise, f"{integer(len(bad))} "
                                                        f"{'person faces' if len(bad) == 1 else 'people face'} fewer "
                                                        f"than {claim.l} different sensitive values, e.g. "
                                                        f"{example['text']}", True, example)
    if not level.complete:
        return ClaimResult(claim, m, "incomplete", promise, "stopped before every person was counted", True)
    return ClaimResult(claim, m, "passed", promise, f"{promise} ({count(ev.people.n, 'person')} counted)", True)


# ----------------------------------------------------------------------------- evaluate
def evaluate(original: Any, release: str | Path, *, kind: str | None = None, side: SideFiles | None = None,
             options: EvaluateOptions | None = None, progress: Progress | None = None,
             original_name: str | None = None) -> Evaluation:
    """Measure ``release`` against ``original`` (a loaded dataset) and audit the claims of ``options``.

    Raises :class:`~anonstudio.data.errors.DataFormatError` for an unreadable or
    inconsistent release and :class:`~anonstudio.params.ParameterError` for bad
    options. A cancelled evaluation returns what it finished, ``complete=False``.
    """
    t0 = time.perf_counter()
    options = options or EvaluateOptions()
    options.check()
    side = side or SideFiles()
    progress = progress or NullProgress()
    release = Path(release)
    people, published = read_release(original, release, kind, side)
    ev = Evaluation(kind=published.kind, original_name=original_name or getattr(original, "name", "original"),
                    release_path=release, people=people, published=published, options=options, side=side)
    ctx = Context(people, published)
    items = bool(people.atoms.n_items)
    table = bool(people.atoms.qi)
    claim_levels: set[int] = set()
    for claim in options.claims:
        claim_levels.update(claim.levels(claim.m or options.m))
    ms = list(range(1, options.m + 1))
    no_items = int(people.pool_indptr[-1]) == 0
    if no_items:
        ev.notes.append("no person has items an attacker could learn: the quasi-identifiers are all the attacker "
                        "knows, and every m gives the same figures")
    n_draws = samples_for(options.epsilon, options.delta)
    levels: dict[int, Level] = {}
    for i, m in enumerate(ms):
        if progress.cancelled():
            ev.complete = False
            break
        sub = SubProgress(progress, 0.9 * i / len(ms), 0.9 * (i + 1) / len(ms))
        if no_items and levels:
            first = levels[ms[0]]
            levels[m] = dataclasses.replace(first, m=m)
            continue
        pairs = people.pairs(m)
        if options.method == "exact":
            exact = True
        elif options.method == "sampled":
            exact = False
        else:
            exact = pairs <= options.exact_budget or (m in claim_levels and pairs <= options.claim_budget)
        level = (exact_level(ctx, m, options.k, options.rho, sub) if exact else
                 sampled_level(ctx, m, options.k, options.rho, n_draws, options.seed, options.delta, sub))
        levels[m] = level
        if not level.complete:
            ev.complete = False
            break
    ev.levels = [levels[m] for m in ms if m in levels]
    if ev.complete and not progress.cancelled():
        progress.set(0.9, "count queries")
        ev.count_query_error = count_query_error(people, published, options.queries, options.seed,
                                                 options.min_support)
        ev.frequency_distortion = frequency_distortion(people, published)
    elif ev.complete:
        ev.complete = False
    for claim in options.claims:
        m = claim.m or options.m
        if any(mm not in levels for mm in claim.levels(m)):
            ev.claims.append(ClaimResult(claim, m, "incomplete", claim.wording(m, table, items),
                                         f"stopped before m = {m} was measured", False))
            continue
        if claim.k is not None:
            ev.claims.append(_check_k(ev, claim, levels[m], m, table, items))
        elif claim.rho is not None:
            ev.claims.append(_check_rho(ev, claim, levels, m, table, items))
        else:
            ev.claims.append(_check_l(ev, claim, levels[m], m, table, items))
    progress.set(1.0, "done")
    ev.seconds = time.perf_counter() - t0
    return ev

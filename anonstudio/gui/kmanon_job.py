"""The background job of the σ-k^m workbench: anonymize, then check independently.

Qt-free on purpose (it runs on a worker thread): it builds the constraint,
runs :func:`anonstudio.methods.kmanon.kmanonymize` (whose partial results
reach the plots and the map after every level), and then the independent
verifier :func:`anonstudio.verifiers.km_verify.verify_km` on the published
generalization. A cancel returns the generalization reached so far, unverified.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..data.geo import LocalProjection, VoronoiCells, build_voronoi, default_boundary, load_boundary
from ..data.transactions import TransactionData
from ..jobs import Progress, SubProgress
from ..methods.kmanon import KmAnonParams, KmAnonResult, kmanonymize
from ..verifiers.km_verify import KmVerifyResult, verify_km

__all__ = ["KmJobSetup", "KmRun", "run_kmanon", "build_cells", "VERIFY_CONFIDENCE"]

#: Share of the progress bar for the anonymization; the check gets the rest.
ANONYMIZE_SHARE = 0.85
VERIFY_CONFIDENCE = 0.95


@dataclass(frozen=True)
class KmJobSetup:
    """What the job needs besides the data and :class:`KmAnonParams`."""

    constraint: str  # "contiguity" | "hierarchy" | "free"
    cells: VoronoiCells | None = None
    hierarchy_path: Path | None = None
    verify_samples: int = 5000


@dataclass(frozen=True)
class KmRun:
    """One finished (or stopped) run as the workbench shows it."""

    result: KmAnonResult
    verify: KmVerifyResult | None
    params: KmAnonParams
    setup: KmJobSetup

    @property
    def complete(self) -> bool:
        return self.result.complete and (self.verify is None or self.verify.complete)


def build_cells(data: TransactionData, boundary_path: Path | None = None,
                projection: LocalProjection | None = None) -> VoronoiCells:
    """Voronoi cells of the items, cut to a polygon file or the buffered hull.

    ``projection`` (of item coordinates given as lat/lon) lets a GeoJSON
    study area in longitude/latitude be placed on the items' metres.
    """
    if data.coords is None:
        raise ValueError("the dataset has no item coordinates")
    if boundary_path is None:
        boundary = default_boundary(data.coords)
    else:
        boundary = load_boundary(boundary_path, projection=projection)
    return build_voronoi(data.coords, boundary)


def _constraint(data: TransactionData, setup: KmJobSetup):
    from ..methods.kmanon.constraints import Contiguity, FreeMerge, HierarchyCut

    if setup.constraint == "contiguity":
        if setup.cells is None:
            raise ValueError("merging touching towers needs the towers' Voronoi cells (item coordinates)")
        return Contiguity(setup.cells)
    if setup.constraint == "hierarchy":
        from ..data.io import load_hierarchy

        if setup.hierarchy_path is None:
            raise ValueError("choose a hierarchy file first")
        return HierarchyCut(load_hierarchy(setup.hierarchy_path), data.vocab)
    if setup.constraint == "free":
        return FreeMerge()
    raise ValueError(f"unknown merge rule {setup.constraint!r}")


def run_kmanon(data: TransactionData, params: KmAnonParams, setup: KmJobSetup, progress: Progress) -> KmRun:
    """Anonymize ``data`` and verify the result; partial :class:`KmAnonResult` after every level."""
    params = params.checked()
    constraint = _constraint(data, setup)
    share = ANONYMIZE_SHARE if setup.verify_samples > 0 else 1.0
    result = kmanonymize(data, constraint, params, SubProgress(progress, 0.0, share))
    verify = None
    if result.final is not None and setup.verify_samples > 0 and not progress.cancelled():
        ks = [lv.k for lv in result.levels]
        verify = verify_km(data, result.final.labels, ks, len(result.levels), samples=setup.verify_samples,
                           seed=params.seed, confidence=VERIFY_CONFIDENCE,
                           progress=SubProgress(progress, share, 1.0, "independent check: "))
    return KmRun(result, verify, params, setup)

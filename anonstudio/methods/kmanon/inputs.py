"""What a σ-k^m run reads besides the records: the merge rule and its files (coordinates, study area, hierarchy).

:func:`resolve_constraint` says which merge rule ``auto`` stands for on a
dataset; :func:`prepare_run` loads the files the rule needs and builds the
:mod:`.constraints` object. The studio's map uses :func:`prepare_cells` to draw
the cells before any run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...data.errors import DataFormatError
from ...data.transactions import TransactionData
from ...params import ParameterError
from .params import KmAnonParams

__all__ = ["resolve_constraint", "attach_item_coordinates", "prepare_cells", "prepare_run", "PreparedRun",
           "NEEDS_COORDINATES"]

NEEDS_COORDINATES = "Touching-towers merging needs item coordinates: give an item coordinates file"


def resolve_constraint(data: TransactionData, params: KmAnonParams) -> str:
    """The merge rule ``auto`` stands for on this dataset."""
    if params.constraint != "auto":
        return params.constraint
    if params.item_hierarchy is not None:
        return "hierarchy"
    if data.coords is not None or params.coords is not None:
        return "contiguity"
    return "free"


def attach_item_coordinates(data: TransactionData, params: KmAnonParams):
    """The dataset with the ``coords`` file attached (if one is given) and the projection of lat/lon input."""
    if params.coords is None:
        return data, None
    from ...data.geo import LocalProjection
    from ...data.io import attach_coordinates, load_coordinates

    coords = load_coordinates(params.coords)
    try:
        located = attach_coordinates(data, coords, drop_missing=params.drop_missing)
    except ValueError as exc:
        raise DataFormatError(params.coords, str(exc)) from None
    return located, LocalProjection.of(coords)


def prepare_cells(data: TransactionData, params: KmAnonParams):
    """The located dataset, the Voronoi cells of its items cut to the study area, and the lat/lon projection."""
    import shapely.errors

    from ...data.geo import build_voronoi, default_boundary, load_boundary

    located, projection = attach_item_coordinates(data, params)
    if located.coords is None:
        raise ParameterError(NEEDS_COORDINATES, name="coords")
    _check_extent(located.coords, params, getattr(located, "vocab", None))
    try:
        boundary = (load_boundary(params.boundary, projection=projection) if params.boundary is not None
                    else default_boundary(located.coords))
        return located, build_voronoi(located.coords, boundary), projection
    except ValueError as exc:
        raise DataFormatError(params.boundary, f"Voronoi cells: {exc}") from None
    except shapely.errors.GEOSException as exc:  # geometry the coordinates make impossible to compute
        where = params.boundary if params.boundary is not None else params.coords
        raise DataFormatError(where, f"the items' places make no usable map ({exc})") from None


#: Largest coordinate in metres (after projection) a study area may have: 10,000 km from the origin.
MAX_EXTENT_M = 1e7


def _check_extent(coords: np.ndarray, params: KmAnonParams, labels: Any = None) -> None:
    """DataFormatError naming the coordinates file when a place lies beyond any map (1e308, inf)."""
    values = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
    bad = ~np.isfinite(values).all(axis=1) | (np.abs(values) > MAX_EXTENT_M).any(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        name = repr(str(labels[row])) if labels is not None and row < len(labels) else str(row + 1)
        raise DataFormatError(params.coords, f"item {name}'s place ({values[row, 0]:g}, {values[row, 1]:g}) "
                                             f"lies more than {MAX_EXTENT_M / 1000:,.0f} km from the origin; give "
                                             "metres on a local grid or lat/lon")


@dataclass(frozen=True)
class PreparedRun:
    """The dataset as the run sees it, the merge rule's object, its name, and the map's cells and projection."""

    data: TransactionData
    constraint: Any
    name: str
    cells: Any = None
    projection: Any = None


def prepare_run(data: TransactionData, params: KmAnonParams) -> PreparedRun:
    """Load the files of the merge rule and build its constraint (:mod:`.constraints`)."""
    from ...data.io import load_hierarchy
    from .constraints import Contiguity, FreeMerge, HierarchyCut

    name = resolve_constraint(data, params)
    if name == "contiguity":
        located, cells, projection = prepare_cells(data, params)
        return PreparedRun(located, Contiguity(cells), name, cells, projection)
    located, projection = attach_item_coordinates(data, params)
    if name == "hierarchy":
        tree = load_hierarchy(params.item_hierarchy)
        try:
            return PreparedRun(located, HierarchyCut(tree, located.vocab), name, None, projection)
        except ValueError as exc:
            raise DataFormatError(params.item_hierarchy, str(exc)) from None
    return PreparedRun(located, FreeMerge(), name, None, projection)

"""Constraint families of probabilistic k^m-anonymization, each with its error function."""
from .base import Constraint, ConstraintRun, ErrorFunction, ErrorRun, Move
from .contiguity import CentroidDistanceError, Contiguity
from .free_merge import FlatNcpError, FreeMerge
from .hierarchy_cut import HierarchyCut, HierarchyNcpError
from .point_error import PointCentroidError

__all__ = [
    "CentroidDistanceError", "Constraint", "ConstraintRun", "Contiguity", "ErrorFunction", "ErrorRun",
    "FlatNcpError", "FreeMerge", "HierarchyCut", "HierarchyNcpError", "Move", "PointCentroidError",
]

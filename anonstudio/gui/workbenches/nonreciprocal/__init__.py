"""Nonreciprocal recoding: release table with item chips, Fig. 6, orders, graph view and independent check."""
from .workbench import NonreciprocalWorkbench

__all__ = ["NonreciprocalWorkbench"]

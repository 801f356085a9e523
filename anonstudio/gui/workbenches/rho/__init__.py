"""The personalized ρ-uncertainty workbench (trade-off plots, rule browser, check, utility, before/after)."""
from .workbench import RhoWorkbench

__all__ = ["RhoWorkbench"]

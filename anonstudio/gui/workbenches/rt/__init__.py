"""RT workbench: demographics with item sets under a loss bound (Poulis et al. 2013)."""
from .workbench import RTWorkbench

__all__ = ["RTWorkbench"]

"""The threats workbench: its page, plots and tables."""
from .workbench import ThreatsWorkbench

__all__ = ["ThreatsWorkbench"]

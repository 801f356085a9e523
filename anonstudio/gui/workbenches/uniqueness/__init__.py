"""The risk workbench: its page, plots and tables."""
from .workbench import UniquenessWorkbench

__all__ = ["UniquenessWorkbench"]

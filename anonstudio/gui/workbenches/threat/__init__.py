"""The threats workbench: its page, plots and tables."""
from .workbench import ThreatWorkbench

__all__ = ["ThreatWorkbench"]

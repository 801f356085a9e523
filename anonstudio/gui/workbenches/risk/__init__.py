"""The risk workbench: its page, plots and tables."""
from .workbench import RiskWorkbench

__all__ = ["RiskWorkbench"]

"""The kmanon workbench: its page, plots and tables."""
from .workbench import KmAnonWorkbench

__all__ = ["KmAnonWorkbench"]

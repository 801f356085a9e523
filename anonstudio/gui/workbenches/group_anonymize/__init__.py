"""The group-anonymization workbench: its page, plots and check view."""
from .workbench import GroupAnonymizeWorkbench

__all__ = ["GroupAnonymizeWorkbench"]

"""The Audit tab: measure a release of the open dataset on the evaluator's one scale, and audit a claim."""
from .workbench import AuditWorkbench

__all__ = ["AuditWorkbench"]

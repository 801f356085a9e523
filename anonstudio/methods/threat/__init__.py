"""Relative privacy threat analysis of group-anonymized tables (Boreale, Corradi, Viscardi 2020)."""
from .analysis import Diagnostics, ThreatResult, analyze_threat
from .measures import MEASURE_MEANINGS
from .model import Priors
from .params import ThreatParams

__all__ = ["ThreatParams", "ThreatResult", "Diagnostics", "Priors", "analyze_threat", "MEASURE_MEANINGS"]

"""Probabilistic k^m-anonymization (Acs, Achara, Castelluccia, BigData 2015)."""
from .algorithm import kmanonymize
from .gamma import sample_bound
from .params import KmAnonParams
from .result import KmAnonResult, LevelResult, TrialResult

__all__ = ["KmAnonParams", "KmAnonResult", "LevelResult", "TrialResult", "kmanonymize", "sample_bound"]

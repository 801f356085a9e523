"""Personalized ρ-uncertainty by partial suppression (Nakagawa, Arai, Nakagawa 2018).

Each person names the items they want kept uncertain (the sensitive constraint
E); SUPPRESSOR removes single item occurrences until nobody who knows some of a
person's items can infer one of that person's sensitive items with confidence
above ρ. SAMPLESUPPRESSOR checks sampled attackers instead of all of them.
"""
from .api import check_data, run_rho, sensitive_for
from .export import result_json, write_result_json, write_sensitive_used, write_suppressed
from .params import SAMPLERS, RhoParams, parse_rho, sample_size
from .result import RhoResult
from .sensitive import SETTINGS, SensitiveConstraint, generate_sensitive, load_sensitive, write_sensitive
from .suppressor import (
    LevelStats, PassRecord, RepairLog, Suppression, SuppressionProgress, adversary_count, suppress_exact,
    suppress_sampled,
)
from .utility import MiningUtility, association_rules, frequent_itemsets, util_dist, util_info, util_mining

__all__ = [
    "RhoParams", "RhoResult", "SensitiveConstraint", "Suppression", "SuppressionProgress", "PassRecord",
    "LevelStats", "RepairLog", "MiningUtility", "SETTINGS", "SAMPLERS",
    "run_rho", "check_data", "sensitive_for", "parse_rho", "sample_size",
    "load_sensitive", "generate_sensitive", "write_sensitive", "write_suppressed", "write_sensitive_used",
    "write_result_json", "result_json", "suppress_exact", "suppress_sampled", "adversary_count",
    "util_info", "util_dist", "util_mining", "association_rules", "frequent_itemsets",
]

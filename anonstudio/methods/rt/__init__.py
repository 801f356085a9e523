"""(k, k^m)-anonymity of RT-data under a loss bound (Poulis et al., ECML/PKDD 2013).

People with demographics *and* a set of items (patients' diagnoses,
customers' baskets) are clustered on their demographics, clusters are
merged while one side's loss stays within δ, and each cluster's items are
generalized so that anyone who knows a person's demographics and up to m of
their items matches at least k people.
"""
from .algorithm import run_rt
from .are import Query, generate_workloads, load_workloads
from .export import anon_rows, write_anon_csv, write_item_hierarchy, write_json
from .params import RTParams
from .prepare import RTProblem, prepare
from .result import RTResult
from .verify import verify_result

__all__ = [
    "Query", "RTParams", "RTProblem", "RTResult", "anon_rows", "generate_workloads", "load_workloads", "prepare",
    "run_rt", "verify_result", "write_anon_csv", "write_item_hierarchy", "write_json",
]

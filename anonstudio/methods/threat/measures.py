"""Threat and faithfulness measures of Sections IV and VI (Boreale et al. 2020).

A row ``(s, r)`` is *threatened* under a distribution q when ``q(s)`` is the
largest value of ``q(. | r)`` (the Bayes guess is right). When several values
tie for the maximum, the row counts ``1 / (number tied)``: the guess is a
uniform pick among them. That is the expectation of the paper's random
tie-breaking for random worlds (Section VI-B, averaged over 500 draws there).
"""
from __future__ import annotations

import numpy as np

__all__ = ["MEASURE_MEANINGS", "threat_shares", "row_measures", "table_measures", "skewness"]

MEASURE_MEANINGS: dict[str, str] = {
    "GT_A": "Share of rows whose sensitive value the attacker's best guess gets right.",
    "GT_L": "Share of rows whose sensitive value the learner's population model guesses right.",
    "GT_RW": "Share of rows guessed right when every cleartext table compatible with the release is equally likely.",
    "RGT_A": "How many more rows (as a share of the table) the attacker guesses right than the learner.",
    "RF": "Faithfulness: 1 minus the total variation between what the release teaches and what the cleartext "
          "table would teach (1 = nothing lost).",
    "RF_exact": "1 when RF was computed over every combination of values, 0 when estimated by sampling (ETV).",
    "TV_estimate": "The total variation behind RF as computed; a sampled estimate (ETV) above 1 is noise and RF "
                   "then shows 0.",
    "ABS_A": "Total absolute error of the attacker's probabilities against the true values, summed over rows.",
    "ABS_RW": "Total absolute error of the random-worlds probabilities against the true values.",
    "ABS_L": "Total absolute error of the learner's probabilities against the true values.",
    "baseline_accuracy": "Share of rows guessed right by always guessing the most common sensitive value.",
    "ideal_accuracy": "Share of rows guessed right by a model learned from the cleartext table itself.",
    "max_Ti": "Largest factor by which knowing the victim is in the table raises the attacker's confidence "
              "over the learner's, among rows the attacker guesses right.",
    "share_log2Ti_ge1_threatened": "Among rows the attacker guesses right, the share where the attacker is at "
                                   "least twice as confident as the learner.",
    "share_log2Ti_ge1_table": "Rows where the attacker guesses right and is at least twice as confident as the "
                              "learner, as a share of the whole table.",
    "count_log2Ti_ge1": "Number of rows where the attacker guesses right and is at least twice as confident as "
                        "the learner.",
    "skewness_log2Ti_A": "Skewness of log2 Ti over rows the attacker guesses right: positive means a long tail "
                         "of rows where the attacker is much more confident.",
    "skewness_log2Ti_L": "Skewness of log2 Ti over rows the learner guesses right.",
    "rows": "Number of rows in the table.",
}


def _tie_tol(p: np.ndarray) -> np.ndarray:
    return np.maximum(p.max(axis=1), 1e-300) * 1e-9


def threat_shares(p: np.ndarray, s_true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: is it threatened under ``p`` (bool), and its tie-split weight ``1/#tied`` (0 if not)."""
    top = p.max(axis=1)
    tied = p >= (top - _tie_tol(p))[:, None]
    hit = tied[np.arange(len(s_true)), s_true]
    weight = np.where(hit, 1.0 / tied.sum(axis=1), 0.0)
    return hit, weight


def skewness(x: np.ndarray) -> float:
    """Third standardized moment (the gamma of Figs. 2-3); NaN for fewer than 3 values or no spread."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size < 3:
        return float("nan")
    sd = x.std()
    if sd == 0:
        return float("nan")
    return float(np.mean((x - x.mean()) ** 3) / sd**3)


def faithfulness(tv: float) -> float:
    """RF = 1 - TV, with the TV estimate clipped to [0, 1].

    TV itself lies in [0, 1], but the ETV of Remark 4 (eq. 21) is an unbounded
    importance-sampling estimate; values above 1 are sampling noise.
    """
    return 1.0 - min(max(float(tv), 0.0), 1.0)


def row_measures(p_A: np.ndarray, p_L: np.ndarray, s_true: np.ndarray) -> dict[str, np.ndarray]:
    """Per-row ``p_A(s)``, ``p_L(s)``, ``Ti = p_A(s) / p_L(s)`` and the threatened flags (s = true value)."""
    rows = np.arange(len(s_true))
    pa, pl = p_A[rows, s_true], p_L[rows, s_true]
    ti = np.divide(pa, pl, out=np.full(len(rows), np.inf), where=pl > 0)
    return {"p_A": pa, "p_L": pl, "Ti": ti,
            "threatened_A": threat_shares(p_A, s_true)[0], "threatened_L": threat_shares(p_L, s_true)[0]}


def _abs_error(p: np.ndarray, s_true: np.ndarray) -> float:
    """Σ |onehot(s_true) − p| over every row and value.

    One copy of ``p`` worked in place (``p − onehot`` has the same absolute values, sign aside, as
    ``onehot − p``, and is summed in the same order, so the figure is the same to the last bit) instead of a
    one-hot matrix, a difference and its absolute value: three arrays of the table's size at the peak.
    """
    diff = np.array(p, order="C")
    diff[np.arange(len(s_true)), s_true] -= 1.0
    np.abs(diff, out=diff)
    return float(diff.sum())


def table_measures(p_A: np.ndarray, p_L: np.ndarray, p_RW: np.ndarray, p_I: np.ndarray, s_true: np.ndarray,
                   n_s: int, rf: float, rf_exact: bool) -> dict[str, float]:
    """All table-wide measures, keyed as in :data:`MEASURE_MEANINGS`."""
    n = len(s_true)
    gt = {name: float(threat_shares(p, s_true)[1].sum() / n) for name, p in (("A", p_A), ("L", p_L), ("RW", p_RW))}
    rm = row_measures(p_A, p_L, s_true)
    with np.errstate(divide="ignore"):
        log_ti = np.log2(rm["Ti"])  # -inf where the attacker gives the true value probability 0
    thr_a, thr_l = rm["threatened_A"], rm["threatened_L"]
    big = log_ti[thr_a] >= 1.0
    return {
        "GT_A": gt["A"], "GT_L": gt["L"], "GT_RW": gt["RW"],
        "RGT_A": max(0.0, gt["A"] - gt["L"]),
        "RF": float(rf), "RF_exact": 1.0 if rf_exact else 0.0,
        "ABS_A": _abs_error(p_A, s_true), "ABS_RW": _abs_error(p_RW, s_true), "ABS_L": _abs_error(p_L, s_true),
        "baseline_accuracy": float(np.bincount(s_true, minlength=n_s).max() / n),
        "ideal_accuracy": float(threat_shares(p_I, s_true)[1].sum() / n),
        "max_Ti": float(rm["Ti"][thr_a].max()) if thr_a.any() else float("nan"),
        "share_log2Ti_ge1_threatened": float(big.mean()) if thr_a.any() else float("nan"),
        "share_log2Ti_ge1_table": float(big.sum() / n),
        "count_log2Ti_ge1": float(big.sum()),
        "skewness_log2Ti_A": skewness(log_ti[thr_a]),
        "skewness_log2Ti_L": skewness(log_ti[thr_l]),
        "rows": float(n),
    }

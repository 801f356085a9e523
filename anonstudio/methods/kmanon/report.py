"""What a σ-k^m run promises, in plain words, and what the independent check found.

:func:`guarantee_text` turns the finished levels (their k and σ) into the
sentence a privacy officer needs ("Any 5 towers a stranger knows about a
person match at least 20 people, with probability ≥ 0.99"); :func:`check_text`
adds the verifier's verdict. Qt-free: the CLI, the GUI and reports share it.
"""
from __future__ import annotations

from typing import Sequence

from ...formatting import integer, percent
from ...verifiers.kmanon import KmVerifyResult
from .result import LevelResult

__all__ = ["guarantee_text", "guarantee_notes", "check_text"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _chance(sigma: float) -> str:
    return "always (every combination was checked)" if sigma >= 1.0 else f"with probability ≥ {sigma:g}"


def guarantee_text(levels: Sequence[LevelResult], item_word: str = "item") -> str:
    """The promise of the finished levels, e.g. "Any 5 towers ... match at least 20 people ..."."""
    done = [lv for lv in levels if lv.complete]
    if not done:
        return "No level finished, so nothing is guaranteed yet."
    m = done[-1].level
    ks = {lv.k for lv in done}
    if len(ks) == 1:
        # Levels checked exactly (sigma = 1) promise more than the others; the
        # weakest level is what holds for every number of known items.
        k, sigma = done[0].k, min(lv.sigma for lv in done)
        text = (f"Any {_plural(m, item_word)} a stranger knows about a person match at least {k} people "
                f"in the published data, {_chance(sigma)}.")
        if m > 1:
            text += f" Knowing fewer {item_word}s is covered the same way."
    else:
        parts = [f"{_plural(lv.level, item_word)}: at least {lv.k} people, {_chance(lv.sigma)}" for lv in done]
        text = (f"If a stranger knows some {item_word}s of a person, the published data matches them to "
                f"many people — " + "; ".join(parts) + ".")
    return text


def guarantee_notes(levels: Sequence[LevelResult], item_word: str = "item") -> str:
    """What "probability" means and any level that could not be fully protected."""
    done = [lv for lv in levels if lv.complete]
    text = ""
    if any(lv.sigma < 1.0 for lv in done):
        text += (f"“Probability” means: of all combinations of {item_word}s that people in the data have, "
                 f"at least that share is protected (checked on random samples, Theorem 1 of the paper).")
    if any(lv.unfixable for lv in done):
        text += (f" Warning: {sum(lv.unfixable for lv in done):,} sampled combinations could not be protected "
                 f"under the merge rule (e.g. separate map regions).")
    return text.strip()


def check_text(verify: KmVerifyResult | None, item_word: str = "item") -> str:
    """The independent check in one or two sentences."""
    if verify is None:
        return "Independent check: not run (stopped early, or switched off), so the promise is unchecked."
    if not verify.points:
        return "Independent check: nothing to check."
    last = verify.points[-1]
    conf = percent(verify.confidence, 0)
    how = "all" if last.method == "exact" else "random"
    interval = "" if last.method == "exact" else (
        f" ({conf} confidence interval {percent(last.ci_low, 2)} – {percent(last.ci_high, 2)})")
    text = (f"Independent check (separate code): of {integer(last.itemsets)} {how} combinations of "
            f"{_plural(last.ell, item_word)} from the original data, {percent(last.fraction, 2)} match at least "
            f"{last.k} people{interval}.")
    bad = [p.ell for p in verify.points if not p.passed]
    if bad:
        text += (f" ⚠ Below the promised share for ℓ = {', '.join(map(str, bad))}: "
                 f"do not publish this result as σ-k^m-anonymous.")
    else:
        text += " This agrees with the promise for every ℓ."
    if not verify.complete:
        text += " (The check was stopped early.)"
    return text

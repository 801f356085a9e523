"""What a σ-k^m run promises, in plain words.

:func:`guarantee_text` turns the finished levels (their k and σ) into the
sentence a privacy officer needs ("Any 5 towers a stranger knows about a
person match at least 20 people, with probability ≥ 0.99"); :func:`guarantee_notes`
adds what "probability" means. The independent check's verdict is the contract's
(:func:`anonstudio.methods.contract.verdict`). Qt-free: the CLI, the GUI and
reports share it.
"""
from __future__ import annotations

from collections.abc import Sequence

from .result import LevelResult

__all__ = ["guarantee_text", "guarantee_notes"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _chance(sigma: float) -> str:
    # The anonymization enumerated every combination at such a level; what the independent check did (it may
    # sample) is said by the check's own figures.
    return "always (the anonymization checked every combination)" if sigma >= 1.0 else f"with probability ≥ {sigma:g}"


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

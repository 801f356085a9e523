"""Parameters of personalized ρ-uncertainty by partial suppression (paper 002)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ...params import ParameterError, param, seed_param

__all__ = ["RhoParams", "parse_rho", "parse_exact", "sample_size", "SAMPLERS", "SETTINGS"]

SECTION_PRIVACY = "Privacy"
SECTION_SENSITIVE = "Sensitive items"
SECTION_CHECK = "Utility and independent check"

#: The paper's four ways of drawing the sensitive items E (§6.1); a constraint read from a file has setting "file".
SETTINGS = ("fixed", "personalized", "fixed+", "personalized+")
#: Adversary samplers of SAMPLESUPPRESSOR (R-5): the paper's (a uniform person, then a
#: uniform subset of their items) and uniform over all (person, itemset) pairs.
SAMPLERS = ("user", "pair")


def _error(name: str, problem: str) -> ParameterError:
    return ParameterError(f"{name} {problem}", name=name, problem=problem)


def parse_exact(text: str | float | Fraction, name: str = "rho") -> Fraction:
    """An exact fraction from ``"0.3"``, ``"1/3"``, ``"30%"`` or a number.

    A float is read as the shortest decimal that prints as it (0.3 → 3/10), so
    a value typed as 0.3 anywhere means exactly 3/10, never 0.299999....
    """
    if isinstance(text, Fraction):
        return text
    if isinstance(text, bool):
        raise _error(name, f"must be a number (got {text!r})")
    if isinstance(text, (int, float)):
        if not math.isfinite(text):
            raise _error(name, f"must be a finite number (got {text!r})")
        return Fraction(repr(float(text))) if isinstance(text, float) else Fraction(text)
    raw = str(text).strip()
    try:
        if raw.endswith("%"):
            return Fraction(raw[:-1].strip()) / 100
        return Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise _error(name, f"must be a decimal such as 0.5 or a fraction such as 1/3 (got {raw!r})") from None


def parse_rho(text: str | float | Fraction) -> Fraction:
    """ρ as an exact fraction in [0, 1).

    ρ = 1 would divide by zero in eq. (7) and nothing can exceed it anyway.
    """
    rho = parse_exact(text, "rho")
    if not 0 <= rho < 1:
        raise _error("rho", f"must be above 0 and below 1 (got {_short(text)})")
    if rho == 0:
        # No confidence at all: every sensitive item that co-occurs with anything must go, and the
        # promise says nothing an empty release would not.
        raise _error("rho", "must be above 0: ρ = 0 allows no inference at all, which only removing every "
                            "sensitive item meets (got 0)")
    if max(rho.numerator, rho.denominator) > MAX_TERM:
        # The suppressor compares support × denominator with support × numerator in 64-bit integers.
        raise _error("rho", f"{_short(text)} needs terms above {MAX_TERM:,} as an exact fraction; give at most 9 "
                            "decimal places or a fraction with smaller terms (such as 1/3)")
    return rho


#: Largest numerator or denominator of ρ: products with supports of up to 10^9 records stay in 64 bits.
MAX_TERM = 10**9


def _short(text: object) -> str:
    raw = str(text)
    return raw if len(raw) <= 40 else raw[:37] + "..."


def sample_size(epsilon: float, delta: float) -> int:
    """n_S = ⌈ln(1/δ) / (2ε²)⌉, eq. (11) with the natural log (116 / 600 / 23,026 at 0.1 / 0.05 / 0.01).

    2ε² is exact (ε read as the decimal typed); only the logarithm is a float.
    The garbled line 2 of Algorithm 2 aside, the text after Theorem 7 fixes the
    formula, and only the natural log reproduces its three values.
    """
    eps = parse_exact(epsilon, "epsilon")
    value = Fraction(math.log(1.0 / float(parse_exact(delta, "delta")))) / (2 * eps * eps)
    return int(math.ceil(value))


@dataclass(frozen=True)
class RhoParams:
    """The whole recipe of a ρ-uncertainty run (besides the dataset)."""

    rho: str = param("0.5", label="ρ (most confidence allowed)",
                     tooltip="ρ = 0.5: nobody can guess one of your sensitive items with more than 50 % "
                             "confidence from items they know you have. Give a decimal (0.3) or a fraction "
                             "(1/3); it is used exactly.", section=SECTION_PRIVACY)
    m: int | None = param(None, label="m (items an attacker knows)", minimum=1, maximum=64, optional=True,
                          tooltip="Largest number of a person's items an attacker is assumed to know. Empty: "
                                  "any number (exact algorithm only; needs short records). Required with ε, δ.",
                          section=SECTION_PRIVACY)
    epsilon: float | None = param(None, label="ε (unsafe share allowed)", minimum=1e-4, maximum=0.5,
                                  decimals=4, step=0.01, optional=True,
                                  tooltip="Sampled algorithm: at most this share of attackers may still "
                                          "succeed (with probability 1 − δ). Empty: check every attacker "
                                          "(exact). ε = δ = 0.05 checks 600 attackers per size per pass.",
                                  section=SECTION_PRIVACY)
    delta: float | None = param(None, label="δ (chance the promise fails)", minimum=1e-6, maximum=0.5,
                                decimals=4, step=0.01, optional=True,
                                tooltip="Sampled algorithm: probability that more than ε of attackers "
                                        "succeed. Set together with ε.", section=SECTION_PRIVACY)
    sampler: str = param("user", label="attacker sampler", choices=SAMPLERS,
                         choice_labels=("person first (paper)", "uniform over (person, itemset)"),
                         choice_tooltips=("Draw a random person, then a random set of their items, as the paper "
                                          "does. People with long records are tested as often as others.",
                                          "Every (person, itemset) pair equally likely: people with long records "
                                          "own most itemsets and are tested more often."),
                         section=SECTION_PRIVACY, advanced=True,
                         tooltip="How the sampled algorithm draws attackers: a random person, then a random "
                                 "set of their items (the paper's), or every (person, itemset) pair equally "
                                 "likely, which tests people with long records more often.")
    sensitive: Path | None = param(None, label="sensitive-items file", kind="path", optional=True,
                                   file_filter="person,item CSV (*.csv *.txt);;All files (*)",
                                   section=SECTION_SENSITIVE,
                                   tooltip="CSV with the header person,item: which items each person wants "
                                           "hidden. People are numbered from 1 in file order; * means "
                                           "everyone. (A file of the previous release, header record,item "
                                           "and records from 0, is still read, with a notice.) Empty: draw "
                                           "them with the setting below.")
    setting: str = param("fixed", label="sensitive items setting", choices=SETTINGS,
                         choice_labels=("fixed (same for all)", "personalized (own choice each)",
                                        "fixed+ (anything anyone protects)", "personalized+ (shared + 1 % own)"),
                         choice_tooltips=("One random set of items is sensitive for everyone.",
                                          "Each person has their own random set of sensitive items.",
                                          "Everything that anyone protects is protected for everyone (the "
                                          "old, non-personalized model's only option).",
                                          "Most people protect the same items; each drops or adds a few."),
                         section=SECTION_SENSITIVE, enabled_when={"sensitive": (None,)},
                         tooltip="Used when no file is given. Fixed: the same random items are sensitive for "
                                 "everyone. Personalized: each person picks their own. Personalized+: most "
                                 "people protect the same items, each adds or drops a few. Fixed+: protect "
                                 "for everyone whatever anyone protects (the old model's only option).")
    sensitive_fraction: float = param(0.1, label="sensitive share of items", minimum=0.0, maximum=1.0,
                                      decimals=3, step=0.05,
                                      section=SECTION_SENSITIVE, enabled_when={"sensitive": (None,)},
                                      tooltip="Share of the data's distinct items drawn as sensitive per "
                                              "person (0.1 = 10 %). Used when no file is given.")
    noise: float = param(0.01, label="personal noise", minimum=0.0, maximum=0.5, decimals=3, step=0.01,
                         advanced=True, section=SECTION_SENSITIVE,
                         enabled_when={"sensitive": (None,), "setting": ("fixed+", "personalized+")},
                         tooltip="Personalized+ and fixed+: chance that a person drops a commonly sensitive "
                                 "item or adds another one (the paper uses 1 %).")
    seed: int = seed_param(tooltip="Same seed, same result: the drawn sensitive items, the records chosen for "
                                   "suppression and the sampled attackers repeat exactly.")
    minsup: float = param(0.0005, label="rule mining: minimum support", minimum=0.0, maximum=1.0,
                          decimals=5, advanced=True, section=SECTION_CHECK,
                          tooltip="Share of records an itemset must appear in for the association rules of "
                                  "the utility measure (0.0005 = 0.05 %, as in the paper).")
    minconf: float = param(0.3, label="rule mining: minimum confidence", minimum=0.0, maximum=1.0,
                           decimals=3, advanced=True, section=SECTION_CHECK,
                           tooltip="Least confidence of an association rule in the utility measure (30 %).")
    mining_max_length: int = param(12, label="rule mining: longest record", minimum=1, maximum=64, advanced=True,
                                   section=SECTION_CHECK,
                                   tooltip="Association rules are mined only when no record has more items "
                                           "than this (mining long records explodes; the paper mines "
                                           "records of up to 5 items). Above it the mining utility is left "
                                           "out.")
    verify_samples: int = param(20_000, label="check: attackers per size", minimum=100, maximum=10_000_000,
                                advanced=True, log_scale=True, section=SECTION_CHECK,
                                tooltip="When checking every attacker is too costly, the independent check "
                                        "draws this many attackers per number of known items.")
    verify_confidence: float = param(0.95, label="check: confidence", minimum=0.5, maximum=0.999999,
                                     decimals=4, advanced=True, section=SECTION_CHECK,
                                     tooltip="Confidence of the interval the sampled check reports.")
    exhaustive_limit: int = param(5_000_000, label="check: exhaustive up to", minimum=0,
                                  maximum=2_000_000_000, advanced=True, log_scale=True, section=SECTION_CHECK,
                                  tooltip="The independent check tests every attacker when there are at most "
                                          "this many (person, itemset) pairs, and samples otherwise.")
    max_adversaries: int = param(200_000_000, label="exact: most attackers per pass", minimum=1000,
                                 maximum=20_000_000_000, advanced=True, log_scale=True, section=SECTION_PRIVACY,
                                 tooltip="The exact algorithm refuses data with more (person, itemset) pairs "
                                         "than this per pass; set m or ε, δ instead.")

    # ------------------------------------------------------------- derived
    @property
    def rho_fraction(self) -> Fraction:
        return parse_rho(self.rho)

    @property
    def sampled(self) -> bool:
        """True for SAMPLESUPPRESSOR ((ε, δ)-ρ^m), False for the exact SUPPRESSOR (ρ or ρ^m)."""
        return self.epsilon is not None

    @property
    def samples_per_level(self) -> int | None:
        return sample_size(self.epsilon, self.delta) if self.sampled else None

    def check(self) -> None:
        """Cross-field rules (raises :class:`ParameterError` naming the field)."""
        parse_rho(self.rho)
        if (self.epsilon is None) != (self.delta is None):
            name = "delta" if self.delta is None else "epsilon"
            raise ParameterError("ε and δ go together: set both for the sampled algorithm, or neither",
                                 name=name)
        if self.sampled and self.m is None:
            raise ParameterError("the sampled algorithm (ε, δ) needs m, the most items an attacker knows",
                                 name="m")

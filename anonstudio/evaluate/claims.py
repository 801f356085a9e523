"""Claims an audit checks, and the counterexample that refutes one.

* ``k=K[,m=M]``: nobody whose own record is a candidate has fewer than K
  candidates when the attacker knows their quasi-identifiers and M of their items
  (all of them when fewer). Knowing more items never adds candidates, so M
  items cover every smaller number too (k^m-anonymity; k-anonymity for tables).
* ``rho=X[,m=M]``: for 1..M known items, no sensitive value a person holds (and
  the attacker does not know) is held by more than a fraction X of their
  candidates, when their own record is one (ρ-uncertainty; 1/ℓ for RT's ℓ).
* ``l=L``: every person whose own record is a candidate has candidates showing
  at least L different values of the sensitive column (distinct ℓ-diversity of
  group-anonymized tables).

A claim is checked on every (person, known set) when the count is exact, and
is then passed or failed; on a sample it can only fail (a counterexample among
the draws) or stay incomplete.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Claim", "parse_claim", "ClaimResult"]


@dataclass(frozen=True)
class Claim:
    """One promise to audit (exactly one of ``k``, ``rho``, ``l``; ``m`` None: the evaluation's largest m)."""

    text: str
    k: int | None = None
    rho: float | None = None
    l: int | None = None
    m: int | None = None

    @property
    def key(self) -> str:
        return "k" if self.k is not None else "rho" if self.rho is not None else "l"

    def levels(self, m: int) -> list[int]:
        """The m values whose known sets the claim is about."""
        return list(range(1, m + 1)) if self.rho is not None else [m]

    def wording(self, m: int, table: bool, items: bool) -> str:
        """The promise in plain words."""
        knows = []
        if table:
            knows.append("their quasi-identifiers")
        if items:
            knows.append(f"{'up to ' if self.rho is not None else 'any '}{m} of their items")
        told = " and ".join(knows) or "nothing"
        if self.k is not None:
            return f"everyone whose record an attacker who knows {told} can find has at least {self.k} candidates"
        if self.rho is not None:
            return (f"an attacker who knows {told} is at most {self.rho:g} sure of any sensitive value a person holds")
        return f"an attacker who knows {told} always faces at least {self.l} different sensitive values"


def parse_claim(text: str) -> Claim:
    """``k=5,m=2``, ``rho=0.5,m=2`` or ``l=3`` (ValueError with a one-line reason otherwise)."""
    values: dict[str, str] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq or not key or not value.strip():
            raise ValueError(f"--claim {text!r}: expected key=value pairs such as k=5,m=2")
        if key in ("ρ", "ρ"):
            key = "rho"
        if key in ("ℓ",):
            key = "l"
        if key not in ("k", "m", "rho", "l"):
            raise ValueError(f"--claim {text!r}: unknown key {key!r} (k, rho, l, m)")
        if key in values:
            raise ValueError(f"--claim {text!r}: {key} is given twice")
        values[key] = value.strip()
    main = [key for key in ("k", "rho", "l") if key in values]
    if len(main) != 1:
        raise ValueError(f"--claim {text!r}: give exactly one of k=, rho=, l=")

    def integer(key: str, low: int) -> int:
        try:
            v = int(values[key])
        except ValueError:
            raise ValueError(f"--claim {text!r}: {key} must be a whole number (got {values[key]!r})") from None
        if v < low:
            raise ValueError(f"--claim {text!r}: {key} must be at least {low} (got {v})")
        return v

    claim = {"text": text, "m": integer("m", 1) if "m" in values else None}
    if "k" in values:
        claim["k"] = integer("k", 1)
    elif "l" in values:
        claim["l"] = integer("l", 1)
    else:
        raw = values["rho"]
        try:
            if "/" in raw:
                num, den = raw.split("/", 1)
                rho = float(num) / float(den)
            else:
                rho = float(raw)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"--claim {text!r}: rho must be a number in (0, 1] (got {raw!r})") from None
        if not 0 < rho <= 1:
            raise ValueError(f"--claim {text!r}: rho must be in (0, 1] (got {raw})")
        claim["rho"] = rho
    return Claim(**claim)


@dataclass
class ClaimResult:
    """How one claim fared: ``passed``, ``failed`` (with a counterexample) or ``incomplete``."""

    claim: Claim
    m: int
    status: str
    promise: str
    detail: str
    exact: bool
    counterexample: dict | None = None

    def to_json(self) -> dict:
        return {"claim": self.claim.text, "key": self.claim.key, "k": self.claim.k, "rho": self.claim.rho,
                "l": self.claim.l, "m": self.m, "status": self.status, "promise": self.promise, "detail": self.detail,
                "exact": self.exact, "counterexample": self.counterexample}

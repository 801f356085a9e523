"""A synthetic clinic: people with a few demographics and a set of ICD-9 diagnosis codes each (RT-data).

Stand-in for patient data such as the INFORMS/MEPS files (which may not be
redistributed): every person is drawn at random, no real patient is behind
any row.

Model
-----
- Demographics: age from a US-like age pyramid (0-90), sex (``F``/``M``),
  race as a numeric code 1-6 (the MEPS RACEX coding: 1 white, 2 black,
  3 American Indian or Alaska Native, 4 Asian, 5 Native Hawaiian or Pacific
  Islander, 6 more than one) and a three-digit ZIP prefix written with its
  leading zero (``021``), so the table mixes numbers, codes and text.
- Diagnoses: 1 + Poisson distinct codes per person, more with age (mean
  :attr:`SynthClinicParams.mean_diagnoses`). Codes come from
  :data:`COMMON_CODES`, about a hundred frequent outpatient diagnoses with
  weights set by hand from general knowledge of primary care (hypertension
  401, hyperlipidaemia 272, upper respiratory infections 465, back pain
  724...), each shaped by age and sex (pregnancy codes only for women of
  child-bearing age, prostate codes only for men, otitis media mostly in
  children). A long tail over the other codes of a code list (e.g. the leaves
  of an ICD-9 hierarchy) gets a Zipf-shaped share of the diagnoses, so rare
  codes single people out as they do in real data.

The same seed gives the same table, byte for byte.
"""
from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..jobs import derive_seed
from ..params import param, seed_param

__all__ = ["SynthClinicParams", "SynthClinic", "COMMON_CODES", "ZIP3", "RACE_CODES", "generate_clinic",
           "write_clinic_csv", "zip3_hierarchy_rows", "tail_codes"]

#: (code, relative weight, profile). Profiles shape the weight by age and sex (:func:`_profile_factor`).
COMMON_CODES: tuple[tuple[str, float, str], ...] = (
    # circulatory, endocrine, metabolic: rise with age
    ("401", 90, "older"), ("272", 60, "older"), ("250", 45, "older"), ("414", 14, "elderly"),
    ("427", 14, "elderly"), ("428", 8, "elderly"), ("410", 2, "elderly"), ("436", 2, "elderly"),
    ("433", 2, "elderly"), ("443", 3, "elderly"), ("453", 2, "older"), ("459", 3, "older"),
    ("244", 20, "older-female"), ("278", 15, "adult"), ("274", 5, "older-male"), ("276", 4, "elderly"),
    ("285", 6, "all"), ("280", 4, "female"), ("585", 5, "elderly"),
    # respiratory and infections
    ("465", 55, "young"), ("462", 25, "young"), ("461", 12, "adult"), ("473", 12, "adult"),
    ("466", 14, "all"), ("490", 8, "all"), ("477", 30, "all"), ("493", 22, "young"), ("496", 8, "elderly"),
    ("486", 6, "elderly"), ("487", 6, "all"), ("034", 9, "child"), ("079", 10, "child"), ("382", 22, "child"),
    ("381", 4, "child"), ("380", 5, "all"), ("558", 8, "all"), ("599", 14, "female"), ("616", 6, "onlyf"),
    ("110", 5, "adult"), ("681", 3, "all"), ("682", 6, "all"),
    # mental health and nervous system
    ("311", 28, "adult"), ("300", 22, "adult"), ("296", 12, "adult"), ("314", 10, "child"), ("295", 2, "adult"),
    ("305", 4, "adult"), ("303", 3, "adult-male"), ("327", 6, "older"), ("346", 10, "adult-female"),
    ("354", 4, "adult"), ("332", 2, "elderly"), ("345", 2, "all"), ("340", 1, "adult-female"),
    # digestive
    ("530", 22, "older"), ("564", 7, "adult"), ("562", 5, "elderly"), ("455", 4, "adult"), ("535", 4, "adult"),
    ("574", 3, "older-female"), ("553", 3, "older"), ("521", 3, "all"),
    # musculoskeletal and injuries
    ("724", 35, "adult"), ("715", 28, "elderly"), ("719", 20, "older"), ("729", 16, "adult"), ("726", 10, "older"),
    ("727", 6, "adult"), ("722", 6, "adult"), ("733", 8, "elderly-female"), ("714", 4, "older-female"),
    ("845", 8, "young"), ("847", 7, "adult"), ("924", 5, "young"), ("959", 6, "young"), ("813", 2, "young"),
    ("823", 1, "young"), ("836", 2, "adult"), ("844", 3, "adult"), ("848", 3, "adult"),
    # skin, eye, ear
    ("692", 14, "all"), ("706", 9, "teen"), ("691", 5, "child"), ("702", 6, "elderly"), ("216", 5, "older"),
    ("173", 3, "elderly"), ("709", 4, "all"), ("704", 2, "adult"), ("366", 10, "elderly"), ("365", 8, "elderly"),
    ("367", 12, "all"), ("372", 9, "all"), ("389", 6, "elderly"), ("388", 3, "older"),
    # genitourinary, reproductive, neoplasms
    ("600", 10, "elderly-onlym"), ("185", 4, "elderly-onlym"), ("174", 4, "older-onlyf"),
    ("627", 8, "midlife-onlyf"), ("626", 7, "pregnancy"), ("625", 5, "pregnancy"), ("611", 4, "adult-onlyf"),
    ("218", 3, "midlife-onlyf"), ("628", 2, "pregnancy"), ("592", 3, "adult"), ("788", 5, "elderly"),
    # symptoms
    ("780", 18, "all"), ("786", 16, "all"), ("789", 14, "all"), ("784", 10, "all"), ("787", 6, "all"),
    ("782", 5, "all"), ("785", 4, "older"),
    # supplementary (V) codes: examinations, vaccination, pregnancy care
    ("V70", 30, "all"), ("V20", 18, "infant"), ("V72", 10, "adult"), ("V04", 6, "all"), ("V05", 3, "child"),
    ("V22", 10, "pregnancy"), ("V25", 6, "pregnancy"), ("V76", 8, "older"), ("V58", 5, "older"),
    ("V65", 3, "all"), ("V68", 3, "all"),
)

#: Three-digit ZIP prefixes (written with leading zeros) and their shares of the people.
ZIP3: tuple[tuple[str, float], ...] = (
    ("021", 9), ("024", 4), ("060", 5), ("070", 6), ("100", 8), ("104", 4), ("112", 7), ("191", 5), ("200", 4),
    ("212", 4), ("303", 5), ("331", 5), ("372", 3), ("441", 4), ("481", 4), ("554", 3), ("606", 7), ("631", 3),
    ("752", 4), ("770", 6), ("802", 3), ("852", 4), ("900", 8), ("941", 5), ("981", 4),
)

#: Race codes (MEPS RACEX) and their shares.
RACE_CODES: tuple[tuple[int, float], ...] = ((1, 0.75), (2, 0.13), (3, 0.01), (4, 0.06), (5, 0.005), (6, 0.045))

#: People per five-year age band 0-4, 5-9, ..., 85-90 (US-like pyramid; the last band is six years wide).
AGE_BANDS = (6.0, 6.2, 6.4, 6.5, 6.6, 6.9, 6.8, 6.5, 6.2, 6.3, 6.5, 6.6, 6.2, 5.4, 4.3, 3.0, 2.0, 2.0)

#: Weight factors (women, men) of a profile's sex part: skewed towards one sex, or one sex only.
SEX_FACTORS = {"": (1.0, 1.0), "female": (1.8, 0.2), "male": (0.2, 1.8), "onlyf": (2.0, 0.0), "onlym": (0.0, 2.0)}

#: Largest number of distinct diagnoses a person gets.
MAX_DIAGNOSES = 25
#: Share of all diagnoses drawn from the tail (codes outside :data:`COMMON_CODES`).
TAIL_SHARE = 0.2
#: The tail's weights fall as (rank + offset)^-exponent: no rare code outweighs a common one.
TAIL_EXPONENT = 1.5
TAIL_OFFSET = 30.0


@dataclass(frozen=True)
class SynthClinicParams:
    """Shape of the synthetic clinic."""

    people: int = param(2000, label="People", minimum=1, maximum=10_000_000,
                        tooltip="Number of patients (rows).")
    mean_diagnoses: float = param(3.5, label="Mean diagnoses", minimum=1.0, maximum=float(MAX_DIAGNOSES),
                                  decimals=2, tooltip="Average number of distinct diagnosis codes per patient.")
    seed: int = seed_param()


@dataclass
class SynthClinic:
    """A generated clinic: one row per person (``person_id, age, sex, race, zip3, diagnoses``)."""

    frame: pd.DataFrame
    params: SynthClinicParams

    @property
    def codes(self) -> list[str]:
        """Distinct diagnosis codes used, sorted."""
        return sorted({c for cell in self.frame["diagnoses"] for c in cell.split(";")})


def tail_codes(leaves: Sequence[str]) -> list[str]:
    """The three-digit codes (``001``-``999``, ``V01``-``V99``) of a code list, without the common ones."""
    common = {c for c, _, _ in COMMON_CODES}
    out = []
    for code in leaves:
        code = str(code)
        digits = code[1:] if code.startswith("V") else code
        if len(code) == 3 and digits.isdigit() and code not in common:
            out.append(code)
    return sorted(set(out))


def _profile_factor(profile: str, age: np.ndarray, female: np.ndarray) -> np.ndarray:
    """How a profile (``"<ages>"``, ``"<ages>-<sex>"`` or ``"<sex>"``) scales a code's weight per person."""
    a = age.astype(np.float64)
    curves = {
        "all": np.ones_like(a),
        "young": np.where(a < 30, 1.6, 0.7),
        "child": np.where(a < 13, 4.0, np.where(a < 18, 1.0, 0.15)),
        "infant": np.where(a < 3, 12.0, np.where(a < 18, 0.6, 0.0)),
        "teen": np.where((a >= 12) & (a < 25), 4.0, 0.3),
        "adult": np.where((a >= 18) & (a < 70), 1.4, 0.4),
        "midlife": np.where((a >= 40) & (a < 60), 3.0, 0.2),
        "older": np.clip((a - 15.0) / 35.0, 0.05, 2.2) ** 1.5,
        "elderly": np.clip((a - 35.0) / 30.0, 0.02, 2.0) ** 2.0,
        "pregnancy": np.where((a >= 16) & (a < 45), 3.0, 0.0),
    }
    base, _, sex = profile.partition("-")
    if base in SEX_FACTORS:
        base, sex = "all", base
    if base == "pregnancy":
        sex = "onlyf"
    women, men = SEX_FACTORS[sex]
    return curves[base] * np.where(female, women, men)


def zip3_hierarchy_rows(prefixes: Sequence[str] | None = None) -> list[list[str]]:
    """ARX-style rows ``zip3;region;*``: a prefix under its first digit (``021`` under ``0xx``)."""
    prefixes = sorted(prefixes if prefixes is not None else [z for z, _ in ZIP3])
    return [[z, f"{z[0]}xx", "*"] for z in prefixes]


def generate_clinic(params: SynthClinicParams, codes: Sequence[str] = ()) -> SynthClinic:
    """Draw a clinic (module docstring); ``codes`` are the candidates of the long tail (none: common codes only)."""
    n = params.people
    rng = np.random.default_rng(derive_seed(params.seed, "clinic", "demographics"))
    bands = np.asarray(AGE_BANDS) / sum(AGE_BANDS)
    band = rng.choice(len(bands), size=n, p=bands)
    width = np.where(band == len(bands) - 1, 6, 5)
    age = (band * 5 + np.floor(rng.random(n) * width)).astype(np.int64)
    female = rng.random(n) < 0.51
    race_codes = np.asarray([c for c, _ in RACE_CODES])
    race_p = np.asarray([p for _, p in RACE_CODES])
    race = race_codes[rng.choice(len(race_codes), size=n, p=race_p / race_p.sum())]
    zips = np.asarray([z for z, _ in ZIP3])
    zip_p = np.asarray([w for _, w in ZIP3], dtype=np.float64)
    zip3 = zips[rng.choice(len(zips), size=n, p=zip_p / zip_p.sum())]

    # Weights of every code for every person: the common codes shaped by age and sex, then the tail.
    common = [c for c, _, _ in COMMON_CODES]
    weights = np.empty((n, len(common)), dtype=np.float64)
    for j, (_, w, profile) in enumerate(COMMON_CODES):
        weights[:, j] = w * _profile_factor(profile, age, female)
    tail = tail_codes(codes)
    all_codes = common + tail
    if tail:
        order = np.random.default_rng(derive_seed(params.seed, "clinic", "tail")).permutation(len(tail))
        zipf = 1.0 / (order + TAIL_OFFSET) ** TAIL_EXPONENT
        tail_w = zipf / zipf.sum() * TAIL_SHARE / (1.0 - TAIL_SHARE)
        weights = np.hstack([weights / weights.sum(axis=1, keepdims=True), np.tile(tail_w, (n, 1))])

    # Diagnoses per person: 1 + Poisson, the rate growing with age, scaled to the requested mean.
    rate = 0.5 + age / 40.0
    rate *= (params.mean_diagnoses - 1.0) / rate.mean()
    counts = np.minimum(1 + rng.poisson(rate), MAX_DIAGNOSES)
    draw = np.random.default_rng(derive_seed(params.seed, "clinic", "diagnoses"))
    cells = []
    for u in range(n):
        p = weights[u]
        usable = int(np.count_nonzero(p))
        picked = draw.choice(len(all_codes), size=min(int(counts[u]), usable), replace=False, p=p / p.sum())
        cells.append(";".join(sorted(all_codes[i] for i in picked.tolist())))
    frame = pd.DataFrame({
        "person_id": [f"P{u + 1:05d}" for u in range(n)],
        "age": age,
        "sex": np.where(female, "F", "M"),
        "race": race.astype(np.int64),
        "zip3": zip3,
        "diagnoses": cells,
    })
    return SynthClinic(frame, params)


def write_clinic_csv(path: str | Path, clinic: SynthClinic) -> None:
    """The clinic as a CSV with a header (diagnoses joined by ``;``), written atomically."""
    from .io import atomic_write

    with atomic_write(path) as fh:
        clinic.frame.to_csv(fh, index=False, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)

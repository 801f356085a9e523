"""The synthetic clinic: reproducible, plausible, and the bundled small-clinic sample it made (RT-data)."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.cli import main
from anonstudio.data import Table
from anonstudio.data.io import load_hierarchy
from anonstudio.data.samples import get_sample, load_sample, sample_of
from anonstudio.data.synth_clinic import (
    COMMON_CODES,
    SynthClinicParams,
    generate_clinic,
    tail_codes,
    write_clinic_csv,
)

SAMPLE = get_sample("small-clinic")


@pytest.fixture(scope="module")
def icd9_leaves() -> list[str]:
    h = load_hierarchy(SAMPLE.file("icd9_hierarchy"))
    return [h.labels[v] for v in h.leaves.tolist()]


def test_same_seed_same_bytes_and_another_seed_differs(tmp_path, icd9_leaves):
    codes = tail_codes(icd9_leaves)
    paths = []
    for i, seed in enumerate((5, 5, 6)):
        path = tmp_path / f"c{i}.csv"
        write_clinic_csv(path, generate_clinic(SynthClinicParams(people=300, seed=seed), codes))
        paths.append(path.read_bytes())
    assert paths[0] == paths[1] and paths[0] != paths[2]


def test_people_are_plausible(icd9_leaves):
    clinic = generate_clinic(SynthClinicParams(people=3000, mean_diagnoses=3.5, seed=2), tail_codes(icd9_leaves))
    f = clinic.frame
    assert list(f.columns) == ["person_id", "age", "sex", "race", "zip3", "diagnoses"]
    assert f["person_id"].is_unique and f["age"].between(0, 90).all()
    assert set(f["sex"]) == {"F", "M"} and set(f["race"]) <= {1, 2, 3, 4, 5, 6}
    assert all(len(z) == 3 for z in f["zip3"]) and (f["zip3"].str.startswith("0")).any()
    sets = [cell.split(";") for cell in f["diagnoses"]]
    lengths = np.array([len(s) for s in sets])
    assert lengths.min() >= 1 and all(len(set(s)) == len(s) for s in sets)
    assert 3.2 < lengths.mean() < 3.8
    # Older people have more diagnoses; every code is a leaf of the ICD-9 hierarchy.
    assert lengths[f["age"] >= 65].mean() > lengths[f["age"] < 18].mean() + 1
    assert set(clinic.codes) <= set(icd9_leaves)
    # Sex- and age-bound codes: pregnancy care for women 16-44 only, prostate for men only.
    for codes, allowed in ((("V22", "626"), (f["sex"] == "F") & f["age"].between(16, 44)),
                           (("600", "185"), f["sex"] == "M")):
        has = np.array([any(c in s for c in codes) for s in sets])
        assert has.any() and not (has & ~allowed.to_numpy()).any()
    # A long tail: many codes are rare, the most common code is a frequent one.
    counts = {}
    for s in sets:
        for c in s:
            counts[c] = counts.get(c, 0) + 1
    assert sum(v == 1 for v in counts.values()) > 100
    assert max(counts, key=counts.get) in {c for c, _, _ in COMMON_CODES}


def test_common_codes_only_without_a_code_list():
    clinic = generate_clinic(SynthClinicParams(people=200, seed=1))
    assert set(clinic.codes) <= {c for c, _, _ in COMMON_CODES}


def test_cli_regenerates_the_bundled_sample_byte_for_byte(tmp_path, capsys):
    out, zips = tmp_path / "clinic.csv", tmp_path / "zip3.csv"
    meta = SAMPLE.meta["generator"]
    assert main(["synth-clinic", "--people", str(meta["people"]), "--seed", str(meta["seed"]), "--codes-from",
                 str(SAMPLE.file("icd9_hierarchy")), "--out", str(out), "--zip-hierarchy-out", str(zips)]) == 0
    assert out.read_bytes() == SAMPLE.file("table").read_bytes()
    assert zips.read_bytes() == SAMPLE.file("zip3_hierarchy").read_bytes()
    assert f"{SAMPLE.records:,} patients, {SAMPLE.meta['items']} distinct codes" in capsys.readouterr().out


def test_the_sample_loads_as_a_table_keeping_codes_as_text():
    table = load_sample("small-clinic")
    assert isinstance(table, Table) and table.n_rows == SAMPLE.records == 2000
    assert table.frame["zip3"].dtype.kind == "O" and "021" in set(table.frame["zip3"])  # codes stay text
    assert table.frame["age"].dtype.kind == "i" and table.frame["race"].dtype.kind == "i"
    assert table.quasi_identifiers == ["age", "sex", "race", "zip3"]
    assert len({c for cell in table.frame["diagnoses"] for c in cell.split(";")}) == SAMPLE.meta["items"]
    assert sample_of(table) is not None and sample_of(table).name == "small-clinic"
    assert sample_of(Table(table.frame, {}, "small-clinic", None)) is None
    params = SAMPLE.method_params("rt")
    assert params["items_column"] == "diagnoses"
    assert params["hierarchies"] == [["zip3", str(SAMPLE.file("zip3_hierarchy"))]]
    assert SAMPLE.method_params("nothing") == {}

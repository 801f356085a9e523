"""Random tiny originals and releases of every kind, written to files, with their reference objects.

Each generator returns a :class:`Case`: the original (a loaded dataset), the
release file and its side files, and, built from the same Python values that
were written (never read back), the reference people and records of
:mod:`tests.reference.evaluate_reference`.
"""
from __future__ import annotations

import csv
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from anonstudio.data.table import Role, Table
from anonstudio.data.transactions import TransactionData
from anonstudio.evaluate import SideFiles
from tests.reference.evaluate_reference import Person, Record

VOCAB = ("10", "11", "12", "13", "14", "15", "16")


@dataclass
class Case:
    name: str
    kind: str
    original: Any
    release: Path
    side: SideFiles
    people: list[Person]
    records: list[Record]
    own: list[int]
    sensitive: bool = False
    extra: dict = field(default_factory=dict)


def _person_sets(rng: random.Random, n: int, vocab=VOCAB) -> list[set[str]]:
    """People drawn from a few profiles, so that known sets are shared and candidate counts vary."""
    profiles = [set(rng.sample(vocab, rng.randint(1, 4))) for _ in range(4)]
    out = []
    for _ in range(n):
        base = set(rng.choice(profiles))
        if rng.random() < 0.5:
            base ^= {rng.choice(vocab)}
        if rng.random() < 0.1:
            base = set()
        out.append(base)
    return out


def _sensitive(rng: random.Random, tmp: Path, sets: list[set[str]], vocab=VOCAB) -> tuple[Path, list[set[str]]]:
    """An E file (``person,item``, people from 1, ``*`` for everyone) and each person's E_u."""
    glob = set(rng.sample(vocab, 2))
    e = [set(glob) for _ in sets]
    rows = [["*", x] for x in sorted(glob)]
    for u in range(len(sets)):
        if rng.random() < 0.3:
            x = rng.choice(vocab)
            e[u].add(x)
            rows.append([str(u + 1), x])
    rows.append(["2", "not-an-item"])  # allowed: a person may protect an item no one has
    path = tmp / "E.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["person", "item"])
        w.writerows(rows)
    return path, e


def _people(sets, e=None, known="all") -> list[Person]:
    out = []
    for u, s in enumerate(sets):
        sens = (e[u] & s) if e is not None else set()
        pool = s - sens if known == "non-sensitive" else s
        out.append(Person(items=frozenset(s), pool=frozenset(pool), sensitive=frozenset(sens)))
    return out


def plain_case(tmp: Path, seed: int, layout: str = "fimi", sensitive: bool = True, known: str = "all") -> Case:
    rng = random.Random(seed)
    n = rng.randint(10, 16)
    sets = _person_sets(rng, n)
    original = TransactionData.from_records(sets, vocab=VOCAB, name="tiny")
    released = []
    for s in sets:
        r = {x for x in s if rng.random() > 0.3}
        if rng.random() < 0.1:
            r.add(rng.choice(VOCAB))  # a perturbed release may add an item
        released.append(r)
    if layout == "fimi":
        path = tmp / "release.dat"
        path.write_text("".join(" ".join(sorted(r)) + "\n" for r in released))
    else:
        path = tmp / "release.csv"
        path.write_text("person,items\n" + "".join(f"{u + 1},{';'.join(sorted(r))}\n" for u, r in enumerate(released)))
    side = SideFiles(known=known)
    e = None
    if sensitive:
        side.sensitive, e = _sensitive(rng, tmp, sets)
    records = [Record(items={x: 1.0 for x in r}) for r in released]
    return Case(f"plain-{layout}", "plain", original, path, side, _people(sets, e, known), records, list(range(n)),
                sensitive)


def generalized_case(tmp: Path, seed: int, style: str = "map", sensitive: bool = True) -> Case:
    rng = random.Random(seed)
    n = rng.randint(10, 16)
    sets = _person_sets(rng, n)
    original = TransactionData.from_records(sets, vocab=VOCAB, name="tiny")
    items = list(VOCAB)
    rng.shuffle(items)
    groups, i = [], 0
    while i < len(items):
        size = rng.randint(1, 3)
        groups.append(items[i:i + size])
        i += size
    side = SideFiles()
    records = []
    lines = []
    if style == "map":
        names = {x: f"P{g + 1}" for g, members in enumerate(groups) for x in members}
        sizes = {f"P{g + 1}": len(members) for g, members in enumerate(groups)}
        path_map = tmp / "map.csv"
        path_map.write_text("item,partition\n" + "".join(f"{x},{names[x]}\n" for x in VOCAB))
        side.map = path_map
        for s in sets:
            tokens = sorted({names[x] for x in s})
            lines.append(" ".join(tokens))
            records.append(Record(items={x: 1.0 / sizes[names[x]] for x in VOCAB if names[x] in tokens}))
    elif style == "braces":
        for s in sets:
            tokens, probs = [], {}
            for members in groups:
                hit = [x for x in members if x in s]
                if not hit:
                    continue
                if len(members) == 1 or rng.random() < 0.3:
                    for x in hit:  # published as such
                        tokens.append(x)
                        probs[x] = 1.0
                else:
                    tokens.append("{" + "|".join(members) + "}")
                    for x in members:
                        probs[x] = max(probs.get(x, 0.0), 1.0 / len(members))
            lines.append(" ".join(tokens))
            records.append(Record(items=probs))
    else:  # hierarchy: leaf;group;* with local recoding, each record at its own level
        path_h = tmp / "items_hierarchy.csv"
        gname = {x: f"G{g + 1}" for g, members in enumerate(groups) for x in members}
        path_h.write_text("".join(f"{x};{gname[x]};*\n" for x in VOCAB))
        side.item_hierarchy = path_h
        for s in sets:
            level = rng.randint(0, 2)
            tokens, probs = set(), {}
            for x in s:
                if level == 0:
                    tokens.add(x)
                    probs[x] = 1.0
                elif level == 1:
                    tokens.add(gname[x])
                    members = [y for y in VOCAB if gname[y] == gname[x]]
                    for y in members:
                        probs[y] = max(probs.get(y, 0.0), 1.0 / len(members))
                else:
                    tokens.add("*")
                    for y in VOCAB:
                        probs[y] = 1.0 / len(VOCAB)
            lines.append(" ".join(sorted(tokens)))
            records.append(Record(items=probs))
    path = tmp / "generalized.dat"
    path.write_text("".join(line + "\n" for line in lines))
    e = None
    if sensitive:
        side.sensitive, e = _sensitive(rng, tmp, sets)
    return Case(f"generalized-{style}", "generalized", original, path, side, _people(sets, e), records,
                list(range(n)), sensitive)


def nonreciprocal_case(tmp: Path, seed: int, sensitive: bool = True) -> Case:
    rng = random.Random(seed)
    n = rng.randint(10, 16)
    sets = _person_sets(rng, n)
    original = TransactionData.from_records(sets, vocab=VOCAB, name="tiny")
    rows, records = [], []
    for u, s in enumerate(sets):
        base = {x for x in s if rng.random() > 0.2} | ({rng.choice(VOCAB)} if rng.random() < 0.3 else set())
        dist = set(rng.sample(VOCAB, rng.randint(0, 4)))
        threshold = rng.randint(0, len(dist) + 1)
        rows.append([str(u + 1), ";".join(sorted(base)), ";".join(sorted(dist)), str(threshold), ""])
        records.append(Record(base=frozenset(base), dist=frozenset(dist), threshold=threshold))
    order = list(range(n))
    rng.shuffle(order)  # rows are matched by their record name, not their position
    path = tmp / "published.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["record", "base", "distance", "threshold", "label"])
        w.writerows(rows[j] for j in order)
    side = SideFiles()
    e = None
    if sensitive:
        side.sensitive, e = _sensitive(rng, tmp, sets)
    return Case("nonreciprocal", "nonreciprocal", original, path, side, _people(sets, e), records, list(range(n)),
                sensitive)


# ----------------------------------------------------------------------------------------------- tables
AGES = list(range(20, 36))
SEXES = ["F", "M"]
ZIPS = ["021", "022", "031", "032"]
DISEASES = ["Cancer", "Cold", "Flu", "HIV"]


def _table(rng: random.Random, n: int, items: bool = False) -> tuple[pd.DataFrame, list[dict]]:
    rows = []
    for _ in range(n):
        row = {"age": rng.choice(AGES[:8]) if rng.random() < 0.7 else rng.choice(AGES),
               "sex": rng.choice(SEXES), "zip": rng.choice(ZIPS)}
        if items:
            row["codes"] = set(rng.sample(VOCAB, rng.randint(0, 4)))
        else:
            row["disease"] = rng.choice(DISEASES)
        rows.append(row)
    frame = pd.DataFrame([{k: (";".join(sorted(v)) if isinstance(v, set) else v) for k, v in r.items()} for r in rows])
    frame["zip"] = frame["zip"].astype("string")
    frame["sex"] = frame["sex"].astype("string")
    if "disease" in frame:
        frame["disease"] = frame["disease"].astype("string")
    if "codes" in frame:
        frame["codes"] = frame["codes"].astype("string")
    return frame, rows


def _groups(rng: random.Random, n: int) -> list[list[int]]:
    idx = list(range(n))
    rng.shuffle(idx)
    out, i = [], 0
    while i < n:
        size = rng.randint(1, 4)
        out.append(sorted(idx[i:i + size]))
        i += size
    return out


def _domain_values(frame: pd.DataFrame, column: str) -> list[str]:
    return sorted({str(v) for v in frame[column].tolist()})


def _uniform(values) -> dict[str, float]:
    values = list(values)
    return {v: 1.0 / len(values) for v in values}


def _age_cell(rng, ages, style):
    lo, hi = min(ages), max(ages)
    if lo == hi and rng.random() < 0.5:
        return str(lo), [lo]
    if style == "arx":
        if rng.random() < 0.5:
            return f"{lo}-{hi}", list(range(lo, hi + 1))
        return f"[{lo}, {hi + 1}[", list(range(lo, hi + 1))
    return f"[{lo}-{hi}]", list(range(lo, hi + 1))


def table_case(tmp: Path, seed: int, style: str = "mondrian") -> Case:
    """style: mondrian (gid, ranges, sets), arx (no gid, 20-29 / [20, 30[ ranges, * and masks, hierarchy cells),
    anatomy (exact quasi-identifiers, the group's sensitive multiset)."""
    rng = random.Random(seed)
    n = rng.randint(10, 16)
    frame, rows = _table(rng, n)
    table = Table(frame, {"disease": Role.SENSITIVE}, name="tiny-table")
    ages_present = sorted({r["age"] for r in rows})
    zip_present = _domain_values(frame, "zip")
    groups = _groups(rng, n)
    group_of = {u: g for g, members in enumerate(groups) for u in members}
    out_rows = [None] * n
    records = [None] * n
    side = SideFiles()
    if style == "arx":
        path_h = tmp / "zip_hierarchy.csv"
        path_h.write_text("".join(f"{z};{z[:2]}x;*\n" for z in ZIPS))
        side.hierarchies = {"zip": path_h}
    for g, members in enumerate(groups):
        ages = [rows[u]["age"] for u in members]
        sexes = {rows[u]["sex"] for u in members}
        zips = {rows[u]["zip"] for u in members}
        if style == "anatomy":
            multiset = sorted(rows[u]["disease"] for u in members)
            shares = {d: multiset.count(d) / len(multiset) for d in multiset}
            for u in members:
                out_rows[u] = [str(g + 1), str(rows[u]["age"]), rows[u]["sex"], rows[u]["zip"],
                               "{" + "|".join(multiset) + "}"]
                records[u] = Record(qi={"age": {str(rows[u]["age"]): 1.0}, "sex": {rows[u]["sex"]: 1.0},
                                        "zip": {rows[u]["zip"]: 1.0}}, sensitive=shares)
            continue
        age_text, age_range = _age_cell(rng, ages, style)
        age_cov = [str(a) for a in ages_present if a in age_range]
        if len(sexes) == 1 and rng.random() < 0.6:
            sex_text, sex_cov = next(iter(sexes)), list(sexes)
        else:
            sex_text, sex_cov = "*", SEXES
        if style == "arx":
            prefixes = {z[:2] for z in zips}
            if len(zips) == 1 and rng.random() < 0.4:
                zip_text, zip_cov = next(iter(zips)), list(zips)
            elif len(prefixes) == 1 and rng.random() < 0.5:
                p = next(iter(prefixes))
                zip_text, zip_cov = (f"{p}*", [z for z in zip_present if z.startswith(p)]) if rng.random() < 0.5 \
                    else (f"{p}x", [z for z in zip_present if z.startswith(p)])
            else:
                zip_text, zip_cov = "*", zip_present
        else:
            zip_text = next(iter(zips)) if len(zips) == 1 else "{" + "|".join(sorted(zips)) + "}"
            zip_cov = sorted(zips)
        if style == "arx" and rng.random() < 0.15:  # a suppressed group: every cell *
            age_text, age_cov, sex_text, sex_cov, zip_text, zip_cov = "*", [str(a) for a in ages_present], "*", \
                SEXES, "*", zip_present
        qi = {"age": _uniform(age_cov), "sex": _uniform([s for s in sex_cov if s in set(frame["sex"])]),
              "zip": _uniform(zip_cov)}
        for u in members:
            cells = [age_text, sex_text, zip_text, rows[u]["disease"]]
            out_rows[u] = ([str(g + 1)] if style != "arx" else []) + cells
            records[u] = Record(qi=qi, sensitive={rows[u]["disease"]: 1.0})
    header = (["gid"] if style != "arx" else []) + ["age", "sex", "zip", "disease"]
    path = tmp / f"{style}.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(out_rows)
    people = [Person(qi={"age": str(r["age"]), "sex": r["sex"], "zip": r["zip"]},
                     sensitive=frozenset({("disease", r["disease"])})) for r in rows]
    return Case(f"table-{style}", "table", table, path, side, people, records, list(range(n)), True,
                {"rows": rows, "groups": groups, "group_of": group_of})


def rt_case(tmp: Path, seed: int, sensitive: bool = True) -> Case:
    """An RT table: generalized demographics, items as such, as {a|b} or as item-hierarchy nodes."""
    rng = random.Random(seed)
    n = rng.randint(10, 16)
    frame, rows = _table(rng, n, items=True)
    table = Table(frame, {}, name="tiny-rt")
    ages_present = sorted({r["age"] for r in rows})
    groups = _groups(rng, n)
    path_h = tmp / "item_hierarchy.csv"
    halves = {x: ("A" if x in VOCAB[:4] else "B") for x in VOCAB}
    path_h.write_text("".join(f"{x};{halves[x]};ANY\n" for x in VOCAB))
    side = SideFiles(item_hierarchy=path_h)
    out_rows, records = [None] * n, [None] * n
    for g, members in enumerate(groups):
        ages = [rows[u]["age"] for u in members]
        age_text, age_range = _age_cell(rng, ages, "mondrian")
        age_cov = [str(a) for a in ages_present if a in age_range]
        sexes = {rows[u]["sex"] for u in members}
        sex_text, sex_cov = (next(iter(sexes)), list(sexes)) if len(sexes) == 1 else ("*", SEXES)
        qi = {"age": _uniform(age_cov), "sex": _uniform([s for s in sex_cov if s in set(frame["sex"])])}
        for u in members:
            tokens, probs = [], {}
            for x in sorted(rows[u]["codes"]):
                r = rng.random()
                if r < 0.4:
                    tokens.append(x)
                    cover = [x]
                elif r < 0.7:
                    other = rng.choice([y for y in VOCAB if y != x])
                    tokens.append("{" + f"{x}|{other}" + "}")
                    cover = [x, other]
                else:
                    tokens.append(halves[x])
                    cover = [y for y in VOCAB if halves[y] == halves[x]]
                for y in cover:
                    probs[y] = max(probs.get(y, 0.0), 1.0 / len(cover))
            out_rows[u] = [str(g + 1), age_text, sex_text, rows[u]["zip"], ";".join(tokens)]
            zip_cell = {rows[u]["zip"]: 1.0}
            records[u] = Record(qi={**qi, "zip": zip_cell}, items=probs)
    path = tmp / "rt.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["cluster", "age", "sex", "zip", "codes"])
        w.writerows(out_rows)
    sets = [set(r["codes"]) for r in rows]
    e = None
    if sensitive:  # RT's list: one item per line, sensitive for everyone
        chosen = rng.sample(VOCAB, 2)
        (tmp / "sensitive.txt").write_text("# sensitive codes\n" + "".join(f"{x}\n" for x in chosen))
        side.sensitive = tmp / "sensitive.txt"
        e = [set(chosen) for _ in rows]
    people = []
    for u, r in enumerate(rows):
        sens = (e[u] & sets[u]) if e else set()
        people.append(Person(qi={"age": str(r["age"]), "sex": r["sex"], "zip": r["zip"]}, items=frozenset(sets[u]),
                             pool=frozenset(sets[u]), sensitive=frozenset(sens)))
    return Case("rt", "rt", table, path, side, people, records, list(range(n)), sensitive)


def all_cases(tmp: Path, seed: int) -> list[Case]:
    """One case of every kind and layout, each in its own folder."""
    makers = [
        lambda d: plain_case(d, seed, "fimi"),
        lambda d: plain_case(d, seed, "sets", known="non-sensitive"),
        lambda d: generalized_case(d, seed, "map"),
        lambda d: generalized_case(d, seed, "braces"),
        lambda d: generalized_case(d, seed, "hierarchy"),
        lambda d: nonreciprocal_case(d, seed),
        lambda d: table_case(d, seed, "mondrian"),
        lambda d: table_case(d, seed, "arx"),
        lambda d: table_case(d, seed, "anatomy"),
        lambda d: rt_case(d, seed),
    ]
    out = []
    for i, make in enumerate(makers):
        folder = tmp / f"case{i}"
        folder.mkdir(parents=True, exist_ok=True)
        out.append(make(folder))
    return out

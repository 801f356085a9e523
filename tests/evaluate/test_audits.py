"""Releases made by anonstudio's methods pass the evaluator's audit of their own promise; planted faults are
caught with a counterexample; the original as its own release gives the person-level unicity."""
from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import open_dataset
from anonstudio.evaluate import EvaluateOptions, SideFiles, evaluate
from anonstudio.methods.contract import CHECK_FAILED, CHECK_PASSED

pytestmark = pytest.mark.slow

BMS = Path(__file__).resolve().parents[2] / "resources" / "samples" / "bms-webview-1" / "BMS-WebView-1.dat"


def _cli(*args) -> int:
    return main([str(a) for a in args])


def _audit(capsys, *args) -> tuple[int, dict, str]:
    json_path = Path(args[args.index("--json") + 1])
    code = _cli("evaluate", *args, "--quiet")
    out = capsys.readouterr().out
    return code, json.loads(json_path.read_text()), out


def _bms_head(path: Path, n: int) -> Path:
    path.write_text("".join(BMS.read_text().splitlines(keepends=True)[:n]))
    return path


def _lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().split("\n")[:-1]]


# ----------------------------------------------------------------------------------------------- σ-k^m
def test_kmanon_release_passes_and_a_split_partition_is_caught(tmp_path, capsys):
    release, mapping = tmp_path / "km.dat", tmp_path / "map.csv"
    assert _cli("kmanon", "bms-webview-1", "--k", 5, "--m", 2, "--sigma", 1, "--seed", 1, "--out", release,
                "--map-out", mapping, "--quiet") == 0
    capsys.readouterr()
    code, doc, out = _audit(capsys, "bms-webview-1", "--release", release, "--map", mapping, "--m", 2, "--k", 5,
                            "--claim", "k=5,m=2", "--json", tmp_path / "ok.json")
    assert code == 0 and doc["kind"] == "generalized"
    assert doc["claims"][0]["status"] == "passed" and doc["claims"][0]["exact"]
    assert out.splitlines()[-1].startswith(CHECK_PASSED)
    assert all(level["share_at_risk"]["value"] == 0 for level in doc["levels"])
    # Planted fault: one item with fewer than 5 people taken out of its partition into its own.
    data = open_dataset("bms-webview-1")
    rows = list(csv.reader(mapping.open()))[1:]
    part = {item: p for item, p in rows}
    sizes = Counter(part.values())
    support = dict(zip(data.vocab, data.item_frequencies.tolist()))
    item = next(i for i, p in part.items() if sizes[p] > 1 and 0 < support[i] < 5)
    part[item] = "split"
    with mapping.open("w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows([["item", "partition"], *part.items()])
    release.write_text("".join(" ".join(sorted({part[data.vocab[i]] for i in data.record(u)})) + "\n"
                               for u in range(data.n_records)))
    code, doc, out = _audit(capsys, "bms-webview-1", "--release", release, "--map", mapping, "--m", 2, "--k", 5,
                            "--claim", "k=5,m=2", "--json", tmp_path / "bad.json")
    assert code == 3 and out.splitlines()[-1].startswith(CHECK_FAILED)
    example = doc["claims"][0]["counterexample"]
    assert example["candidates"] < 5 and item in example["known_items"]
    assert item in data.vocab and data.vocab.index(item) in data.record(example["person"] - 1).tolist()


# ----------------------------------------------------------------------------------------------- nonreciprocal
def _read_published(path: Path) -> list[list[str]]:
    return list(csv.reader(path.open()))


def test_nonreciprocal_release_passes_and_a_moved_base_item_is_caught(tmp_path, capsys):
    original = _bms_head(tmp_path / "bms.dat", 1500)
    published = tmp_path / "published.csv"
    assert _cli("nonreciprocal", original, "--k", 5, "--seed", 1, "--out", published, "--quiet") == 0
    capsys.readouterr()
    code, doc, out = _audit(capsys, original, "--release", published, "--m", 2, "--k", 5, "--claim", "k=5,m=2",
                            "--json", tmp_path / "ok.json")
    assert code == 0 and doc["kind"] == "nonreciprocal" and doc["claims"][0]["status"] == "passed"
    # Planted fault: an item moved out of the base of every slot that holds it only there (not in its distance
    # bitmap), except one person's own slot; that person, knowing the item and another, is left with fewer than
    # 5 candidates: their own slot and the slots holding the item in their distance bitmap that fit.
    rows = _read_published(published)
    header, body = rows[0], rows[1:]
    slots = {int(r[0]) - 1: (set(filter(None, r[1].split(";"))), set(filter(None, r[2].split(";"))), int(r[3]))
             for r in body}
    people = _lines(original)
    in_dist: dict[str, list[int]] = {}
    for j, (_b, d, _t) in slots.items():
        for x in d:
            in_dist.setdefault(x, []).append(j)

    def fits(j, known):
        b, d, t = slots[j]
        return all(x in b or x in d for x in known) and sum(x not in b for x in known) <= t

    best = None
    for u, items in enumerate(people):
        for a in items:
            for c in ([x for x in items if x != a] or [None]):
                known = [a] if c is None else [a, c]
                if not fits(u, known):
                    continue  # the own slot must stay a candidate
                left = 1 + sum(1 for j in in_dist.get(a, []) if j != u and fits(j, known))
                if best is None or left < best[0]:
                    best = (left, u, a)
    left, u, a = best
    assert left < 5
    vocab = sorted({x for items in people for x in items})
    moved = 0
    for j, (b, d, _t) in slots.items():
        if j != u and a in b and a not in d:
            b.discard(a)
            b.add(next(x for x in vocab if x not in b and x not in d))
            moved += 1
    assert moved >= 1
    with published.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        for r in body:
            b, d, t = slots[int(r[0]) - 1]
            w.writerow([r[0], ";".join(sorted(b)), ";".join(sorted(d)), t, r[4]])
    code, doc, out = _audit(capsys, original, "--release", published, "--m", 2, "--k", 5, "--claim", "k=5,m=2",
                            "--json", tmp_path / "bad.json")
    assert code == 3
    example = doc["claims"][0]["counterexample"]
    assert example["candidates"] < 5 and example["own_record"] == example["person"]


# ----------------------------------------------------------------------------------------------- ρ-uncertainty
def test_rho_release_passes_and_an_item_put_back_is_caught(tmp_path, capsys):
    original = _bms_head(tmp_path / "bms.dat", 1500)
    release, sensitive = tmp_path / "suppressed.dat", tmp_path / "E.csv"
    assert _cli("rho", original, "--setting", "fixed", "--sensitive-fraction", 0.1, "--rho", 0.5, "--m", 2,
                "--seed", 1, "--out", release, "--sensitive-out", sensitive, "--quiet") == 0
    capsys.readouterr()
    code, doc, out = _audit(capsys, original, "--release", release, "--sensitive", sensitive, "--m", 2, "--k", 5,
                            "--rho", 0.5, "--claim", "rho=0.5,m=2", "--json", tmp_path / "ok.json")
    assert code == 0, out
    assert doc["claims"][0]["status"] == "passed" and doc["claims"][0]["exact"]
    assert all(level["attribute_disclosure"]["value"] == 0 for level in doc["levels"])
    # Planted fault: a suppressed sensitive item put back into a record where a rarely published item of the
    # same person then reveals it.
    orig, rel = _lines(original), _lines(release)
    secret = {row[1] for row in csv.reader(sensitive.open()) if row and row[0] == "*"}
    assert secret
    support = Counter(x for r in rel for x in r)
    pair = Counter((x, s) for r in rel for x in r for s in r if s in secret)
    found = None
    for u, (o, r) in enumerate(zip(orig, rel)):
        for s in sorted(set(o) & secret - set(r)):
            for a in sorted(set(r) - {s}):
                if (pair[(a, s)] + 1) / support[a] > 0.5:
                    found = (u, s, a)
                    break
            if found:
                break
        if found:
            break
    assert found is not None
    u, s, a = found
    lines = release.read_text().split("\n")
    lines[u] = " ".join(rel[u] + [s])
    release.write_text("\n".join(lines))
    code, doc, out = _audit(capsys, original, "--release", release, "--sensitive", sensitive, "--m", 2, "--k", 5,
                            "--claim", "rho=0.5,m=2", "--json", tmp_path / "bad.json")
    assert code == 3 and out.splitlines()[-1].startswith(CHECK_FAILED)
    example = doc["claims"][0]["counterexample"]
    assert example["sensitive_value"] == s and example["confidence"] > 0.5


# ----------------------------------------------------------------------------------------------- RT
def test_rt_release_passes_its_k_km_audit(tmp_path, capsys):
    clinic = Path(__file__).resolve().parents[2] / "resources" / "samples" / "small-clinic" / "clinic.csv"
    head = tmp_path / "clinic.csv"
    head.write_text("".join(clinic.read_text().splitlines(keepends=True)[:401]))
    release, hierarchy = tmp_path / "rt.csv", tmp_path / "items.csv"
    assert _cli("rt", head, "--qi", "age,sex,race,zip3", "--items-column", "diagnoses", "--categorical",
                "race,zip3", "--k", 5, "--m", 2, "--delta", 0.65, "--out", release, "--hierarchy-out", hierarchy,
                "--quiet") == 0
    capsys.readouterr()
    code, doc, out = _audit(capsys, head, "--format", "csv-table", "--release", release, "--item-hierarchy",
                            hierarchy, "--m", 2, "--k", 5, "--claim", "k=5,m=2", "--json", tmp_path / "ok.json")
    assert code == 0, out
    assert doc["kind"] == "rt" and doc["attacker"]["quasi_identifiers"] == ["age", "sex", "race", "zip3"]
    assert doc["claims"][0]["status"] == "passed"


# ----------------------------------------------------------------------------------------------- group
@pytest.mark.parametrize("scheme, claims", [("mondrian", ["k=4", "l=4"]), ("anatomy", ["l=4"])])
def test_group_releases_pass_their_k_and_l_audit(tmp_path, capsys, scheme, claims):
    release = tmp_path / f"{scheme}.csv"
    assert _cli("group-anonymize", "adult", "--scheme", scheme, "--k", 4, "--l", 4, "--seed", 1, "--out", release,
                "--quiet") == 0
    capsys.readouterr()
    args = ["adult", "--release", release, "--m", 1, "--k", 4, "--json", tmp_path / "ok.json"]
    for claim in claims:
        args += ["--claim", claim]
    code, doc, out = _audit(capsys, *args)
    assert code == 0, out
    assert [c["status"] for c in doc["claims"]] == ["passed"] * len(claims)
    if scheme == "anatomy":  # exact quasi-identifiers: Anatomy promises diversity, not hiding in a crowd
        assert doc["levels"][0]["share_at_risk"]["value"] > 0.1


# ----------------------------------------------------------------------------------------------- unicity
def test_share_at_risk_of_the_original_is_the_person_level_unicity(tmp_path):
    """The original as its own release: share at risk at m, k = 2, is the Risk workbench's person unicity."""
    from anonstudio.methods.uniqueness.algorithm import person_unicity_curve
    from anonstudio.methods.uniqueness.params import UniquenessParams

    lines = [line for line in BMS.read_text().split("\n")[:-1] if len(line.split()) >= 2]
    path = tmp_path / "bms2.dat"
    path.write_text("\n".join(lines) + "\n")  # unicity draws people with at least m items: so does every target here
    data = open_dataset(str(path))
    curve = person_unicity_curve(data, UniquenessParams(measure="person", min_m=1, max_m=2, epsilon=0.01,
                                                        delta=0.01, seed=3))
    ev = evaluate(data, path, kind="plain", side=SideFiles(), options=EvaluateOptions(m=2, k=2, queries=10,
                                                                                    method="exact"))
    for point, level in zip(curve.points, ev.levels):
        assert level.m == point.m and level.method == "exact"
        assert point.ci_low <= level.share_at_risk.value <= point.ci_high, (point, level.share_at_risk)
    assert ev.levels[1].share_at_risk.value > 0.005  # a real check: about 1 % of these people are unique at m = 2

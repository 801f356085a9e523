"""A run of anonstudio-cli rt reads and parses each hierarchy file once: the run and its independent check.

The check used to read the demographic hierarchies a second time, which on the 1.9 MB INFORMS income tree cost
as much as the run's own reading.
"""
from collections import Counter
from pathlib import Path

from anonstudio.cli import main
from anonstudio.data.hierarchy import Hierarchy
from anonstudio.data.io import hierarchies as hierarchy_files

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "samples" / "small-clinic"


def _counting(monkeypatch) -> tuple[Counter, Counter]:
    reads: Counter = Counter()
    parses: Counter = Counter()
    read_text = hierarchy_files.read_text
    from_rows = Hierarchy.from_rows.__func__

    def counted_read(path, **kw):
        reads[Path(path).name] += 1
        return read_text(path, **kw)

    def counted_from_rows(cls, rows, *, name="hierarchy"):
        parses[name] += 1
        return from_rows(cls, rows, name=name)

    monkeypatch.setattr(hierarchy_files, "read_text", counted_read)
    monkeypatch.setattr(Hierarchy, "from_rows", classmethod(counted_from_rows))
    return reads, parses


def test_each_hierarchy_file_is_read_and_parsed_once_per_run(monkeypatch, tmp_path, capsys):
    reads, parses = _counting(monkeypatch)
    code = main(["rt", str(SAMPLE / "clinic.csv"), "--items-column", "diagnoses", "--qi", "age,sex,race,zip3",
                 "--categorical", "race", "--hierarchy", f"zip3={SAMPLE / 'zip3_hierarchy.csv'}",
                 "--item-hierarchy", str(SAMPLE / "icd9_hierarchy.txt"), "--k", "10", "--m", "2",
                 "--out", str(tmp_path / "ANON.csv"), "--quiet"])
    assert code == 0
    assert "Independent check passed" in capsys.readouterr().out  # the check ran, on the run's trees
    assert reads == {"zip3_hierarchy.csv": 1, "icd9_hierarchy.txt": 1}
    assert parses == {"zip3": 1, "items": 1}


def test_the_checks_label_index_is_the_rows_walk():
    """_label_leaves (from leaf spans) gives what walking every leaf's row gives, on trees with repeated labels."""
    import random

    from anonstudio.data.hierarchy import HierarchyError
    from anonstudio.data.io import load_hierarchy
    from anonstudio.verifiers.rt import _label_leaves

    def by_rows(h):
        under: dict[str, set[str]] = {}
        for row in h.rows():
            for label in row:
                under.setdefault(label, set()).add(row[0])
        return under, len(h.rows())

    trees = [load_hierarchy(SAMPLE / "icd9_hierarchy.txt"), load_hierarchy(SAMPLE / "zip3_hierarchy.csv")]
    rng = random.Random(3)
    while len(trees) < 300:
        rows = [[f"{rng.choice('abcde')}{rng.randint(0, 3)}" for _ in range(rng.randint(1, 4))]
                for _ in range(rng.randint(1, 6))]
        try:
            trees.append(Hierarchy.from_rows(rows))
        except HierarchyError:
            continue
    assert sum(len(t._by_label) < t.n_nodes for t in trees) > 20  # labels shared by several nodes occur
    for tree in trees:
        assert _label_leaves(tree) == by_rows(tree)

"""``run.release`` is the CLI's ``--out`` file as an object, converted in memory: no temporary file.

For every family that publishes a release, the object is compared with the file ``anonstudio-cli <family> --out``
writes for the same parameters: a table's frame written as CSV is the file, byte for byte; set-valued data has
the file's records, item for item.
"""
from __future__ import annotations

import tempfile

import pytest

import anonstudio as an
from anonstudio.data.io import load_transactions
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.contract import MethodSpec, NoRelease

from .test_families import SPECS, _cli, _flags, _settings

RELEASING = sorted(n for n, s in SPECS.items() if any(e.key == "release" and e.kind == "release" for e in s.exports))


def test_every_family_with_a_release_builds_its_object():
    """A family whose exports include a release overrides ``MethodSpec.release_object``; the others do not."""
    builds = {n for n, s in SPECS.items() if type(s).release_object is not MethodSpec.release_object}
    assert RELEASING and set(RELEASING) == builds


def test_a_family_without_a_release_says_so():
    spec = next(s for n, s in SPECS.items() if n not in RELEASING)
    with pytest.raises(NoRelease, match="makes no release"):
        spec.release_object(None)


@pytest.fixture
def no_files(monkeypatch):
    """Make any temporary file or atomic write fail while the release is built."""
    def refuse(*args, **kwargs):
        raise AssertionError("the release was written to a file")

    def forbid() -> None:
        for name in ("TemporaryDirectory", "NamedTemporaryFile", "TemporaryFile", "mkstemp", "mkdtemp",
                     "SpooledTemporaryFile"):
            monkeypatch.setattr(tempfile, name, refuse)
        monkeypatch.setattr("anonstudio.data.io.atomic.atomic_write", refuse)
        monkeypatch.setattr("anonstudio.data.io.atomic.OutputSet.path_for", refuse)

    return forbid


@pytest.mark.parametrize("name", RELEASING)
def test_the_release_object_is_the_clis_release_file(name, tmp_path, no_files):
    spec = SPECS[name]
    sample, values = _settings(name)
    run = getattr(an, name.replace("-", "_"))(an.sample(sample), **values, progress=False)
    export = next(e for e in spec.exports if e.key == "release")
    assert export.offered(run.method_run), f"{name}'s example publishes nothing to compare"
    out = tmp_path / f"release{'.csv' if '.csv' in export.extensions else export.extensions[0]}"
    assert _cli([name, sample, *_flags(spec, values), "--out", str(out), "--allow-unverified", "--quiet"]) in (0, 3)
    assert out.is_file()
    no_files()
    release = run.release_data(allow_unverified=True)
    if isinstance(release, TransactionData):
        saved = load_transactions(out)
        assert release.n_records == saved.n_records > 0
        assert [release.record_labels(u) for u in range(release.n_records)] == \
               [sorted(saved.record_labels(u), key=release.vocab.index) for u in range(saved.n_records)]
        assert set(release.vocab) == set(saved.vocab)
        assert release.name == f"{run.data.name} ({name} release)"
    else:
        assert type(release).__name__ == "DataFrame" and len(release) > 0
        assert release.to_csv(index=False, lineterminator="\n") == out.read_text(encoding="utf-8")
    if run.method_run.guarantee_met:
        assert run.release is not None


def test_a_table_release_is_typed_as_the_csv_reader_types_its_file(tmp_path):
    from anonstudio.data.io import load_table

    adult = an.sample("adult")
    people = an.open(adult.frame.head(2000), roles={c: r.value for c, r in adult.roles.items()}, name="adult-2000")
    run = an.group_anonymize(people, k=5, scheme="anatomy", progress=False)
    run.save(out=tmp_path / "release.csv")
    release = run.release
    read = load_table(tmp_path / "release.csv", format="csv-table", header=True).frame
    assert release["gid"].dtype == "int64" and release["age"].dtype == read["age"].dtype == "int64"
    assert release.equals(read)

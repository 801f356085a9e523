"""Paper 004 (Boreale et al.), Table I: the 8-row example and its two anonymized forms."""
from __future__ import annotations

import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.methods.group_anonymize.algorithm import anonymize
from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams
from anonstudio.methods.group_anonymize.published_csv import import_release
from anonstudio.verifiers.group_anonymize import verify_group_release


def _cell_sets(release, column):
    return [set(release.cell_values(column, g)) for g in range(release.n_groups)]


def test_table1b_cells_parse_as_published(table1, ga_data):
    release = import_release(ga_data / "table1b_local_recoding.csv", table1, id_column="ID")
    assert release.scheme == "horizontal"
    assert release.qi == ["Nat", "ZIP"] and release.sensitive == "Dis"
    assert release.row_group.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert _cell_sets(release, "Nat") == [{"Malaysia", "Japan"}, {"Japan"}, {"China", "Japan"}, {"India", "Malaysia"}]
    # 4550* is a prefix mask: over the cleartext ZIP domain it means 45501 and 45502.
    assert _cell_sets(release, "ZIP") == [{45501, 45502}, {55503, 55504}, {66601}, {77701}]
    assert release.labels["ZIP"] == ["4550*", "5550*", "66601", "77701"]


def test_table1b_is_2_anonymous_and_2_diverse(table1, ga_data):
    release = import_release(ga_data / "table1b_local_recoding.csv", table1, id_column="ID")
    report = verify_group_release(table1, release, k=2, l=2)
    assert report.ok and report.n_groups == 4 and report.size_histogram == {2: 4}
    assert not verify_group_release(table1, release, k=3).ok
    assert not verify_group_release(table1, release, l=3).ok


def test_table1b_without_group_ids_groups_identical_cells(table1, ga_data):
    with_gid = import_release(ga_data / "table1b_local_recoding.csv", table1, id_column="ID")
    without = import_release(ga_data / "table1b_no_gid.csv", table1, id_column="ID")
    assert without.same_as(with_gid)


def test_table1b_with_domain_file_widens_masks(table1, ga_data, tmp_path):
    domain = tmp_path / "zip_domain.csv"
    domain.write_text("column,value\n" + "".join(f"ZIP,{z}\n" for z in
                      [*range(45500, 45510), 55503, 55504, 66601, 77701]))
    release = import_release(ga_data / "table1b_local_recoding.csv", table1, id_column="ID", domain_path=domain)
    # The paper reads 4550* as {45500, ..., 45509}.
    assert _cell_sets(release, "ZIP")[0] == set(range(45500, 45510))
    assert verify_group_release(table1, release, k=2, l=2).ok


def test_table1c_anatomy_reads_as_vertical(table1, ga_data):
    release = import_release(ga_data / "table1c_anatomy.csv", table1, scheme="vertical")
    assert release.scheme == "vertical"
    assert release.row_group.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert _cell_sets(release, "Nat")[0] == {"Malaysia", "Japan"}
    assert verify_group_release(table1, release, k=2, l=2).ok


def test_table1c_with_a_wrong_disease_is_rejected(table1, ga_data, tmp_path):
    text = (ga_data / "table1c_anatomy.csv").read_text().replace("3,Japan,66601,HIV", "3,Japan,66601,Flu")
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    with pytest.raises(DataFormatError, match=r"line 6: group 3 publishes sensitive values \{Diabetes\|Flu\}"):
        import_release(bad, table1, scheme="vertical")


@pytest.mark.parametrize("scheme", ["mondrian", "global", "anatomy"])
def test_anonymizers_on_table1a(table1, scheme):
    params = GroupAnonymizeParams(scheme=scheme, k=2, l=2, qi=("Nat", "ZIP"), sensitive="Dis")
    result = anonymize(table1, params)
    assert result.complete
    report = verify_group_release(table1, result.release, k=2, l=2)
    assert report.ok, report.lines()
    if scheme == "anatomy":
        # Like Table I(c): four groups of two rows, each with two diseases.
        assert result.release.scheme == "vertical" and report.size_histogram == {2: 4}


def test_mondrian_on_table1a_groups(table1):
    """Worked by hand with the strict median rule.

    Both attributes have normalized width 1; the tie goes to Nat (column order).
    Nat sorted: China 1, India 1, Japan 4, Malaysia 2 rows; the cut closest to
    half (4 rows) is after India (2 rows; after Japan would leave 6, equally
    far, and the first wins): {5, 7} | {1, 2, 3, 4, 6, 8}. In the right part
    ZIP is widest (1 vs 1/3); six distinct ZIPs, cut after the third:
    {1, 2, 3} | {4, 6, 8}. No part of 3 or fewer rows can be cut with k = 2.
    """
    release = anonymize(table1, GroupAnonymizeParams(scheme="mondrian", k=2, l=2, qi=("Nat", "ZIP"),
                                                     sensitive="Dis")).release
    assert release.row_group.tolist() == [0, 0, 0, 1, 2, 1, 2, 1]
    assert release.labels["Nat"] == ["{Japan|Malaysia}", "{Japan|Malaysia}", "{China|India}"]
    assert release.labels["ZIP"] == ["[45501-55503]", "[55504-77701]", "[66601-77701]"]


def test_release_codes_align_with_the_table(table1, ga_data):
    release = import_release(ga_data / "table1b_local_recoding.csv", table1, id_column="ID")
    assert release.codes(table1, "ZIP").tolist() == [0, 1, 2, 3, 4, 4, 5, 5]
    assert [release.domains["Dis"][c] for c in release.codes(table1, "Dis")] == table1.frame["Dis"].tolist()
    other = table1.frame.copy()
    other.loc[2, "Nat"] = "Peru"
    from anonstudio.data.table import Table
    with pytest.raises(ValueError, match="row 3: Nat = 'Peru'"):
        release.codes(Table(other), "Nat")

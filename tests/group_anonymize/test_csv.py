"""Published-table CSV: export -> import round trips and contradictory input."""
from __future__ import annotations

import pandas as pd
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.table import Role, Table
from anonstudio.methods.group_anonymize.algorithm import anonymize
from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams
from anonstudio.methods.group_anonymize.published_csv import export_release, import_release
from anonstudio.verifiers.group_anonymize import verify_group_release
from tests.group_anonymize.helpers import ADULT_QI, random_table


@pytest.mark.parametrize("scheme", ["mondrian", "global", "anatomy"])
@pytest.mark.parametrize("seed", range(4))
def test_round_trip_random(tmp_path, scheme, seed):
    table = random_table(seed, n=60)
    release = anonymize(table, GroupAnonymizeParams(scheme=scheme, k=3, l=3, qi=("age", "zip", "sex", "job"),
                                               sensitive="disease")).release
    path = tmp_path / "out.csv"
    export_release(release, table, path)
    back = import_release(path, table, sensitive="disease")
    assert back.same_as(release)


@pytest.mark.parametrize("scheme", ["mondrian", "global", "anatomy"])
def test_round_trip_adult_with_shuffled_id_lines(tmp_path, adult2000, scheme):
    table = Table(adult2000.frame.assign(pid=[f"p{i:05d}" for i in range(adult2000.n_rows)]),
                  {**adult2000.roles, "pid": Role.IDENTIFIER})
    release = anonymize(table, GroupAnonymizeParams(scheme=scheme, k=4, l=4, qi=ADULT_QI,
                                                    sensitive="occupation")).release
    path = tmp_path / "out.csv"
    export_release(release, table, path, id_column="pid")
    lines = path.read_text().splitlines()
    shuffled = tmp_path / "shuffled.csv"
    shuffled.write_text("\n".join([lines[0], *reversed(lines[1:])]) + "\n")
    back = import_release(shuffled, table, id_column="pid")
    assert back.same_as(release)
    assert verify_group_release(table, back, k=4, l=4).ok


def test_export_writes_the_convention(tmp_path, table1):
    release = anonymize(table1, GroupAnonymizeParams(scheme="mondrian", k=2, l=2, qi=("Nat", "ZIP"),
                                                     sensitive="Dis")).release
    path = tmp_path / "t.csv"
    export_release(release, table1, path, id_column="ID")
    assert path.read_text().splitlines()[:3] == [
        "ID,gid,Nat,ZIP,Dis",
        "1,1,{Japan|Malaysia},[45501-55503],Heart",
        "2,1,{Japan|Malaysia},[45501-55503],Flu",
    ]
    anatomy = anonymize(table1, GroupAnonymizeParams(scheme="anatomy", k=2, l=2, qi=("Nat", "ZIP"),
                                                     sensitive="Dis")).release
    export_release(anatomy, table1, path)
    rows = pd.read_csv(path)
    # The sensitive column holds each group's multiset, the same on every line of the group.
    assert rows.groupby("gid")["Dis"].nunique().eq(1).all()
    assert rows["Dis"].str.startswith("{").all()


def _write(tmp_path, text):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    return path


HEADER = "gid,ID,Nat,ZIP,Dis\n"
GOOD = [
    "1,1,{Malaysia|Japan},4550*,Heart",
    "1,2,{Malaysia|Japan},4550*,Flu",
    "2,3,Japan,5550*,Flu",
    "2,4,Japan,5550*,Stomach",
    "3,5,{China|Japan},66601,HIV",
    "3,6,{China|Japan},66601,Diabetes",
    "4,7,{India|Malaysia},77701,Flu",
    "4,8,{India|Malaysia},77701,Heart",
]


def _variant(line_no, new):
    lines = list(GOOD)
    lines[line_no - 2] = new
    return HEADER + "\n".join(lines) + "\n"


@pytest.mark.parametrize("line,new,match", [
    (4, "2,3,Japan,4550*,Flu",
     r"line 4: cleartext row 3 has ZIP = '55503', which is not in the published cell '4550\*'"),
    (5, "2,4,China,5550*,Stomach", r"line 5: cleartext row 4 has Nat = 'Japan'"),
    (3, "1,2,{Malaysia|Japan},[45501-55503],Flu",
     r"line 3: column 'ZIP': cell '\[45501-55503\]' differs from '4550\*'"),
    (6, "3,5,{China|Japan},[66601-66602],Flu", r"line 6: sensitive value 'Flu' but cleartext row 5 has 'HIV'"),
    (7, "3,6,{China|Japan},9999*,Diabetes", r"line 7: column 'ZIP': no domain value matches the mask 9999\*"),
    (8, "4,7,{India|Malaysia},[77701-77700],Flu", r"line 8: column 'ZIP': range \[77701-77700\] has its ends reversed"),
    (9, "4,8,{Indonesia|Laos},77701,Heart", r"line 9: column 'Nat': no value of the set"),
    (2, ",1,{Malaysia|Japan},4550*,Heart", r"line 2: empty group id"),
])
def test_contradictions_name_the_line(tmp_path, table1, line, new, match):
    with pytest.raises(DataFormatError, match=match):
        import_release(_write(tmp_path, _variant(line, new)), table1, id_column="ID")


def test_ids_and_row_counts(tmp_path, table1):
    with pytest.raises(DataFormatError, match=r"line 5: id '9' names no cleartext row"):
        import_release(_write(tmp_path, _variant(5, "2,9,Japan,5550*,Stomach")), table1, id_column="ID")
    with pytest.raises(DataFormatError, match=r"line 5: id '3' already appeared on line 4"):
        import_release(_write(tmp_path, _variant(5, "2,3,Japan,5550*,Flu")), table1, id_column="ID")
    short = HEADER + "\n".join(GOOD[:-1]) + "\n"
    with pytest.raises(DataFormatError, match=r"cleartext row 8 \(id '8'\) has no line"):
        import_release(_write(tmp_path, short), table1, id_column="ID")
    with pytest.raises(DataFormatError, match=r"has 7 rows but the cleartext table has 8; cleartext row 8 has no line"):
        import_release(_write(tmp_path, short), table1)
    long = HEADER + "\n".join(GOOD + ["4,9,India,77701,Flu"]) + "\n"
    with pytest.raises(DataFormatError, match=r"line 10: line beyond the cleartext table's 8 rows"):
        import_release(_write(tmp_path, long), table1)
    with pytest.raises(DataFormatError, match=r"line 4: 4 fields but the header has 5"):
        import_release(_write(tmp_path, _variant(4, "2,3,Japan,5550*")), table1)
    with pytest.raises(DataFormatError, match=r"line 1: no column 'Age' in the header"):
        import_release(_write(tmp_path, HEADER + "\n".join(GOOD)), table1, qi="Nat,Age")


def test_vertical_contradictions(tmp_path, table1):
    text = "gid,Nat,ZIP,Dis\n" + "\n".join([
        "1,Malaysia,45501,{Flu|Heart}", "1,Japan,45502,{Flu|Heart}",
        "2,Japan,55503,{Flu|Stomach}", "2,Japan,55504,{Flu|Stomach}",
        "3,China,66601,{Diabetes|HIV}", "3,Japan,66601,{Diabetes|HIV}",
        "4,India,77701,{Flu|Heart}", "4,Malaysia,77701,{Flu|Heart}",
    ]) + "\n"
    assert import_release(_write(tmp_path, text), table1).scheme == "vertical"
    bad = text.replace("4,Malaysia,77701,{Flu|Heart}", "4,Malaysia,77701,{Flu|Flu}")
    with pytest.raises(DataFormatError,
                       match=r"line 9: sensitive multiset '\{Flu\|Flu\}' differs from '\{Flu\|Heart\}' on line 8"):
        import_release(_write(tmp_path, bad), table1)
    swapped = text.replace("3,China,66601", "3,India,66601")
    with pytest.raises(DataFormatError, match=r"line 6: group 3 publishes quasi-identifier tuples"):
        import_release(_write(tmp_path, swapped), table1)
    general = text.replace("2,Japan,55503,", "2,Japan,5550*,")
    with pytest.raises(DataFormatError, match=r"line 4: column 'ZIP': a vertical \(Anatomy\) file publishes exact"):
        import_release(_write(tmp_path, general), table1)


def test_domain_file_must_cover_the_cleartext(tmp_path, table1, ga_data):
    domain = tmp_path / "d.csv"
    domain.write_text("column,value\nZIP,45501\n")
    with pytest.raises(DataFormatError, match="d.csv: column 'ZIP' lacks the cleartext value '45502'"):
        import_release(ga_data / "table1b_local_recoding.csv", table1, id_column="ID", domain_path=domain)


def test_failed_export_leaves_existing_file(tmp_path, table1):
    path = tmp_path / "keep.csv"
    path.write_text("old\n")
    release = anonymize(table1, GroupAnonymizeParams(scheme="mondrian", k=2, qi=("Nat", "ZIP"),
                                                     sensitive="Dis")).release
    with pytest.raises(ValueError):
        export_release(release, Table(table1.frame.head(3)), path)
    assert path.read_text() == "old\n"


@pytest.mark.parametrize("scheme", ["mondrian", "global"])
def test_round_trip_negative_and_float_columns(tmp_path, scheme):
    import numpy as np

    rng = np.random.default_rng(5)
    n = 80
    frame = pd.DataFrame({
        "temp": rng.integers(-20, 15, n),
        "score": np.round(rng.normal(0.0, 2.0, n), 2),
        "city": rng.choice(["Rome", "Oslo", "Lima"], n),
        "disease": rng.choice(["a", "b", "c", "d"], n),
    })
    table = Table(frame, {"disease": Role.SENSITIVE})
    release = anonymize(table, GroupAnonymizeParams(scheme=scheme, k=4, l=2, qi=("temp", "score", "city"),
                                               sensitive="disease")).release
    assert verify_group_release(table, release, k=4, l=2).ok
    path = tmp_path / "neg.csv"
    export_release(release, table, path)
    text = path.read_text()
    if scheme == "mondrian":
        assert "[-" in text  # negative range ends are written and read back
    back = import_release(path, table)
    assert back.same_as(release)


def test_imported_labels_are_written_back(tmp_path, table1, ga_data):
    release = import_release(ga_data / "table1b_local_recoding.csv", table1, id_column="ID")
    path = tmp_path / "again.csv"
    export_release(release, table1, path, id_column="ID")
    original = pd.read_csv(ga_data / "table1b_local_recoding.csv", dtype=str)
    again = pd.read_csv(path, dtype=str)[list(original.columns)]
    pd.testing.assert_frame_equal(original, again)


def test_round_trip_with_suppressed_group(tmp_path):
    table = random_table(103, n=50)
    result = anonymize(table, GroupAnonymizeParams(scheme="global", k=3, l=2, qi=("age", "zip", "sex", "job"),
                                                   sensitive="disease",
                                              max_suppression=0.2))
    assert result.info["suppressed_rows"] > 0
    path = tmp_path / "s.csv"
    export_release(result.release, table, path)
    assert import_release(path, table).same_as(result.release)


@pytest.mark.parametrize("scheme", ["mondrian", "anatomy"])
def test_export_quotes_cells_as_the_csv_module_does(tmp_path, scheme):
    """The file is csv.writer's writing of release_rows, byte for byte, for cells needing quotes too."""
    import csv
    import io

    import numpy as np

    from anonstudio.methods.group_anonymize.published_csv import release_rows

    rng = np.random.default_rng(11)
    n = 60
    frame = pd.DataFrame({
        "age": rng.integers(20, 60, n),
        "city": rng.choice(["Rome, Italy", 'Oslo "N"', " Lima", "Quito"], n),
        "disease": rng.choice(["flu", "a,b", 'say "x"', "line\nbreak", "cold"], n),
    })
    table = Table(frame, {"disease": Role.SENSITIVE})
    release = anonymize(table, GroupAnonymizeParams(scheme=scheme, k=3, l=2, qi=("age", "city"),
                                                    sensitive="disease")).release
    path = tmp_path / "quoted.csv"
    export_release(release, table, path, id_column="row")
    expected = io.StringIO(newline="")
    writer = csv.writer(expected, lineterminator="\n")
    header, rows = release_rows(release, table, id_column="row")
    writer.writerow(header)
    writer.writerows(rows)
    assert path.read_bytes() == expected.getvalue().encode("utf-8")
    assert '"' in expected.getvalue()  # some cells were quoted

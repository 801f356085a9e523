"""Documents (JSON, HTML, XML, PDF, a plain zip) and header-only files are refused as datasets, by content."""
from __future__ import annotations

import zipfile

import pytest

from anonstudio.cli import main
from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_file, load_table
from anonstudio.data.io.documents import document_kind

from .test_internal_errors import _one_error

DOCUMENTS = {
    "json": ('{"k": 5, "runs": [1, 2, 3]}\n', "a JSON document"),
    "json-list": ('[{"a": 1}, {"a": 2}]\n', "a JSON document"),
    "json-lines": ('{"a": 1}\n{"a": 2}\n', "a JSON document"),
    "html": ("<!DOCTYPE html>\n<html><head><title>r</title></head><body><p>1,2</p></body></html>\n",
             "an HTML page"),
    "html-bare": ("\ufeff  <html>\n<body>a,b\n1,2</body></html>\n", "an HTML page"),
    "xml": ('<?xml version="1.0"?>\n<rows><row a="1"/></rows>\n', "an XML document"),
    "xml-bare": ("<rows>\n<row>1</row>\n</rows>\n", "an XML document"),
    "pdf": ("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n", "a PDF document"),
}


def _document(tmp_path, key: str, suffix: str):
    path = tmp_path / f"{key}{suffix}"
    path.write_text(DOCUMENTS[key][0], encoding="utf-8")
    return path


@pytest.mark.parametrize("key", sorted(DOCUMENTS))
@pytest.mark.parametrize("suffix", [".csv", ".dat", ".txt"])
def test_a_document_is_not_a_dataset_whatever_its_name(tmp_path, capsys, key, suffix):
    path = _document(tmp_path, key, suffix)
    assert main(["info", str(path)]) == 2
    _one_error(capsys, path.name, DOCUMENTS[key][1], "not a dataset")


@pytest.mark.parametrize("argv", [["kmanon", "--k", "2"], ["rho"], ["rt", "--qi", "a"], ["group-anonymize", "--k", "2"],
                                  ["convert"]])
def test_every_command_refuses_a_document(tmp_path, capsys, argv):
    path = _document(tmp_path, "html", ".csv")
    extra = [str(tmp_path / "out.csv")] if argv == ["convert"] else ["--quiet"]
    assert main([argv[0], str(path), *argv[1:], *extra]) == 2
    _one_error(capsys, "html.csv", "an HTML page", "not a dataset")
    assert not (tmp_path / "out.csv").exists()


def test_a_format_given_by_name_does_not_let_a_document_through(tmp_path):
    path = _document(tmp_path, "json", ".csv")
    with pytest.raises(DataFormatError, match="is a JSON document, not a dataset"):
        load_table(path, format="csv-table")
    with pytest.raises(DataFormatError, match="is a JSON document, not a dataset"):
        load_file(path, format="fimi")


def test_a_zip_that_is_no_workbook(tmp_path, capsys):
    path = tmp_path / "data.xlsx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data.csv", "a,b\n1,2\n")
    assert main(["info", str(path)]) == 2
    _one_error(capsys, "data.xlsx", "a zip archive", "not a dataset")


@pytest.mark.parametrize("text", ["[19-22],M,{a|b}\n[23-30],F,c\n", "{a|b} c d\ne f\n", "[1, 2],3\n[4, 5],6\n",
                                  "<=50K,1\n>50K,2\n", "1 2 3\n4 5\n"])
def test_published_cells_that_start_like_json_or_markup_are_data(tmp_path, text):
    path = tmp_path / "release.csv"
    path.write_bytes(text.encode())
    assert document_kind(path, path.read_bytes()) is None


@pytest.mark.parametrize("content", ["age,sex,items\n", "age,sex,items\n\n\n", "a\tb\tc\n", '"x","y"\n',
                                     # any separator the sniffer accepts: ';' once read as one record of a;b;c
                                     "a;b;c\n", "name;age;city\r\n", "x|y|z\n"])
@pytest.mark.parametrize("command", [["info"], ["rt", "--qi", "age", "--quiet"], ["kmanon", "--k", "2", "--quiet"],
                                     ["group-anonymize", "--k", "2", "--quiet"]])
def test_a_header_alone_is_not_a_dataset(tmp_path, capsys, content, command):
    path = tmp_path / "h.csv"
    path.write_text(content)
    assert main([command[0], str(path), *command[1:]]) == 2
    _one_error(capsys, "h.csv, line 1", "only a header line", "not a dataset", "--no-header")


def test_a_header_and_one_row_is_a_table(tmp_path, capsys):
    path = tmp_path / "one.csv"
    path.write_text("age,sex\n30,M\n")
    assert main(["info", str(path)]) == 0
    assert "rows: 1" in capsys.readouterr().out
    # The same line said to be data is a one-row table.
    header = tmp_path / "h.csv"
    header.write_text("age,sex\n")
    assert main(["info", str(header), "--no-header"]) == 0
    assert "rows: 1" in capsys.readouterr().out


def test_a_semicolon_line_said_to_be_data_is_one_record(tmp_path, capsys):
    path = tmp_path / "h.txt"
    path.write_text("a;b;c\n")
    assert main(["info", str(path)]) == 2
    _one_error(capsys, "h.txt, line 1", "only a header line", "--no-header")
    assert main(["info", str(path), "--no-header"]) == 0
    assert "records: 1" in capsys.readouterr().out

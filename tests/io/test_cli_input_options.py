"""CLI input handling: --encoding for files that are not UTF-8, and output closed early (| head)."""
import subprocess
import sys

import pytest

from anonstudio.cli import main
from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_transactions

ADVICE = "save it as UTF-8, e.g. with anonstudio-cli convert --encoding latin-1 IN OUT"


@pytest.fixture
def latin1_csv(tmp_path):
    path = tmp_path / "words.csv"
    path.write_bytes("record,item\n1,caf\xe9\n1,th\xe9\n2,caf\xe9\n".encode("latin-1"))
    return path


def test_encoding_error_suggests_an_existing_option(latin1_csv):
    with pytest.raises(DataFormatError) as info:
        load_transactions(latin1_csv)
    assert str(info.value) == f"words.csv, line 2: not UTF-8 text (byte 0xe9); {ADVICE}"


def test_info_with_encoding(latin1_csv, capsys):
    assert main(["info", str(latin1_csv)]) == 2
    assert capsys.readouterr().err == \
        f"anonstudio-cli info: error: words.csv, line 2: not UTF-8 text (byte 0xe9); {ADVICE}\n"
    assert main(["info", str(latin1_csv), "--encoding", "latin-1"]) == 0
    out = capsys.readouterr().out
    assert "records: 2" in out and "café" in out
    assert main(["info", str(latin1_csv), "--encoding", "klingon"]) == 2
    assert "words.csv: unknown encoding 'klingon'" in capsys.readouterr().err


def test_convert_with_encoding_writes_utf8(latin1_csv, tmp_path, capsys):
    out = tmp_path / "words-utf8.csv"
    assert main(["convert", "--encoding", "latin-1", str(latin1_csv), str(out)]) == 0
    assert "café" in out.read_text(encoding="utf-8")
    assert load_transactions(out).vocab == ("café", "thé")
    # A forced input format takes the encoding too.
    assert main(["convert", "--encoding", "cp1252", "--from", "csv-long", str(latin1_csv), str(out)]) == 0


def test_encoding_is_ignored_for_parquet(tmp_path):
    from anonstudio.data.io import save_transactions
    text = tmp_path / "small.dat"
    text.write_text("1 2\n3\n")
    path = tmp_path / "d.parquet"
    save_transactions(load_transactions(text), path)
    assert main(["info", str(path), "--encoding", "latin-1"]) == 0  # Parquet stores its own text encoding


@pytest.mark.slow
def test_output_closed_early_is_not_an_error(tmp_path):
    path = tmp_path / "big.dat"
    path.write_text("".join(f"{i} {i + 1} {i + 2}\n" for i in range(0, 3000, 3)))
    proc = subprocess.Popen([sys.executable, "-m", "anonstudio.cli", "info", str(path), "--top", "500"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # like `| head` exiting before anonstudio-cli writes
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err, err


@pytest.mark.slow
def test_json_is_written_even_if_the_output_is_closed_early(tmp_path):
    path = tmp_path / "small.dat"
    path.write_text("1 2\n3\n")
    out = tmp_path / "info.json"
    proc = subprocess.Popen([sys.executable, "-m", "anonstudio.cli", "info", str(path), "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert '"records": 2' in out.read_text()

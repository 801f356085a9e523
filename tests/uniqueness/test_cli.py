"""``anonstudio-cli uniqueness`` and ``attack``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from anonstudio.cli import main
from tests.uniqueness.helpers import BASKETS_OMEGA3

KEYS = ("m", "uniqueness", "ci_low", "ci_high", "method", "samples", "seconds")


def table_rows(lines: list[str]) -> list[str]:
    """The rows of the first curve table the command printed (after its header line)."""
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["m", "uniqueness"])
    rows = []
    for line in lines[head + 1:]:
        if not line.split() or not line.split()[0].isdigit():
            break
        rows.append(line)
    return rows


def test_uniqueness_json_and_table(data_dir, tmp_path, capsys):
    out = tmp_path / "u.json"
    code = main(["uniqueness", str(data_dir / "uniqueness" / "baskets.dat"), "--min-m", "2", "--m", "4",
                 "--measure", "itemset", "--method", "exact", "--json", str(out), "--quiet"])
    assert code == 0
    doc = json.loads(out.read_text())
    assert all(len(doc[k]) == 3 for k in KEYS)
    assert doc["m"] == [2, 3, 4] and doc["method"] == ["exact"] * 3
    assert doc["uniqueness"][1] == doc["ci_low"][1] == doc["ci_high"][1] > 0
    lines = capsys.readouterr().out.splitlines()
    # The contract's report: what was measured, then the curve's table, which shows every measure once (no
    # "uniqueness_m2 = ..." lines repeating it; the JSON has them).
    top = max(zip(doc["uniqueness"], doc["m"]))
    assert lines[0] == f"Measured: {top[0] * 100:.1f} % of itemsets unique at m = {top[1]}."
    assert lines[1].startswith("itemset uniqueness of baskets.dat (2,000 records)")
    rows = table_rows(lines)
    assert [row.split()[0] for row in rows] == ["2", "3", "4"]
    assert [float(row.split()[1]) for row in rows] == pytest.approx(doc["uniqueness"], abs=5e-5)
    assert lines[-1] == rows[-1] and not any(" = " in line for line in lines[1:])


def test_uniqueness_mcmc_and_person(data_dir, tmp_path):
    out = tmp_path / "p.json"
    path = str(data_dir / "uniqueness" / "baskets.dat")
    assert main(["uniqueness", path, "--m", "3", "--method", "mcmc", "--epsilon", "0.05", "--delta", "0.05",
                 "--seed", "1", "--json", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    assert doc["method"] == ["mcmc"] * 3 and all(738 <= s <= 8 * 738 for s in doc["samples"])
    assert all(lo <= u <= hi for lo, u, hi in zip(doc["ci_low"], doc["uniqueness"], doc["ci_high"]))
    assert main(["uniqueness", path, "--m", "2", "--person", "--json", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["kind"] == "person"
    assert main(["uniqueness", path, "--m", "2", "--json", str(out), "--quiet"]) == 0
    both = json.loads(out.read_text())
    assert both["kind"] == "itemset" and both["person"]["kind"] == "person" and both["measure"] == "both"


def test_uniqueness_user_errors(data_dir, tmp_path, capsys):
    path = str(data_dir / "uniqueness" / "baskets.dat")
    assert main(["uniqueness", path, "--m", "3-1"]) == 2
    assert main(["uniqueness", str(tmp_path / "missing.dat")]) == 2
    assert main(["uniqueness", path, "--epsilon", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 3


def test_attack_prints_trace(data_dir, tmp_path, capsys):
    out = tmp_path / "a.json"
    path = str(data_dir / "uniqueness" / "baskets.dat")
    assert main(["attack", path, "--random", "--min-items", "6", "--order", "rarest", "--seed", "2",
                 "--json", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("target: record") and "reveal" in lines[1]
    doc = json.loads(out.read_text())
    assert len(doc["matches"]) == len(lines) - 2
    assert doc["singled_out"] == (doc["matches"][-1] == 1)
    assert lines[0].startswith(f"target: record {doc['record']} ") and doc["record"] == doc["index"] + 1
    assert main(["attack", path, "--record", "99999"]) == 2
    assert main(["attack", path, "--person", "99999"]) == 2  # the old spelling still works


def test_attack_numbers_records_from_1_and_the_old_spellings_count_from_0(data_dir, tmp_path, capsys):
    path = data_dir / "kmanon" / "table1.sets.csv"  # Table I of the paper: record 7 = {LA, Seattle, NY, Boston}
    out = tmp_path / "a.json"
    assert main(["attack", str(path), "--record", "7", "--order", "rarest", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].startswith("target: record 7 (4 items)") and captured.err == ""
    assert lines[-2].endswith("-> records 7") and lines[-1] == "singled out after 2 of 4 items"
    doc = json.loads(out.read_text())
    assert (doc["record"], doc["index"]) == (7, 6) and doc["match_records"][-1] == [7]
    for old in ("--record-index", "--person"):
        assert main(["attack", str(path), old, "6", "--order", "rarest"]) == 0
        captured = capsys.readouterr()
        assert captured.out.splitlines() == lines
        assert captured.err.strip() == (f"anonstudio-cli attack: note: {old} 6 counts records from 0 and is "
                                        "deprecated; it is --record 7 (records are numbered from 1)")
    assert main(["attack", str(path), "--record", "0"]) == 2
    assert main(["attack", str(path), "--record", "8"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith("error: --record counts records from 1 (the first record is 1; got 0)")
    assert err[1].endswith("error: --record 8 is beyond the 7 records (1..7)")


def test_cli_errors_name_the_flag_not_the_gui_label(data_dir, capsys):
    path = str(data_dir / "uniqueness" / "baskets.dat")
    assert main(["uniqueness", path, "--epsilon", "0", "--quiet"]) == 2
    assert main(["uniqueness", path, "--delta", "0.9", "--quiet"]) == 2
    assert main(["uniqueness", path, "--min-m", "5", "--m", "5", "--method", "exact", "--max-memory", "0.001",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith("error: --epsilon must be at least 0.001 (got 0)")
    assert err[1].endswith("error: --delta must be at most 0.5 (got 0.9)")
    assert "exact counting of m=5 needs ~" in err[2] and "mcmc" in err[2]
    assert not any("ε" in line or "δ" in line for line in err)


def test_table_marks_missed_precision_with_a_footnote(data_dir, tmp_path, capsys):
    out = tmp_path / "u.json"
    assert main(["uniqueness", str(data_dir / "uniqueness" / "baskets.dat"), "--min-m", "2", "--m", "4",
                 "--measure", "itemset", "--method", "mcmc", "--epsilon", "0.05", "--delta", "0.05",
                 "--max-sample-factor", "1", "--json", str(out), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    doc = json.loads(out.read_text())
    missed = [m for m, ok in zip(doc["m"], doc["precision_met"]) if not ok]
    assert missed
    rows = {int(line.split()[0]): line for line in table_rows(lines)}
    for m in doc["m"]:
        assert ("*" in rows[m]) == (m in missed)
    notes = [line for line in lines if line.startswith("* m=")]
    assert [int(n.split()[1][2:-1]) for n in notes] == missed
    assert all("precision not reached" in n for n in notes)


def test_exact_rows_show_itemsets_and_no_samples(data_dir, capsys):
    assert main(["uniqueness", str(data_dir / "uniqueness" / "baskets.dat"), "--min-m", "3", "--m", "3",
                 "--method", "exact", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.split()[:2] == ["m", "uniqueness"])
    cells = dict(zip(header.split(), table_rows(lines)[0].split()))
    assert cells["samples"] == "-" and cells["itemsets"] == f"{BASKETS_OMEGA3[0]:,}"


def test_ctrl_c_keeps_finished_rows_and_json(data_dir, tmp_path, capsys, monkeypatch):
    import os
    import signal

    from anonstudio.cli.progress import TqdmProgress

    real_partial = TqdmProgress.partial

    def interrupt_after_first_m(self, result):
        real_partial(self, result)
        if result.itemset is not None and len(result.itemset.points) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, delivered to the installed handler

    monkeypatch.setattr(TqdmProgress, "partial", interrupt_after_first_m)
    before = signal.getsignal(signal.SIGINT)
    out = tmp_path / "u.json"
    code = main(["uniqueness", str(data_dir / "uniqueness" / "baskets.dat"), "--m", "4", "--method", "exact",
                 "--json", str(out), "--quiet"])
    assert code == 130
    assert signal.getsignal(signal.SIGINT) is before
    captured = capsys.readouterr()
    assert "press Ctrl-C again to abort" in captured.err
    lines = captured.out.splitlines()
    assert [row.split()[0] for row in table_rows(lines)] == ["1"]
    assert lines[1].startswith("Incomplete: cancelled before the last m")
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and doc["m"] == [1]


def test_second_ctrl_c_aborts_and_handler_is_restored():
    import signal

    import pytest

    from anonstudio.cli.progress import TqdmProgress

    before = signal.getsignal(signal.SIGINT)
    with TqdmProgress("x", disable=True) as progress:
        assert signal.getsignal(signal.SIGINT) == progress.handle_interrupt
        assert not progress.cancelled()
        progress.handle_interrupt()
        assert progress.cancelled() and progress.interrupted
        with pytest.raises(KeyboardInterrupt):
            progress.handle_interrupt()
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.slow
def test_ctrl_c_in_a_subprocess_exits_130_with_partial_json(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "u.json"
    data = Path(__file__).parents[1] / "data" / "uniqueness" / "baskets.dat"
    code = (
        "import sys, time, anonstudio.methods.uniqueness.algorithm as u\n"
        "from anonstudio.cli import main\n"
        "real = u._itemset_point\n"
        "def slow(data, m, params, progress):\n"
        "    p = real(data, m, params, progress)\n"
        "    if m == 1:\n"
        "        print('first m done', flush=True)\n"
        "        while not progress.cancelled():\n"
        "            time.sleep(0.02)\n"
        "    return p\n"
        "u._itemset_point = slow\n"
        f"sys.exit(main(['uniqueness', {str(data)!r}, '--m', '3', '--method', 'exact', '--quiet',"
        f" '--json', {str(out)!r}]))\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "first m done"
    time.sleep(0.1)
    os.kill(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert json.loads(out.read_text())["m"] == [1]
    assert "Incomplete: cancelled before the last m" in stdout

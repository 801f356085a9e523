"""Every error the studio shows ends with what to do next (gui/next_steps.py)."""
from __future__ import annotations

import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.io.record_labels import load_record_labels
from anonstudio.gui.next_steps import DEFAULT_LOAD, DEFAULT_RUN, NEXT, next_step, with_next_step


def core_error(fn) -> str:
    """The one-line message the core raises (what the dialog starts with)."""
    with pytest.raises((ValueError, OSError)) as info:
        fn()
    return str(info.value)


def test_a_labels_file_of_another_dataset_says_to_choose_this_datasets_labels(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("record,label\n" + "".join(f"{r},a\n" for r in range(1, 8)), encoding="utf-8")
    message = core_error(lambda: load_record_labels(labels, 6))
    assert "not between 1 and 6" in message
    assert "choose the labels file of this dataset" in next_step(message)


def test_a_bad_line_says_to_fix_it_or_change_how_the_file_is_read():
    message = str(DataFormatError("baskets.dat", "'x7' is not an integer item", 3))
    shown = with_next_step(message, "Load baskets.dat")
    assert shown.startswith(message + ". " + NEXT) and "\n" not in shown  # still one line
    assert "import preview" in shown


@pytest.mark.parametrize(("message", "words"), [
    ("the original has 2,000 records but the release has 1,999", "release made from this dataset"),
    ("no column 'zip' in the data; columns: age, sex", "pick one of the table's columns"),
    ("the table has 5 rows, fewer than k = 10", "lower k"),
    ("nothing is published: the loss bound cannot be met", "relax the settings"),
    ("Could not write /tmp/x.png: [Errno 28] No space left on device", "another folder"),
    ("(psycopg.OperationalError) password authentication failed for user 'x'", "File › Open database"),
])
def test_core_errors_get_the_next_step_of_their_kind(message, words):
    assert words in next_step(message)


def test_unknown_errors_get_the_default_of_a_load_or_a_run():
    assert next_step("something odd", "Load x.csv") == DEFAULT_LOAD
    assert next_step("something odd", "σ-k^m anonymity (chess)") == DEFAULT_RUN
    # A message that already says what to do is left alone.
    assert with_next_step(f"x. {NEXT} y.") == f"x. {NEXT} y."


def test_a_failed_run_says_what_to_do_in_the_callout_the_dialog_and_the_status_bar(qtbot, window, tmp_path,
                                                                                   dialogs):
    from anonstudio.gui.workbenches.nonreciprocal.workbench import NonreciprocalWorkbench

    window.datasets.load_sample("sports-example")
    qtbot.waitUntil(lambda: window.dataset is not None, timeout=10000)
    bench = window.workbench(NonreciprocalWorkbench)
    window.tabs.setCurrentWidget(bench)
    labels = tmp_path / "other-labels.csv"
    labels.write_text("record,label\n" + "".join(f"{r},a\n" for r in range(1, 8)), encoding="utf-8")
    bench.run_with(labels=labels)
    qtbot.waitUntil(lambda: bool(dialogs), timeout=10000)
    kind, title, text = dialogs[-1]
    assert kind == "critical" and "not between 1 and 6" in text
    assert f"{NEXT} Choose the labels file of this dataset" in text
    assert "What to do" in bench.callout.text() and "labels file of this dataset" in bench.callout.text()
    assert "choose the labels file of this dataset" in window.statusBar().currentMessage()

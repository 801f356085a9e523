"""The status bar's job line: a long title and status end in "…" instead of widening the window."""
from __future__ import annotations

import threading

from anonstudio.gui.jobs_dock import JobStatus


def test_a_long_job_line_is_elided_and_whole_in_its_tooltip(qtbot, runner, wait_job):
    status = JobStatus(runner)
    qtbot.addWidget(status)
    status.resize(420, 30)
    status.show()
    release = threading.Event()

    def work(progress):
        progress.set(0.5, "cell 3 of 18 (delta = 0.8, merge = rt: anonymizing: merging: 512 merges, Rum 0.41)")
        release.wait(10)
        return 1

    job = runner.submit("RT-data: demographics with item sets: compare merge heuristics", work)
    label = status.label
    qtbot.waitUntil(lambda: "cell 3 of 18" in label.text(), timeout=5000)
    # Painted text is elided when the label is next laid out.
    qtbot.waitUntil(lambda: super(type(label), label).text().endswith("…"), timeout=5000)
    assert label.text().startswith("RT-data: demographics with item sets") and "Rum 0.41" in label.text()
    assert label.toolTip() == label.text()
    assert label.minimumSizeHint().width() <= 130 < label.sizeHint().width()
    shown = super(type(label), label).text()  # what is painted
    assert shown.endswith("…") and len(shown) < len(label.text())
    release.set()
    wait_job(job)

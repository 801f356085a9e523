"""The data view, the import preview, the side-by-side view and the datasets dock at 1280×720: nothing clipped.

Each test renders a window at the size of a small laptop screen, checks the
geometry of every visible widget (inside its parent, not squeezed below the
size its text needs, not overlapping a neighbour in its layout) and saves a
screenshot. Screenshots go to ``$ANONSTUDIO_SCREENSHOTS`` when it is set (to
look at them), else to the test's temporary folder.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QComboBox,
    QLabel,
    QLayout,
    QLineEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from anonstudio.jobs import NullProgress

SMALL = (1280, 720)


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("ANONSTUDIO_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def name(widget: QWidget) -> str:
    text = widget.text() if isinstance(widget, (QLabel, QAbstractButton)) else ""
    return f"{type(widget).__name__}({widget.objectName() or text[:30]!r})"


def skipped(widget: QWidget, top: QWidget) -> bool:
    """Inside a scroll area's viewport (clipping there is scrolling) or a control's own parts (a line edit's
    clear button)."""
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        grand = parent.parentWidget()
        if isinstance(grand, QAbstractScrollArea) and parent is grand.viewport():
            return True
        if isinstance(parent, (QLineEdit, QComboBox)):
            return True
        parent = grand
    return False


def layout_widgets(layout: QLayout) -> list[QWidget]:
    out = []
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item.widget() is not None:
            out.append(item.widget())
        elif item.layout() is not None:
            out.extend(layout_widgets(item.layout()))
    return out


def clipping_problems(top: QWidget) -> list[str]:
    """Every visible widget of ``top`` that is cut off, squeezed or drawn over a neighbour."""
    problems = []
    widgets = [w for w in top.findChildren(QWidget) if w.isVisibleTo(top) and not w.isWindow()
               and not skipped(w, top)]
    for w in widgets:
        parent = w.parentWidget()
        if parent is None:
            continue
        if not parent.rect().adjusted(-1, -1, 1, 1).contains(w.geometry()):
            problems.append(f"{name(w)} at {w.geometry().getRect()} sticks out of {name(parent)} "
                            f"{parent.rect().getRect()}")
        if w.sizePolicy().horizontalPolicy() == QSizePolicy.Ignored:
            continue
        if isinstance(w, (QLabel, QAbstractButton, QComboBox, QLineEdit)):
            need = w.minimumSizeHint()
            if w.width() < need.width() - 1 or w.height() < need.height() - 1:
                problems.append(f"{name(w)} is {w.width()}×{w.height()}, needs {need.width()}×{need.height()}")
        if isinstance(w, QLabel) and w.wordWrap() and w.text():
            need = w.heightForWidth(w.width())
            if need > w.height() + 1:
                problems.append(f"{name(w)} shows {w.height()} px of its {need} px of text")
        if isinstance(w, QAbstractButton) and w.text():
            text = w.fontMetrics().horizontalAdvance(w.text().replace("&", ""))
            if text > w.width():
                problems.append(f"{name(w)}: its text is {text} px wide, the button {w.width()} px")
    for owner in [top, *widgets]:
        layout = owner.layout()
        if layout is None:
            continue
        shown = [w for w in layout_widgets(layout) if w.isVisibleTo(top)]
        for i, a in enumerate(shown):
            for b in shown[i + 1:]:
                overlap: QRect = a.geometry().intersected(b.geometry())
                if overlap.width() > 1 and overlap.height() > 1:
                    problems.append(f"{name(a)} overlaps {name(b)}")
    return problems


def render(qtbot, widget: QWidget, path: Path) -> None:
    widget.resize(*SMALL)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(50)
    assert (widget.width(), widget.height()) == SMALL, "the window needs more room than 1280×720"
    assert widget.grab().save(str(path))
    assert clipping_problems(widget) == []


def styled(widget: QWidget) -> QWidget:
    from anonstudio.gui.controls import STYLE

    widget.setStyleSheet(STYLE)
    return widget


def test_data_view_of_a_table(qtbot, shots):
    from anonstudio.data.samples import load_sample
    from anonstudio.gui.data_view import DataViewWindow

    window = DataViewWindow(load_sample("adult"))
    qtbot.addWidget(window)
    window.view.search.field.setText("occupation = Sales")
    window.view.search.find_button.click()
    window.view.table.selectRow(2)
    render(qtbot, window, shots / "data-view-adult-1280x720.png")
    assert window.view.search.result.text().startswith("3,650 of 32,561 rows")


def test_data_view_of_set_valued_data(qtbot, shots):
    from anonstudio.data.samples import load_sample
    from anonstudio.gui.data_view import DataViewWindow

    window = DataViewWindow(load_sample("bms-webview-1"))
    qtbot.addWidget(window)
    window.view.table.sortByColumn(1, Qt.DescendingOrder)  # the longest records first
    render(qtbot, window, shots / "data-view-bms-1280x720.png")
    assert window.view.table.rows_model.index(0, 1).data() == "267"


def test_import_preview(qtbot, shots, tmp_path):
    from anonstudio.data.samples import get_sample
    from anonstudio.gui.import_dialog import ImportDialog

    dialog = styled(ImportDialog(get_sample("adult").data_path))
    qtbot.addWidget(dialog)
    render(qtbot, dialog, shots / "import-adult-1280x720.png")
    latin = tmp_path / "towns.csv"
    latin.write_bytes("name;town;age\nann;Zürich;31\nbob;Genève;45\n".encode("latin-1"))
    failed = styled(ImportDialog(latin))
    qtbot.addWidget(failed)
    render(qtbot, failed, shots / "import-latin1-error-1280x720.png")
    assert failed.status.state == "failed"


@pytest.mark.parametrize("family", ["group", "kmanon"])
def test_side_by_side(qtbot, shots, family):
    from anonstudio.gui.side_by_side import SideBySideView

    if family == "group":
        from anonstudio.methods.group_anonymize.algorithm import run_group_anonymize
        from anonstudio.methods.group_anonymize.compare import comparison_of
        from anonstudio.methods.group_anonymize.spec import SPEC

        table, params = SPEC.example()
        comparison = comparison_of(run_group_anonymize(table, params, NullProgress()))
    else:
        from anonstudio.methods.contract import run_and_verify
        from anonstudio.methods.kmanon.compare import comparison_of
        from anonstudio.methods.kmanon.spec import SPEC

        data, params = SPEC.example()
        comparison = comparison_of(run_and_verify(SPEC, data, params, NullProgress()).result)
    holder = styled(QWidget())
    view = SideBySideView()
    QVBoxLayout(holder).addWidget(view)
    qtbot.addWidget(holder)
    view.set_comparison(comparison)
    if family == "group":
        view.sort_by_group.setChecked(True)
    view.select_row(5)
    render(qtbot, holder, shots / f"side-by-side-{family}-1280x720.png")


def test_datasets_dock_with_a_table(window, wait_job, qtbot, shots):
    wait_job(window.datasets.load_sample("adult"), timeout=60000)
    window.resize(*SMALL)
    qtbot.wait(50)
    assert window.grab().save(str(shots / "main-adult-dock-1280x720.png"))
    dock = window.datasets_dock
    assert clipping_problems(dock) == []
    assert window.datasets.roles.view.height() >= 150

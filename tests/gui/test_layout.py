"""Every workbench, after a run, fits 1280×720 and 1920×1080: nothing clipped, nothing drawn over another.

The screenshots are saved (to ``$ANONSTUDIO_SCREENSHOTS`` when set, else the
test's temporary folder) so that a person can look at them too.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QLabel, QLayout, QScrollArea, QTabWidget, QWidget

from anonstudio.gui.method_workbench import MethodWorkbench
from anonstudio.gui.plots import ExportablePlot
from anonstudio.methods.contract import discover_methods

SIZES = [(1280, 720), (1920, 1080)]


def _inside_scroll_area(widget: QWidget, stop: QWidget) -> bool:
    """Whether ``widget`` may legitimately be cut: it sits in a scroll area that scrolls.

    A scroll area showing no scroll bar shows all of its content (a workbench's page, which must not
    scroll), so what is inside it is checked like everything else.
    """
    parent = widget.parentWidget()
    while parent is not None and parent is not stop:
        if isinstance(parent, QAbstractScrollArea) and (
                parent.verticalScrollBar().isVisible() or parent.horizontalScrollBar().isVisible()
                or not isinstance(parent, QScrollArea)):
            return True
        parent = parent.parentWidget()
    return False


def _layout(widget: QWidget) -> QLayout | None:
    """``widget.layout()``, or None when the binding hands back something else: QStatusBar rebuilds its layout
    whenever a status widget shows or hides (a job starts or ends), and PySide may then return a stale wrapper
    of another type (a QSpacerItem) for the new one."""
    layout = widget.layout()
    return layout if isinstance(layout, QLayout) else None


def layout_problems(root: QWidget) -> list[str]:
    """Visible widgets outside their parent, laid-out siblings that overlap, buttons too small for their text."""
    problems = []
    for plot in root.findChildren(ExportablePlot):
        # pyqtgraph draws a plot's title, axes and labels in a scene inside the widget: when they need more room
        # than the widget has, the scene is cut at the right or bottom edge, which no widget geometry shows.
        if not plot.isVisibleTo(root) or _inside_scroll_area(plot, root):
            continue
        view = plot.plot_widget.viewport()
        need = plot.plot_item.effectiveSizeHint(Qt.MinimumSize)
        if need.width() > view.width() + 1 or need.height() > view.height() + 1:
            problems.append(f"plot {plot.title!r} needs {need.width():.0f}x{need.height():.0f} px and has "
                            f"{view.width()}x{view.height()}: its title or axes are cut")
    for widget in root.findChildren(QWidget):
        if not widget.isVisibleTo(root) or _inside_scroll_area(widget, root):
            continue
        parent = widget.parentWidget()
        text = widget.text() if callable(getattr(widget, "text", None)) else ""
        name = f"{type(widget).__name__}({widget.objectName() or text!s:.30})"
        if parent is not None and _layout(parent) is not None and _layout(parent).indexOf(widget) >= 0:
            inner = parent.rect().adjusted(-1, -1, 1, 1)
            if not inner.contains(widget.geometry()):
                problems.append(f"{name} sticks out of {type(parent).__name__}: {widget.geometry()} vs {parent.rect()}")
        if (isinstance(widget, QAbstractButton) and widget.text()
                and widget.width() + 2 < widget.minimumSizeHint().width()):
            problems.append(f"{name} is narrower than its text")
        if isinstance(widget, QLabel) and not widget.wordWrap() and widget.text() and \
                widget.width() + 2 < widget.minimumSizeHint().width() and widget.sizePolicy().horizontalPolicy() != 4:
            problems.append(f"{name} cuts its text")
    for parent in [root, *root.findChildren(QWidget)]:
        layout = _layout(parent)
        if layout is None or not parent.isVisibleTo(root) or _inside_scroll_area(parent, root):
            continue
        # Children looked up through indexOf, not itemAt: a wrapper of a layout item (a stretch) would outlive
        # the layout when Qt rebuilds it (the status bar does), and PySide could later hand that stale wrapper
        # out for a new layout at the same address.
        kids = [k for k in parent.findChildren(QWidget, options=Qt.FindDirectChildrenOnly)
                if layout.indexOf(k) >= 0 and k.isVisibleTo(root)]
        for i, a in enumerate(kids):
            for b in kids[i + 1:]:
                overlap = a.geometry().intersected(b.geometry())
                if overlap.width() > 2 and overlap.height() > 2:
                    problems.append(f"{type(a).__name__} and {type(b).__name__} overlap in {type(parent).__name__}")
    return problems


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    folder = os.environ.get("ANONSTUDIO_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screens")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(discover_methods()))
def test_every_workbench_fits_after_a_run(family, window, wait_job, qtbot, screenshots):
    # One family per test, so the parallel workers share the runs.
    found = []
    for bench in [b for b in window.workbenches if isinstance(b, MethodWorkbench) and b.spec.name == family]:
        data, params = bench.spec.example()
        window.set_dataset(data)
        window.tabs.setCurrentWidget(bench)
        bench.param_panel.set_params(params)
        assert bench.param_panel.error == "", (bench.spec.name, bench.param_panel.error)
        assert bench.param_panel.run_button.isEnabled(), bench.spec.name
        bench.param_panel.run_button.click()
        assert bench.job is not None, bench.spec.name
        wait_job(bench.job, timeout=120000)
        # A workbench may start follow-up jobs after its run (listing rules, background sweeps): check the
        # layout once they settled, as the status bar changes while they run.
        qtbot.waitUntil(lambda: not window.runner.active_jobs(), timeout=120000)
        assert bench.last_run is not None and bench.last_run.status == "done"
        tabs = bench.results if isinstance(bench.results, QTabWidget) else None
        for width, height in SIZES:
            window.resize(width, height)
            for index in range(tabs.count() if tabs is not None else 1):
                if tabs is not None:
                    tabs.setCurrentIndex(index)
                qtbot.wait(60)
                # The page itself never scrolls: the results fit the window.
                assert not bench.page_scroll.verticalScrollBar().isVisible(), (bench.spec.name, width, height)
                assert not bench.page_scroll.horizontalScrollBar().isVisible(), (bench.spec.name, width, height)
                assert bench.param_panel.run_button.visibleRegion().isEmpty() is False
                problems = layout_problems(window)
                if problems:
                    found.append((bench.spec.name, width, height, index, problems[:8]))
                window.grab().save(str(screenshots / f"{bench.spec.name}-{width}x{height}-{index}.png"))
        if tabs is not None:
            tabs.setCurrentIndex(0)
    assert found == [], "\n".join(map(str, found))


def test_the_checker_sees_clipping_and_overlap(qtbot):
    """A layout squeezed below its children's minimum sizes is reported (the checker can fail)."""
    from PySide6.QtWidgets import QPushButton, QVBoxLayout

    root = QWidget()
    qtbot.addWidget(root)
    layout = QVBoxLayout(root)
    for i in range(6):
        button = QPushButton(f"a button with a long caption number {i}")
        button.setMinimumHeight(80)
        layout.addWidget(button)
    root.setFixedSize(120, 200)  # far below six 80-px buttons, and narrower than their text
    root.show()
    qtbot.wait(20)
    problems = layout_problems(root)
    assert any("narrower than its text" in p for p in problems)
    assert any("overlap" in p or "sticks out" in p for p in problems)


def test_the_checker_sees_a_plot_cut_inside_its_widget(qtbot):
    """A plot whose title needs more room than the widget has is reported (pyqtgraph cuts it silently)."""
    root = QWidget()
    qtbot.addWidget(root)
    plot = ExportablePlot("A plot title far wider than the little widget it is drawn in", x_label="x", y_label="y",
                          parent=root)
    plot.setGeometry(0, 0, 160, 300)
    root.setFixedSize(160, 300)
    root.show()
    qtbot.wait(20)
    assert any("its title or axes are cut" in p for p in layout_problems(root))

"""Every workbench fits 1280×720, 1366×768 and 1920×1080, light and dark: nothing clipped, nothing drawn over another.

After a run (slow, one family per test); and, fast, on one shared window: the datasets dock folded into the
dataset bar below 1440 px, every tab bar (main tabs, every workbench's sub-tabs and the tab bars inside them)
showing all its tabs without scroll arrows, and every verdict callout one line high without a scroll bar,
folded and unfolded. Pages added to the studio later (the start page) join through :data:`EXTRA_PAGES`.

The screenshots are saved (to ``$ANONSTUDIO_SCREENSHOTS`` when set, else the
test's temporary folder) so that a person can look at them too.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QLayout,
    QScrollArea,
    QScrollBar,
    QTabBar,
    QTabWidget,
    QToolButton,
    QWidget,
)

from anonstudio.gui.callout import VerdictCallout
from anonstudio.gui.method_workbench import MethodWorkbench
from anonstudio.gui.plots import ExportablePlot
from anonstudio.methods.contract import discover_methods

SIZES = [(1280, 720), (1366, 768), (1920, 1080)]
SCHEMES = ["light", "dark"]

#: Further pages of the window checked like the workbenches: ``(name, show)``, where ``show(window)`` makes the
#: page current and returns the widget to check (e.g. the start page:
#: ``("start page", lambda w: (w.show_start_page(), w.start_page)[1])``).
EXTRA_PAGES: list[tuple[str, Callable[[QWidget], QWidget]]] = [
    ("start page", lambda w: (w.show_start_page(), w.start_page)[1]),
]

#: A verdict as long as the longest the workbenches write (ρ, Threats): the check's figures, the promise, notes.
LONG_VERDICT = ("<b>Independent check passed</b>: horizontal release, 200 rows in 38 groups; group size: min 4, mean "
                "5.26, max 7; distinct sensitive values per group: min 3; largest share of one value 0.600; "
                "4-anonymous: yes; 2-diverse: yes<br><b>The attacker guesses the true occupation of 36.0 % of the "
                "rows, the learner of 30.0 %.</b><br>For 22 people the attacker guesses right and is at least twice "
                "as confident as the learner (at most 31 times, <a href='row:159'>row 160</a>).<br>"
                + "A note on how the figures were sampled and what they leave out. " * 6)


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
    for bench in [b for b in [window.workbench(family)] if isinstance(b, MethodWorkbench)]:  # only this tab built
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
                if (width, height) == SIZES[0]:  # a picture per sub-tab at the smallest size, for a person to look at
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


# ------------------------------------------------------------------------------------ small screens, light and dark
def tab_bar_problems(root: QWidget) -> list[str]:
    """Visible tab bars under ``root`` that show scroll arrows (some tabs are out of sight)."""
    problems = []
    for bar in root.findChildren(QTabBar):
        if not bar.isVisibleTo(root):
            continue
        arrows = [b for b in bar.findChildren(QToolButton) if b.isVisibleTo(bar)]
        if arrows:
            titles = [bar.tabText(i) for i in range(bar.count())]
            problems.append(f"tab bar {titles} needs scroll arrows in {bar.width()} px")
    return problems


def callout_problems(callout: VerdictCallout) -> list[str]:
    """A callout that scrolls, is more than one line high while folded, or cuts its Details button."""
    problems = [f"{callout.objectName()} shows a scroll bar" for bar in callout.findChildren(QScrollBar)
                if bar.isVisibleTo(callout)]
    for area in callout.findChildren(QAbstractScrollArea):
        problems.append(f"{callout.objectName()} holds a scroll area {type(area).__name__}")
    line = callout.fontMetrics().height()
    if not callout.expanded and callout.height() > 2.5 * line:
        problems.append(f"folded callout is {callout.height()} px high (a line is {line} px)")
    button = callout.details_button
    shown = QRect(button.mapTo(callout, QPoint(0, 0)), button.size())
    if callout.has_details() and (not button.isVisibleTo(callout) or not callout.rect().contains(shown)):
        problems.append("the Details button is hidden or cut")
    return problems


def _settle(qtbot) -> None:
    QApplication.processEvents()
    qtbot.wait(10)


@pytest.fixture(scope="module")
def studio(tmp_path_factory, qapp):
    """One window for every fast layout test (building one takes seconds), settings in a temporary folder."""
    from anonstudio.gui.main_window import MainWindow
    from anonstudio.gui.project_controller import ProjectController
    from anonstudio.studio.cache import CACHE_ENV

    folder = tmp_path_factory.mktemp("layout-settings")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANONSTUDIO_SETTINGS_DIR", str(folder / "settings"))
        patch.setenv(CACHE_ENV, str(folder / "cache"))
        patch.setattr(ProjectController, "ask_unsaved", lambda self: "discard")
        window = MainWindow(warm_up=False, restore_layout=False)
        # Docks appear and go at once: an animated dock would be measured half-way.
        window.setAnimated(False)
        window.resize(*SIZES[0])
        window.show()
        QApplication.processEvents()
        # Every workbench with its page built on its own example data (one dataset for the whole window would
        # leave the tabs for other kinds of data on their explanation); then the window's titles and colours.
        datasets = {}
        for bench in window.workbenches:
            if isinstance(bench, MethodWorkbench):
                data, _params = bench.spec.example()
                bench.set_dataset(datasets.setdefault(type(data), data))
        window.example_datasets = list(datasets.values())
        window._fit_small_screens()
        yield window
        window.runner.shutdown(10000)
        window.hide()
        window.deleteLater()
        QApplication.processEvents()


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_tab_bars_and_callouts_fit(studio, qtbot, size, scheme, screenshots):
    from anonstudio.gui.dataset_bar import WIDE
    from anonstudio.gui.scheme import PLOT_COLOURS, apply_scheme

    window = studio
    # Laid out, not painted: drawing every plot at every step would take most of the test's time.
    window.setUpdatesEnabled(False)
    apply_scheme(window, scheme)
    window.resize(*size)
    _settle(qtbot)
    # Below 1440 px the datasets dock starts folded into the one-line dataset bar.
    narrow = size[0] < WIDE
    bar = window.small_screens.toolbar
    assert bar.isVisible() == narrow and window.datasets_dock.isHidden() == narrow, size
    found = [f"dataset bar: {p}" for p in layout_problems(bar)] if narrow else []
    checked = set()
    for bench in window.workbenches:
        if isinstance(bench, MethodWorkbench):
            checked.add(bench.spec.name)
            window.tabs.setCurrentWidget(bench)
            bench.callout.show_text(LONG_VERDICT, "ok")
            _settle(qtbot)
            where = f"{bench.spec.name} {size[0]}x{size[1]} {scheme}"
            # The callout: one line and Details, then unfolded, never a scroll bar.
            found += [f"{where}: {p}" for p in callout_problems(bench.callout)]
            assert bench.callout.has_details(), where
            bench.callout.set_expanded(True)
            _settle(qtbot)
            found += [f"{where} (details): {p}" for p in callout_problems(bench.callout)]
            bench.callout.set_expanded(False)
            tabs = bench.results
            for index in range(tabs.count()):
                tabs.setCurrentIndex(index)
                _settle(qtbot)
                # The sub-tab bar, and any tab bar inside the shown sub-tab.
                found += [f"{where}: {p}" for p in tab_bar_problems(bench)]
                # The main tab bar and the workbench page: nothing cut, nothing over another.
                found += [f"{where} tab {index}: {p}" for p in layout_problems(bench.page_scroll.widget())
                          if "plot" not in p]  # empty plots before a run: their size is the slow test's
            found += [f"{where}: {p}" for p in tab_bar_problems(window)]
            if narrow:
                # Unfolded, the dock takes its 250 px back: the tab titles must still fit (the short titles).
                window.small_screens.set_collapsed(False)
                for index in range(tabs.count()):
                    tabs.setCurrentIndex(index)
                    _settle(qtbot)
                    found += [f"{where}, dock unfolded: {p}" for p in tab_bar_problems(window)]
                window.small_screens.set_collapsed(True)
            tabs.setCurrentIndex(0)
            _settle(qtbot)
            if size == SIZES[0]:
                window.setUpdatesEnabled(True)
                window.grab().save(str(screenshots / f"22-{bench.spec.name}-{size[0]}x{size[1]}-{scheme}.png"))
                window.setUpdatesEnabled(False)
    assert checked == set(discover_methods()), checked
    for name, show in EXTRA_PAGES:
        page = show(window)
        _settle(qtbot)
        found += [f"{name} {size[0]}x{size[1]} {scheme}: {p}" for p in layout_problems(page) + tab_bar_problems(page)]
        if size == SIZES[0]:
            window.setUpdatesEnabled(True)
            window.grab().save(str(screenshots / f"22-{name.replace(' ', '-')}-{size[0]}x{size[1]}-{scheme}.png"))
            window.setUpdatesEnabled(False)
    window.start_page.leave()  # the workbenches in front again for the next size
    # The plots are drawn in the scheme's colours (a dark background with light text in the dark one).
    import pyqtgraph as pg

    background, foreground = PLOT_COLOURS[scheme]
    widgets = window.findChildren(pg.PlotWidget)
    assert len(widgets) > 20
    for widget in widgets:  # the ExportablePlots and the pyqtgraph plots of their own (the partition map)
        assert widget.backgroundBrush().color().name() == background, widget
        assert widget.getPlotItem().getAxis("bottom").textPen().color().name() == foreground, widget
    window.setUpdatesEnabled(True)
    assert found == [], "\n".join(found)


def test_the_dataset_bar_unfolds_and_folds_the_dock(studio, qtbot):
    window = studio
    window.resize(1280, 720)
    _settle(qtbot)
    small = window.small_screens
    assert small.collapsed and small.toolbar.isVisible()
    dataset = window.example_datasets[0]
    small.bar.set_dataset(dataset)
    assert small.bar.name_label.text() == str(dataset.name) and small.bar.size_label.text()
    small.bar.toggle_button.click()
    _settle(qtbot)
    assert window.datasets_dock.isVisible() and small.bar.toggle_button.isChecked() and not small.collapsed
    small.bar.toggle_button.click()
    _settle(qtbot)
    assert window.datasets_dock.isHidden() and small.collapsed
    # Wide: the dock as it always was and no bar; narrow again: folded.
    window.resize(1600, 900)
    _settle(qtbot)
    assert window.datasets_dock.isVisible() and not small.toolbar.isVisible()
    window.resize(1280, 720)
    _settle(qtbot)
    assert window.datasets_dock.isHidden() and small.toolbar.isVisible()

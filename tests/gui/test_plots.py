"""ExportablePlot: live series updates and PNG/SVG/CSV exports written atomically."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from anonstudio.gui.plots import ExportablePlot, HistogramPlot, RankFrequencyPlot, integer_bins, integer_histogram


@pytest.fixture
def plot(qtbot):
    p = ExportablePlot("Uniqueness", x_label="m (items the attacker knows)", y_label="share", y_units="0–1")
    qtbot.addWidget(p)
    p.resize(500, 350)
    p.show()
    p.add_series("exact", kind="scatter", symbol="o", error_bars=True)
    p.add_series("trend", kind="line")
    return p


def test_empty_state_until_data_arrives(plot):
    assert plot.empty_label.isVisible()
    plot.set_series("trend", [1, 2], [0.1, 0.2])
    assert not plot.empty_label.isVisible()
    plot.clear_data()
    assert plot.empty_label.isVisible()


def test_series_update_in_place(plot):
    item = plot.series["exact"].item
    plot.set_series("exact", [1], [0.2], low=[0.1], high=[0.3])
    plot.set_series("exact", [1, 2], [0.2, 0.6], low=[0.1, 0.5], high=[0.3, 0.7])
    assert plot.series["exact"].item is item
    x, y = item.getData()
    assert list(x) == [1, 2] and list(y) == [0.2, 0.6]
    err = plot.series["exact"].error_item.opts
    assert np.allclose(err["top"], [0.1, 0.1]) and np.allclose(err["bottom"], [0.1, 0.1])


def test_export_png_svg_csv(plot, tmp_path):
    plot.set_series("exact", [1, 2], [0.25, 0.5], low=[0.2, 0.4], high=[0.3, 0.6])
    plot.set_series("trend", [1, 2, 3], [0.25, 0.5, 0.75])
    png = plot.export(tmp_path / "u.png")
    svg = plot.export(tmp_path / "u.svg")
    out = plot.export(tmp_path / "u.csv")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "m (items the attacker knows)" in text
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows[0] == ["series", "m (items the attacker knows)", "share [0–1]", "y_low", "y_high"]
    assert rows[1:] == [["exact", "1", "0.25", "0.2", "0.3"], ["exact", "2", "0.5", "0.4", "0.6"],
                        ["trend", "1", "0.25", "", ""], ["trend", "2", "0.5", "", ""], ["trend", "3", "0.75", "", ""]]
    # Atomic: no temporary files left next to the exports.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["u.csv", "u.png", "u.svg"]


def test_export_rejects_unknown_suffix_and_leaves_nothing(plot, tmp_path):
    with pytest.raises(ValueError):
        plot.export(tmp_path / "u.jpg")
    assert list(tmp_path.iterdir()) == []


def test_export_buttons_use_the_file_dialog(plot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    plot.set_series("trend", [1], [0.5])
    target = tmp_path / "chosen"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    plot.export_buttons["csv"].click()
    assert (tmp_path / "chosen.csv").read_text(encoding="utf-8").splitlines()[1] == "trend,1,0.5,,"


def test_the_right_click_menu_is_built_when_first_opened_and_exports(plot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    view = plot.plot_item.getViewBox()
    assert view.menu is None and view.menuEnabled()  # not built with the plot, still offered
    menu = view.getMenu(None)
    assert view.getMenu(None) is menu  # built once
    texts = [a.text() for a in menu.actions()]
    assert "View All" in texts and texts[-3:] == ["Export PNG…", "Export SVG…", "Export data (CSV)…"]
    plot.set_series("trend", [1], [0.5])
    target = tmp_path / "from-menu"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    menu.actions()[-1].trigger()
    assert (tmp_path / "from-menu.csv").read_text(encoding="utf-8").splitlines()[1] == "trend,1,0.5,,"
    assert [a.text() for a in view.getContextMenus(None)] == texts  # what a child item's menu shows


def test_an_axis_label_is_laid_out_again_only_when_it_changes(plot):
    axis = plot.plot_item.getAxis("left")
    shown = []
    set_html = axis.label.setHtml
    axis.label.setHtml = lambda html: (shown.append(html), set_html(html))
    plot.set_series("trend", [1, 2, 3], [0.1, 5.0, 0.3])
    plot.plot_item.getViewBox().setRange(yRange=(0, 1000))
    axis.setPen("#000000")
    assert shown == []  # new ranges, the same pen: the same label
    axis.setPen("#d55e00")
    assert len(shown) == 1 and "#d55e00" in shown[0] and "share [0–1]" in shown[0]
    plot.set_y_label("people")
    assert "people" in shown[-1] and "people" in axis.label.toPlainText()
    assert not any(plot.plot_item.getAxis(side).autoSIPrefix for side in ("left", "bottom", "right", "top"))
    assert [side for side in ("left", "bottom", "right", "top") if plot.plot_item.getAxis(side).isVisible()] == [
        "left", "bottom"]


def test_integer_histogram_one_bar_per_value_and_binned():
    x, counts, _ = integer_histogram(np.array([2, 2, 3, 5]))
    assert list(x) == [2, 3, 4, 5] and list(counts) == [2, 1, 0, 1]
    x, counts, _ = integer_histogram(np.arange(1000), max_bars=10)
    assert len(x) == 10 and counts.sum() == 1000


def test_histogram_and_rank_frequency_plots(qtbot):
    hist = HistogramPlot("Lengths", x_label="items in the record")
    rank = RankFrequencyPlot("Frequencies")
    qtbot.addWidget(hist)
    qtbot.addWidget(rank)
    hist.set_values(np.array([1, 1, 2]))
    rank.set_frequencies(np.array([3, 0, 10, 1]))
    assert list(hist.series["records"].y) == [2, 1]
    assert list(rank.series["items"].x) == [1, 2, 3] and list(rank.series["items"].y) == [10, 3, 1]


def _as_gray(image) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format_Grayscale8)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    return np.frombuffer(bytes(image.constBits()), dtype=np.uint8).reshape(height, stride)[:, :width].astype(float)


def test_svg_draws_the_data_where_the_png_does(plot):
    """Regression: symbols must not drift from the axes in the SVG (device-resolution mismatch)."""
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    plot.set_series("exact", [1, 2], [0.1, 0.5], low=[0.05, 0.45], high=[0.15, 0.55])
    plot.set_series("trend", [1, 2], [0.1, 0.5])
    png = QImage.fromData(plot.png_bytes())
    renderer = QSvgRenderer(plot.svg_bytes())
    svg = QImage(png.size(), QImage.Format_ARGB32)
    svg.fill(0xFFFFFFFF)
    painter = QPainter(svg)
    renderer.render(painter)
    painter.end()
    a, b = _as_gray(png), _as_gray(svg)
    # Dark pixels (symbols, lines, text) in the same places, up to antialiasing.
    ink_png, ink_svg = a < 128, b < 128
    overlap = (ink_png & ink_svg).sum() / max(ink_png.sum(), 1)
    assert overlap > 0.6, overlap  # 0.82 when right, 0.30 with the drift


def test_legend_lists_only_series_with_data(plot):
    def names():
        return [label.text for _, label in plot.legend.items]

    assert names() == []
    plot.set_series("trend", [1], [0.5])
    assert names() == ["trend"]
    plot.set_series("exact", [1], [0.5])
    assert names() == ["exact", "trend"]
    plot.set_series("trend", [], [])
    assert names() == ["exact"]


def test_plain_log_axis_labels_decades_as_numbers(qtbot):
    rank = RankFrequencyPlot("Frequencies")
    qtbot.addWidget(rank)
    axis = rank.plot_item.getAxis("left")
    assert axis.logTickStrings([0.0, 1.0, 2.0, 3.0, np.log10(2), np.log10(3)], 1.0, 1.0) == \
        ["1", "10", "100", "1,000", "2", ""]
    assert axis.logTickStrings([0.0, np.log10(2), 6.0], 1.0, 1.0) == ["1", "", "1,000,000"]


@pytest.mark.parametrize("seed", range(5))
def test_integer_bins_hold_whole_numbers_and_count_every_value(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, rng.integers(2, 600), size=400)
    edges, counts = integer_bins(values, max_bars=50)
    width = edges[1] - edges[0]
    assert width >= 1 and float(width).is_integer() and len(counts) <= 50
    assert np.allclose(np.diff(edges), width)
    assert np.allclose(edges % 1.0, 0.5)  # every edge at a half-integer
    # Brute force: each value lies in exactly one bin.
    for (left, right), count in zip(zip(edges[:-1], edges[1:]), counts):
        assert count == np.sum((values > left) & (values < right))
    assert counts.sum() == len(values)
    assert edges[0] < values.min() < edges[1] and edges[-2] < values.max() < edges[-1]


def test_wide_record_lengths_are_binned_by_whole_items_and_exported_with_edges(qtbot):
    hist = HistogramPlot("Record lengths", x_label="items in the record")
    qtbot.addWidget(hist)
    values = np.array([1, 2, 2, 3, 250, 267])  # 267 values > 120 bars: 3 items per bin
    hist.set_values(values)
    rows = list(csv.reader(hist.csv_text().splitlines()))
    assert rows[0] == ["items in the record from", "items in the record to", "records"]
    assert rows[1] == ["0.5", "3.5", "4"]  # 1, 2, 2, 3
    assert sum(int(r[2]) for r in rows[1:]) == len(values)
    assert all(float(r[1]) - float(r[0]) == 3 for r in rows[1:])


def test_rank_frequency_csv_names_the_items(qtbot):
    rank = RankFrequencyPlot("Frequencies")
    qtbot.addWidget(rank)
    rank.set_frequencies(np.array([3, 0, 10, 1]), ["bread", "salt", "milk", "eggs"])
    rows = rank.csv_text().splitlines()
    assert rows == ["rank,item,records containing the item", "1,milk,10", "2,bread,3", "3,eggs,1"]


def test_axes_show_plain_numbers_without_si_prefix(plot):
    plot.set_series("trend", [1, 2, 3], [0.001, 0.012, 0.025])
    plot.plot_item.enableAutoRange()
    for name in ("left", "bottom"):
        axis = plot.plot_item.getAxis(name)
        assert not axis.autoSIPrefix
        assert "x0.001" not in axis.labelString() and "(x" not in axis.labelString()


def test_csv_leaves_out_series_marked_not_for_export_and_points_have_tips(qtbot):
    p = ExportablePlot("u", x_label="m", y_label="share")
    qtbot.addWidget(p)
    p.add_series("points", kind="scatter")
    p.add_series("trend", kind="line", in_csv=False)
    p.set_series("points", [1, 2], [0.1, 0.2], tips=["first", "second"])
    p.set_series("trend", [1, 2], [0.1, 0.2])
    assert p.csv_text().splitlines()[1:] == ["points,1,0.1,,", "points,2,0.2,,"]
    spots = p.series["points"].item.scatter.points()
    assert [s.data() for s in spots] == ["first", "second"]
    assert p.series["points"].item.scatter.opts["hoverable"]
    # Resting the mouse on the second point shows its text as the plot's tooltip.
    from types import SimpleNamespace

    from PySide6.QtCore import QPointF

    p.resize(400, 300)
    p.show()
    qtbot.waitExposed(p)
    p.plot_item.setRange(xRange=(0, 3), yRange=(0, 0.3), padding=0)
    p.series["points"].item.scatter.hoverEvent(SimpleNamespace(exit=False, pos=lambda: QPointF(2, 0.2)))
    assert p.plot_item.getViewBox().toolTip() == "second"
    assert p._point_tip(2.0, 0.5, None) == "m: 2\nshare: 0.5"
    with pytest.raises(ValueError):
        p.set_series("points", [1], [0.1], tips=["a", "b"])


def test_caption_is_a_second_title_line(plot):
    plot.set_caption("chess & co\nerror bars: 99 % confidence interval (δ = 0.01)")
    text = plot.plot_item.titleLabel.text
    assert "chess &amp; co<br>error bars" in text and text.startswith("Uniqueness<br>")
    # The title row grows with the caption, so no line is cut off.
    label = plot.plot_item.titleLabel
    assert plot.plot_item.layout.rowMinimumHeight(0) >= label.itemRect().height() > 30
    plot.set_caption("")
    assert plot.plot_item.titleLabel.text == "Uniqueness"


@pytest.mark.parametrize("log", [(False, False), (True, True)])
def test_data_pixels_are_where_the_view_maps_each_point(qtbot, log):
    """The array mapping agrees with ViewBox.mapFromView point by point, and drops what a log axis cannot show."""
    from PySide6.QtCore import QPointF

    plot = ExportablePlot("Trace", x_label="x", y_label="y", log_x=log[0], log_y=log[1])
    qtbot.addWidget(plot)
    plot.resize(500, 350)
    plot.show()
    plot.add_series("exact", kind="scatter", symbol="o", error_bars=True)
    plot.add_series("trend", kind="line")
    plot.set_series("exact", [0.5, 2, 8, 0], [0.1, 0.4, 0.9, 0.3], low=[0.05, 0.3, 0.8, 0.2],
                    high=[0.2, 0.5, 1.0, 0.4])
    plot.set_series("trend", [1, 3, 5], [0.2, -1.0, 0.6])
    view = plot.plot_item.getViewBox()
    expected = []
    for s in plot.series.values():
        for y in [s.y] + [b for b in (s.low, s.high) if b is not None and len(b) == len(s.x)]:
            for xi, yi in zip(s.x, y):
                if log[0] and xi <= 0 or log[1] and yi <= 0:
                    continue  # off a log axis: not drawn
                p = view.mapFromView(QPointF(np.log10(xi) if log[0] else xi, np.log10(yi) if log[1] else yi))
                expected.append((p.x(), p.y()))
    got = plot.data_pixels()
    assert len(got) == (11 if log[0] else 15)  # x = 0 (three ends) and y = -1 fall off the log axes
    assert np.allclose(got, np.array(expected), atol=1e-6)

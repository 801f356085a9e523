"""PartitionMap: merged Voronoi cells per level, stable colours, hover text, level slider, cache."""
from __future__ import annotations

import numpy as np
import pytest
import shapely
from PySide6.QtCore import QPointF

from anonstudio.data.geo import build_voronoi
from anonstudio.gui.workbenches.kmanon.partition_map import HOVER_TOWERS_SHOWN, PartitionMap, partition_color

# 3 x 3 towers 1 km apart, cut to the square 0..3 km: every cell is a 1 km² square.
GRID = np.array([[500.0 + 1000 * c, 500.0 + 1000 * r] for r in range(3) for c in range(3)])
BOX = shapely.box(0, 0, 3000, 3000)
LABELS = tuple(f"T{i}" for i in range(9))
# Records (people): person u was seen at the towers listed.
RECORDS = [[0, 1], [1, 2], [4], [4, 8], [3, 6, 7], [5]]


@pytest.fixture
def cells():
    return build_voronoi(GRID, BOX)


@pytest.fixture
def pmap(qtbot, cells):
    widget = PartitionMap()
    qtbot.addWidget(widget)
    widget.resize(600, 600)
    widget.show()
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in RECORDS])]).astype(np.int64)
    indices = np.concatenate(RECORDS).astype(np.int32)
    widget.set_cells(cells, LABELS, indptr, indices)
    return widget


# level 1: the left column {0, 3, 6} merged; level 2: every tower but the centre merged (a ring).
LEVEL1 = np.array([0, 1, 2, 0, 4, 5, 0, 7, 8], dtype=np.int32)
LEVEL2 = np.array([0, 0, 0, 0, 4, 0, 0, 0, 0], dtype=np.int32)


def test_level_zero_draws_one_cell_per_tower(pmap):
    assert pmap.n_levels == 1
    assert pmap.drawn_partitions == 9
    assert pmap.towers.data.shape[0] == 9
    assert "9 towers" in pmap.level_label.text()


def test_slider_steps_through_levels_and_follows_new_ones(pmap):
    pmap.set_levels([LEVEL1])
    assert pmap.slider.maximum() == 1 and pmap.shown_level == 1  # followed the live run
    assert pmap.drawn_partitions == 7
    pmap.set_levels([LEVEL1, LEVEL2])
    assert pmap.shown_level == 2 and pmap.drawn_partitions == 2
    pmap.slider.setValue(0)
    assert pmap.drawn_partitions == 9
    pmap.set_levels([LEVEL1, LEVEL2, LEVEL2])
    assert pmap.shown_level == 0  # the user looked back: do not jump


def test_colour_depends_on_partition_id_only(pmap):
    pmap.set_levels([LEVEL1, LEVEL2])
    level0, level2 = pmap.layer(0), pmap.layer(2)
    ids0 = list(level0.geometry.partition_ids)
    for k, pid in enumerate(level2.geometry.partition_ids):
        assert level2.colors[k] == level0.colors[ids0.index(pid)] == partition_color(int(pid))
    # neighbouring ids get clearly different colours
    assert partition_color(0).hueF() != pytest.approx(partition_color(1).hueF(), abs=0.1)


def test_hover_text_lists_towers_size_support_and_area(pmap):
    pmap.set_levels([LEVEL1])
    text = pmap.hover_text_at(0.5, 2.5)  # tower T6, in the merged left column
    assert "3 towers" in text
    for label in ("T0", "T3", "T6"):
        assert label in text
    # people seen at T0, T3 or T6: persons 0 and 4
    assert "support): 2" in text
    assert "3.000 km²" in text
    assert pmap.hover_text_at(1.5, 1.5).startswith("Partition of 1 tower: T4")
    assert "support): 2" in pmap.hover_text_at(1.5, 1.5)
    assert pmap.hover_text_at(-1.0, -1.0) == ""  # outside the study area


def test_mouse_move_shows_hover_text_and_highlight(pmap, qtbot):
    pmap.set_levels([LEVEL1])
    vb = pmap.plot_item.getViewBox()
    scene = vb.mapViewToScene(QPointF(0.5, 0.5))
    pmap.plot.scene().sigMouseMoved.emit(scene)
    assert "T0" in pmap.info_label.text() and "T3" in pmap.info_label.text()
    assert pmap.last_hover_text == pmap.info_label.text()
    assert not pmap.highlight.path().isEmpty()


def test_ring_partition_has_a_hole(pmap):
    pmap.set_levels([LEVEL1, LEVEL2])
    layer = pmap.layer(2)
    ring = list(layer.geometry.partition_ids).index(0)
    path = layer.paths[ring]
    assert path.contains(QPointF(0.5, 0.5))
    assert not path.contains(QPointF(1.5, 1.5))  # the centre tower's own partition
    assert layer.areas_km2[ring] == pytest.approx(8.0)


def test_cache_keeps_unchanged_levels_and_drops_changed(pmap):
    pmap.set_levels([LEVEL1, LEVEL2])
    first, second = pmap.layer(1), pmap.layer(2)
    pmap.set_levels([LEVEL1, LEVEL1])
    assert pmap.layer(1) is first
    assert pmap.layer(2) is not second and pmap.layer(2).n_partitions == 7


def test_long_partitions_are_abbreviated(qtbot):
    xy = np.array([[100.0 * i, 100.0 * (i % 2)] for i in range(HOVER_TOWERS_SHOWN + 5)])
    cells = build_voronoi(xy)
    widget = PartitionMap()
    qtbot.addWidget(widget)
    labels = tuple(f"cell-{i}" for i in range(len(xy)))
    widget.set_cells(cells, labels, np.array([0, 2], dtype=np.int64), np.array([0, 1], dtype=np.int32))
    widget.set_levels([np.zeros(len(xy), dtype=np.int32)])
    text = widget.hover_text(0)
    assert "… and 5 more" in text and f"{len(xy)} towers" in text


def test_unavailable_map_shows_the_reason(pmap):
    pmap.set_unavailable("No coordinates here.")
    assert not pmap.available
    assert pmap.unavailable_label.text() == "No coordinates here."
    assert pmap.hover_text_at(0.5, 0.5) == ""
    pmap.set_levels([LEVEL1])  # ignored without cells
    assert pmap.n_levels == 0


def test_hidden_map_draws_when_shown(qtbot, cells):
    widget = PartitionMap()
    qtbot.addWidget(widget)
    widget.set_cells(cells, LABELS, np.array([0], dtype=np.int64), np.zeros(0, dtype=np.int32))
    widget.set_levels([LEVEL1])
    assert widget.drawn_partitions == 0 and not widget._cache  # nothing built while hidden
    assert "7 partitions" in widget.level_label.text()
    widget.show()
    qtbot.waitUntil(lambda: widget.drawn_partitions == 7)


def test_map_saves_png_and_svg(pmap, tmp_path):
    png = pmap.save_image(tmp_path / "map.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = pmap.save_image(tmp_path / "map.svg").read_text()
    assert "<svg" in svg and "path" in svg

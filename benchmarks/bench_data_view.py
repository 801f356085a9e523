"""The data view on a million records: time to open and paint, memory, sort, search, jump.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/bench_data_view.py [--users N]``.

Prints seconds and resident memory (RSS now and peak, ``resource.getrusage``)
for: generating the synthetic city (loading), opening the data view
(constructing it and painting the first screen), sorting by record size,
finding the records with two items, jumping to a record, and scrolling to the
end; then the side-by-side view of the city with its towers in 100
partitions (a σ-k^m release), and the data view of a table of a million rows
(the Adult sample repeated). The baseline is a QStandardItemModel filled with
every record's text (what a view that formats all rows up front costs),
measured on a tenth of the records and scaled.
"""
from __future__ import annotations

import argparse
import os
import resource
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def rss_mb() -> float:
    """Resident memory now (MB), from /proc."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label: str, fn):
    t0 = time.perf_counter()
    out = fn()
    print(f"{label:<46} {time.perf_counter() - t0:8.3f} s   RSS {rss_mb():7.0f} MB   peak {peak_mb():7.0f} MB")
    return out


from PySide6.QtCore import Qt  # noqa: E402 (after the platform is chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    args = parser.parse_args()

    from PySide6.QtGui import QStandardItem, QStandardItemModel
    from PySide6.QtWidgets import QApplication

    from anonstudio.data.synth_city import SynthCityParams, generate_city
    from anonstudio.gui.data_view import DataView

    app = QApplication.instance() or QApplication([])
    print(f"{'start':<46} {'':>10}   RSS {rss_mb():7.0f} MB")
    city = timed(f"generate {args.users:,} records (loading)", lambda: generate_city(SynthCityParams(users=args.users)))
    data = city.data
    print(f"  {data.n_records:,} records, {len(data.indices):,} item occurrences")
    before = rss_mb()

    def open_view():
        view = DataView(data)
        view.resize(1280, 720)
        view.show()
        app.processEvents()
        view.grab()  # the first screen, painted
        return view

    view = timed("open the data view and paint the first screen", open_view)
    print(f"  memory added by the view: {rss_mb() - before:.0f} MB")
    table = view.table
    timed("sort by record size (descending)", lambda: (table.sortByColumn(2, Qt.DescendingOrder), view.grab()))
    first = data.record(0)
    items = f"{data.vocab[first[0]]}, {data.vocab[first[1]]}" if len(first) > 1 else data.vocab[first[0]]
    timed(f"find records with items {items}", lambda: (view.search.field.setText(items), view.search.find.emit(items),
                                                       view.grab()))
    print(f"  {view.search.result.text()}")
    timed("show all, jump to record 987,654", lambda: (view.search.show_all(),
                                                        view.search.go_to.emit(min(987_654, data.n_records - 1)),
                                                        view.grab()))
    timed("scroll to the end", lambda: (table.scrollToBottom(), view.grab()))

    side_by_side(app, data)
    table_view(app, args.users)

    tenth = max(data.n_records // 10, 1)

    def full_model():
        model = QStandardItemModel(tenth, 3)
        for u in range(tenth):
            model.setItem(u, 0, QStandardItem(str(u)))
            model.setItem(u, 1, QStandardItem(str(int(data.lengths[u]))))
            model.setItem(u, 2, QStandardItem(" ".join(data.record_labels(u))))
        return model

    t0 = time.perf_counter()
    m0 = rss_mb()
    model = timed(f"baseline: QStandardItemModel of {tenth:,} records", full_model)
    spent, grown = time.perf_counter() - t0, rss_mb() - m0
    scale = data.n_records / tenth
    print(f"  baseline scaled to {data.n_records:,} records: about {spent * scale:.0f} s and {grown * scale:.0f} MB")
    del model


def side_by_side(app, data) -> None:
    """The city published with its towers in 100 partitions, original and published side by side."""
    import numpy as np

    from anonstudio.gui.side_by_side import SideBySideView
    from anonstudio.methods.kmanon.compare import PartitionComparison
    from anonstudio.methods.kmanon.result import LevelResult

    labels = (np.arange(data.n_items) * 100 // data.n_items).astype(np.int32)
    level = LevelResult(level=2, k=10, sigma=1.0, gamma=0, mode="exact", samples=0, violations=0, merges=0,
                        partitions=100, error=0.0, avg_area_km2=None, seconds=0.0, support_checks=0, unfixable=0,
                        complete=True, labels=labels)

    def open_view():
        view = SideBySideView()
        view.set_comparison(PartitionComparison(data, level, item_word="tower"))
        view.resize(1280, 720)
        view.show()
        view.select_row(0)
        app.processEvents()
        view.grab()
        return view

    view = timed("side by side (100 partitions): open, select", open_view)
    timed("side by side: sort by published size", lambda: (view.published.sortByColumn(1, Qt.DescendingOrder),
                                                            view.grab()))


def table_view(app, rows: int) -> None:
    """A table of about ``rows`` rows: the Adult sample repeated."""
    import pandas as pd

    from anonstudio.data.samples import load_sample
    from anonstudio.data.table import Table
    from anonstudio.gui.data_view import DataView

    adult = load_sample("adult")
    copies = max(rows // adult.n_rows, 1)
    table = Table(pd.concat([adult.frame] * copies, ignore_index=True), dict(adult.roles), f"adult x{copies}")

    def open_view():
        view = DataView(table)
        view.resize(1280, 720)
        view.show()
        app.processEvents()
        view.grab()
        return view

    view = timed(f"table of {table.n_rows:,} rows: open (column summary included)", open_view)
    timed("table: find occupation = Sales", lambda: (view.search.find.emit("occupation = Sales"), view.grab()))
    timed("table: find the text 'Sales' in any column", lambda: (view.search.find.emit("Sales"), view.grab()))
    timed("table: sort by education", lambda: (view.table.sortByColumn(4, Qt.AscendingOrder), view.grab()))


if __name__ == "__main__":
    main()

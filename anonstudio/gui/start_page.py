"""The start page: four questions in plain words, recent projects and the bundled samples.

Shown when the studio opens with nothing to open, and from Help › Start page. Each entry asks for the data
it needs (a file, a database through File › Open database's dialog, or a bundled sample), waits for the
datasets dock to load it, and opens the workbench that answers the question:

* *Measure the risk of my data*: the first measurement (a family without a guarantee) that takes the data,
  in tab order: the Risk tab for set-valued data, the Audit tab (the data as its own release) for a table;
* *Publish a safer version*: the families that fit the data's kind, each with one sentence saying why; the
  user picks one. A family fits when its spec promises something it checks itself (``guarantee`` and no
  ``verified_by`` of another family: Threats analyses a group release, it does not make one) and accepts the
  data; of those, a table with a column of ``;``-joined items goes to the families that also take RT-data
  (a table and its item sets), a plain table to the others (and, below them, to those taking RT-data with a
  separate file of each person's items);
* *Check a release I received*: the original first, then the release file, which fills the Audit tab;
* *Show an attack (teaching)*: the linkage-attack demo of the workbench that has one.

The page is the window's central widget's sibling in a stack (:func:`install_start_page`); the docks are
hidden while it shows and come back as they were.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QCommandLinkButton,
    QDockWidget,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..data.kinds import kind_words
from ..data.samples import Sample, list_samples
from ..data.table import RTData, Table
from ..data.transactions import TransactionData
from ..methods.contract import get_method
from .accessibility import name_widgets
from .controls import note_label, open_file_dialog

__all__ = ["StartPage", "Task", "TASKS", "install_start_page", "data_kind", "fitting_families",
           "items_file_families", "one_line", "FAMILY_REASONS"]


@dataclass(frozen=True)
class Task:
    """One entry of the start page."""

    key: str
    title: str
    explanation: str
    #: What the data step says it needs.
    needs: str


TASKS = (
    Task("risk", "Measure the risk of my data",
         "How few details about a person does it take to single them out?",
         "Which data do you want to measure?"),
    Task("publish", "Publish a safer version",
         "Make a copy you can share, and see what it still tells.",
         "Which data do you want to publish?"),
    Task("check", "Check a release I received",
         "Does a published file keep its promise? Compare it with its original.",
         "First the original the release was made from; the release file comes next."),
    Task("attack", "Show an attack (teaching)",
         "Reveal one person's details one by one until only they are left.",
         "Which data should the class see attacked? Set-valued data (a set of items per person) works best."),
)

#: One sentence per family: why a user would pick it (the choice of the publish step). A family missing here
#: is offered with its spec's summary.
FAMILY_REASONS = {
    "kmanon": "Replaces rare items by broader groups so that anyone who knows a few of a person's items still "
              "finds at least k people who match; pick it when attackers may know some items of a person.",
    "rho": "Removes only the items that would reveal a person's sensitive items (a diagnosis, a purchase) with "
           "too much confidence; pick it when some items are sensitive and the rest should stay as they are.",
    "nonreciprocal": "Blurs each person's record towards k others without forming fixed groups, which keeps "
                     "more detail; pick it for small data or when grouping would lose too much.",
    "group-anonymize": "Coarsens the columns an attacker may know (ages into ranges, places into regions) until "
                       "every person shares them with at least k others; the standard choice for a table.",
    "rt": "Anonymizes the columns and each person's set of items together, so that neither the columns nor a "
          "few known items single anyone out; pick it for a table with a set of items per row.",
}

#: The three kinds of data the publish step tells apart, in words.
KIND_TEXT = {
    "set-valued": "set-valued data (one set of items per person)",
    "table": "a table (one row of values per person)",
    "table with items": "a table with a set of items per row",
}

#: A sample's kind (sample.json) in the words of the sample list.
SAMPLE_KINDS = {"transactions": "Sets of items", "table": "Table", "location": "Places visited"}

#: The widest the page's content gets (pixels).
CONTENT_WIDTH = 1400

#: The height of the four questions' buttons (pixels).
ENTRY_HEIGHT = 110

#: The narrowest the recent projects and samples column gets.
SIDE_WIDTH = 340
#: The longest one-line description of a sample (the full text is the tooltip).
ONE_LINE = 120


def one_line(text: str, limit: int = ONE_LINE) -> str:
    """The first sentence of ``text``, cut at a word and marked with … beyond ``limit`` characters."""
    text = " ".join(text.split())
    cut = text.find(". ")
    if 0 < cut < limit:
        return text[:cut + 1]
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def data_kind(dataset: Any) -> str:
    """``"set-valued"``, ``"table with items"`` (a column of ``;``-joined items, or RT-data) or ``"table"``."""
    if isinstance(dataset, RTData):
        return "table with items"
    if isinstance(dataset, Table):
        from ..methods.rt.inputs import items_column_of

        return "table with items" if items_column_of(dataset) is not None else "table"
    return "set-valued"


def _publishes(spec: Any) -> bool:
    """Whether a family makes a release whose promise it checks itself (see the module docstring)."""
    own = spec.name.replace("-", "_")
    return bool(spec.guarantee) and spec.verified_by in ("", own)


def fitting_families(dataset: Any, specs: list[Any]) -> list[Any]:
    """The publishing families of ``specs`` (in their order) that fit ``dataset``'s kind."""
    kind = data_kind(dataset)
    fits = []
    for spec in specs:
        if not _publishes(spec) or not spec.accepts(dataset):
            continue
        takes_items = RTData in spec.data_kinds
        if isinstance(dataset, Table) and takes_items != (kind == "table with items"):
            continue
        fits.append(spec)
    return fits


def items_file_families(dataset: Any, specs: list[Any]) -> list[Any]:
    """The publishing families that take a plain table together with a file of each person's items (RT-data)."""
    if data_kind(dataset) != "table":
        return []
    return [s for s in specs if _publishes(s) and s.accepts(dataset) and RTData in s.data_kinds]


def _sample_class(sample: Sample) -> type:
    return Table if sample.kind == "table" else TransactionData


def _heading(text: str, size: float = 1.6) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * size)
    font.setBold(True)
    label.setFont(font)
    label.setWordWrap(True)
    return label


def _entry(title: str, text: str, scale: float = 1.25) -> QCommandLinkButton:
    button = QCommandLinkButton(title, text)
    font = QFont(button.font())
    font.setPointSizeF(font.pointSizeF() * scale)
    button.setFont(font)
    button.setAccessibleName(title)
    button.setMinimumHeight(72)
    return button


class StartPage(QWidget):
    """The start page of ``window`` (a :class:`~anonstudio.gui.main_window.MainWindow`).

    Signals
    -------
    finished(str)
        The page handed over to a workbench (its title); the window shows the workbenches.
    """

    finished = Signal(str)

    def __init__(self, window: QMainWindow, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("start-page")
        self.window_ = window
        #: The entry being followed (a :class:`Task`), None on the first screen.
        self.task: Task | None = None
        self._waiting = False  # a load was started for the task
        self.samples = list_samples()

        self.steps = QStackedWidget()
        self.home = self._build_home()
        self.data_step = self._build_data_step()
        self.family_step = QWidget()
        self.family_layout = QVBoxLayout(self.family_step)
        self.release_step = self._build_release_step()
        for page in (self.home, self.data_step, self.family_step, self.release_step):
            self.steps.addWidget(page)

        side_widget = QWidget()
        side_widget.setMinimumWidth(SIDE_WIDTH)
        side = QVBoxLayout(side_widget)
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(_heading("Recent projects", 1.15))
        self.recent_list = QListWidget()
        self.recent_list.setAccessibleName("Recent projects")
        self.recent_list.itemActivated.connect(self._open_recent)
        self.recent_note = note_label("Projects you save (File › Save project) are listed here.")
        open_project = QPushButton("Open a project…")
        open_project.clicked.connect(self._open_project_dialog)
        side.addWidget(self.recent_list, 1)
        side.addWidget(self.recent_note)
        side.addWidget(open_project, 0, Qt.AlignLeft)
        side.addSpacing(12)
        side.addWidget(_heading("Samples to try", 1.15))
        self.sample_list = QListWidget()
        self.sample_list.setAccessibleName("Bundled samples")
        self.sample_list.setWordWrap(True)
        self.sample_list.setSpacing(4)
        for sample in self.samples:
            kind = SAMPLE_KINDS.get(sample.kind, sample.kind)
            item = QListWidgetItem(f"{sample.title}\n{kind} · {one_line(sample.description)}")
            item.setToolTip(f"<p>{html.escape(sample.description)}</p><p><i>{html.escape(sample.license)}</i></p>")
            item.setData(Qt.UserRole, sample.name)
            self.sample_list.addItem(item)
        self.sample_list.itemActivated.connect(self._open_sample_item)
        side.addWidget(self.sample_list, 2)
        side.addWidget(note_label("Double-click a sample to open it in the workbenches."))

        skip = QPushButton("Go to the workbenches")
        skip.setToolTip("Every method tab, with the dataset and parameters docks (what File › Open dataset… "
                        "leads to).")
        skip.clicked.connect(lambda: self.finished.emit(""))
        self.skip_button = skip

        content = QWidget()
        content.setMaximumWidth(CONTENT_WIDTH)  # a wide screen centres the page rather than stretch its lines
        body = QVBoxLayout(content)
        body.setContentsMargins(0, 0, 0, 0)
        columns = QHBoxLayout()
        columns.addWidget(self.steps, 3)
        columns.addSpacing(24)
        columns.addWidget(side_widget, 2)
        body.addLayout(columns, 1)
        body.addWidget(skip, 0, Qt.AlignRight)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(32, 20, 32, 12)
        # The margins' stretches take only what the content's maximum leaves over.
        outer.addStretch(1)
        outer.addWidget(content, 1000)
        outer.addStretch(1)
        self.refresh()
        name_widgets(self)

    # ------------------------------------------------------------- building
    def _build_home(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_heading("What would you like to do?", 1.8))
        layout.addWidget(note_label("Pick a question; the studio asks for the data it needs and opens the right "
                                    "tools with sensible settings."))
        layout.addSpacing(12)
        grid = QGridLayout()
        grid.setSpacing(12)
        self.entries: dict[str, QCommandLinkButton] = {}
        for index, task in enumerate(TASKS):
            button = _entry(task.title, task.explanation, scale=1.4)
            button.setMinimumHeight(ENTRY_HEIGHT)
            button.setObjectName(f"start-{task.key}")
            button.clicked.connect(lambda _checked=False, key=task.key: self.start_task(key))
            grid.addWidget(button, index // 2, index % 2)
            self.entries[task.key] = button
        layout.addLayout(grid)
        layout.addSpacing(12)
        layout.addWidget(note_label("New here? Try each question on one of the samples on the right: each "
                                    "entry offers them too."))
        layout.addStretch(1)
        return page

    def _back_button(self) -> QPushButton:
        back = QPushButton("‹ Back")
        back.setToolTip("Back to the four questions.")
        back.clicked.connect(self.go_home)
        return back

    def _build_data_step(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        self.data_title = _heading("", 1.6)
        self.data_needs = note_label("")
        layout.addWidget(self.data_title)
        layout.addWidget(self.data_needs)
        layout.addSpacing(8)
        self.file_button = _entry("A file on this computer",
                                  "CSV, spreadsheet, Parquet or transaction files; a preview shows how it reads.")
        self.file_button.clicked.connect(self.choose_file)
        self.database_button = _entry("A database",
                                      "Choose a table or write a query (the same dialog as File › Open database).")
        self.database_button.clicked.connect(self.choose_database)
        layout.addWidget(self.file_button)
        layout.addWidget(self.database_button)
        sample_row = QHBoxLayout()
        self.sample_box = QComboBox()
        self.sample_box.setAccessibleName("Bundled sample")
        self.sample_box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.sample_box.setMinimumContentsLength(28)
        self.sample_button = QPushButton("Use this sample")
        self.sample_button.setDefault(True)
        self.sample_button.clicked.connect(self.use_selected_sample)
        sample_row.addWidget(QLabel("Or a bundled sample:"))
        sample_row.addWidget(self.sample_box, 1)
        sample_row.addWidget(self.sample_button)
        layout.addSpacing(8)
        layout.addLayout(sample_row)
        self.sample_note = note_label("")
        layout.addWidget(self.sample_note)
        self.data_problem = note_label("")
        self.data_problem.setProperty("role", "problem")
        layout.addWidget(self.data_problem)
        layout.addStretch(1)
        layout.addWidget(self._back_button(), 0, Qt.AlignLeft)
        self.sample_box.currentIndexChanged.connect(self._sample_choice_changed)
        return page

    def _build_release_step(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        self.release_title = _heading("", 1.6)
        layout.addWidget(self.release_title)
        layout.addWidget(note_label("The release is the published file (a CSV or a transaction file, as another "
                                    "tool or this studio wrote it). The Audit tab then measures what an attacker "
                                    "can learn from it and checks the promise you type in."))
        layout.addSpacing(8)
        self.release_button = _entry("Choose the release file…",
                                     "Its kind and side files (an item map, a sensitive column) are set next, on "
                                     "the right of the Audit tab.")
        self.release_button.clicked.connect(self.choose_release)
        layout.addWidget(self.release_button)
        layout.addStretch(1)
        layout.addWidget(self._back_button(), 0, Qt.AlignLeft)
        return page

    # ------------------------------------------------------------ the steps
    def refresh(self) -> None:
        """Re-read the recent projects (the list changes while the page is hidden)."""
        self.recent_list.clear()
        for path in self.window_.projects.recent.paths():
            item = QListWidgetItem(Path(path).stem)
            item.setToolTip(path)
            item.setData(Qt.UserRole, path)
            self.recent_list.addItem(item)
        self.recent_note.setVisible(self.recent_list.count() == 0)
        self.recent_list.setVisible(self.recent_list.count() > 0)

    def go_home(self) -> None:
        """Back to the four questions."""
        self.task = None
        self._waiting = False
        self.steps.setCurrentWidget(self.home)

    def start_task(self, key: str) -> None:
        """Follow the entry ``key`` (``risk``, ``publish``, ``check``, ``attack``): ask for its data."""
        self.task = next(t for t in TASKS if t.key == key)
        self._waiting = False
        self.data_title.setText(self.task.title)
        self.data_needs.setText(self.task.needs)
        self.data_problem.setText("")
        self.sample_box.blockSignals(True)
        self.sample_box.clear()
        fitting = self.samples_for(key)
        for sample in fitting:
            self.sample_box.addItem(sample.title, sample.name)
            self.sample_box.setItemData(self.sample_box.count() - 1, sample.description, Qt.ToolTipRole)
        preferred = self.preferred_sample(key)
        names = [s.name for s in fitting]
        self.sample_box.setCurrentIndex(names.index(preferred) if preferred in names else 0)
        self.sample_box.blockSignals(False)
        self._sample_choice_changed()
        self.sample_button.setEnabled(bool(fitting))
        self.steps.setCurrentWidget(self.data_step)

    def samples_for(self, key: str) -> list[Sample]:
        """The bundled samples an entry can use (the attack demo's workbench takes set-valued data only)."""
        if key != "attack":
            return list(self.samples)
        spec = self._attack_spec()
        kinds = spec.data_kinds if spec is not None else ()
        return [s for s in self.samples if issubclass(_sample_class(s), kinds)]

    def preferred_sample(self, key: str) -> str | None:
        """The sample the entry starts from: the first one the specs of its workbenches run on."""
        specs = {"risk": self._measurements(),
                 "publish": [s for s in self._specs() if _publishes(s)],
                 "check": [s for s in self._specs() if s.name == "audit"],
                 "attack": [s for s in [self._attack_spec()] if s is not None]}[key]
        for spec in specs:
            for name, _settings in getattr(spec, "samples", ()):
                return name
        return None

    def _sample_choice_changed(self, _index: int = -1) -> None:
        name = self.sample_box.currentData()
        sample = next((s for s in self.samples if s.name == name), None)
        self.sample_note.setText(one_line(sample.description, 160) if sample is not None else "")

    def choose_file(self) -> None:
        """Pick a file; the import preview opens, and its Load continues the entry."""
        # The window's own dialog (its filter of every format, the last folder); a cancelled dialog leaves the
        # entry waiting on this step, where any dataset loaded next continues it.
        self._waiting = True
        self.window_.open_dataset_dialog()

    def choose_database(self) -> Any:
        """File › Open database's dialog; its Load continues the entry."""
        self._waiting = True
        return self.window_.datasets.open_database_dialog()

    def use_selected_sample(self) -> Any:
        """Load the sample chosen in the data step; the entry continues when it is loaded."""
        name = self.sample_box.currentData()
        if not name:
            return None
        return self.use_sample(name)

    def use_sample(self, name: str) -> Any:
        self._waiting = True
        self.data_problem.setText("")
        return self.window_.datasets.load_sample(name)

    def dataset_loaded(self, dataset: Any) -> None:
        """A dataset became active: continue the entry waiting for it, or leave for the workbenches."""
        if not self.isVisible() and not self._waiting:
            return
        if self.task is None or not self._waiting:
            self.finished.emit("")  # loaded another way (a recent project, the menus): show it
            return
        self._waiting = False
        {"risk": self._open_risk, "publish": self._ask_family, "check": self._ask_release,
         "attack": self._open_attack}[self.task.key](dataset)

    # -------------------------------------------------------------- the ends
    # The tabs are built when first shown: what fits is read from the workbench classes and the specs, and only
    # the tab that opens is built (building all of them would keep the window busy for seconds).
    def _classes(self) -> list[type]:
        return [c for c in self.window_.workbench_classes() if getattr(c, "SPEC", None)]

    def _specs(self) -> list[Any]:
        return [get_method(c.SPEC) for c in self._classes()]

    def _bench(self, name: str) -> Any:
        """The workbench of the spec ``name``, built now if it was not yet (None: the studio has none)."""
        try:
            return self.window_.workbench(name)
        except KeyError:
            return None

    def _measurements(self) -> list[Any]:
        return [s for s in self._specs() if not s.guarantee]

    def _attack_spec(self) -> Any:
        cls = next((c for c in self._classes() if c.OFFERS_ATTACK_DEMO), None)
        return get_method(cls.SPEC) if cls is not None else None

    def _attack_bench(self) -> Any:
        spec = self._attack_spec()
        return self._bench(spec.name) if spec is not None else None

    def open_bench(self, bench: Any, message: str) -> None:
        """Show ``bench``'s tab and say in the status bar what to do there."""
        self.window_.tabs.setCurrentWidget(bench)
        self.go_home()
        self.finished.emit(bench.TITLE)
        self.window_.statusBar().showMessage(message, 15000)

    def _refuse(self, dataset: Any, text: str) -> None:
        self.data_problem.setText(text)
        self.steps.setCurrentWidget(self.data_step)

    def _open_risk(self, dataset: Any) -> None:
        spec = next((s for s in self._measurements() if s.accepts(dataset)), None)
        bench = self._bench(spec.name) if spec is not None else None
        if bench is None:
            self._refuse(dataset, f"No measurement takes {kind_words(type(dataset))}: choose another dataset.")
            return
        self.open_bench(bench, f"Check the settings on the right, then press “{bench.RUN_TEXT}” to measure the "
                               "risk.")

    def _open_attack(self, dataset: Any) -> None:
        bench = self._attack_bench()
        if bench is None or not bench.accepts(dataset):
            self._refuse(dataset, f"The attack demo needs set-valued data (a set of items per person), and "
                                  f"“{getattr(dataset, 'name', 'this dataset')}” is {kind_words(type(dataset))}: "
                                  "choose a file of item sets or one of the samples above.")
            return
        bench.tabs.setCurrentWidget(bench.attack_demo)
        start = bench.attack_demo.start_button.text()
        self.open_bench(bench, f"Pick a person (or a random one) and press “{start}”: each step reveals one more "
                               "of their items.")

    def _ask_family(self, dataset: Any) -> None:
        layout = self.family_layout
        while layout.count():
            item = layout.takeAt(0)
            old = item.widget()
            if old is not None:
                old.hide()  # gone now, not at the next turn of the event loop
                old.setParent(None)
                old.deleteLater()
        name = html.escape(str(getattr(dataset, "name", "your data")))
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_heading(f"Publish a safer version of “{name}”", 1.6))
        kind = data_kind(dataset)
        families = fitting_families(dataset, self._specs())
        self.family_buttons: dict[str, QCommandLinkButton] = {}
        if families:
            layout.addWidget(note_label(f"It is {KIND_TEXT[kind]}. These methods fit it; each opens with settings "
                                        "to start from, which you can change before running."))
        else:
            layout.addWidget(note_label(f"It is {KIND_TEXT[kind]}, and no method here publishes that kind of "
                                        "data: go back and choose another dataset."))
        for spec in families:
            self._add_family(spec)
        also = items_file_families(dataset, self._specs())
        if also:
            layout.addWidget(note_label("If you also have a file of each person's items (person,item rows), "
                                        "these take it with the table:"))
            for spec in also:
                self._add_family(spec)
        layout.addStretch(1)
        layout.addWidget(self._back_button(), 0, Qt.AlignLeft)
        name_widgets(self.family_step)  # the buttons made for this dataset, for screen readers too
        self.steps.setCurrentWidget(self.family_step)

    def _add_family(self, spec: Any) -> None:
        reason = FAMILY_REASONS.get(spec.name, spec.summary[:1].upper() + spec.summary[1:] + ".")
        button = _entry(spec.title, reason)
        button.setObjectName(f"family-{spec.name}")
        button.clicked.connect(lambda _checked=False, s=spec.name: self.choose_family(s))
        self.family_layout.addWidget(button)
        self.family_buttons[spec.name] = button

    def choose_family(self, name: str) -> None:
        """Open the workbench of the family ``name`` (a spec name) chosen in the publish step."""
        bench = self._bench(name)
        self.open_bench(bench, f"Check the settings on the right, then press “{bench.RUN_TEXT}”; the verdict says "
                               "whether the release keeps its promise.")

    def _ask_release(self, dataset: Any) -> None:
        name = html.escape(str(getattr(dataset, "name", "the original")))
        self.release_title.setText(f"Check a release of “{name}”")
        self.steps.setCurrentWidget(self.release_step)

    def choose_release(self) -> None:
        """Pick the release file; it fills the Audit tab's release field."""
        path = open_file_dialog(self, "Release to check", "Releases (*.csv *.dat *.txt *.tsv);;All files (*)")
        if path is not None:
            self.use_release(path)

    def use_release(self, path: str | Path) -> None:
        bench = self._bench("audit")
        if bench is None:
            self.window_.statusBar().showMessage("The Audit tab could not be loaded: see View › Jobs and log.", 15000)
            return
        bench.param_panel.set_value("release", Path(path))
        self.open_bench(bench, f"Release {Path(path).name} chosen: check its kind and side files on the right, "
                               f"type the promise it makes (k, m), then press “{bench.RUN_TEXT}”.")

    # ------------------------------------------------------------- the side
    def _open_recent(self, item: QListWidgetItem) -> None:
        self.window_.projects.open(item.data(Qt.UserRole))

    def _open_project_dialog(self) -> None:
        self.window_.projects.open_dialog()

    def _open_sample_item(self, item: QListWidgetItem) -> None:
        self.go_home()
        self.window_.datasets.load_sample(item.data(Qt.UserRole))


class _CurrentPageStack(QStackedWidget):
    """A stack sized by its current page: the start page's width must not widen the workbenches' window (its
    docks are hidden while it shows), nor the workbenches' the start page's."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.currentChanged.connect(lambda _index: self.updateGeometry())

    def sizeHint(self):  # noqa: N802 (Qt naming)
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()

    def minimumSizeHint(self):  # noqa: N802 (Qt naming)
        page = self.currentWidget()
        return page.minimumSizeHint().expandedTo(page.minimumSize()) if page is not None else super().minimumSizeHint()


def install_start_page(window: QMainWindow) -> StartPage:
    """Put a start page beside ``window``'s central widget; ``window.show_start_page()`` shows it.

    Returns the page; its ``finished`` signal brings the central widget back.
    """
    central = window.takeCentralWidget()
    stack = _CurrentPageStack()
    stack.setObjectName("start-stack")
    stack.addWidget(central)
    page = StartPage(window)
    stack.addWidget(page)
    window.setCentralWidget(stack)
    hidden: list[QDockWidget] = []

    def show() -> None:
        page.refresh()
        page.go_home()  # Help › Start page starts over, whatever an earlier visit left half done
        if stack.currentWidget() is not page:
            # isHidden, not isVisible: before the window is first shown no dock is visible yet.
            hidden[:] = [d for d in window.findChildren(QDockWidget) if not d.isHidden()]
            for dock in hidden:
                dock.hide()
        stack.setCurrentWidget(page)
        page.entries[TASKS[0].key].setFocus()

    def leave(_title: str = "") -> None:
        if stack.currentWidget() is page:
            stack.setCurrentWidget(central)
            for dock in hidden:
                dock.show()
            hidden.clear()

    page.finished.connect(leave)
    window.datasets.dataset_loaded.connect(page.dataset_loaded)
    page.show_page = show  # type: ignore[attr-defined]
    page.leave = leave  # type: ignore[attr-defined]
    page.stack = stack  # type: ignore[attr-defined]
    return page

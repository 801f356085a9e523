"""ParamPanel: editors from ParamSpecs, inline validation, Run emits validated params."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox

from anonstudio.gui.param_panel import ParamPanel
from anonstudio.params import ParameterError, param


@dataclass(frozen=True)
class DemoParams:
    k: int = param(5, label="k", minimum=2, maximum=100, tooltip="Every itemset is shared by at least k people.")
    epsilon: float = param(0.01, label="ε", minimum=0.0001, maximum=0.5, decimals=4,
                           tooltip="Allowed estimation error.")
    method: str = param("auto", label="Method", choices=("auto", "exact", "mcmc"),
                        choice_labels=("Automatic", "Exact count", "Sampling"), tooltip="How to count.")
    seed: int | None = param(None, label="Seed", minimum=0, maximum=2**31 - 1, optional=True,
                             tooltip="Fix for reproducible runs.")
    verbose: bool = param(False, label="Verbose", tooltip="Log more.", advanced=True)
    tag: str = param("x", label="Tag", tooltip="A free-text tag.", advanced=True)
    max_m: int = param(4, label="Largest m", minimum=1, maximum=10, tooltip="Largest m.")

    def check(self):
        if self.max_m < 2 and self.method == "mcmc":
            raise ParameterError("Sampling needs a largest m of at least 2", name="max_m")


def test_editors_follow_the_specs(qtbot):
    panel = ParamPanel(DemoParams)
    qtbot.addWidget(panel)
    assert isinstance(panel.editor("k"), QSpinBox)
    assert (panel.editor("k").minimum(), panel.editor("k").maximum()) == (2, 100)
    eps = panel.editor("epsilon")
    assert isinstance(eps, QDoubleSpinBox) and eps.decimals() == 4 and eps.value() == 0.01
    method = panel.editor("method")
    assert isinstance(method, QComboBox)
    assert [method.itemText(i) for i in range(3)] == ["Automatic", "Exact count", "Sampling"]
    assert isinstance(panel.editor("verbose"), QCheckBox)
    assert isinstance(panel.editor("tag"), QLineEdit)
    assert panel.editor("k").toolTip() == "Every itemset is shared by at least k people."
    # Optional without default: unchecked box, disabled editor, value None.
    assert not panel.fields["seed"].enable_box.isChecked()
    assert not panel.editor("seed").isEnabled()
    assert panel.params() == DemoParams()


def test_run_emits_the_edited_params(qtbot):
    panel = ParamPanel(DemoParams)
    qtbot.addWidget(panel)
    panel.editor("k").setValue(7)
    panel.editor("method").setCurrentIndex(1)
    panel.fields["seed"].enable_box.setChecked(True)
    panel.editor("seed").setValue(42)
    with qtbot.waitSignal(panel.run_requested, timeout=1000) as signal:
        panel.run_button.click()
    assert signal.args[0] == DemoParams(k=7, method="exact", seed=42)


def test_invalid_combination_is_shown_inline_and_blocks_run(qtbot):
    panel = ParamPanel(DemoParams)
    qtbot.addWidget(panel)
    panel.show()
    panel.editor("max_m").setValue(1)
    panel.editor("method").setCurrentIndex(2)
    assert panel.error == "Sampling needs a largest m of at least 2"
    assert panel.error_label.isVisible() and panel.error_label.text() == panel.error
    assert not panel.run_button.isEnabled()
    with qtbot.assertNotEmitted(panel.run_requested):
        panel._on_run()
    panel.editor("max_m").setValue(3)
    assert panel.error == "" and not panel.error_label.isVisible() and panel.run_button.isEnabled()


def test_set_params_round_trip(qtbot):
    panel = ParamPanel(DemoParams)
    qtbot.addWidget(panel)
    wanted = DemoParams(k=9, epsilon=0.05, method="mcmc", seed=3, verbose=True, tag="abc", max_m=6)
    panel.set_params(wanted)
    assert panel.params() == wanted


@dataclass(frozen=True)
class RecipeParams:
    """Every kind a method recipe uses: files, columns, per-level values, enable-when rules."""

    scheme: str = param("own", label="Scheme", choices=("own", "file"), choice_tooltips=("Compute it.", "Read it."),
                        tooltip="Where the release comes from.")
    m: int = param(3, label="m", minimum=1, maximum=10, tooltip="Levels.")
    k: int = param(5, label="k", minimum=2, maximum=100, tooltip="Group size.")
    k_levels: tuple = param((), label="k per level", kind="levels", element=int, minimum=2, maximum=100,
                            per_level=("m", "k"), section="Levels", tooltip="k for each level.")
    qi: tuple = param((), label="Quasi-identifiers", kind="columns", section="Columns", tooltip="Known columns.")
    sensitive: str = param("", label="Sensitive", kind="column", section="Columns", tooltip="Hidden column.")
    published: object = param(None, label="Published file", kind="path", optional=True,
                               enabled_when={"scheme": ("file",)}, tooltip="The file to read.")

    def check(self):
        if self.sensitive and self.sensitive in self.qi:
            raise ParameterError("A column cannot be both", name="sensitive")


def test_recipe_kinds_round_trip_and_rules(qtbot, tmp_path):
    import pandas as pd

    from anonstudio.data.table import Table
    from anonstudio.gui.controls import ColumnCombo, ColumnPicker, FileRow, LevelsTable

    panel = ParamPanel(RecipeParams)
    qtbot.addWidget(panel)
    panel.show()
    assert isinstance(panel.editor("published"), FileRow) and isinstance(panel.editor("qi"), ColumnPicker)
    assert isinstance(panel.editor("sensitive"), ColumnCombo) and isinstance(panel.editor("k_levels"), LevelsTable)
    # The file is only enabled for the scheme that reads it.
    assert not panel.editor("published").isEnabled()
    panel.set_value("scheme", "file")
    assert panel.editor("published").isEnabled()
    # Columns come from the loaded table (with their distinct counts).
    panel.set_dataset(Table(pd.DataFrame({"age": [1, 2, 2], "zip": [1, 1, 1], "job": ["a", "b", "c"]})))
    assert [panel.editor("sensitive").itemData(i) for i in range(4)] == ["", "age", "zip", "job"]
    panel.editor("qi").set_value(("age", "zip"))
    panel.editor("sensitive").set_value("job")
    # Per-level values: one row per level (m), the scalar k until "same" is unticked.
    levels = panel.editor("k_levels")
    assert levels.table.rowCount() == 3 and levels.table.item(2, 0).text() == "5"
    levels.same_box.setChecked(False)
    levels.table.item(1, 0).setText("4")
    f = tmp_path / "release.csv"
    f.write_text("x\n")
    panel.editor("published").set_path(f)
    params = panel.params()
    assert params == RecipeParams(scheme="file", k_levels=(5, 4, 5), qi=("age", "zip"), sensitive="job",
                                  published=f)
    # A cross-field rule names its field; a level out of range names the level.
    panel.editor("sensitive").set_value("age")
    assert panel.error == "A column cannot be both" and not panel.run_button.isEnabled()
    assert panel.editor("sensitive").property("invalid") == "true"
    panel.editor("sensitive").set_value("job")
    levels.table.item(0, 0).setText("1")
    assert "at level 1 must be at least 2" in panel.error
    levels.table.item(0, 0).setText("3")
    assert panel.error == ""
    # set_params shows every kind again.
    other = ParamPanel(RecipeParams)
    qtbot.addWidget(other)
    other.set_dataset(Table(pd.DataFrame({"age": [1], "zip": [1], "job": ["a"]})))
    other.set_params(panel.params())
    assert other.params() == panel.params()


def test_a_missing_file_is_refused_inline(qtbot, tmp_path):
    panel = ParamPanel(RecipeParams)
    qtbot.addWidget(panel)
    panel.set_value("scheme", "file")
    panel.editor("published").set_path(tmp_path / "gone.csv")
    assert "does not exist" in panel.error and not panel.run_button.isEnabled()

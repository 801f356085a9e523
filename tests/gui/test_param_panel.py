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

    def __post_init__(self):
        if self.max_m < 2 and self.method == "mcmc":
            raise ParameterError("Sampling needs a largest m of at least 2")


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

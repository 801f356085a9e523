"""The ρ family's declaration: personalized ρ-uncertainty by partial suppression (``anonstudio-cli rho``).

Imports lightly: the suppressor, its kernels, the utilities and the verifier
load when a run, a check or an export needs them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...data.transactions import TransactionData
from ...formatting import integer, number, percent
from ...params import ParameterError
from ..contract import Export, Figure, MethodRun, MethodSpec, Stage, write_outputs
from ..sweep import Axis, SweepPreset
from .params import RhoParams
from .terms import TERMS

if TYPE_CHECKING:  # the writers' type only: data.io imports every loader, which --help must not
    from ...data.io.atomic import OutputSet

__all__ = ["RhoSpec", "SPEC"]


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import write_suppressed

    write_suppressed(outputs.path_for(path), run.result)


def _write_sensitive(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .sensitive import write_sensitive

    write_sensitive(outputs.path_for(path), run.result.constraint)


def _write_rules(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import write_rules

    write_rules(outputs.path_for(path), run.result)


def _example_data() -> TransactionData:
    """400 shopping baskets of 0-5 items over 40 products (popular ones more often), the same every time.

    Big enough that the trade-off plots, the rule browser and a cancel have something to show, small
    enough for the exact algorithm with any m (about 0.1 s a run).
    """
    import numpy as np

    rng = np.random.default_rng(7)
    weights = 1.0 / np.arange(1, 41) ** 0.9
    weights /= weights.sum()
    lengths = rng.choice(np.array([0, 1, 1, 2, 2, 2, 3, 3, 4, 5]), size=400)
    records = [[str(101 + i) for i in rng.choice(40, size=k, replace=False, p=weights)] for k in lengths]
    return TransactionData.from_records(records, name="example baskets")


class RhoSpec(MethodSpec):
    name = "rho"
    terms = TERMS
    samples = (("sports-example", {"rho": "0.5", "m": 2, "setting": "fixed", "sensitive_fraction": 0.5}),
               ("chess", {"rho": "0.5", "m": 2, "epsilon": 0.2, "delta": 0.2, "setting": "fixed",
                          "sensitive_fraction": 0.05}))
    title = "Personalized ρ-uncertainty"
    summary = "suppress single items until nobody can infer a person's sensitive items with confidence above rho"
    description = (
        "Each person names the items they want kept uncertain (a person,item CSV with --sensitive, people "
        "numbered from 1, '*' for everyone), or they are drawn with --setting and --sensitive-fraction. Items "
        "are then removed from single records (partial suppression) until nobody who knows some of a "
        "person's items can infer one of that person's sensitive items with confidence above rho: checking "
        "every attacker who knows up to m items (SUPPRESSOR; all items when m is not set), or, with "
        "--epsilon and --delta, sampled attackers per pass (SAMPLESUPPRESSOR). Passes repeat until a clean "
        "one. The published file keeps every line of the input, in order, each a subset of the original."
    )
    reference = ("T. Nakagawa, H. Arai, H. Nakagawa. <i>Personalized Anonymization for Set-Valued Data by Partial "
                 "Suppression.</i> Transactions on Data Privacy 11 (2018).")
    params = RhoParams
    data_kinds = (TransactionData,)
    release_kind = "plain"
    guarantee = True
    stages = (Stage("run", "suppressing", 4.0), Stage("verify", "independent check", 1.0))
    exports = (
        Export("release", "Suppressed data", "--out",
               "SUPPRESSED.dat: the input's lines in the input's format and order, suppressed items removed",
               (".dat", ".txt", ".csv", ".parquet"), _write_release),
        Export("sensitive", "Sensitive items", "--sensitive-out",
               "E_USED.csv: person,item pairs of the sensitive items used (people from 1, '*' = everyone)",
               (".csv",),
               _write_sensitive, kind="audit",
               warning="it lists what each person wants hidden; keep it private"),
        Export("rules", "Sensitive rules", "--rules-out",
               "the rules Q -> e above rho in the original data, with confidence before and after, the people "
               "they threatened and what was suppressed", (".csv",), _write_rules, kind="audit",
               warning="it names people and their sensitive items"),
    )

    # The paper's figures (Nakagawa et al. 2018): loss against ρ, the sensitive share and m, one curve per
    # setting. ε = δ (Fig. 8) moves two fields together, which a grid of axes cannot; the workbench's
    # trade-off tab draws it.
    sweeps = tuple(
        SweepPreset(f"Loss vs {what}, {' vs '.join(pair)} ({fig})", (axis, Axis("setting", pair)),
                    ("util_info", "util_mining"), group="setting")
        for what, axis, fig in (("ρ", Axis("rho", ("0.3", "0.4", "0.5", "0.6", "0.7")), "Figs. 3, 5"),
                                ("sensitive share", Axis("sensitive_fraction", (0.05, 0.1, 0.2, 0.3, 0.4)),
                                 "Figs. 4, 6"),
                                ("m", Axis("m", (1, 2, 3, 4, 5)), "Fig. 7"))
        for pair in (("fixed", "personalized"), ("fixed+", "personalized+"))
    )

    def example(self) -> tuple[TransactionData, RhoParams]:
        return _example_data(), RhoParams(rho="0.5", m=3, setting="personalized+", sensitive_fraction=0.2,
                                          noise=0.05, seed=3)

    def check_data(self, data: TransactionData, params: RhoParams) -> None:
        """The exact algorithm's size: Σ_u Σ_ℓ C(|D_u|, ℓ) attackers per pass at most ``max_adversaries``.

        E.g. unbounded m on BMS-WebView-1, whose longest record has 267 items, is refused.
        """
        if params.sampled:
            return
        from .suppressor import adversary_count

        longest = int(data.lengths.max()) if data.n_records else 0
        top = longest if params.m is None else min(params.m, longest)
        count = adversary_count(data.lengths, top)
        if count > params.max_adversaries:
            what = "any number of items" if params.m is None else f"up to {params.m} items"
            raise ParameterError(
                f"checking every attacker who knows {what} means {count:.3g} (person, itemset) pairs per pass "
                f"(records up to {longest} items), above the limit of {integer(params.max_adversaries)}; set a "
                "smaller m, or ε and δ for the sampled algorithm", name="m")

    def write_for_evaluation(self, run: MethodRun, folder: Path):
        from ...evaluate import SideFiles
        from .export import write_suppressed

        # ρ's export writes "in the input's format", which it reads from the load report; a dataset sent to a
        # Dask worker arrives without it (FIMI then, which cannot hold labels such as '1 Jogging'). One set-column
        # CSV everywhere keeps the evaluated file the same here and on a cluster.
        release = folder / "release.sets.csv"
        write_suppressed(release, run.result, format="csv-sets")
        sensitive = folder / "sensitive.csv"
        write_outputs(run, {"sensitive": sensitive}, allow_unverified=True)
        return release, SideFiles(sensitive=sensitive)

    def release_object(self, run: MethodRun):
        return run.result.published

    def run(self, data: TransactionData, params: RhoParams, progress):
        from .algorithm import run_rho

        return run_rho(data, params, progress)

    def verify(self, data: TransactionData, result, params: RhoParams, progress):
        from ...verifiers.rho import verify_result

        return verify_result(data, result, params, progress)

    # ------------------------------------------------------------------ texts
    def promise(self, run: MethodRun) -> str:
        params: RhoParams = run.params
        knows = "any of a person's items" if params.m is None else f"up to {params.m} of a person's items"
        text = (f"Nobody who knows {knows} can infer one of that person's sensitive items with more than "
                f"{number(float(params.rho_fraction) * 100)} % confidence")
        if params.sampled:
            drawn = "a random person and their items" if params.sampler == "user" else "a random person-itemset pair"
            text += (f", except for at most {params.epsilon:g} of such attackers ({drawn}), with probability at "
                     f"least {1 - params.delta:g}")
        return text + "."

    def figure(self, run: MethodRun) -> Figure | None:
        """The Utility tab's plot: suppressed occurrences so far after each pass (pass 0: the original data)."""
        passes = run.result.passes if run.result is not None else ()
        if not passes:
            return None
        xs = (0.0, *(float(p.number) for p in passes))
        ys = (0.0, *(float(p.suppressed_total) for p in passes))
        return Figure(f"Suppression, pass by pass on {run.dataset.name}", "pass",
                      "suppressed so far (item occurrences)", (("suppressed", xs, ys),))

    def notes(self, run: MethodRun) -> list[str]:
        result = run.result
        if result is None:
            return []
        notes = [f"{integer(result.suppressed_items)} item occurrences suppressed ({percent(result.util_info, 2)}) "
                 f"in {result.iterations} passes; {result.constraint.describe()}."]
        if not result.complete:
            notes.append("Stopped before a clean pass: the data so far may still let someone infer a sensitive item.")
        if result.constraint.notice:
            notes.append(f"Deprecated: {result.constraint.notice}.")
        absent = result.constraint.labels[result.constraint.n_data_items:]
        if absent:  # named by the sensitive-items file but absent from the data: the promise is silent on them
            shown = ", ".join(repr(label) for label in absent[:3]) + (", ..." if len(absent) > 3 else "")
            notes.append(f"Warning: {len(absent):,} sensitive items of the file do not occur in the data ({shown}); "
                         "nothing is promised about them.")
        return notes


SPEC = RhoSpec()

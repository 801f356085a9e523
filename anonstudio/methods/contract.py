"""The method contract: what every method family declares, and the one pipeline that runs it.

A family is a package ``anonstudio/methods/<family>/`` whose ``spec.py``
defines ``SPEC``, an instance of a :class:`MethodSpec` subclass. From it

* the CLI generates the command ``anonstudio-cli <name>`` (flags from the
  params field specs, the exports' flags, ``--json``);
* the GUI builds the workbench's parameter panel, run/cancel, stage-weighted
  progress, status texts and export buttons;
* sweeps, project files and reports run it through :func:`run_and_verify`
  and read :meth:`MethodRun.to_json` / :meth:`MethodRun.summary`.

Families are found by :func:`discover_methods`, like CLI commands: adding a
family adds a folder, it edits no list. ``docs/adding-a-method.md`` walks
through a new family.

Protocols
---------
A result has ``complete: bool``, ``to_json() -> dict`` and
``summary() -> dict[str, float]``. A verification has in addition
``passed: bool`` (the promise holds, as far as it was checked) and
``lines() -> list[str]`` (one plain-language line per check).
"""
from __future__ import annotations

import abc
import contextlib
import dataclasses
import datetime as _dt
import hashlib
import importlib
import importlib.util
import pkgutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .. import __version__
from ..formatting import measure
from ..glossary import Term
from ..glossary import register as register_terms
from ..jobs import ForwardingProgress, NullProgress, Progress, SubProgress
from ..outputs import shared_path
from ..params import ParameterError, to_dict, validate

if TYPE_CHECKING:
    # The writers import the data package (every loader, pandas, numba): discovery and --help must not.
    from ..data.io.atomic import OutputSet

__all__ = [
    "Result",
    "Verification",
    "Stage",
    "StagedProgress",
    "Export",
    "Description",
    "Figure",
    "DatasetRef",
    "MethodSpec",
    "MethodRun",
    "NoRelease",
    "run_and_verify",
    "write_evaluated_exports",
    "write_outputs",
    "discover_methods",
    "get_method",
    "dataset_ref",
    "file_sha256",
    "shared_path",
    "shared_params",
    "STATUS_EXIT",
    "TIMING_KEYS",
    "without_timings",
    "CHECK_PASSED",
    "CHECK_FAILED",
    "CHECK_INCOMPLETE",
    "verdict",
    "verdict_head",
]


@runtime_checkable
class Result(Protocol):
    """What a method's ``run`` returns."""

    complete: bool

    def to_json(self) -> dict: ...

    def summary(self) -> dict[str, float]: ...


@runtime_checkable
class Verification(Protocol):
    """What a method's ``verify`` returns: an independent re-check of the promise."""

    complete: bool
    passed: bool

    def to_json(self) -> dict: ...

    def summary(self) -> dict[str, float]: ...

    def lines(self) -> list[str]: ...


# ---------------------------------------------------------------- progress
@dataclass(frozen=True)
class Stage:
    """One step of a run and its share of the progress bar.

    ``weight`` is a relative cost (a number, or a function of the params for
    steps whose cost depends on them, such as the sweeps of a sampler).
    """

    key: str
    label: str
    weight: float | Callable[[Any], float] = 1.0

    def cost(self, params: Any) -> float:
        w = self.weight(params) if callable(self.weight) else self.weight
        return max(float(w), 0.0)


class StagedProgress(ForwardingProgress):
    """A Progress split into the weighted :class:`Stage` slices of a spec.

    ``stage(key)`` returns the sub-progress of one stage (its status lines
    prefixed with the stage's label); the object itself forwards ``partial``
    and ``cancelled`` to the parent.
    """

    def __init__(self, parent: Progress, stages: Sequence[Stage], params: Any):
        super().__init__(parent)
        costs = [s.cost(params) for s in stages]
        total = sum(costs) or 1.0
        self._slices: dict[str, tuple[float, float, str]] = {}
        start = 0.0
        for stage, cost in zip(stages, costs):
            stop = start + cost / total
            self._slices[stage.key] = (start, stop, stage.label)
            start = stop

    def stage(self, key: str) -> Progress:
        """The sub-progress of stage ``key`` (a stage not declared gets no share of the bar)."""
        start, stop, label = self._slices.get(key, (None, None, key))
        if start is None:
            return _Silent(self.parent)
        return SubProgress(self.parent, start, stop, f"{label}: ")


class _Silent(ForwardingProgress):
    """Forwards cancel and partial results, but not progress (an undeclared stage)."""

    def set(self, fraction: float, status: str = "") -> None:
        pass


# ------------------------------------------------------------------ exports
@dataclass(frozen=True)
class Export:
    """One file a run can write.

    Attributes
    ----------
    key
        Short name (``release``, ``map``...), also the GUI button's object name.
    label
        Button and dialog text ("Anonymized data").
    flag
        CLI flag (``--out``).
    help
        One line for ``--help`` and the button's tooltip.
    extensions
        File name endings offered by the save dialog (first = default).
    write
        ``write(path, run, outputs)``: writes the file through ``outputs``
        (an :class:`~anonstudio.data.io.atomic.OutputSet`, so a run's files
        are committed together).
    kind
        ``"release"`` (anonymized data: written only when the independent check
        passed, or with ``allow_unverified``), ``"report"`` (a run's figures:
        always written, partial runs included) or ``"audit"`` (files that
        de-anonymize people, such as a generalization graph: written only on
        explicit request, with a warning).
    available
        ``available(run) -> bool``; e.g. polygons only exist for located items.
    """

    key: str
    label: str
    flag: str
    help: str
    extensions: tuple[str, ...]
    write: Callable[[Path, MethodRun, OutputSet], None]
    kind: str = "release"
    available: Callable[[MethodRun], bool] | None = None
    warning: str = ""
    #: ``check_path(path)`` raises ParameterError for a path this export cannot write (e.g. an unknown extension).
    check_path: Callable[[Path], Any] | None = None
    #: ``requires(data, params) -> reason`` ("" when possible): checked before the run, so a file that could
    #: never be written (polygons without coordinates) is refused at once.
    requires: Callable[[Any, Any], str] | None = None
    #: ``fits(path, params) -> reason`` ("" when it can): whether the file format ``path`` names can hold the
    #: result of a run with ``params`` (FIMI holds integer items only), known before the run; ``anonstudio-cli
    #: run`` picks the first of ``extensions`` that fits.
    fits: Callable[[Path, Any], str] | None = None

    def offered(self, run: MethodRun) -> bool:
        return run.result is not None and (self.available is None or bool(self.available(run)))


@dataclass(frozen=True)
class Description:
    """Plain-language texts of a run, for the GUI banner, the CLI and reports.

    ``promise`` says what the release guarantees in words a privacy officer
    reads ("anyone who knows up to 3 of a person's towers matches at least 10
    people"); ``check`` says what the independent verifier found; ``notes``
    add caveats. ``state`` is ``ok``, ``warning``, ``failed`` or ``incomplete``.
    """

    promise: str
    check: str = ""
    state: str = "ok"
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Figure:
    """A family's main plot as plain numbers, for front ends without Qt (the library API's notebook view).

    ``series`` holds ``(name, xs, ys)`` per line, drawn with markers on one pair of axes; the labels carry
    their units. ``y_range`` fixes the y axis (a share from 0 to 1), otherwise it fits the data.
    """

    title: str
    x_label: str
    y_label: str
    series: tuple[tuple[str, tuple[float, ...], tuple[float, ...]], ...]
    y_range: tuple[float, float] | None = None


@dataclass(frozen=True)
class DatasetRef:
    """Which input a run read: enough to find it again and prove it is the same file."""

    name: str
    kind: str
    path: str | None
    sha256: str | None
    size: int | None

    def to_json(self) -> dict:
        """The reference as JSON: the file named by :func:`shared_path` (the hash proves which file it is)."""
        doc = dataclasses.asdict(self)
        if doc["path"] is not None:
            doc["path"] = shared_path(doc["path"])
        return doc


def shared_params(params: Any) -> dict[str, Any]:
    """:func:`~anonstudio.params.to_dict` of ``params`` with every file parameter named by :func:`shared_path`."""
    from ..params import specs

    doc = to_dict(params)
    for spec in specs(params):
        value = doc.get(spec.name)
        if value is None:
            continue
        if spec.kind == "path" and isinstance(value, str):
            doc[spec.name] = shared_path(value)
        elif spec.kind == "column_paths" and isinstance(value, list):
            doc[spec.name] = [[c, shared_path(p)] for c, p in value]
    return doc


def _shared_strings(doc: Any, local: dict[str, str]) -> Any:
    """``doc`` with every string that is one of the ``local`` absolute paths replaced by its shared name.

    A family's result may echo an input file's path (the sensitive-items file
    a run read): the run's JSON travels, so no such path stays in it.
    """
    if not local:
        return doc
    if isinstance(doc, str):
        return local.get(doc, doc)
    if isinstance(doc, dict):
        return {k: _shared_strings(v, local) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_shared_strings(v, local) for v in doc]
    return doc


_HASH_CACHE: dict[tuple[str, int, int], str] = {}
_HASH_LOCK = threading.Lock()


def file_sha256(path: str | Path, cancelled: Callable[[], bool] | None = None) -> str:
    """SHA-256 of a file's bytes (cached per path, size and modification time).

    Read in 1 MiB blocks; between blocks ``cancelled`` (or the enclosing
    :func:`~anonstudio.jobs.cancel_scope`'s flag) is polled and a cancel raises
    :class:`~anonstudio.jobs.Cancelled`, so hashing a large release never delays a cancel.
    """
    from ..jobs import cancel_scope, raise_if_cancelled

    path = Path(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    with _HASH_LOCK:
        if key in _HASH_CACHE:
            return _HASH_CACHE[key]
    digest = hashlib.sha256()
    with cancel_scope(cancelled), open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            raise_if_cancelled()
            digest.update(block)
    value = digest.hexdigest()
    with _HASH_LOCK:
        _HASH_CACHE[key] = value
    return value


def dataset_ref(data: Any) -> DatasetRef:
    """The :class:`DatasetRef` of a loaded dataset (path and hash when it came from a file)."""
    source = getattr(data, "source", None)
    path = sha = size = None
    if source is not None and Path(source).is_file():
        path = str(Path(source))
        size = Path(source).stat().st_size
        sha = file_sha256(source)
    else:
        from ..data.origin import origin_of

        origin = origin_of(data)
        if origin is not None and origin.url is not None:
            sha = origin.sha256  # a database's rows, fingerprinted in canonical form when fetched
    return DatasetRef(name=str(getattr(data, "name", "dataset")), kind=type(data).__name__, path=path,
                      sha256=sha, size=size)


# --------------------------------------------------------------------- spec
class NoRelease(NotImplementedError):
    """Asked for a release the family does not make: uniqueness and the audit publish none, and the evaluator reads
    only the releases of families with a :attr:`MethodSpec.release_kind`.

    A :class:`NotImplementedError`, as :meth:`MethodSpec.release_object` has always raised there; callers that
    may meet such a family test :attr:`MethodSpec.release_kind` or the family's exports first.
    """


class MethodSpec(abc.ABC):
    """Base class of a method family's declaration; subclass it in ``methods/<family>/spec.py``.

    Class attributes
    ----------------
    name
        The CLI command, the project-file key and the workbench id.
    title
        Human title ("σ-k^m anonymity").
    summary
        One line for ``anonstudio-cli --help``.
    description
        A paragraph: what the method does and how (CLI ``--help``).
    reference
        The paper(s), as plain text with ``<i>`` for titles (Help menu, reports).
    params
        The params dataclass (:func:`anonstudio.params.param` fields).
    data_kinds
        Dataset classes ``run`` accepts.
    stages
        Weighted progress stages; ``verify`` runs in the stage keyed
        ``"verify"`` when there is one.
    exports
        The files a run can write.
    guarantee
        True when the method promises a privacy property its ``verify``
        checks (anonymizers); False for measurements (Risk).
    """

    name: str = ""
    title: str = ""
    summary: str = ""
    description: str = ""
    reference: str = ""
    params: type = type(None)
    data_kinds: tuple[type, ...] = ()
    stages: tuple[Stage, ...] = (Stage("run", "running"),)
    exports: tuple[Export, ...] = ()
    guarantee: bool = False
    #: Deprecated CLI spellings: old flag -> (rewrite(value) -> new argv tokens, takes_value, notice).
    cli_aliases: dict[str, tuple[Callable[[str | None], list[str]], bool, str]] = {}
    #: CLI flags that shape the printed report but are not parameters: (flag, argparse keywords).
    cli_options: tuple[tuple[str, dict], ...] = ()
    #: Sweeps the family offers by default (the paper's figures), as ``methods.sweep.SweepPreset`` s.
    sweeps: tuple = ()
    #: The module of ``anonstudio.verifiers`` that checks the promise (default: the family's own, named as its
    #: package); a family whose promise is another family's (threat analyses a group release) names that one.
    verified_by: str = ""
    #: Bundled samples the family runs on, each with parameter settings small enough for a quick run: the
    #: contract tests run the CLI on the first, and the kernel warm-up check runs every one. A setting that names
    #: one of the sample's files (``"labels.csv"``) means that file.
    samples: tuple[tuple[str, dict[str, Any]], ...] = ()
    #: The family's own glossary entries (its measures and parameters), registered when the family is found;
    #: terms shared by several families live in ``anonstudio/glossary.py``.
    terms: tuple[Term, ...] = ()
    #: Version of the params' saved form; raise it (and extend :meth:`migrate_params`) when a field is
    #: renamed, removed or changes meaning, so projects saved by older versions still open.
    params_schema: int = 1
    #: Whether :meth:`report_lines` ends with every measure as ``key = value``; a family whose
    #: :meth:`detail_lines` already print each measure in a table turns it off (the JSON keeps them all).
    report_measures: bool = True
    #: The kind of release the independent evaluator reads from this family (one of
    #: :data:`anonstudio.evaluate.KINDS`); empty for a family that makes no release (a measurement).
    #: A family that sets it overrides :meth:`write_for_evaluation`.
    release_kind: str = ""

    # ---------------------------------------------------------------- hooks
    def accepts(self, data: Any) -> bool:
        return isinstance(data, self.data_kinds)

    def open_dataset(self, spec: str | Path, *, format: str | None = None, encoding: str | None = None,
                     columns: str | None = None, sep: str | None = None, header: bool | None = None,
                     progress: Progress | None = None, **source: Any) -> Any:
        """Load the dataset a user names (a file, a bundled sample or a database URL); override for kinds such as
        RT data.

        ``source`` holds the other options of :func:`anonstudio.data.datasets.open_dataset` (``sheet``,
        ``table``, ``query``, ``items_query``). A cancelled ``progress`` raises
        :class:`~anonstudio.data.errors.LoadCancelled`.
        """
        from ..data.datasets import open_dataset

        return open_dataset(spec, format=format, encoding=encoding, columns=columns, sep=sep, header=header,
                            progress=progress, **source)

    def check_data(self, data: Any, params: Any) -> None:
        """Raise :class:`ParameterError` for limits that depend on the data (k above the records...)."""

    def input_files(self, params: Any) -> dict[str, Path]:
        """Every input file the params name (for the run's JSON and output-path checks)."""
        out = {}
        for name, _value in to_dict(params).items():
            spec_value = getattr(params, name)
            if isinstance(spec_value, Path):
                out[name] = spec_value
            elif isinstance(spec_value, tuple) and spec_value and all(
                    isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], Path) for p in spec_value):
                for column, path in spec_value:
                    out[f"{name}[{column}]"] = path
        return out

    @abc.abstractmethod
    def run(self, data: Any, params: Any, progress: StagedProgress) -> Any:
        """Compute the result (chunked, cancellable, partial results through ``progress``)."""

    @abc.abstractmethod
    def example(self) -> tuple[Any, Any]:
        """A tiny dataset and quick params: what the contract tests run, and small enough that the default
        params finish in seconds on it too. Built in memory or from a bundled sample."""

    def verify(self, data: Any, result: Any, params: Any, progress: Progress) -> Any | None:
        """An independent check of ``result``'s promise, sharing no code with ``run`` (None: nothing to check)."""
        return None

    def write_for_evaluation(self, run: MethodRun, folder: Path) -> tuple[Path, Any]:
        """Write ``run``'s release, and the side files the evaluator needs, into ``folder``.

        Returns the release's path and its :class:`~anonstudio.evaluate.SideFiles`. The release is written even
        when the run's own check did not confirm it: it is measured, never published. Families with a
        :attr:`release_kind` override it, usually with :func:`write_evaluated_exports`.
        """
        raise NoRelease(f"{self.title} makes no release the evaluator reads")

    def release_object(self, run: MethodRun) -> Any:
        """``run``'s release as an object, built in memory: what its ``release`` export writes, unwritten.

        A table family returns a DataFrame whose CSV is the file (``frame.to_csv(index=False)``); a set-valued
        family the :class:`~anonstudio.data.transactions.TransactionData` of the file's records. The library
        API's ``run.release`` reads it. Families whose :attr:`exports` include a release override it.
        """
        raise NoRelease(f"{self.title} makes no release")

    def describe(self, run: MethodRun) -> Description:
        """The plain-language texts of a run: :meth:`promise`, the :func:`verdict`, :meth:`notes`.

        Families override the three parts, not this: the verdict's words are the contract's.
        """
        state = "warning" if run.state == "ok" and self.needs_caution(run) else run.state
        return Description(promise=self.promise(run), check=verdict(run), state=state, notes=tuple(self.notes(run)))

    def needs_caution(self, run: MethodRun) -> bool:
        """Whether a finished run's figures need a second look although nothing failed (a sampled measure
        short of its precision): its texts are then coloured as a warning. Default: never."""
        return False

    def promise(self, run: MethodRun) -> str:
        """What the run's release guarantees, in words a privacy officer reads (default: the title)."""
        return self.title

    def check_figures(self, run: MethodRun) -> str:
        """The family's own figures after the verdict's words (default: the verification's lines)."""
        v = run.verification
        return "; ".join(v.lines()) if v is not None else ""

    def notes(self, run: MethodRun) -> list[str]:
        """Caveats shown under the verdict (rows dropped, a cancelled run's coarser result...)."""
        return []

    def detail_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        """Extra CLI lines of the family between the texts and the measures (a curve's table...)."""
        return []

    def figure(self, run: MethodRun) -> Figure | None:
        """The family's main plot of a finished or partial run as numbers (None: none without Qt; the notebook view
        shows the measures only)."""
        return None

    def check_cli_options(self, data: Any, params: Any, options: dict) -> None:
        """Raise :class:`ParameterError` for a :attr:`cli_options` value that cannot apply to ``data``."""

    def run_context(self, options: dict) -> contextlib.AbstractContextManager:
        """Where a run executes, from :attr:`cli_options` values that are run options rather than parameters
        (e.g. a Dask scheduler for independent trials); entered around :func:`run_and_verify`. Default: here."""
        return contextlib.nullcontext()

    def report_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        """Lines the CLI prints on stdout after a run: the promise, the verdict, the notes, the family's
        :meth:`detail_lines` and every measure of :meth:`MethodRun.summary` (timings aside; see
        :attr:`report_measures`).

        ``options`` holds the values of :attr:`cli_options` by flag name (``victim`` for ``--victim``).
        """
        d = self.describe(run)
        lines = [d.promise] + ([d.check] if d.check else []) + list(d.notes)
        lines.extend(self.detail_lines(run, options))
        if self.report_measures:
            lines.extend(f"{key} = {measure(value)}" for key, value in run.summary().items()
                         if not is_timing_key(key))
        return lines

    def migrate_params(self, values: dict[str, Any], schema: int) -> dict[str, Any]:
        """Saved params of ``schema`` brought up to :attr:`params_schema` (override when it grows).

        Raises
        ------
        ParameterError
            For params saved by a newer anonstudio (a schema above ours).
        """
        if schema > self.params_schema:
            raise ParameterError(f"the {self.name} parameters were saved by a newer anonstudio (schema {schema}; "
                                 f"this version reads up to {self.params_schema})")
        return values

    # ------------------------------------------------------------- helpers
    def params_from(self, values: dict[str, Any] | None = None) -> Any:
        """A validated params object from field values (CLI, project files)."""
        from ..params import from_dict

        return from_dict(self.params, values or {})

    @property
    def verify_stage(self) -> str | None:
        return "verify" if any(s.key == "verify" for s in self.stages) else None


#: The three verdicts of an independent check: every front end (CLI, studio, report, certificate, sweep
#: tables) starts its verdict line with one of them, followed by the family's own figures.
CHECK_PASSED = "Independent check passed"
CHECK_FAILED = "Independent check FAILED"
CHECK_INCOMPLETE = "Independent check incomplete"


def verdict_head(run: MethodRun) -> str:
    """:data:`CHECK_PASSED`, :data:`CHECK_FAILED` or :data:`CHECK_INCOMPLETE` ("" for a run with no promise).

    A run is *passed* only when it is complete and its check confirmed the promise; a run cancelled before or
    during its check, or whose check was skipped, is *incomplete*: a release never claims more than was checked.
    """
    v = run.verification
    if v is None and not run.spec.guarantee:
        return ""
    if v is None or not v.complete or not run.complete:
        return CHECK_INCOMPLETE
    return CHECK_PASSED if v.passed else CHECK_FAILED


def verdict(run: MethodRun) -> str:
    """The verdict line: :func:`verdict_head`, then the family's :meth:`MethodSpec.check_figures` or the reason
    the check is incomplete ("" for a run with no promise and no check)."""
    head = verdict_head(run)
    if not head:
        return ""
    if run.verification is None:
        detail = run.status_reason() or "the check did not run"
    else:
        detail = run.spec.check_figures(run)
        if head == CHECK_INCOMPLETE:
            reason = run.status_reason()
            detail = "; ".join(part for part in (reason, detail) if part)
    return f"{head}: {detail}" if detail else f"{head}."


# ---------------------------------------------------------------------- run
#: Keys of a run's JSON that hold wall-clock times (at any depth): durations and the start time. Keys
#: ending in ``_seconds`` (a stage's duration) or ``_per_second`` (a throughput) are timings too.
TIMING_KEYS = frozenset({"seconds", "started"})


def is_timing_key(key: str) -> bool:
    return key in TIMING_KEYS or key.endswith(("_seconds", "_per_second"))


def without_timings(doc: Any) -> Any:
    """``doc`` without its wall-clock fields (:func:`is_timing_key`) at any depth: what two runs of one recipe
    share."""
    if isinstance(doc, dict):
        return {k: without_timings(v) for k, v in doc.items() if not is_timing_key(str(k))}
    if isinstance(doc, list):
        return [without_timings(v) for v in doc]
    return doc


#: Exit status of the CLI per run status.
STATUS_EXIT = {"done": 0, "unverified": 0, "not-met": 3, "cancelled": 130}


@dataclass(eq=False)
class MethodRun:
    """One run of a method: its recipe, its result, its independent check and its status.

    ``status`` is ``done`` (complete, and the promise checked where there is
    one), ``not-met`` (the independent check found the promise broken),
    ``cancelled`` (stopped before the run or its check finished: the result
    is partial) or ``unverified`` (complete, but the check was skipped on
    request).
    """

    spec: MethodSpec
    params: Any
    data: Any
    dataset: DatasetRef
    result: Any | None = None
    verification: Any | None = None
    cancelled: bool = False
    seconds: float = 0.0
    started: str = ""
    inputs: dict[str, dict] = field(default_factory=dict)
    #: True when the run was read back from the result cache rather than computed now.
    cached: bool = False

    @property
    def complete(self) -> bool:
        if self.cancelled or self.result is None or not self.result.complete:
            return False
        return self.verification is None or bool(self.verification.complete)

    @property
    def status(self) -> str:
        if not self.complete:
            return "cancelled"
        if self.verification is not None and not self.verification.passed:
            return "not-met"
        if self.spec.guarantee and self.verification is None:
            return "unverified"
        return "done"

    @property
    def state(self) -> str:
        """How the run's texts are coloured: ``ok``, ``failed``, ``incomplete`` or ``warning``."""
        return {"done": "ok", "not-met": "failed", "cancelled": "incomplete", "unverified": "warning"}[self.status]

    @property
    def guarantee_met(self) -> bool:
        """True when the release may be published: complete and independently confirmed."""
        if not self.spec.guarantee:
            return self.complete
        return self.status == "done"

    @property
    def exit_code(self) -> int:
        return STATUS_EXIT[self.status]

    def status_reason(self) -> str:
        """Why a run is not ``done``, in one sentence ("" when it is)."""
        status = self.status
        if status == "cancelled":
            if self.result is None or not self.result.complete:
                return "the run was cancelled before it finished; the result is partial"
            return "the run was cancelled during its independent check; the promise is unchecked"
        if status == "not-met":
            failed = [line for line in self.verification.lines()] if self.verification is not None else []
            return "the independent check found the promise broken" + (f" ({failed[0]})" if failed else "")
        if status == "unverified":
            return "the independent check was skipped; the promise is unchecked"
        return ""

    def summary(self) -> dict[str, float]:
        """The run's scalars for comparison tables: the result's, then the verification's (``check_``)."""
        out = dict(self.result.summary()) if self.result is not None else {}
        if self.verification is not None:
            out.update({f"check_{k}": v for k, v in self.verification.summary().items()})
        out["seconds"] = round(self.seconds, 4)
        return out

    def to_json(self, timings: bool = True) -> dict:
        """Everything needed to repeat and audit the run: version, params, input hash, result, check, status.

        ``timings=False`` leaves out every wall-clock field (:func:`is_timing_key`), the only ones that differ
        between two runs of the same recipe, so a rerun's JSON is byte-identical.
        """
        if not timings:
            return without_timings(self.to_json())
        from ..data.io.jsonfile import strict_json

        doc = dict(strict_json(self.result.to_json())) if self.result is not None else {}
        # The run's own facts sit under one key so they never collide with a
        # result's columns (a uniqueness curve has its own "method" and "seconds").
        doc.update({
            "complete": self.complete,
            "status": self.status,
            "verification": strict_json(self.verification.to_json()) if self.verification is not None else None,
            "run": {
                "anonstudio": __version__,
                "method": self.spec.name,
                "status_reason": self.status_reason(),
                "params": shared_params(self.params),
                "input": self.dataset.to_json(),
                "input_files": {k: {**ref, "path": shared_path(ref["path"])} for k, ref in self.inputs.items()},
                "seconds": round(self.seconds, 4),
                "started": self.started,
            },
        })
        return _shared_strings(strict_json(doc), self._local_paths())

    def _local_paths(self) -> dict[str, str]:
        """Every absolute path of a file the run read, as its JSON names it (:func:`shared_path`)."""
        paths = [self.dataset.path, *(ref.get("path") for ref in self.inputs.values())]
        with contextlib.suppress(Exception):  # params of a failed spec still give what they can
            paths.extend(self.spec.input_files(self.params).values())
        return {str(p): shared_path(p) for p in paths if p is not None and Path(p).is_absolute()}

    def description(self) -> Description:
        return self.spec.describe(self)


def _file_refs(spec: MethodSpec, params: Any) -> dict[str, dict]:
    out = {}
    for key, path in spec.input_files(params).items():
        ref = {"path": str(path), "sha256": None}
        if Path(path).is_file():
            ref["sha256"] = file_sha256(path)
        out[key] = ref
    return out


def _check_levels(params: Any) -> None:
    """The work-size guard on per-level parameters: a list of a thousand levels is refused before any work."""
    from ..limits import check_work
    from ..params import specs

    for param_spec in specs(params):
        value = getattr(params, param_spec.name)
        if param_spec.kind == "levels" and isinstance(value, tuple):
            check_work("levels", len(value), where=param_spec.cli_flag)


def stage_modules(spec: MethodSpec) -> tuple[str, ...]:
    """The modules ``spec``'s stages import on first use: its ``algorithm`` and its verifier, where they exist."""
    package = type(spec).__module__.rpartition(".")[0]
    family = spec.verified_by or package.rpartition(".")[2]
    return tuple(name for name in (f"{package}.algorithm", f"{__package__.rpartition('.')[0]}.verifiers.{family}")
                 if importlib.util.find_spec(name) is not None)


def preload(spec: MethodSpec) -> None:
    """Import what ``spec``'s stages need before they start.

    A verifier's imports (scipy.stats, cached kernels) take seconds on a busy
    machine; inside a stage a cancel is only a flag, which an import cannot
    look at, so Ctrl-C at the start of the check waited for them. Imported
    here, before any stage, Ctrl-C interrupts them at once.
    """
    for name in stage_modules(spec):
        importlib.import_module(name)


def prepare(spec: MethodSpec, data: Any, params: Any) -> Any:
    """Validate ``params`` for ``spec`` on ``data`` before any work (raises ParameterError).

    Also imports the modules the run's stages need (:func:`preload`), so that none is imported mid-stage.
    """
    preload(spec)
    if not isinstance(params, spec.params):
        raise ParameterError(f"{spec.name} needs {spec.params.__name__}, got {type(params).__name__}")
    _check_levels(params)
    validate(params)
    if not spec.accepts(data):
        from ..data.kinds import kind_words

        wanted = " or ".join(kind_words(k) for k in spec.data_kinds)
        raise ParameterError(f"{spec.title} works on {wanted}; {getattr(data, 'name', 'the dataset')} is "
                             f"{kind_words(type(data))}")
    spec.check_data(data, params)
    return params


def run_and_verify(spec: MethodSpec, data: Any, params: Any, progress: Progress | None = None, *,
                   verify: bool = True, prepared: bool = False) -> MethodRun:
    """Run ``spec`` on ``data`` and check its promise independently: the one pipeline of every front end.

    Parameters are validated first (:class:`ParameterError`), unless ``prepared`` says the caller has just run
    :func:`prepare` on these data and params (the CLI does, before it writes anything), so the data checks run
    once. A cancel during the run skips the check; a cancel during the check leaves it incomplete; either way
    the run's status is ``cancelled`` and nothing claims more than was checked.
    """
    progress = progress or NullProgress()
    if not prepared:
        prepare(spec, data, params)
    staged = StagedProgress(progress, spec.stages, params)
    started = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()
    run = MethodRun(spec, params, data, dataset_ref(data), started=started, inputs=_file_refs(spec, params))
    t0 = time.perf_counter()
    run.result = spec.run(data, params, staged)
    run.cancelled = progress.cancelled() or run.result is None or not run.result.complete
    if verify and not run.cancelled and spec.verify_stage is not None:
        run.verification = spec.verify(data, run.result, params, staged.stage("verify"))
        if run.verification is not None and not run.verification.complete:
            run.cancelled = True
    run.seconds = time.perf_counter() - t0
    progress.set(1.0, "done" if run.complete else "stopped")
    return run


def check_outputs(spec: MethodSpec, paths: dict[str, Path | None], data: Any = None, params: Any = None) -> None:
    """Check every requested output path before the work starts (raises OutputPathError)."""
    from ..data.io.atomic import check_output_path

    inputs = []
    if data is not None and getattr(data, "source", None) is not None:
        inputs.append(Path(data.source))
    if params is not None:
        inputs.extend(spec.input_files(params).values())
    by_key = {e.key: e for e in spec.exports}
    for key, path in paths.items():
        if path is None:
            continue
        check_output_path(path, inputs=tuple(inputs))
        export = by_key.get(key)
        if export is not None and export.check_path is not None:
            export.check_path(Path(path))
        if export is not None and export.fits is not None and params is not None:
            reason = export.fits(Path(path), params)
            if reason:
                raise ParameterError(f"{export.flag} {Path(path).name}: {reason}")
        if export is not None and export.requires is not None and data is not None and params is not None:
            reason = export.requires(data, params)
            if reason:
                raise ParameterError(f"{export.flag}: {reason}")


def write_evaluated_exports(run: MethodRun, paths: dict[str, Path], release: str) -> Path:
    """Write ``run``'s exports ``paths`` for the evaluator (unverified releases too) and return ``paths[release]``.

    Raises ValueError when the release could not be written (a cancelled run without one, say).
    """
    skipped = write_outputs(run, paths, allow_unverified=True)
    if not paths[release].is_file():
        raise ValueError("the run wrote no release" + (f" ({skipped[0]})" if skipped else ""))
    return paths[release]


def write_outputs(run: MethodRun, paths: dict[str, Path | None], json_path: Path | None = None, *,
                  allow_unverified: bool = False, timings: bool = True,
                  cancelled: Callable[[], bool] | None = None) -> list[str]:
    """Write the requested exports (``{export key: path}``) and the run's JSON, committed together.

    Release files are written only when the run is complete and its promise
    was independently confirmed, unless ``allow_unverified``; audit files only
    when asked for. ``timings=False`` writes the JSON without wall-clock
    fields (byte-identical across reruns). Returns one line per file not
    written, saying why. Writers that poll :func:`~anonstudio.jobs.raise_if_cancelled`
    see ``cancelled``: a cancel raises :class:`~anonstudio.jobs.Cancelled` and no file is replaced.
    """
    from ..data.io.atomic import OutputSet
    from ..data.io.jsonfile import write_json
    from ..jobs import cancel_scope

    skipped = []
    by_key = {e.key: e for e in run.spec.exports}
    with cancel_scope(cancelled), OutputSet() as outputs:
        for key, path in paths.items():
            if path is None:
                continue
            export = by_key[key]
            if not export.offered(run):
                skipped.append(f"{export.flag} {path}: not written, {export.label.lower()} is not available for "
                               "this run")
                continue
            if export.kind == "release" and not run.guarantee_met and not allow_unverified:
                skipped.append(f"{export.flag} {path}: not written, {run.status_reason() or 'unverified'} "
                               "(--allow-unverified writes it anyway)")
                continue
            if _as_spreadsheet(export, Path(path)):
                _write_release_as_xlsx(export, Path(path), run, outputs)
            else:
                export.write(Path(path), run, outputs)
        if json_path is not None:
            write_json(json_path, run.to_json(timings), outputs=outputs)
    return skipped


def _as_spreadsheet(export: Export, path: Path) -> bool:
    """Whether a table release written as CSV is asked for as ``.xlsx`` (it is then converted)."""
    return export.kind == "release" and ".csv" in export.extensions and ".xlsx" not in export.extensions \
        and path.suffix.lower() == ".xlsx"


def release_as_csv(export: Export, run: MethodRun, folder: Path) -> Path:
    """The release of ``export`` written as CSV into ``folder`` (for a spreadsheet or a database table)."""
    from ..data.io.atomic import OutputSet

    scratch = folder / "release.csv"
    with OutputSet() as staged:
        export.write(scratch, run, staged)
    return scratch


def _write_release_as_xlsx(export: Export, path: Path, run: MethodRun, outputs: Any) -> None:
    """One sheet holding the same rows as the CSV release (written first to a scratch folder)."""
    import tempfile

    from ..data.io.sheets import write_csv_as_xlsx

    with tempfile.TemporaryDirectory(prefix="anonstudio-release-") as folder:
        write_csv_as_xlsx(release_as_csv(export, run, Path(folder)), outputs.path_for(path))


# ---------------------------------------------------------------- discovery
_SPECS: dict[str, MethodSpec] | None = None
_SPECS_LOCK = threading.Lock()


def discover_methods() -> dict[str, MethodSpec]:
    """Every family's ``SPEC``, by name, found in ``anonstudio.methods.<family>.spec`` modules."""
    global _SPECS
    with _SPECS_LOCK:
        if _SPECS is None:
            from .. import methods

            found: dict[str, MethodSpec] = {}
            for info in sorted(pkgutil.iter_modules(methods.__path__), key=lambda m: m.name):
                if not info.ispkg:
                    continue
                module_name = f"{methods.__name__}.{info.name}.spec"
                if importlib.util.find_spec(module_name) is None:
                    continue
                spec = getattr(importlib.import_module(module_name), "SPEC", None)
                if isinstance(spec, MethodSpec):
                    if spec.name in found:
                        raise RuntimeError(f"two method families are named {spec.name!r}")
                    found[spec.name] = spec
                    register_terms(spec.terms, spec.name)
            _SPECS = found
        return dict(_SPECS)


def get_method(name: str) -> MethodSpec:
    """The spec named ``name`` (KeyError listing the known names)."""
    specs = discover_methods()
    if name not in specs:
        raise KeyError(f"no method named {name!r}; known: {', '.join(sorted(specs))}")
    return specs[name]

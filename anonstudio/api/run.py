"""What a family function of the library API returns: one run, its verdict, its release and its files.

A :class:`Run` wraps the :class:`~anonstudio.methods.contract.MethodRun` that
:func:`~anonstudio.methods.contract.run_and_verify` returned: its JSON is the
run's own (what ``anonstudio-cli <family> --json`` writes), its files are written
by the family's exports through :func:`~anonstudio.methods.contract.write_outputs`
(atomically, together), and its release is what ``--out`` writes, as an object (:mod:`.releases`).
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

__all__ = ["Run", "export_keyword"]


def export_keyword(flag: str) -> str:
    """The :meth:`Run.save` keyword of a CLI output flag: ``--map-out`` -> ``map_out``, ``--out`` -> ``out``."""
    return flag.lstrip("-").replace("-", "_")


class Run:
    """One run of a method family, as ``an.kmanon(...)`` and its siblings return it.

    Attributes
    ----------
    check
        The verdict of the independent check, in the contract's words: a line beginning
        ``Independent check passed``, ``Independent check FAILED`` or ``Independent check
        incomplete`` ("" for a measurement that promises nothing, such as uniqueness).
    status
        ``done``, ``not-met`` (the check found the promise broken), ``cancelled`` (stopped:
        the result is partial) or ``unverified``.
    complete
        False for a run stopped by an interrupt or a cancel (its result is partial).
    method_run
        The underlying :class:`~anonstudio.methods.contract.MethodRun` (result, verification, params).
    """

    def __init__(self, method_run: Any, options: dict | None = None):
        self.method_run = method_run
        self._options = dict(options or {})
        self._release: Any = None
        self._release_read = False

    # ------------------------------------------------------------ reading
    @property
    def spec(self) -> Any:
        return self.method_run.spec

    @property
    def method(self) -> str:
        """The family's name (its CLI command)."""
        return self.spec.name

    @property
    def params(self) -> Any:
        """The validated parameters (the family's params dataclass)."""
        return self.method_run.params

    @property
    def data(self) -> Any:
        """The input the run read."""
        return self.method_run.data

    @property
    def result(self) -> Any:
        """The family's result object (None when the run stopped before it had one)."""
        return self.method_run.result

    @property
    def check(self) -> str:
        from ..methods.contract import verdict

        return verdict(self.method_run)

    @property
    def status(self) -> str:
        return self.method_run.status

    @property
    def complete(self) -> bool:
        return self.method_run.complete

    @property
    def promise(self) -> str:
        """What the release guarantees, in plain words (the family's title for a run stopped before any result)."""
        if self.result is None:
            return self.spec.title  # a family's words describe a result; there is none to describe
        return self.method_run.description().promise

    @property
    def notes(self) -> list[str]:
        return list(self.method_run.description().notes) if self.result is not None else []

    def summary(self) -> dict[str, float]:
        """The run's measures by name (the result's, then the check's as ``check_...``, then ``seconds``)."""
        return self.method_run.summary()

    def lines(self) -> list[str]:
        """What ``anonstudio-cli`` prints after the same run: promise, verdict, notes, details and measures."""
        if self.result is None:
            return [self.promise, self.check or self.method_run.status_reason()]
        return self.spec.report_lines(self.method_run, self._options)

    def to_json(self, timings: bool = True) -> dict:
        """The run as the CLI's ``--json`` writes it (``timings=False``: without wall-clock fields)."""
        return self.method_run.to_json(timings)

    def figure(self) -> Any:
        """The family's main plot as numbers (a :class:`~anonstudio.methods.contract.Figure`), or None."""
        if self.result is None:
            return None
        return self.spec.figure(self.method_run)

    # ------------------------------------------------------------ release
    @property
    def release(self) -> Any:
        """The release: a pandas DataFrame for tables, a TransactionData (``.to_frame()``) for set-valued data.

        None when the family publishes nothing (a measurement) or when the run's promise is not
        independently confirmed (a release never claims more than was checked: see
        :meth:`release_data` with ``allow_unverified=True``).
        """
        if not self._release_read:
            self._release = self.release_data()
            self._release_read = True
        return self._release

    def release_data(self, allow_unverified: bool = False) -> Any:
        """The release ``save(out=...)`` writes, as an object (None when there is none to publish).

        Converted from the run's result in memory (:mod:`.releases`), with no file written: a table's rows as
        its CSV holds them, typed as anonstudio's CSV reader types a file; set-valued data's records with the
        items that occur in them.
        """
        export = self._release_export()
        if export is None or not export.offered(self.method_run):
            return None
        if not self.method_run.guarantee_met and not allow_unverified:
            return None
        from .releases import release_object

        return release_object(self.method_run)

    def _release_export(self) -> Any:
        return next((e for e in self.spec.exports if e.key == "release" and e.kind == "release"), None)

    # ------------------------------------------------------------ files
    def outputs(self) -> dict[str, str]:
        """The :meth:`save` keyword of every file this family can write, with what it holds."""
        out = {export_keyword(e.flag): f"{e.label} ({', '.join(e.extensions)}): {e.help}" for e in self.spec.exports}
        out["json"] = "the run as JSON, as the CLI's --json writes it"
        return out

    def save(self, *, json: str | Path | None = None, allow_unverified: bool = False, timings: bool = True,
             **files: str | Path | None) -> list[str]:
        """Write the run's files, atomically and together, with the CLI's writers.

        Parameters
        ----------
        json
            The run as JSON (what ``--json`` writes; ``timings=False`` leaves out wall-clock fields).
        allow_unverified
            Write the release even when the independent check did not confirm the promise.
        **files
            One keyword per output flag of the family's CLI command, ``--`` dropped and ``-`` as ``_``:
            ``out=`` for ``--out``, ``map_out=`` for ``--map-out`` (:meth:`outputs` lists them).

        Returns
        -------
        list of str
            One line per requested file that was not written, saying why (a release whose promise is
            not confirmed is not written, as in the CLI).

        Raises
        ------
        TypeError
            For a keyword that names no output of this family.
        OutputPathError
            For a path that cannot be written or would overwrite an input; nothing is written then.
        """
        from ..methods.contract import check_outputs, write_outputs

        by_keyword = {export_keyword(e.flag): e for e in self.spec.exports}
        unknown = sorted(set(files) - set(by_keyword))
        if unknown:
            raise TypeError(f"{self.method} has no output {unknown[0]!r}; outputs: "
                            f"{', '.join([*by_keyword, 'json'])}")
        paths = {by_keyword[k].key: Path(v) for k, v in files.items() if v is not None}
        json_path = Path(json) if json is not None else None
        check_outputs(self.spec, {**paths, "json": json_path}, self.data, self.params)
        for export in self.spec.exports:
            if export.kind == "audit" and export.key in paths:
                # As the CLI warns: such a file, together with the release, de-anonymizes people.
                warnings.warn(f"{export_keyword(export.flag)} writes an audit file: {export.warning or export.help}",
                              UserWarning, stacklevel=2)
        return write_outputs(self.method_run, paths, json_path, allow_unverified=allow_unverified, timings=timings)

    # ------------------------------------------------------------ display
    def __repr__(self) -> str:
        check = self.check or self.status
        return f"<{self.method} run on {getattr(self.data, 'name', 'data')}: {check}>"

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        from .html import run_html

        return run_html(self)

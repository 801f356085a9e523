"""Every command with its standard output closed (``>&-``), its standard error closed (``2>&-``) and its output
piped into a reader that is gone (``| true``): the exit status of a normal run, never an internal error, and
every file output written all the same (results that go to files never depend on stdout).

The commands run in-process with the streams Python gives a process in those cases (``None`` for a closed
descriptor, a stream whose writes fail with EPIPE for a closed pipe), so the numba kernels load once; a few
cheap commands also run in a forked child with the descriptors really closed.
"""
from __future__ import annotations

import errno
import io
import sys
from pathlib import Path

import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.methods.contract import get_method
from anonstudio.studio.project import Project

RT_EXAMPLE = Path(__file__).parents[1] / "data" / "rt" / "example.csv"

#: Each command with file outputs (``{o}`` the output folder, ``{d}`` a small baskets file, ``{p}`` a project).
COMMANDS = {
    "info": ["info", "{d}", "--json", "{o}/info.json"],
    "samples": ["samples"],
    "convert": ["convert", "{d}", "{o}/d.sets.csv"],
    "attack": ["attack", "{d}", "--record", "2", "--json", "{o}/attack.json"],
    "synth-city": ["synth-city", "--towers", "20", "--users", "100", "--mean-size", "3", "--std-size", "2",
                   "--max-size", "10", "--out", "{o}/c.dat", "--json", "{o}/c.json"],
    "synth-clinic": ["synth-clinic", "--people", "50", "--out", "{o}/clinic.csv"],
    "uniqueness": ["uniqueness", "{d}", "--m", "1", "--json", "{o}/u.json"],
    "kmanon": ["kmanon", "{d}", "--k", "2", "--m", "1", "--verify-samples", "50", "--out", "{o}/r.dat",
               "--json", "{o}/k.json"],
    "nonreciprocal": ["nonreciprocal", "{d}", "--k", "2", "--out", "{o}/n.csv", "--json", "{o}/n.json"],
    "rho": ["rho", "{d}", "--setting", "fixed", "--rho", "0.5", "--out", "{o}/rho.dat", "--json", "{o}/rho.json"],
    "rt": ["rt", str(RT_EXAMPLE), "--qi", "age,gender", "--items-column", "items", "--k", "2", "--m", "1",
           "--json", "{o}/rt.json"],
    "group-anonymize": ["group-anonymize", "{t}", "--qi", "age,sex", "--sensitive", "city", "--k", "2",
                        "--json", "{o}/g.json"],
    "evaluate": ["evaluate", "{d}", "--release", "{d}", "--k", "2", "--m", "1", "--json", "{o}/e.json"],
    "sweep": ["sweep", "kmanon", "{d}", "--grid", "k=2,3", "--set", "m=1", "--out", "{o}/s.csv"],
    "run": ["run", "{p}", "--out", "{o}/run"],
    "report": ["report", "{p}", "--html", "{o}/report.html", "--no-figures"],
}


def _outputs(argv: list[str], folder: Path) -> list[Path]:
    found = [Path(a) for a in argv if a.startswith(str(folder))]
    return [p / "uniqueness" / "uniqueness.json" if p.name == "run" else p for p in found]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("streams")
    baskets = d / "baskets.dat"
    baskets.write_text("".join(" ".join(str((i * 7 + j) % 13) for j in range(1 + i % 4)) + "\n" for i in range(40)))
    table = d / "people.csv"
    table.write_text("age,sex,city\n" + "".join(f"{20 + i % 7},{'MF'[i % 2]},{'abc'[i % 3]}\n" for i in range(30)))
    project = Project()
    key = project.add_dataset(load_with_options(baskets, ReadOptions(format="fimi")))
    project.set_step("uniqueness", get_method("uniqueness").params(max_m=1, seed=4), key)
    return {"d": baskets, "t": table, "p": project.save(d / "study.toml")}


class _BrokenPipe(io.TextIOBase):
    """stdout when the reader of the pipe has exited: every write fails with EPIPE."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


NO_QUIET = {"samples", "synth-clinic", "info", "convert", "attack"}


def _argv(command: str, folder: Path, inputs: dict) -> list[str]:
    return [a.format(o=folder, **inputs) for a in COMMANDS[command]] + ([] if command in NO_QUIET else ["--quiet"])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_closed_or_broken_standard_streams(inputs, tmp_path, monkeypatch, capsys, command):
    expected = None
    for streams in ("", "close-stdout", "close-stderr", "pipe-closed"):
        folder = tmp_path / (streams or "normal")
        folder.mkdir()
        argv = _argv(command, folder, inputs)
        with monkeypatch.context() as patch:
            if streams == "close-stdout":
                patch.setattr(sys, "stdout", None)
            elif streams == "close-stderr":
                patch.setattr(sys, "stderr", None)
            elif streams == "pipe-closed":
                patch.setattr(sys, "stdout", _BrokenPipe())
            code = main(argv)
        err = capsys.readouterr().err
        assert "internal error" not in err and "Traceback" not in err, (streams, err)
        if expected is None:
            expected = code
            assert expected in (0, 3), err
        assert code == expected, (streams, err)
        for path in _outputs(argv, folder):
            assert path.exists() and path.stat().st_size > 0, (streams, path)


@pytest.mark.parametrize("streams", ["close-stdout", "close-stderr", "pipe-closed"])
def test_really_closed_descriptors(cli, inputs, tmp_path, streams):
    for command in ("info",):
        folder = tmp_path / command
        folder.mkdir()
        argv = _argv(command, folder, inputs)
        result = cli.run(argv, cwd=folder, timeout=60, streams=streams)
        assert result.code == 0 and not result.traceback and "internal error" not in result.stderr, result
        for path in _outputs(argv, folder):
            assert path.exists() and path.stat().st_size > 0, (streams, path)
    # A file opened after a closed descriptor 1 must not become "stdout": what is printed never lands in it.
    if streams == "close-stdout":
        assert (tmp_path / "info" / "info.json").read_text().lstrip().startswith("{")

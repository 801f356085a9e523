"""Hostile project files: a valid project's text with one field given a value it cannot take."""
from __future__ import annotations

from pathlib import Path

from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.methods.contract import get_method
from anonstudio.studio.project import Project

BASKETS = "".join(" ".join(str((i * 7 + j) % 13) for j in range(1 + i % 4)) + "\n" for i in range(40))


def valid_project(folder: Path) -> Path:
    """A project over a small baskets file with a Risk and a ρ step."""
    data_file = folder / "baskets.dat"
    data_file.write_text(BASKETS, encoding="utf-8")
    project = Project()
    key = project.add_dataset(load_with_options(data_file, ReadOptions(format="fimi")))
    project.set_step("uniqueness", get_method("uniqueness").params(max_m=1, seed=4), key)
    project.set_step("rho", get_method("rho").params(), key)
    return project.save(folder / "study.toml")


def hostile_variants(text: str) -> dict[str, str]:
    """Name -> project text, each with one hostile value (every one must be refused in one line)."""
    sweep = '\n[[sweeps]]\nmethod = "uniqueness"\ndataset = "baskets-dat"\n'
    cases = {
        "schema-text": text.replace("schema = 1\nsaved", 'schema = "abc"\nsaved', 1),
        "schema-float": text.replace("schema = 1\nsaved", "schema = 1.5\nsaved", 1),
        "step-schema-text": text.replace("[workbenches.uniqueness]\nschema = 1",
                                         '[workbenches.uniqueness]\nschema = "x"'),
        "nan": text.replace("epsilon = 0.01", "epsilon = nan", 1),
        "inf": text.replace("max_sample_factor = 8.0", "max_sample_factor = inf"),
        "minus-inf-ignored-field": text.replace("noise = 0.01", "noise = -inf"),
        "huge-seed": text.replace("seed = 4", "seed = 99999999999999999999", 1),
        "not-a-format": text.replace('format = "fimi"', 'format = "not-a-format"'),
        "format-number": text.replace('format = "fimi"', "format = 7"),
        "columns-number": text.replace('format = "fimi"', 'format = "fimi"\ncolumns = 5'),
        "path-number": text.replace('path = "baskets.dat"', "path = 3"),
        "version-number": text.replace('version = "', 'version = 1.5\nx_version = "'),
        "dataset-table": text.replace('dataset = "baskets-dat"', "dataset = {a = 1}", 1),
        "unset-number": text.replace('unset = [\n    "max_memory_gib",\n]', "unset = 4"),
        "roles-number": text.replace("size = ", "roles = 5\nsize = "),
        "datasets-array": text.replace("[datasets.baskets-dat]", "[[datasets.baskets-dat]]"),
        "rho-list": text.replace('rho = "0.5"', "rho = [1, 2]"),
        "rho-date": text.replace('rho = "0.5"', "rho = 1979-05-27"),
        "bool-for-int": text.replace("max_m = 1\n", "max_m = true\n"),
        "nested-arrays": text + "\n[x]\ny = " + "[" * 5000 + "]" * 5000 + "\n",
        "nested-tables": text + "\n[workbenches.uniqueness.params.q]\nz = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
        "sweeps-table": text + '\n[sweeps]\nmethod = "uniqueness"\n',
        "sweep-seeds-text": text + sweep + 'seeds = "x"\n',
        "sweep-billion-seeds": text + sweep + "seeds = 1000000000\n[sweeps.grid]\nmax_m = [1]\n",
        "sweep-grid-number": text + sweep + "grid = {max_m = 3}\n",
        "not-utf8": "\udcff",
        "sep-three-characters": text.replace('format = "fimi"', 'format = "csv-table"\nsep = ";;;"'),
        "sep-empty": text.replace('format = "fimi"', 'format = "csv-table"\nsep = ""'),
        "size-negative": text.replace("size = ", "size = -1\nx_size = "),
        "path-holds-a-url": text.replace('path = "baskets.dat"', 'path = "postgresql://bob:s3cret@127.0.0.1:1/db"'),
        "sheet-of-a-text-file": text.replace('format = "fimi"', 'format = "fimi"\nsheet = "2"'),
    }
    return {name: value for name, value in cases.items() if value != text}

"""``anonstudio-cli synth-clinic``: generate synthetic patients with demographics and ICD-9 diagnoses."""
from __future__ import annotations

import argparse
from pathlib import Path

from ...params import ParameterError, validate
from ..errors import CliError

NAME = "synth-clinic"
HELP = "generate a synthetic clinic: patients' age, sex, race, ZIP prefix and a set of ICD-9 diagnosis codes"
DESCRIPTION = (
    "Generate people with a few demographics (age, sex, a race code, a three-digit ZIP prefix) and a set of "
    "3-digit ICD-9 diagnosis codes each, drawn from frequent outpatient diagnoses shaped by age and sex plus a "
    "long tail of rarer codes. No real patient is behind any row. The table is written as CSV with the codes "
    "joined by ';' (an RT-dataset for anonstudio-cli rt)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--people", type=int, default=2000, help="number of patients (default 2000)")
    parser.add_argument("--mean-diagnoses", type=float, default=3.5,
                        help="average distinct diagnosis codes per patient (default 3.5)")
    parser.add_argument("--codes-from", type=Path, metavar="HIERARCHY",
                        help="draw the long tail of rare codes from the 3-digit leaves of this ICD-9 hierarchy "
                             "(code;group;...;*); without it only the frequent codes occur")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--out", type=Path, required=True, help="the patients CSV")
    parser.add_argument("--zip-hierarchy-out", type=Path,
                        help="hierarchy of the ZIP prefixes (zip3;region;*), for --hierarchy zip3=FILE")


def run(args: argparse.Namespace) -> int:
    from ...data.io import OutputSet, check_output_path, load_hierarchy
    from ...data.synth_clinic import SynthClinicParams, generate_clinic, write_clinic_csv, zip3_hierarchy_rows
    from ...outputs import check_distinct, labelled

    check_distinct([labelled("--out", args.out), labelled("--zip-hierarchy-out", args.zip_hierarchy_out)],
                   [labelled("--codes-from", args.codes_from)])
    for path in (args.out, args.zip_hierarchy_out):
        if path is not None:
            check_output_path(path)
    try:
        params = validate(SynthClinicParams(people=args.people, mean_diagnoses=args.mean_diagnoses, seed=args.seed))
    except (ParameterError, ValueError) as exc:
        raise CliError(str(exc)) from None
    codes: list[str] = []
    if args.codes_from is not None:
        hierarchy = load_hierarchy(args.codes_from)
        codes = [hierarchy.labels[v] for v in hierarchy.leaves.tolist()]
    clinic = generate_clinic(params, codes)
    with OutputSet() as outputs:
        write_clinic_csv(outputs.path_for(args.out), clinic)
        if args.zip_hierarchy_out is not None:
            with outputs.open(args.zip_hierarchy_out) as fh:
                fh.writelines(";".join(row) + "\n" for row in zip3_hierarchy_rows())
    lengths = clinic.frame["diagnoses"].str.count(";") + 1
    print(f"{len(clinic.frame):,} patients, {len(clinic.codes):,} distinct codes, {lengths.mean():.2f} codes per "
          f"patient on average (largest {int(lengths.max())})")
    return 0

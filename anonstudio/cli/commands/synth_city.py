"""``anonstudio-cli synth-city``: generate a synthetic city of towers and user records."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...params import ParameterError, validate
from ..errors import CliError

NAME = "synth-city"
HELP = "generate a synthetic city: towers with coordinates and the set of towers each user visited"
DESCRIPTION = (
    "Generate towers over a square city (dense centre, sparse outskirts) and, for each user, the set of towers "
    "seen near home, work and elsewhere. Record sizes follow a long-tailed distribution with the requested mean "
    "and standard deviation (defaults: Table II of the probabilistic k^m-anonymity paper)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--towers", type=int, default=1303, help="number of towers (default 1303)")
    parser.add_argument("--area-km2", type=float, default=128.0, help="area of the square city (default 128)")
    parser.add_argument("--users", type=int, default=100_000, help="number of users / records (default 100000)")
    parser.add_argument("--mean-size", type=float, default=11.42, help="mean towers per user (default 11.42)")
    parser.add_argument("--std-size", type=float, default=17.23, help="std. dev. of towers per user (default 17.23)")
    parser.add_argument("--max-size", type=int, default=422, help="largest record (default 422)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--out", type=Path, required=True, help="records file (.dat: FIMI, one user per line)")
    parser.add_argument("--to", dest="to_format", default=None, metavar="FMT",
                        help="format of the written records if not given by the extension")
    # The old spelling: --format names an input format in every other command.
    parser.add_argument("--format", dest="old_format", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--coords-out", type=Path, help="tower coordinates CSV (item,x,y in metres)")
    parser.add_argument("--boundary-out", type=Path, help="city outline as WKT (metres)")
    parser.add_argument("--cells-out", type=Path,
                        help="Voronoi cells of the towers as GeoJSON (metres), with visitor counts")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write record-size statistics as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")


def run(args: argparse.Namespace) -> int:
    from ...data.io import OutputSet, check_output_path, save_transactions, write_json
    from ...data.synth_city import PAPER_RECORD_SIZES, SynthCityParams, generate_city, write_coordinates_csv
    from ...outputs import check_distinct, labelled
    from ...params import to_dict

    if args.old_format is not None:
        print("anonstudio-cli synth-city: note: --format is now --to (the old spelling still works for now)",
              file=sys.stderr)
        args.to_format = args.to_format or args.old_format
    check_distinct([labelled("--out", args.out), labelled("--coords-out", args.coords_out),
                    labelled("--boundary-out", args.boundary_out), labelled("--cells-out", args.cells_out),
                    labelled("--json", args.json)])
    for path in (args.out, args.coords_out, args.boundary_out, args.cells_out, args.json):
        if path is not None:
            check_output_path(path)
    if args.to_format is None:
        _format_of(args.out)
    try:
        params = validate(SynthCityParams(towers=args.towers, area_km2=args.area_km2, users=args.users,
                                          mean_record_size=args.mean_size, std_record_size=args.std_size,
                                          max_record_size=args.max_size, seed=args.seed))
    except (ParameterError, ValueError) as exc:
        raise CliError(str(exc)) from None
    from ..progress import TqdmProgress

    with TqdmProgress("synth-city", disable=args.quiet) as progress:
        try:
            city = generate_city(params, progress)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    stats = city.record_sizes
    doc = {
        "complete": city.complete, "params": to_dict(params),
        "towers": city.data.n_items, "area_km2": params.area_km2, "users": stats.records, "seed": params.seed,
        "record_size": {"mean": stats.mean, "std": stats.std, "min": stats.min, "max": stats.max},
        "paper_record_size": {"mean": PAPER_RECORD_SIZES.mean, "std": PAPER_RECORD_SIZES.std,
                              "min": PAPER_RECORD_SIZES.min, "max": PAPER_RECORD_SIZES.max},
        "seconds": city.seconds,
    }
    if not city.complete:
        # A partial city is not the city the seed describes: only its statistics are written, marked incomplete.
        if args.json:
            write_json(args.json, doc)
        print(f"synth-city: cancelled after {stats.records:,} of {params.users:,} users; no city written",
              file=sys.stderr)
        return 130
    with OutputSet() as outputs:
        try:
            save_transactions(city.data, outputs.path_for(args.out), args.to_format or _format_of(args.out))
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if args.coords_out:
            write_coordinates_csv(outputs.path_for(args.coords_out), city.data)
        if args.boundary_out:
            with outputs.open(args.boundary_out) as fh:
                fh.write(city.boundary.wkt + "\n")
        if args.cells_out:
            _write_cells(outputs.path_for(args.cells_out), city)
        if args.json:
            write_json(args.json, doc, outputs=outputs)
    for line in city.report_lines():
        print(line)
    return 0


def _format_of(path: Path) -> str:
    """The records format named by the file name (checked before the city is generated)."""
    from ...data.io.registry import format_for_extension

    fmt = format_for_extension(path, "transactions")
    if fmt is None:
        raise CliError(f"{path.name}: cannot tell the records format from the name; use .dat, .csv or --to FMT")
    return fmt.name


def _write_cells(path: Path, city) -> None:
    import numpy as np

    from ...data.geo import PartitionGeometry, build_voronoi, write_partitions_geojson

    data = city.data
    cells = PartitionGeometry(build_voronoi(data.coords, city.boundary), np.arange(data.n_items))
    write_partitions_geojson(path, cells, item_labels=data.vocab, supports=data.item_frequencies)

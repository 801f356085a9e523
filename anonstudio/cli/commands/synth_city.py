"""``anonstudio-cli synth-city``: generate a synthetic city of towers and user records."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ...params import ParameterError
from ..errors import CliError
from ..progress import TqdmProgress

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
    parser.add_argument("--format", default=None, help="records format if not given by the extension")
    parser.add_argument("--coords-out", type=Path, help="tower coordinates CSV (item,x,y in metres)")
    parser.add_argument("--boundary-out", type=Path, help="city outline as WKT (metres)")
    parser.add_argument("--cells-out", type=Path, help="Voronoi cells of the towers as GeoJSON (metres), with visitor counts")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write record-size statistics as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")


def run(args: argparse.Namespace) -> int:
    from ...data.io import atomic_write, save_transactions
    from ...data.synth_city import PAPER_RECORD_SIZES, SynthCityParams, generate_city, write_coordinates_csv

    for path in (args.out, args.coords_out, args.boundary_out, args.cells_out, args.json):
        if path is not None and not path.parent.exists():
            raise CliError(f"folder {path.parent} does not exist")
    try:
        params = SynthCityParams(towers=args.towers, area_km2=args.area_km2, users=args.users,
                                 mean_record_size=args.mean_size, std_record_size=args.std_size,
                                 max_record_size=args.max_size, seed=args.seed)
    except (ParameterError, ValueError) as exc:
        raise CliError(str(exc)) from None
    with TqdmProgress("synth-city", disable=args.quiet) as progress:
        try:
            city = generate_city(params, progress)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if not city.complete:
        raise CliError("cancelled before all users were generated; nothing written")
    try:
        save_transactions(city.data, args.out, args.format)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.coords_out:
        write_coordinates_csv(args.coords_out, city.data)
    if args.boundary_out:
        with atomic_write(args.boundary_out) as fh:
            fh.write(city.boundary.wkt + "\n")
    if args.cells_out:
        _write_cells(args.cells_out, city)
    stats = city.record_sizes
    if args.json:
        doc = {
            "towers": city.data.n_items, "area_km2": params.area_km2, "users": stats.records, "seed": params.seed,
            "record_size": {"mean": stats.mean, "std": stats.std, "min": stats.min, "max": stats.max},
            "paper_record_size": {"mean": PAPER_RECORD_SIZES.mean, "std": PAPER_RECORD_SIZES.std,
                                  "min": PAPER_RECORD_SIZES.min, "max": PAPER_RECORD_SIZES.max},
            "seconds": city.seconds,
        }
        with atomic_write(args.json) as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
    if not args.quiet:
        for line in city.report_lines():
            print(line)
    return 0


def _write_cells(path: Path, city) -> None:
    import numpy as np

    from ...data.geo import PartitionGeometry, build_voronoi, write_partitions_geojson

    data = city.data
    cells = PartitionGeometry(build_voronoi(data.coords, city.boundary), np.arange(data.n_items))
    write_partitions_geojson(path, cells, item_labels=data.vocab, supports=data.item_frequencies)

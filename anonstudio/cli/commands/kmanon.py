"""``anonstudio-cli kmanon``: probabilistic k^m-anonymization (Algorithm 2 of Acs et al.)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import USER_ERRORS, CliError
from ..progress import TqdmProgress

NAME = "kmanon"
HELP = "generalize items so that any m items of a person are shared by >= k people (with probability sigma)"
DESCRIPTION = (
    "Probabilistic k^m-anonymity by greedy generalization: items are merged into partitions until uniformly drawn "
    "itemsets of up to m items (of the original data) are shared by at least k generalized records, in gamma "
    "samples in a row (Theorem 1), or exactly for sigma = 1. Merges follow one constraint: touching Voronoi cells "
    "of item coordinates (--coords), horizontal cuts of a hierarchy (--hierarchy) or any two partitions (--free). "
    "Afterwards an independent check draws itemsets uniformly and reports the k-anonymous share per size."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, help="set-valued data (any supported format)")
    parser.add_argument("--format", default=None, help="dataset format if it cannot be sniffed")
    kind = parser.add_mutually_exclusive_group(required=True)
    kind.add_argument("--coords", type=Path, help="item coordinates CSV (item,lat,lon or item,x,y): contiguity")
    kind.add_argument("--hierarchy", type=Path, help="generalization hierarchy of the items: horizontal cuts")
    kind.add_argument("--free", action="store_true", help="any two partitions may merge")
    parser.add_argument("--boundary", type=Path, help="study area (GeoJSON lon/lat, or WKT in metres) for --coords")
    parser.add_argument("--drop-missing", action="store_true", help="remove items without coordinates")
    parser.add_argument("--k", type=int, default=20, help="k (default 20)")
    parser.add_argument("--m", type=int, default=5, help="largest number of known items (default 5)")
    parser.add_argument("--sigma", type=float, default=0.99, help="probability of k-anonymity (default 0.99)")
    parser.add_argument("--k-levels", default="", help="k per itemset size, e.g. 20,20,10")
    parser.add_argument("--sigma-levels", default="", help="sigma per itemset size, e.g. 1,1,1,1,0.99")
    parser.add_argument("--bound", default="conservative", choices=("conservative", "theorem", "two-sided"),
                        help="sample bound of Theorem 1 (default conservative = the larger)")
    parser.add_argument("--sampler", default="independent", choices=("independent", "mcmc"),
                        help="uniform itemset sampler: independent draws by rejection (default) or the paper's "
                             "MCMC chain (Algorithm 1)")
    parser.add_argument("--trials", type=int, default=1, help="independent trials r; the least error is kept")
    parser.add_argument("--threads", type=int, default=2, help="trials run in parallel on this many threads")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--sample-always", action="store_true",
                        help="sample even where enumerating all itemsets (sigma = 1) would be cheaper")
    parser.add_argument("--exact-budget", type=int, default=250_000_000,
                        help="most itemsets a sigma = 1 level may enumerate")
    parser.add_argument("--map-out", type=Path, help="item -> partition CSV (item,partition)")
    parser.add_argument("--out", type=Path, help="anonymized records (partition labels), format by extension")
    parser.add_argument("--geojson-out", type=Path, help="partition polygons (with --coords)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="per-level summary and verification as JSON")
    parser.add_argument("--verify-samples", type=int, default=20_000,
                        help="uniform itemsets per size for the independent check (0: skip)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")


def _load(args):
    from ...data.io import attach_coordinates, load_coordinates, load_hierarchy, load_transactions
    from ...methods.kmanon.constraints import FreeMerge, HierarchyCut

    data = load_transactions(args.dataset, args.format)
    projection = None
    cells = None
    if args.coords is not None:
        from ...data.geo import LocalProjection, build_voronoi, load_boundary
        from ...methods.kmanon.constraints import Contiguity

        coords = load_coordinates(args.coords)
        try:
            data = attach_coordinates(data, coords, drop_missing=args.drop_missing)
        except ValueError as exc:
            raise CliError(f"{args.coords.name}: {exc}") from None
        projection = LocalProjection.of(coords)
        boundary = None
        if args.boundary is not None:
            boundary = load_boundary(args.boundary, projection=projection)
        try:
            cells = build_voronoi(data.coords, boundary)
        except ValueError as exc:
            raise CliError(f"Voronoi cells: {exc}") from None
        constraint = Contiguity(cells)
    elif args.hierarchy is not None:
        tree = load_hierarchy(args.hierarchy)
        try:
            constraint = HierarchyCut(tree, data.vocab)
        except ValueError as exc:
            raise CliError(f"{args.hierarchy.name}: {exc}") from None
    else:
        constraint = FreeMerge()
    return data, constraint, cells, projection


def run(args: argparse.Namespace) -> int:
    from ...data.geo import PartitionGeometry, write_partitions_geojson
    from ...verifiers.km_verify import verify_km
    from ...methods.kmanon import KmAnonParams, kmanonymize
    from ...methods.kmanon.export import result_json, write_anonymized, write_json, write_partition_map
    from ...params import ParameterError

    for path in (args.map_out, args.out, args.geojson_out, args.json):
        if path is not None and not path.parent.exists():
            raise CliError(f"folder {path.parent} does not exist")
    if args.geojson_out is not None and args.coords is None:
        raise CliError("--geojson-out needs --coords")
    try:
        params = KmAnonParams(k=args.k, m=args.m, sigma=args.sigma, k_levels=args.k_levels,
                              sigma_levels=args.sigma_levels, bound=args.bound, sampler=args.sampler, trials=args.trials,
                              seed=args.seed, threads=args.threads, exact_budget=args.exact_budget,
                              exact_when_cheaper=not args.sample_always).checked()
        data, constraint, cells, projection = _load(args)
    except USER_ERRORS as exc:
        raise CliError(str(exc)) from None

    def show(partial):
        pass

    with TqdmProgress("kmanon", on_partial=show, disable=args.quiet) as progress:
        try:
            result = kmanonymize(data, constraint, params, progress)
        except ParameterError as exc:
            raise CliError(str(exc)) from None
    final = result.final
    if final is None:
        raise CliError(result.stopped_reason or "cancelled before the first level finished; nothing written")
    verify = None
    if args.verify_samples > 0:
        with TqdmProgress("verify", disable=args.quiet) as progress:
            check = verify_km(data, final.labels, [lv.k for lv in result.levels], len(result.levels),
                              samples=args.verify_samples, seed=args.seed, progress=progress)
        verify = check.to_json()
    contiguous = None
    if args.map_out:
        write_partition_map(args.map_out, data, final)
    if args.out:
        try:
            write_anonymized(args.out, data, final)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if cells is not None:
        geometry = PartitionGeometry(cells, final.labels)
        contiguous = bool(geometry.contiguous.all())
        if args.geojson_out:
            supports = geometry.supports(data.indptr, data.indices)
            write_partitions_geojson(args.geojson_out, geometry, item_labels=data.vocab, supports=supports,
                                     projection=projection)
    doc = result_json(result, verify)
    doc["dataset"] = {"name": data.name, "records": data.n_records, "items": data.n_items}
    if contiguous is not None:
        doc["all_partitions_contiguous"] = contiguous
    if args.json:
        write_json(args.json, doc)
    if not args.quiet:
        unit = f" {result.error_unit}" if result.error_unit else ""
        if any(lv.mode == "sampling" for lv in result.levels):
            print(f"itemset sampler: {result.sampler}")
        for lv in result.levels:
            print(f"m={lv.level}: k={lv.k} sigma={lv.sigma:g} gamma={lv.gamma:,} {lv.mode}: "
                  f"{lv.samples:,} itemsets checked, {lv.violations:,} violations, {lv.merges:,} merges -> "
                  f"{lv.partitions:,} partitions, error {lv.error:.4g}{unit}, {lv.seconds:.1f} s")
        if verify is not None:
            for p in verify["levels"]:
                print(f"check l={p['ell']}: {p['fraction']:.4%} of {p['itemsets']:,} {p['method']} itemsets "
                      f"k-anonymous (CI {p['ci_low']:.4f}-{p['ci_high']:.4f})")
        if contiguous is not None:
            print(f"all partitions contiguous: {'yes' if contiguous else 'NO'}")
        print(f"generalized support checks: {result.support_checks_per_second:,.0f} per second")
    if not result.complete:
        print(f"warning: incomplete result ({result.stopped_reason or 'cancelled'}); "
              f"written for m = {len(result.levels)}", file=sys.stderr)
        return 1
    return 0

"""Entry script of ``anonstudio-selfcheck``, built only for the packaging smoke test.

Prints, as one JSON object, what anonstudio finds at run time inside the frozen
bundle (method specs, CLI commands, workbenches, kernel modules, samples, the
numba cache folder), so tests/packaging can compare it with a source checkout.
``--warm-up`` also compiles every kernel, as the studio does at start-up.
"""
import json
import os
import sys


def report(warm_up: bool) -> dict:
    import pkgutil

    from anonstudio import RESOURCES, kernels
    from anonstudio.cli import build_parser
    from anonstudio.data.samples import list_samples
    from anonstudio.gui.workbenches import discover_workbenches
    from anonstudio.kernels.warmup import warm_up_all
    from anonstudio.methods.contract import discover_methods

    subparsers = next(action for action in build_parser()._actions if action.dest == "command")
    workbenches, problems = discover_workbenches()
    doc = {
        "frozen": bool(getattr(sys, "frozen", False)),
        "methods": sorted(discover_methods()),
        "commands": sorted(subparsers.choices),
        "workbenches": sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in workbenches),
        "workbench_problems": [name for name, _ in problems],
        "kernels": sorted(m.name for m in pkgutil.iter_modules(kernels.__path__)),
        "resources": str(RESOURCES),
        "samples": sorted(sample.name for sample in list_samples()),
        "numba_cache_dir": os.environ.get("NUMBA_CACHE_DIR"),
    }
    if warm_up:
        timings = warm_up_all()
        doc["warmed_up"] = sorted(timings)
        doc["warm_up_seconds"] = round(sum(timings.values()), 2)
    return doc


if __name__ == "__main__":
    print(json.dumps(report("--warm-up" in sys.argv[1:]), indent=1))

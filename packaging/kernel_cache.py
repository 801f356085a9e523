"""numba's cache of every kernel, built at packaging time and laid out in the bundle.

Used by ``anonstudio.spec`` (PyInstaller runs the spec with this folder's parent
importable through ``SPECPATH``). Without it the first start of an installed app
compiles every kernel, two to three minutes on two cores.

How numba finds a cache entry decides the layout (numba 0.68, ``numba/core/caching.py``):

- the folder is ``NUMBA_CACHE_DIR/<name>_<sha1 of the source folder's absolute
  path>``, so it depends on where the app is installed: the run-time hook
  (``rthooks/numba_cache.py``) copies the bundled files into the folder of the
  running app on its first start;
- an index (``*.nbi``) is valid only if its stamp equals the sha256 of the source
  file, or, in a frozen app, of the running executable: the build warms up the
  kernels from the checkout and then writes one copy of every index per
  executable with that executable's stamp; the compiled data (``*.nbc``) are
  shared;
- an entry's key holds the signature, the target CPU's name and features and the
  hash of the function's bytecode. The build compiles for ``NUMBA_CPU_NAME=generic``
  (plain x86-64, no CPU features), which the run-time hook sets as well, so the
  entries load on any x86-64 machine.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

#: Folder under ``_internal/``: ``data/*.nbc``, ``<executable>/*.nbi`` and ``build-id``.
BUNDLED = "numba_cache"
#: numba's target CPU in the bundle (portable code, see numba's ``NUMBA_CPU_NAME``).
CPU_NAME = "generic"

_WARM_UP = (
    "import sys, anonstudio\n"
    "assert anonstudio.__file__.startswith(sys.argv[1]), anonstudio.__file__\n"
    "from anonstudio.kernels.warmup import warm_up_all\n"
    "warm_up_all()\n"
)


def start_warm_up(root: Path, cache_dir: Path, log: Path) -> tuple[subprocess.Popen, float]:
    """Compile every kernel of the checkout at ``root`` into ``cache_dir``, in a background process.

    Started before PyInstaller's analysis so that the two overlap. A ``cache_dir``
    kept from an earlier build is reused: numba recompiles only kernels whose
    source changed.

    Returns
    -------
    tuple
        The process and its start time (``time.perf_counter()``).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(cache_dir), NUMBA_CPU_NAME=CPU_NAME, PYTHONPATH=str(root))
    cache_dir.mkdir(parents=True, exist_ok=True)
    out = log.open("w")
    proc = subprocess.Popen([sys.executable, "-c", _WARM_UP, str(root)], cwd=root, env=env,
                            stdout=out, stderr=subprocess.STDOUT)
    out.close()
    return proc, time.perf_counter()


def _subpath(source_dir: Path) -> str:
    """numba's folder name for the kernels in ``source_dir`` (``_CacheLocator.get_suitable_cache_subpath``)."""
    from numba.core.caching import _CacheLocator

    return _CacheLocator.get_suitable_cache_subpath(str(source_dir / "__init__.py"))


def lay_out(cache_dir: Path, kernels_dir: Path, bundle_dir: Path, executables: list[str]) -> dict[str, int]:
    """Copy the cache of ``kernels_dir`` into ``bundle_dir/_internal/numba_cache`` for ``executables``.

    Only indexes whose stamp is the hash of a current kernel source are taken
    (a cache folder reused across builds may hold indexes of kernels since
    removed), and only the data files they name.

    Returns
    -------
    dict
        ``indexes`` and ``data`` (numbers of files), ``bytes`` (their size in the bundle).
    """
    import numba
    from numba.core.serialize import dumps

    source = cache_dir / _subpath(kernels_dir)
    current = {hashlib.sha256(p.read_bytes()).digest() for p in kernels_dir.glob("*.py")}
    target = bundle_dir / "_internal" / BUNDLED
    shutil.rmtree(target, ignore_errors=True)
    stamps = {name: hashlib.sha256((bundle_dir / name).read_bytes()).digest() for name in executables}
    used: set[str] = set()
    indexes = 0
    for index in sorted(source.glob("*.nbi")):
        with index.open("rb") as f:
            version = pickle.load(f)
            stamp, overloads = pickle.loads(f.read())
        if version != numba.__version__ or stamp not in current or not overloads:
            continue
        used.update(overloads.values())
        indexes += 1
        for name, exe_stamp in stamps.items():
            # The format of numba's IndexDataCacheFile._save_index, with the executable's stamp.
            out = target / name / index.name
            out.parent.mkdir(parents=True, exist_ok=True)
            with out.open("wb") as f:
                pickle.dump(version, f, protocol=-1)
                f.write(dumps((exe_stamp, overloads)))
    (target / "data").mkdir(parents=True, exist_ok=True)
    for name in sorted(used):
        shutil.copyfile(source / name, target / "data" / name)
    # Tells the run-time hook whether a user's copy came from this build.
    build_id = hashlib.sha256(b"".join(stamps[name] for name in sorted(stamps))).hexdigest()
    (target / "build-id").write_text(build_id)
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    return {"indexes": indexes, "data": len(used), "bytes": size}

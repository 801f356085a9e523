# PyInstaller runtime hook: runs in the frozen app before anonstudio (and numba) is imported.
#
# The kernels use numba's cache=True. Left alone, numba would try to write its
# cache beside the kernel sources inside the bundle (read-only when installed
# system-wide, and not the place for user data anyway). Frozen, numba also stamps
# every cache entry with a hash of the running executable, so the studio and
# anonstudio-cli sharing one folder would keep invalidating each other's entries.
# Each executable therefore gets its own folder in the user's cache, beside the
# studio's result cache. A NUMBA_CACHE_DIR set by the user still wins.
#
# The bundle carries every kernel compiled at packaging time for a generic x86-64
# CPU (_internal/numba_cache, laid out by packaging/kernel_cache.py). numba keys a
# cache folder on the absolute path of the kernel sources, which only exists once
# the app is installed, and it wants a writable folder; so on the first start of
# each executable (and after an update) the files are copied into numba's folder
# for this installation: a few MB, well under a second, instead of minutes of
# compilation. Later starts only read one small marker file.
import hashlib
import os
import shutil
import sys
from pathlib import Path


def _set_numba_cache_dir() -> None:
    import platformdirs

    folder = Path(platformdirs.user_cache_dir("anonstudio", appauthor=False)) / "numba" / Path(sys.executable).stem
    os.environ.setdefault("NUMBA_CACHE_DIR", str(folder))
    # The bundled entries are keyed on the CPU they were compiled for; code compiled
    # later (a signature the warm-up does not cover) is portable as well.
    os.environ.setdefault("NUMBA_CPU_NAME", "generic")


def _seed_kernel_cache() -> None:
    bundled = Path(sys._MEIPASS) / "numba_cache"
    indexes = bundled / Path(sys.executable).stem
    if not indexes.is_dir():
        return
    # numba's folder for the kernel sources: NUMBA_CACHE_DIR/<folder name>_<sha1 of its absolute path>
    # (numba.core.caching._CacheLocator.get_suitable_cache_subpath; tests/packaging checks every kernel loads).
    kernels = os.path.abspath(os.path.join(sys._MEIPASS, "anonstudio", "kernels"))
    target = Path(os.environ["NUMBA_CACHE_DIR"]) / f"kernels_{hashlib.sha1(kernels.encode()).hexdigest()}"
    marker = target / "anonstudio-bundle-id"
    try:
        build_id = (bundled / "build-id").read_text()
        if marker.is_file() and marker.read_text() == build_id:
            return
        target.mkdir(parents=True, exist_ok=True)
        # Data before indexes, each file replaced whole: another start reading the folder
        # meanwhile finds either no entry (and compiles) or a complete one.
        for source in [*sorted((bundled / "data").iterdir()), *sorted(indexes.iterdir())]:
            partial = target / f"{source.name}.{os.getpid()}.partial"
            shutil.copyfile(source, partial)
            os.replace(partial, target / source.name)
        marker.write_text(build_id)
    except OSError:
        # No usable cache folder (read-only home, full disk): numba compiles as without the bundled cache.
        pass


_set_numba_cache_dir()
_seed_kernel_cache()
del _set_numba_cache_dir, _seed_kernel_cache

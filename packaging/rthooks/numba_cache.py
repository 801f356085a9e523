# PyInstaller runtime hook: runs in the frozen app before anonstudio (and numba) is imported.
#
# The kernels use numba's cache=True. Left alone, numba would try to write its
# cache beside the kernel sources inside the bundle (read-only when installed
# system-wide, and not the place for user data anyway). Frozen, numba also stamps
# every cache entry with a hash of the running executable, so the studio and
# anonstudio-cli sharing one folder would keep invalidating each other's entries.
# Each executable therefore gets its own folder in the user's cache, beside the
# studio's result cache. A NUMBA_CACHE_DIR set by the user still wins.
import os
import sys
from pathlib import Path


def _set_numba_cache_dir() -> None:
    import platformdirs

    folder = Path(platformdirs.user_cache_dir("anonstudio", appauthor=False)) / "numba" / Path(sys.executable).stem
    os.environ.setdefault("NUMBA_CACHE_DIR", str(folder))


_set_numba_cache_dir()
del _set_numba_cache_dir

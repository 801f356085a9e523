"""anonstudio: anonymize set-valued data and see what an attacker can still learn."""
import sys
from pathlib import Path

__version__ = "0.1.0"


def _find_resources() -> Path:
    # A source checkout (or a PyInstaller bundle) keeps resources/ next to the
    # package; a wheel installs it as data files under <prefix>/share/anonstudio.
    beside = Path(__file__).resolve().parent.parent / "resources"
    installed = Path(sys.prefix) / "share" / "anonstudio" / "resources"
    return beside if beside.is_dir() or not installed.is_dir() else installed


#: Folder with bundled sample datasets.
RESOURCES = _find_resources()

"""anonstudio: anonymize set-valued data and see what an attacker can still learn."""
from pathlib import Path

__version__ = "0.1.0"

#: Folder with bundled sample datasets and icons (next to the package in a
#: source checkout; PyInstaller bundles copy it to the same relative place).
RESOURCES = Path(__file__).resolve().parent.parent / "resources"

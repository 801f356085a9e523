"""Entry script of the bundled ``anonstudio`` executable (the studio window).

PyInstaller runs its entry script as ``__main__`` outside any package, so it
cannot be ``anonstudio/app.py`` itself (whose relative imports need the package).
"""
import multiprocessing
import sys

from anonstudio.app import main

if __name__ == "__main__":
    # A frozen executable re-runs itself for every spawned worker process;
    # freeze_support() lets such a child do its work instead of opening a window.
    multiprocessing.freeze_support()
    sys.exit(main())

"""Entry script of the bundled ``anonstudio-cli`` executable (see ``studio_main.py``)."""
import multiprocessing
import sys

from anonstudio.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())

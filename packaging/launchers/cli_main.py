"""Entry script of the bundled ``anonstudio-cli`` executable (see ``studio_main.py``)."""
import multiprocessing

from anonstudio.cli import run

if __name__ == "__main__":
    multiprocessing.freeze_support()
    run()

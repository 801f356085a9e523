from . import run

# ``python -m anonstudio.cli`` ends as the anonstudio-cli console script does.
run()

"""What the studio keeps around the methods: projects, the result cache and reproducible command lines.

Qt-free, so the CLI (``anonstudio-cli run``, ``report``) and the GUI share it.

- :mod:`.command_line`: the ``anonstudio-cli`` command that repeats a run.
- :mod:`.project`: project files (TOML): datasets by path and SHA-256, each
  workbench's method and full parameters, the comparison sweeps.
- :mod:`.cache`: finished runs stored by (dataset, method, parameters,
  version) in the user's cache folder.
"""

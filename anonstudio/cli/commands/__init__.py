"""One module per ``anonstudio-cli`` subcommand, discovered at start-up.

Each module defines ``NAME`` (the subcommand), ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``.
"""

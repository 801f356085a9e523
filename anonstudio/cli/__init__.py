"""Headless entry point: ``anonstudio-cli <command> ...``.

Subcommands live in :mod:`anonstudio.cli.commands`, one module each, and are
found at start-up so that adding a command never edits a shared list.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from .. import __version__
from . import commands as _commands_pkg
from .errors import CliError

__all__ = ["main", "build_parser"]


def _command_modules():
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            yield module


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anonstudio-cli",
        description="Measure re-identification risk in set-valued data, anonymize it and attack the result.",
    )
    parser.add_argument("--version", action="version", version=f"anonstudio {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in _command_modules():
        p = sub.add_parser(module.NAME, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP))
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; errors in the input print one line and exit 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a reader gone early (| head) then fails here, not at interpreter exit
        return code
    except BrokenPipeError:
        # The reader of our output stopped early (``| head``): that is the user's
        # choice, not an error, and nothing more can be written to it.
        _discard_stdout()
        return 0
    except CliError as exc:
        print(f"anonstudio-cli {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _discard_stdout() -> None:
    """Point stdout at the null device so the final flush at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout replaced by a non-file object
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

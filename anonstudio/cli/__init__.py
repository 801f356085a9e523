"""Headless entry point: ``anonstudio-cli <command> ...``.

Two kinds of subcommand, both found at start-up so that adding one never
edits a shared list:

* one per method family, generated from its :class:`~anonstudio.methods.contract.MethodSpec`
  (:mod:`anonstudio.cli.method_command`);
* tools that are not methods (``info``, ``convert``, ``attack``, ``samples``,
  ``synth-city``), one module each in :mod:`anonstudio.cli.commands`.

User errors become one line ``anonstudio-cli COMMAND: error: ...`` with exit
status 2 here, in one place. Exit status of every command: 0 done; 2 bad
input, parameters or output paths (one line on stderr, nothing written);
3 guarantee not met (method commands); 130 cancelled by Ctrl-C (the first
press stops at the next chunk: a method writes its partial result marked
incomplete, a load stops with nothing written; a second press aborts and
leaves earlier output files as they were); 1 an internal error, reported in
one line with the details saved to a file (a bug: please report it).
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

__all__ = ["main", "build_parser", "rewrite_deprecated"]

DESCRIPTION = "Measure re-identification risk in set-valued data, anonymize it and attack the result."


def _command_modules():
    # The tool commands import what they need inside ``run`` / ``add_arguments``: importing them here (to read
    # NAME and HELP) stays light.
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            yield module


def _chosen(argv: list[str] | None) -> str | None:
    """The subcommand ``argv`` names (its first token when that is not an option), or None."""
    if not argv or argv[0].startswith("-"):
        return None
    return argv[0]


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``anonstudio-cli`` parser; with ``argv``, built only as far as parsing ``argv`` needs.

    Without ``argv`` every subcommand gets its full arguments. With ``argv``:

    * a tool command (``info chess``) gets the one subparser it names, and the
      method families are not discovered at all;
    * a method command (``kmanon ...``) gets its full subparser, and the other
      commands only their name and one-line help (what ``--help`` lists);
    * ``--version`` before any command builds no subcommand.

    What is parsed and printed is the same either way; only the work to build
    the parts ``argv`` never reaches is saved.
    """
    parser = argparse.ArgumentParser(prog="anonstudio-cli", allow_abbrev=False, description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"anonstudio {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    lazy = argv is not None
    chosen = _chosen(argv)
    if lazy and chosen is None and "--version" in argv and not {"-h", "--help"} & set(argv):
        return parser  # argparse prints the version before it needs any subcommand
    tools = [(module.NAME, module) for module in _command_modules()]
    if lazy and chosen in dict(tools):
        entries = [(chosen, dict(tools)[chosen])]
    else:
        from ..methods.contract import discover_methods

        entries = [(spec.name, spec) for spec in discover_methods().values()] + tools
    for name, entry in sorted(entries, key=lambda e: e[0]):
        if lazy and name != chosen:
            # Listed by the top-level --help; its arguments are only needed when it is the command.
            summary = entry.HELP if hasattr(entry, "add_arguments") else entry.summary
            sub.add_parser(name, help=summary, allow_abbrev=False)
        elif hasattr(entry, "add_arguments"):
            p = sub.add_parser(name, help=entry.HELP, description=getattr(entry, "DESCRIPTION", entry.HELP),
                               allow_abbrev=False)
            entry.add_arguments(p)
            p.set_defaults(_run=entry.run)
        else:
            from .method_command import add_method_command

            add_method_command(sub, entry)
    return parser


def rewrite_deprecated(argv: list[str]) -> tuple[list[str], list[str]]:
    """Old flag spellings rewritten to the current ones, and one notice per rewrite.

    The aliases come from the method specs (``cli_aliases``) and their params'
    ``deprecated_flags``; users' scripts keep working for now.
    """
    if _chosen(argv) is None or _chosen(argv) in {module.NAME for module in _command_modules()}:
        return argv, []  # not a method command: no family needs importing
    from ..methods.contract import discover_methods
    from ..params import specs

    spec = discover_methods().get(argv[0])
    if spec is None:
        return argv, []
    aliases = {}
    for param_spec in specs(spec.params):
        for old in param_spec.deprecated_flags:
            new = param_spec.cli_flag
            takes_value = param_spec.kind != "bool"
            aliases[old] = ((lambda v, new=new: [new] + ([v] if v is not None else [])), takes_value,
                            f"{old} is now {new}")
    aliases.update(spec.cli_aliases)  # a spec's own rewrite wins over a field's plain rename
    out, notices = [argv[0]], []
    i = 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            out.extend(argv[i:])
            break
        name, eq, inline = token.partition("=")
        if name in aliases:
            rewrite, takes_value, notice = aliases[name]
            value = inline if eq else None
            consumed = 1
            if takes_value and not eq and i + 1 < len(argv):
                value, consumed = argv[i + 1], 2
            new = rewrite(value)
            if new is not None:
                out.extend(new)
                notices.append(f"note: {notice} (the old spelling still works for now)")
                i += consumed
                continue
        out.append(token)
        i += 1
    return out, notices


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; errors in the input print one line and exit 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, notices = rewrite_deprecated(argv)
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C before the command started (building the parser takes a moment)
        print("anonstudio-cli: aborted before the command started; nothing was written", file=sys.stderr)
        return 130
    for notice in notices:
        print(f"anonstudio-cli {args.command}: {notice}", file=sys.stderr)
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
        print(f"anonstudio-cli {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"anonstudio-cli {args.command}: aborted; earlier output files were left as they were",
              file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - classified here (user error or bug), so the data loaders are imported only once a command failed
        return _report_failure(args.command, exc)


def _report_failure(command: str, exc: Exception) -> int:
    """One line on stderr for what a command raised, and its exit status (1 for a bug, details saved to a file).

    Called inside the ``except`` block, so the traceback saved for a bug is the command's.
    """
    from ..data.errors import LoadCancelled
    from .errors import user_errors

    if isinstance(exc, user_errors()) or isinstance(exc, OSError):  # OSError: a full disk, a vanished folder
        print(f"anonstudio-cli {command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    if isinstance(exc, LoadCancelled):
        print(f"anonstudio-cli {command}: cancelled: {_one_line(exc)}; nothing was written", file=sys.stderr)
        return 130
    if isinstance(exc, MemoryError):
        print(f"anonstudio-cli {command}: error: not enough memory for this input with these parameters; "
              "nothing was written", file=sys.stderr)
        return 2
    where = _save_traceback(command)  # a bug: one line here, the details in a file for the report
    print(f"anonstudio-cli {command}: internal error: {type(exc).__name__}: {_one_line(exc)[:300]}"
          f"{f' (details in {where})' if where else ''}; please report it", file=sys.stderr)
    return 1


def _save_traceback(command: str) -> str | None:
    """Write the current exception's traceback to a temporary file; its path, or None."""
    import tempfile
    import traceback

    try:
        fd, name = tempfile.mkstemp(prefix=f"anonstudio-{command}-error-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"anonstudio {__version__}: anonstudio-cli {command}\n")
            traceback.print_exc(file=fh)
        return name
    except OSError:
        return None


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())


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

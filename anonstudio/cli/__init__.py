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
from typing import Any

from .. import __version__
from . import commands as _commands_pkg
from .errors import CliError
from .interrupts import disarm, install_interrupt_handler, interrupted, quiet_unraisable, reset_interrupted

__all__ = ["main", "run", "build_parser", "rewrite_deprecated"]

DESCRIPTION = "Measure re-identification risk in set-valued data, anonymize it and attack the result."


def _command_modules():
    # The tool commands import what they need inside ``run`` / ``add_arguments``: importing them here (to read
    # NAME and HELP) stays light.
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            yield module


def _method_spec(name: str) -> Any:
    """The spec of the method command ``name``, importing only that family's ``spec`` module when the
    name follows the convention (``group-anonymize`` lives in ``methods/group_anonymize``); None for a name
    that is no family.

    A method's ``COMMAND --help`` (and its parsing) then costs one spec, not all of them.
    """
    import importlib.util

    from ..methods.contract import MethodSpec

    module_name = f"{__package__.rpartition('.')[0]}.methods.{name.replace('-', '_')}.spec"
    try:
        found = importlib.util.find_spec(module_name) if name.replace("-", "_").isidentifier() else None
    except ImportError:  # no such family folder
        found = None
    if found is not None:
        spec = getattr(importlib.import_module(module_name), "SPEC", None)
        if isinstance(spec, MethodSpec) and spec.name == name:
            return spec
    from ..methods.contract import discover_methods

    return discover_methods().get(name)  # a family whose folder is named otherwise


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
    * a method command (``kmanon ...``) gets its full subparser, built from
      its own spec alone (no other family is imported);
    * with no command (``--help``), every command gets only its name and
      one-line help (what ``--help`` lists);
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
    method = _method_spec(chosen) if lazy and chosen is not None and chosen not in dict(tools) else None
    if lazy and chosen in dict(tools):
        entries = [(chosen, dict(tools)[chosen])]
    elif method is not None:
        entries = [(chosen, method)]
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
    from ..params import specs

    spec = _method_spec(argv[0])
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
    import signal
    import threading

    # First of all: a Ctrl-C from now on is remembered even if some code swallows its KeyboardInterrupt. (The
    # handler's module is imported with this one: importing it here left a Ctrl-C during that to a traceback.)
    reset_interrupted()
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main_thread else None
    unraisable = sys.unraisablehook
    install_interrupt_handler()
    try:
        return _main(argv)
    finally:
        disarm()
        sys.unraisablehook = unraisable  # an abort silenced destructors' errors for this command only
        if "anonstudio.parallel" in sys.modules:
            sys.modules["anonstudio.parallel"].set_connect_notice(None)
        if main_thread:  # called in-process (tests, notebooks): leave the caller's handler as it was
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


def run() -> None:
    """The ``anonstudio-cli`` console script: :func:`main`, then the process ends with its status.

    A Ctrl-C while the process ends (its outputs are written and flushed by then) exits 130 like one during
    the work, instead of a KeyboardInterrupt in the interpreter's shutdown, which a shell sees as a kill.
    """
    import os
    import signal

    try:
        code = main()
        signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    except KeyboardInterrupt:  # between main's own handler and this one
        code = 130
    if code == 130:  # objects an interrupt left half made are collected as the process ends: not reported
        quiet_unraisable()
    _end_process(code)


def _end_process(code: int) -> None:
    """End the process with ``code`` without the interpreter's teardown, once nothing is left to do.

    With the outputs written and the streams flushed, freeing every module (pandas, pyarrow, numpy, numba) one by
    one only costs time: about 0.2 s of a 1.4 s ``group-anonymize`` on UCI Adult. The exit functions still run
    (Dask clients closed, logging flushed). A stream that cannot be flushed (a closed pipe) or another
    non-daemon thread still running takes the normal exit, which reports or waits for them as before, and so
    does a process under a profiler or tracer (``python -m cProfile``, coverage), which writes its data at exit.
    """
    import atexit
    import os
    import threading

    def flushed() -> bool:
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except (OSError, ValueError):
            return False
        return True

    others = [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
    if others or sys.getprofile() is not None or sys.gettrace() is not None or not flushed():
        sys.exit(code)
    atexit._run_exitfuncs()
    if not flushed():
        sys.exit(code)
    os._exit(code)


def _main(argv: list[str] | None) -> int:
    try:
        _guard_standard_streams()
        argv = list(sys.argv[1:] if argv is None else argv)
        argv, notices = rewrite_deprecated(argv)
        argv = _take_global_flags(argv)
        parser = build_parser(argv)
        args = _parse(parser, argv)
        if interrupted():  # pressed while the parser was built, and swallowed there
            raise KeyboardInterrupt
    except KeyboardInterrupt:  # Ctrl-C before the command started (building the parser takes a moment)
        _say("anonstudio-cli: aborted before the command started; nothing was written")
        return 130
    for notice in notices:
        _say(f"anonstudio-cli {args.command}: {notice}")
    try:
        # Imported here, under the command's Ctrl-C handling: --help and the parser no longer import it.
        from ..parallel import set_connect_notice

        # A connection to a Dask scheduler can wait; say at once what for (one line on stderr).
        set_connect_notice(lambda text: _say(f"anonstudio-cli {args.command}: {text}"))
        code = int(args._run(args) or 0)
        _flush_stdout()
        if interrupted() and code == 0:
            # The press came while nothing polled for it (the end of a stage, the writing): the outputs the
            # command wrote are complete and verified, and the exit status still says it was interrupted.
            _say(f"anonstudio-cli {args.command}: interrupted; the outputs written are complete")
            return 130
        return code
    except CliError as exc:
        _say(f"anonstudio-cli {args.command}: error: {_one_line(exc)}")
        return 2
    except KeyboardInterrupt:
        _say(f"anonstudio-cli {args.command}: aborted; earlier output files were left as they were")
        return 130
    except RecursionError:
        _say(f"anonstudio-cli {args.command}: error: the input is nested too deeply to be read; nothing was "
             "written")
        return 2
    except Exception as exc:  # noqa: BLE001 - classified here (user error or bug), so the data loaders are imported only once a command failed
        return _report_failure(args.command, exc)


def _take_global_flags(argv: list[str]) -> list[str]:
    """Remove the flags every command takes (``--allow-large-work``) and apply them."""
    from ..limits import OVERRIDE_FLAG, allow_large_work

    end = argv.index("--") if "--" in argv else len(argv)
    allow_large_work(OVERRIDE_FLAG in argv[:end])
    return [a for a in argv[:end] if a != OVERRIDE_FLAG] + argv[end:]


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args`` with every usage error as one line naming the command and option."""
    _one_line_errors(parser)
    args, extras = parser.parse_known_args(argv)
    if extras:  # worded by the command's own parser, so the line names the command
        chosen = getattr(args, "command", None)
        sub = next((a.choices.get(chosen) for a in parser._actions
                    if isinstance(a, argparse._SubParsersAction)), None)
        (sub or parser).error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def _one_line_errors(parser: argparse.ArgumentParser) -> None:
    def error(message: str, parser: argparse.ArgumentParser = parser) -> None:
        _say(f"{parser.prog}: error: {' '.join(message.split())} (see {parser.prog} --help)")
        raise SystemExit(2)

    parser.error = error  # type: ignore[method-assign]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _one_line_errors(sub)


def _say(line: str) -> None:
    """One line on stderr; a closed or broken stderr is no reason to fail."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass


class _Tolerant:
    """A standard stream that a closed terminal or a reader gone early (``| true``) cannot break.

    After the first failed write it writes nothing more: what the command prints is
    informative only (every result it promised goes to files), so the command goes on.
    """

    def __init__(self, stream: Any):
        self._stream = stream
        self._dead = stream is None

    def write(self, text: str) -> int:
        if not self._dead:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                self._dead = True
        return len(text)

    def flush(self) -> None:
        if not self._dead:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._dead = True

    def isatty(self) -> bool:
        try:
            return not self._dead and self._stream.isatty()
        except (OSError, ValueError, AttributeError):
            return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _guard_standard_streams() -> None:
    """Make ``>&-``, ``2>&-`` and ``| true`` harmless.

    A closed descriptor 0, 1 or 2 is reopened on the null device first, so that a
    file opened later never lands on it (and then receives what is printed).
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
            except OSError:
                continue
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if not isinstance(sys.stdout, _Tolerant):
        sys.stdout = _Tolerant(sys.stdout)
    if not isinstance(sys.stderr, _Tolerant):
        sys.stderr = _Tolerant(sys.stderr)


def _report_failure(command: str, exc: Exception) -> int:
    """One line on stderr for what a command raised, and its exit status (1 for a bug, details saved to a file).

    Called inside the ``except`` block, so the traceback saved for a bug is the command's.
    """
    from ..data.errors import LoadCancelled
    from .errors import user_errors

    if isinstance(exc, user_errors()) or isinstance(exc, OSError):  # OSError: a full disk, a vanished folder
        _say(f"anonstudio-cli {command}: error: {_one_line(exc)}")
        return 2
    if isinstance(exc, LoadCancelled):
        _say(f"anonstudio-cli {command}: cancelled: {_one_line(exc)}; nothing was written")
        return 130
    if isinstance(exc, MemoryError):
        _say(f"anonstudio-cli {command}: error: not enough memory for this input with these parameters; "
             "nothing was written")
        return 2
    where = _save_traceback(command)  # a bug: one line here, the details in a file for the report
    _say(f"anonstudio-cli {command}: internal error: {type(exc).__name__}: {_one_line(exc)[:300]}"
         f"{f' (details in {where})' if where else ''}; please report it")
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


if __name__ == "__main__":  # pragma: no cover
    run()

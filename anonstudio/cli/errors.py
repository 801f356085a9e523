"""The one exception type a CLI command raises for bad input or arguments."""
from __future__ import annotations

from typing import Any

__all__ = ["CliError", "user_errors"]  # USER_ERRORS too, through __getattr__


class CliError(Exception):
    """Printed as one line on stderr; the process exits with status 2."""


def user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean "the user gave bad input", not "anonstudio has a bug".

    Built on first use: ``OutputPathError`` lives in :mod:`anonstudio.data.io`, whose import registers every
    loader (pandas, pyarrow, numba), which ``--help`` must not pay for.
    """
    from ..data.errors import DataFormatError
    from ..data.io.atomic import OutputPathError
    from ..limits import WorkTooLarge
    from ..outputs import OutputClash
    from ..parallel import ExecutionError
    from ..params import ParameterError

    return (DataFormatError, ParameterError, OutputPathError, FileNotFoundError, IsADirectoryError,
            PermissionError, ExecutionError, OutputClash, WorkTooLarge)


def __getattr__(name: str) -> Any:
    # ``USER_ERRORS`` stays importable by name for the commands that catch it once they run.
    if name == "USER_ERRORS":
        return user_errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

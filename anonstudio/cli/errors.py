"""The one exception type a CLI command raises for bad input or arguments."""
from __future__ import annotations

from ..data.errors import DataFormatError
from ..data.io.atomic import OutputPathError
from ..parallel import ExecutionError
from ..params import ParameterError

__all__ = ["CliError", "USER_ERRORS"]


class CliError(Exception):
    """Printed as one line on stderr; the process exits with status 2."""


#: Exceptions that mean "the user gave bad input", not "anonstudio has a bug".
USER_ERRORS = (DataFormatError, ParameterError, OutputPathError, FileNotFoundError, IsADirectoryError,
               PermissionError, ExecutionError)

"""Relational data: a pandas table whose columns carry privacy roles."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from .transactions import TransactionData

if TYPE_CHECKING:  # imported by whoever builds a table: the method specs name the class without loading pandas
    import pandas as pd

__all__ = ["Role", "Table", "RTData", "value_text"]


def value_text(value) -> str:
    """The text form of a cleartext cell value: ``39`` for 39 and 39.0, ``'Flu'`` for Flu.

    The one text form in which every method compares, encodes and prints cell
    values (group domains, RT columns, threat attributes).
    """
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _float_text(float(value))
    np = sys.modules.get("numpy")  # a numpy scalar exists only once numpy is imported: no import here
    if np is not None:
        if isinstance(value, np.bool_):
            return str(bool(value))
        if isinstance(value, np.integer):
            return str(int(value))
        if isinstance(value, np.floating):
            return _float_text(float(value))
    return str(value)


def _float_text(f: float) -> str:
    return str(int(f)) if f.is_integer() else repr(f)


class Role(str, Enum):
    """What a column means to an attacker."""

    IDENTIFIER = "identifier"  # names, ids: dropped before release
    QUASI_IDENTIFIER = "quasi-identifier"  # known to an attacker from elsewhere
    SENSITIVE = "sensitive"  # what must not be inferred
    INSENSITIVE = "insensitive"  # released as is


@dataclass(eq=False)
class Table:
    """A relational table with a role per column.

    Parameters
    ----------
    frame
        The data; categorical columns hold strings, numeric columns numbers,
        missing values are ``NA``.
    roles
        Column name -> :class:`Role`; columns not named are quasi-identifiers.
    name, source
        Display name and originating file.
    """

    frame: pd.DataFrame
    roles: dict[str, Role] = field(default_factory=dict)
    name: str = "table"
    source: Path | None = None

    def role(self, column: str) -> Role:
        return self.roles.get(column, Role.QUASI_IDENTIFIER)

    def columns_with(self, role: Role) -> list[str]:
        return [c for c in self.frame.columns if self.role(c) is role]

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.columns_with(Role.QUASI_IDENTIFIER)

    @property
    def sensitive(self) -> list[str]:
        return self.columns_with(Role.SENSITIVE)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    def with_roles(self, **roles: Role | str) -> Table:
        merged = dict(self.roles)
        merged.update({k: Role(v) for k, v in roles.items()})
        return Table(self.frame, merged, self.name, self.source)


@dataclass(eq=False)
class RTData:
    """A table and a transaction dataset aligned row by row (RT-data)."""

    table: Table
    transactions: TransactionData

    def __post_init__(self) -> None:
        if self.table.n_rows != self.transactions.n_records:
            raise ValueError(
                f"table has {self.table.n_rows} rows but transactions have {self.transactions.n_records} records"
            )

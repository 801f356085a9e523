"""Fixtures of the uniqueness tests."""
from __future__ import annotations

import random

import pytest

from anonstudio.data.transactions import TransactionData
from tests.uniqueness.helpers import TABLE_I, as_data


@pytest.fixture
def table_i() -> TransactionData:
    return as_data(TABLE_I, "table-i")


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20151029)

"""Fixtures for the loader tests: the shipped files live in tests/data/io."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

IO_DATA = Path(__file__).resolve().parent.parent / "data" / "io"


@pytest.fixture(scope="session")
def io_data() -> Path:
    return IO_DATA


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture
def unchanged():
    """Assert a file's bytes are the same after the test body: ``with unchanged(path): ...``."""
    import contextlib

    @contextlib.contextmanager
    def check(path: Path):
        before = file_hash(path)
        yield
        assert file_hash(path) == before, f"{path.name} was modified"

    return check

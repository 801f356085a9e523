"""Cases for tests/core/test_suite_setup.py, collected only when named on the command line (no ``test_`` prefix)."""
from __future__ import annotations

import pytest


@pytest.fixture
def widget_parent(qapp):
    """A fixture that needs Qt through pytest-qt's application."""
    return qapp


def test_plain():
    pass


def test_requests_qtbot(qtbot):
    pass


def test_requests_a_fixture_that_needs_qt(widget_parent):
    pass


@pytest.mark.gui
def test_marked_by_hand():
    pass

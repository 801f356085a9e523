"""How numbers read: one form per kind of value, the same in the CLI, the studio and the report."""
from __future__ import annotations

import math

import numpy as np
import pytest

from anonstudio.formatting import MISSING, count, duration, integer, measure, number, percent, probability


@pytest.mark.parametrize("value, text", [
    (1234567, "1,234,567"), (2.6, "3"), (np.int64(42000), "42,000"), (None, MISSING), (math.nan, MISSING),
    (math.inf, MISSING), ("12", "12"), ("twelve", MISSING),
])
def test_integer(value, text):
    assert integer(value) == text


@pytest.mark.parametrize("value, text", [
    (0.123456, "0.1235"), (2.0, "2"), (12000.0, "12,000"), (1e-7, "1e-07"), (None, MISSING), (math.nan, MISSING),
    (math.inf, "∞"), (-math.inf, "−∞"), ("abc", "abc"),
])
def test_number(value, text):
    assert number(value) == text


def test_number_takes_its_digits():
    assert number(math.pi, 2) == "3.1"


@pytest.mark.parametrize("value, text", [
    (None, MISSING), (True, "yes"), (False, "no"), ("exact", "exact"), (3, "3"), (1234567, "1,234,567"),
    (np.int64(1234567), "1,234,567"), (2.0, "2"), (1e15, "1e+15"), (0.123456789, "0.123457"),
    (np.float32(0.5), "0.5"), (math.nan, MISSING), (-math.inf, MISSING), (np.float64("nan"), MISSING),
    ((1, 2), "(1, 2)"),
])
def test_measure(value, text):
    assert measure(value) == text


@pytest.mark.parametrize("value, text", [
    (0.5, "0.500"), (0.0, "0.000"), (0.0001, "1.0e-04"), (1.0, "1.000"), (None, MISSING), (math.nan, MISSING),
])
def test_probability_never_reads_zero_for_a_positive_value(value, text):
    assert probability(value) == text


@pytest.mark.parametrize("value, digits, text", [
    (0.0465, 1, "4.7 %"), (0.0, 1, "0.0 %"), (0.0004, 1, "< 0.1 %"), (0.00004, 2, "< 0.01 %"), (1.0, 0, "100 %"),
    (None, 1, MISSING), (math.nan, 1, MISSING),
])
def test_percent_keeps_a_tiny_share_visible(value, digits, text):
    assert percent(value, digits) == text


@pytest.mark.parametrize("seconds, text", [
    (None, "–"), (0.4, "0 s"), (42, "42 s"), (185, "3 min 05 s"), (3720, "1 h 02 min"), (-3, "0 s"),
])
def test_duration(seconds, text):
    assert duration(seconds) == text


@pytest.mark.parametrize("value, noun, text", [
    (1, "person", "1 person"), (0, "person", "0 people"), (2000, "person", "2,000 people"),
    (1, "known set", "1 known set"), (3, "known set", "3 known sets"), (None, "record", f"{MISSING} records"),
])
def test_count_says_one_person_and_two_people(value, noun, text):
    assert count(value, noun) == text

"""The one text form of cell values that group domains, RT columns and the threat model share."""
import numpy as np
import pytest

from anonstudio.data.table import value_text


@pytest.mark.parametrize("value, text", [
    (39, "39"), (39.0, "39"), (np.int32(39), "39"), (np.float64(39.0), "39"),
    (39.5, "39.5"), (np.float32(0.5), "0.5"), (True, "True"), (np.bool_(False), "False"),
    ("Flu", "Flu"), ("45501", "45501"),
])
def test_value_text_is_one_text_per_value(value, text):
    assert value_text(value) == text


def test_an_integral_float_and_its_integer_share_a_text_so_they_share_a_domain_code():
    # A CSV column read as floats (39.0) must match the integers of a hierarchy file (39).
    assert value_text(45501.0) == value_text(np.int64(45501)) == "45501"
    assert value_text(1e20) == "100000000000000000000"

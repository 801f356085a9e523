"""Gray-sort sums on the shared benchmark data (implementation note §6.2); slow, skipped without ../shared."""

import pytest

from anonstudio.data.io import load_transactions
from anonstudio.methods.nonreciprocal.order import cyclic_hamming, gray_order
from tests.shared_data import SHARED_DATA

SHARED = SHARED_DATA / "transactions"


@pytest.mark.slow
@pytest.mark.parametrize("name,before,gray", [
    ("chess", 20_032, 17_838),
    ("mushroom", 138_448, 31_362),
    ("T10I4D100K", 1_974_634, 1_198_784),
    ("BMS-WebView-1", 288_460, 104_184),
])
def test_gray_sort_sums_of_the_note(name, before, gray):
    path = SHARED / f"{name}.dat"
    if not path.exists():
        pytest.skip(f"{path} not available")
    data = load_transactions(path)
    assert cyclic_hamming(data) == before
    assert cyclic_hamming(data, gray_order(data)) == gray

"""The fast checks of a plain table chunk find what the regular expressions they replaced found."""
import random
import re

import pytest

from anonstudio.data.io import fastcsv
from anonstudio.data.io.delimited import _empty_lines, _has_comment_line
from anonstudio.data.io.fastcsv import SPACES, has_leading_zero_field, without_comment_lines


def _texts(seed: int, pieces: list[str], n: int = 6000):
    rng = random.Random(seed)
    for i in range(n):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        yield ("," + " " * 70 + "01") if i % 997 == 0 else text  # a long run of spaces: the expression decides


@pytest.mark.parametrize("block", [None, 1, 3])  # 1, 3: every pair and its neighbours cross blocks
def test_leading_zero_check_agrees_with_the_expression(monkeypatch, block):
    if block is not None:
        monkeypatch.setattr(fastcsv, "_SCAN_BLOCK", block)
    pieces = ["0", "1", "9", " ", "  ", ",", "\n", "-", "+", ";", "a", "é", "\t", "00", "\x0c", ".", "|"]
    for text in _texts(1, pieces):
        raw = text.encode("utf-8")
        for sep in (",", ";", "\t", "|"):
            spaces = re.escape(bytes(b for b in SPACES if chr(b) != sep))
            pattern = rb"(?:^|" + re.escape(sep.encode()) + rb")[" + spaces + rb"]*[+-]?0\d"
            expected = re.search(pattern, raw, re.M) is not None
            assert has_leading_zero_field(raw, sep) == expected, (text, sep)


def test_comment_lines_are_cut_as_the_exact_reader_skips_them():
    for text in _texts(3, ["\n", "a", "#", "%", "@", "|", " ", "\n\n", "b,c", "x#"]):
        kept = without_comment_lines(text.encode())
        expected = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(("#", "%", "@", "|")))
        assert kept.decode() == expected, text


def test_comment_line_and_empty_line_checks_agree_with_the_expressions():
    comment = re.compile("^[#%@|]", re.M)
    for text in _texts(2, ["\n", "a", "#", "%", "@", "|", " ", "\n\n", "b,c"]):
        # A line after the first (the first is checked with startswith beside it).
        assert _has_comment_line(text) == any(m.start() > 0 for m in comment.finditer(text)), text
        expected = ([0] if text.startswith("\n") or text == "" else []) if (
            text.startswith("\n") or text.endswith("\n") or "\n\n" in text or text == "") else []
        line = pos = 0
        if expected or text.endswith("\n") or "\n\n" in text:
            for match in re.finditer("\n(?=\n|$)", text):
                line += text.count("\n", pos, match.start() + 1)
                pos = match.start() + 1
                expected.append(line)
        assert _empty_lines(text).tolist() == expected, text


def test_a_column_of_numbers_is_tested_as_each_value_is():
    from anonstudio.data.io.delimited import all_numbers, is_number

    rng = random.Random(4)
    pieces = ["0", "1", "9", ".", "e", "E", "+", "-", " ", "\t", "\x0c", "\u3000", "٣", "a", "\n", "\x85", "\u2028"]
    for _ in range(20000):
        values = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 4))]
        assert all_numbers(values) == all(is_number(v) for v in values), values


@pytest.mark.parametrize("block", [None, 1, 3])
def test_trailing_space_check_agrees_with_the_expression(monkeypatch, block):
    if block is not None:
        monkeypatch.setattr(fastcsv, "_SCAN_BLOCK", block)
    for text in _texts(5, [" ", "a", ",", ";", "\n", "\t", "  ", "b c", "é"]):
        raw = text.encode("utf-8")
        for sep in (",", ";", "\t"):
            expected = re.search(rb" (?:" + re.escape(sep.encode()) + rb"|\n|$)", raw) is not None
            assert fastcsv.has_trailing_space(raw, sep) == expected, (text, sep)


@pytest.mark.parametrize("block", [None, 1, 3])
def test_both_field_checks_in_one_pass_agree_with_the_expressions(monkeypatch, block):
    """``scan_fields`` looking for both at once (a table with number and text columns) finds what each
    expression finds."""
    if block is not None:
        monkeypatch.setattr(fastcsv, "_SCAN_BLOCK", block)
    pieces = ["0", "1", "9", " ", ",", "\n", "-", ".", "a", "\t", "00", "é", "  "]
    for text in _texts(7, pieces, n=3000):
        raw = text.encode("utf-8")
        for sep in (",", "\t"):
            spaces = re.escape(bytes(b for b in SPACES if chr(b) != sep))
            zero = rb"(?:^|" + re.escape(sep.encode()) + rb")[" + spaces + rb"]*[+-]?0\d"
            space = rb" (?:" + re.escape(sep.encode()) + rb"|\n|$)"
            expected = (re.search(zero, raw, re.M) is not None, re.search(space, raw) is not None)
            assert fastcsv.scan_fields(raw, sep) == expected, (text, sep)


@pytest.mark.parametrize("block", [None, 3])
def test_separators_are_counted_as_bytes_count_them(monkeypatch, block):
    if block is not None:
        monkeypatch.setattr(fastcsv, "_SCAN_BLOCK", block)
    for text in _texts(6, [",", "a", ";", "\n", ",,", "é", "\t"], n=2000):
        raw = text.encode("utf-8")
        for sep in (",", ";", "\t"):
            assert fastcsv.count_byte(raw, sep) == raw.count(sep.encode()), (text, sep)

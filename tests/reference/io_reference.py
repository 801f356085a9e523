"""Slow, obvious readers used to check the vectorised loaders on random files."""
from __future__ import annotations


def reference_fimi(text: str) -> list[set[str]]:
    """One set per line (a final line end closes the last line): comments skipped, commas/whitespace split."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    records = []
    for line in lines:
        if line[:1] in ("#", "%", "@", "|"):
            continue
        items = set()
        for token in line.replace(",", " ").split():
            items.add(str(int(token)))
        records.append(items)
    return records


def reference_csv_long(text: str) -> tuple[list[str], list[set[str]]]:
    """Record ids in first-seen order and their item sets; the first line is a header."""
    order: list[str] = []
    sets: dict[str, set[str]] = {}
    for line in text.splitlines()[1:]:
        if not line.strip():
            continue
        record, item = (f.strip() for f in line.split(","))
        if record not in sets:
            order.append(record)
            sets[record] = set()
        if item:
            sets[record].add(item)
    return order, [sets[r] for r in order]

"""Slow, obvious reference implementations for group anonymization tests.

Plain Python loops over rows and dicts; nothing here is shared with
``anonstudio.methods.group_anonymize`` or ``anonstudio.verifiers.group_anonymize``.
"""
from __future__ import annotations

import itertools
from collections import Counter, defaultdict


def rows_of(frame, columns):
    """List of tuples of the named columns (cleartext values)."""
    return list(zip(*(frame[c].tolist() for c in columns)))


def same(a, b) -> bool:
    """Value equality with 39 == 39.0, as the published cells use."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def check_release(frame, release, k, l):
    """Brute force: (all rows fit their cells, every group >= k rows, every group >= l distinct sensitive)."""
    groups = defaultdict(list)
    for r, g in enumerate(release.row_group.tolist()):
        groups[g].append(r)
    fits = True
    for c in release.qi:
        domain = release.domains[c]
        values = frame[c].tolist()
        for g, members in groups.items():
            allowed = [domain[i] for i in range(len(domain)) if release.cells[c][g][i]]
            for r in members:
                if not any(same(values[r], a) for a in allowed):
                    fits = False
    sens = frame[release.sensitive].tolist()
    k_ok = all(len(m) >= k for m in groups.values())
    l_ok = l is None or all(len({sens[r] for r in m}) >= l for m in groups.values())
    return fits, k_ok, l_ok


def ncp(frame, release):
    """Mean normalized certainty penalty, row by row."""
    total, count = 0.0, 0
    for c in release.qi:
        domain = release.domains[c]
        numeric = all(isinstance(v, (int, float)) for v in domain)
        for g in release.row_group.tolist():
            inside = [domain[i] for i in range(len(domain)) if release.cells[c][g][i]]
            if len(domain) <= 1:
                pen = 0.0
            elif numeric:
                pen = (max(inside) - min(inside)) / (max(domain) - min(domain))
            else:
                pen = (len(inside) - 1) / (len(domain) - 1)
            total += pen
            count += 1
    return total / count


def mondrian_has_allowable_cut(frame, release, k, l, order=None):
    """True if some published group could still be cut by the strict Mondrian median rule.

    For each group and each quasi-identifier with two or more values: sort the
    distinct values (numbers numerically, text lexicographically, or by
    ``order[column][value]`` when given), pick the cut
    whose left side (values <= cut) is closest to half the group, and test
    whether both sides keep k rows and l distinct sensitive values.
    """
    sens = frame[release.sensitive].tolist()
    groups = defaultdict(list)
    for r, g in enumerate(release.row_group.tolist()):
        groups[g].append(r)
    for members in groups.values():
        for c in release.qi:
            values = frame[c].tolist()
            numeric = all(isinstance(values[r], (int, float)) for r in members)
            if order and c in order:
                key = order[c].__getitem__
            else:
                key = (lambda v: float(v)) if numeric else (lambda v: str(v))
            distinct = sorted({key(values[r]) for r in members})
            if len(distinct) < 2:
                continue
            best = None
            for cut in distinct[:-1]:
                left = sum(1 for r in members if key(values[r]) <= cut)
                score = abs(left - len(members) / 2)
                if best is None or score < best[0]:
                    best = (score, cut)
            cut = best[1]
            left = [r for r in members if key(values[r]) <= cut]
            right = [r for r in members if key(values[r]) > cut]
            if len(left) >= k and len(right) >= k and (
                l is None or (len({sens[r] for r in left}) >= l and len({sens[r] for r in right}) >= l)
            ):
                return True
    return False


def best_global_loss(frame, qi, sensitive, ladders, k, l, max_suppressed=0):
    """Exhaustive full-domain search.

    ``ladders[c]`` is a list of levels; each level is a dict value -> (node name,
    node member values). Returns the least mean NCP over all level vectors
    meeting k and l, where the rows of classes breaking k or l may be
    suppressed (cost 1 per attribute) if they are at most ``max_suppressed``
    and themselves meet k and l.
    """
    rows = rows_of(frame, qi)
    sens = frame[sensitive].tolist()
    domain = {c: sorted(set(frame[c].tolist()), key=lambda v: (str(type(v)), v)) for c in qi}
    best = None
    for vector in itertools.product(*(range(len(ladders[c])) for c in qi)):
        classes = defaultdict(list)
        for r, row in enumerate(rows):
            classes[tuple(ladders[c][h][v][0] for c, h, v in zip(qi, vector, row))].append(r)
        bad = [m for m in classes.values() if len(m) < k or (l is not None and len({sens[r] for r in m}) < l)]
        gone = {r for m in bad for r in m}
        if gone and (len(gone) > max_suppressed or len(gone) < k
                     or (l is not None and len({sens[r] for r in gone}) < l)):
            continue
        total = float(len(gone) * len(qi))
        for r, row in enumerate(rows):
            if r in gone:
                continue
            for c, h, v in zip(qi, vector, row):
                members = ladders[c][h][v][1]
                dom = domain[c]
                if len(dom) <= 1:
                    continue
                if all(isinstance(x, (int, float)) for x in dom):
                    total += (max(members) - min(members)) / (max(dom) - min(dom))
                else:
                    total += (len(members) - 1) / (len(dom) - 1)
        loss = total / (len(rows) * len(qi))
        best = loss if best is None else min(best, loss)
    return best


def naive_anatomy_group_sizes(sensitive_values, m):
    """Xiao-Tao group formation with lists: sizes of the groups (deterministic part only).

    Returns the sorted list of group sizes, or None if not eligible.
    """
    counts = Counter(sensitive_values)
    n = len(sensitive_values)
    if max(counts.values()) * m > n:
        return None
    sizes = []
    while sum(1 for v in counts.values() if v > 0) >= m:
        largest = sorted(counts, key=lambda s: -counts[s])[:m]
        for s in largest:
            counts[s] -= 1
        sizes.append(m)
    leftover = sum(counts.values())
    # Each leftover row joins some group; which one is random, so only the count is compared.
    return sorted(sizes), leftover


def interval_ladder(values):
    """Integer values: level h puts v into the aligned interval v // 2**h, until one interval remains."""
    distinct = sorted(set(values))
    ladder = []
    h = 0
    while True:
        node = {v: v // (2**h) for v in distinct}
        ladder.append({v: (node[v], [u for u in distinct if node[u] == node[v]]) for v in distinct})
        if len(set(node.values())) == 1:
            return ladder
        h += 1


def flat_ladder(values):
    distinct = sorted(set(values), key=str)
    ladder = [{v: (v, [v]) for v in distinct}]
    if len(distinct) > 1:
        ladder.append({v: ("*", distinct) for v in distinct})
    return ladder

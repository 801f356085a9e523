"""Slow, obvious geometry for checking anonstudio.data.geo (pure Python, no shapely).

- Voronoi cell of a site inside a convex box: clip the box by the half-plane
  "closer to this site than to that one" for every other site.
- Nearest site of a point by scanning all sites.
- Two convex polygons touch when the distance between their boundaries is ~0.
"""
from __future__ import annotations

import math


def clip_halfplane(poly, a, b, c):
    """Part of convex polygon ``poly`` (list of (x, y)) where a*x + b*y <= c."""
    out = []
    n = len(poly)
    for k in range(n):
        p, q = poly[k], poly[(k + 1) % n]
        fp = a * p[0] + b * p[1] - c
        fq = a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def voronoi_cell(sites, i, box):
    """Cell of ``sites[i]`` in the rectangle ``box = (xmin, ymin, xmax, ymax)``."""
    xmin, ymin, xmax, ymax = box
    poly = [(xmin, ymin), (xmax, ymin), (xmax, ymax), (xmin, ymax)]
    xi, yi = sites[i]
    for j, (xj, yj) in enumerate(sites):
        if j == i or (xj == xi and yj == yi):
            continue
        # |p - s_i|^2 <= |p - s_j|^2  <=>  2 (s_j - s_i) . p <= |s_j|^2 - |s_i|^2
        poly = clip_halfplane(poly, 2 * (xj - xi), 2 * (yj - yi), xj * xj + yj * yj - xi * xi - yi * yi)
    return poly


def area(poly):
    s = 0.0
    for k in range(len(poly)):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % len(poly)]
        s += x1 * y2 - x2 * y1
    return abs(s) / 2


def centroid(poly):
    s = cx = cy = 0.0
    for k in range(len(poly)):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % len(poly)]
        cross = x1 * y2 - x2 * y1
        s += cross
        cx += (x1 + x2) * cross
        cy += (y1 + y2) * cross
    return cx / (3 * s), cy / (3 * s)


def nearest_site(point, sites):
    """Index of the nearest site and the gap to the second nearest (to skip near-ties)."""
    d = sorted((math.dist(point, s), k) for k, s in enumerate(sites))
    return d[0][1], (d[1][0] - d[0][0]) if len(d) > 1 else math.inf


def _segment_distance(p, q, r, s):
    def point_seg(pt, a, b):
        dx, dy = b[0] - a[0], b[1] - a[1]
        L = dx * dx + dy * dy
        t = 0.0 if L == 0 else max(0.0, min(1.0, ((pt[0] - a[0]) * dx + (pt[1] - a[1]) * dy) / L))
        return math.dist(pt, (a[0] + t * dx, a[1] + t * dy))

    return min(point_seg(p, r, s), point_seg(q, r, s), point_seg(r, p, q), point_seg(s, p, q))


def boundaries_touch(P, Q, tol):
    """True if the boundaries of polygons P and Q come within ``tol``."""
    for k in range(len(P)):
        for m in range(len(Q)):
            if _segment_distance(P[k], P[(k + 1) % len(P)], Q[m], Q[(m + 1) % len(Q)]) <= tol:
                return True
    return False


def error(coords, weights, labels, centres):
    """Average distance of item occurrences to their partition's centre."""
    num = sum(w * math.dist(c, centres[l]) for c, w, l in zip(coords, weights, labels))
    return num / sum(weights)

"""A family's :class:`~anonstudio.methods.contract.Figure` as an inline SVG line chart, without Qt or matplotlib.

Labelled axes with round ticks, one colour per series with markers at the points, and the legend to the
right of the plot area, so it never covers the data.
"""
from __future__ import annotations

import html
import math
from typing import Any

__all__ = ["figure_svg"]

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")
WIDTH, HEIGHT = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 120, 30, 46


def _ticks(lo: float, hi: float, count: int = 5, whole: bool = False) -> list[float]:
    """Round tick values from at or below ``lo`` to at or above ``hi`` (``whole``: whole-number steps, for counts
    such as m)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10)
    step = next(m * magnitude for m in steps if m * magnitude >= raw)
    if whole:
        step = max(1.0, round(step))
    value = math.floor(lo / step) * step
    out = [round(value, 12)]
    while value < hi - step * 1e-9:
        value += step
        out.append(round(value, 12))
    return out


def _label(value: float) -> str:
    from ..formatting import number

    return str(int(value)) if float(value).is_integer() and abs(value) < 1e9 else number(value, 3)


def figure_svg(figure: Any) -> str:
    """The SVG text of ``figure`` (an inline ``<svg>`` element)."""
    xs = [x for _, sx, _ in figure.series for x in sx]
    ys = [y for _, _, sy in figure.series for y in sy if math.isfinite(y)]
    x_ticks = _ticks(min(xs), max(xs), whole=all(float(x).is_integer() for x in xs))
    lo, hi = figure.y_range if figure.y_range is not None else (min(0.0, min(ys)), max(ys))
    y_ticks = _ticks(lo, hi)
    x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / ((x1 - x0) or 1.0) * plot_w

    def py(y: float) -> float:
        return TOP + plot_h - (y - y0) / ((y1 - y0) or 1.0) * plot_h

    esc = html.escape
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">',
             f'<text x="{LEFT + plot_w / 2}" y="16" text-anchor="middle" font-size="13">{esc(figure.title)}</text>']
    for x in x_ticks:
        parts.append(f'<line x1="{px(x):.1f}" y1="{TOP + plot_h}" x2="{px(x):.1f}" y2="{TOP + plot_h + 4}" '
                     'stroke="#888"/>')
        parts.append(f'<text x="{px(x):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{esc(_label(x))}</text>')
    for y in y_ticks:
        parts.append(f'<line x1="{LEFT}" y1="{py(y):.1f}" x2="{LEFT + plot_w}" y2="{py(y):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{esc(_label(y))}</text>')
    parts.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/>')
    parts.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 8}" text-anchor="middle">{esc(figure.x_label)}</text>')
    parts.append(f'<text transform="translate(14 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle">'
                 f'{esc(figure.y_label)}</text>')
    for i, (name, sx, sy) in enumerate(figure.series):
        colour = _COLOURS[i % len(_COLOURS)]
        points = [(px(x), py(y)) for x, y in zip(sx, sy) if math.isfinite(y)]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in points)
        ly = TOP + 12 + 16 * i
        parts.append(f'<line x1="{LEFT + plot_w + 10}" y1="{ly}" x2="{LEFT + plot_w + 28}" y2="{ly}" '
                     f'stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<text x="{LEFT + plot_w + 32}" y="{ly + 4}">{esc(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)

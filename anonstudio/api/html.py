"""How a run shows itself in Jupyter: the verdict, the promise, the notes, the family's main plot and the key measures.

The plot is the family's :meth:`~anonstudio.methods.contract.MethodSpec.figure` drawn as inline SVG
(:mod:`.plot`); every family has one, and a run without one (nothing finished to plot) shows its
measures only.

Plain HTML with inline styles (no script, no external file), so a saved notebook shows it as it was.
The verdict is coloured as the studio colours it: green passed, red FAILED, amber incomplete.
"""
from __future__ import annotations

import html
from typing import Any

__all__ = ["run_html", "measures_table"]

_COLOURS = {"ok": "#1b7f3b", "failed": "#b3261e", "incomplete": "#9a6700", "warning": "#9a6700"}


def measures_table(measures: dict[str, Any], family: str = "", limit: int = 12) -> str:
    """A compact two-column table of measures (timings left out), each with its glossary meaning as a tooltip."""
    from ..formatting import measure
    from ..glossary import meaning
    from ..methods.contract import is_timing_key

    rows = []
    shown = [(k, v) for k, v in measures.items() if not is_timing_key(str(k))]
    for key, value in shown[:limit]:
        tip = meaning(str(key), family)
        rows.append(f'<tr title="{html.escape(tip)}"><td style="text-align:left;padding:1px 12px 1px 0">'
                    f'<code>{html.escape(str(key))}</code></td>'
                    f'<td style="text-align:right">{html.escape(measure(value))}</td></tr>')
    more = len(shown) - limit
    if more > 0:
        rows.append(f'<tr><td colspan="2" style="text-align:left;color:#666">… {more} more in '
                    '<code>.summary()</code></td></tr>')
    return '<table style="border-collapse:collapse;font-size:90%">' + "".join(rows) + "</table>"


def run_html(run: Any) -> str:
    """The HTML of one :class:`~.run.Run` (``_repr_html_``)."""
    state = run.method_run.state
    colour = _COLOURS.get(state, "#333")
    title = f"{run.spec.title} on {getattr(run.data, 'name', 'data')}"
    parts = ['<div style="font-family:sans-serif;max-width:60em">',
             f"<div><b>{html.escape(title)}</b> <span style=\"color:#666\">({html.escape(run.status)})</span></div>"]
    if run.promise:
        parts.append(f"<div>{html.escape(run.promise)}</div>")
    if run.check:
        parts.append(f'<div style="color:{colour};font-weight:bold">{html.escape(run.check)}</div>')
    elif run.status != "done":
        parts.append(f'<div style="color:{colour};font-weight:bold">'
                     f"{html.escape(run.method_run.status_reason())}</div>")
    for note in run.notes:
        parts.append(f'<div style="color:#555">{html.escape(note)}</div>')
    figure = run.figure()
    if figure is not None:
        from .plot import figure_svg

        parts.append(f"<div>{figure_svg(figure)}</div>")
    parts.append(measures_table(run.summary(), run.spec.name))
    parts.append("</div>")
    return "".join(parts)

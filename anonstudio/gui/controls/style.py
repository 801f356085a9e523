"""The studio's look: colours of the callout states and the one style sheet the main window applies.

No widget carries an inline style sheet of its own; a widget takes a look by a
dynamic property (``role``, ``callout``, ``invalid``) that :data:`STYLE` selects on.
:func:`style_sheet` gives the sheet for the light or the dark scheme (``gui/scheme.py`` picks one).
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

__all__ = ["STATE_COLOURS", "DARK_STATE_COLOURS", "STYLE", "restyle", "style_sheet"]

#: Background and border of a callout per state.
STATE_COLOURS = {
    "info": ("#eef4fa", "#b8cfe6"),
    "ok": ("#e3f4e8", "#9fd2ae"),
    "warning": ("#fdf3d0", "#e6cf7a"),
    "incomplete": ("#fdf3d0", "#e6cf7a"),
    "failed": ("#fde2e1", "#e59a96"),
}

#: The same states on a dark window: dark tints that keep light text readable, brighter borders.
DARK_STATE_COLOURS = {
    "info": ("#1d2b3a", "#4f7aa6"),
    "ok": ("#16301f", "#4f9e66"),
    "warning": ("#3a3115", "#b39a3c"),
    "incomplete": ("#3a3115", "#b39a3c"),
    "failed": ("#3d1c1b", "#c0605b"),
}


def style_sheet(dark: bool = False) -> str:
    """The studio's style sheet for the light (default) or dark scheme."""
    colours = DARK_STATE_COLOURS if dark else STATE_COLOURS
    note, problem, empty, guide_bg, guide_border = (
        ("#b8b8b8", "#ff8a80", "#c8c8c8", "#2b2b27", "#4a4a42") if dark
        else ("#555", "#b00020", "#444", "#f6f6f2", "#deded6"))
    return "\n".join(
        [f'QLabel[callout="{state}"] {{ background: {bg}; border: 1px solid {border}; border-radius: 4px; '
         f'padding: 6px; }}' for state, (bg, border) in colours.items()]
        + [f'QFrame[verdict="true"][callout="{state}"] {{ background: {bg}; border: 1px solid {border}; '
           f'border-radius: 4px; }}' for state, (bg, border) in colours.items()]
        + [
            'QFrame[verdict="true"] QLabel { background: transparent; border: none; }',
            f'QLabel[role="note"] {{ color: {note}; }}',
            f'QLabel[role="problem"] {{ color: {problem}; }}',
            f'QLabel[role="empty"] {{ color: {empty}; font-size: 13pt; padding: 40px; }}',
            'QLabel[role="heading"] { font-weight: bold; }',
            f'QLabel[role="empty-plot"] {{ color: {note}; font-size: 11pt; background: transparent; }}',
            f'QLabel[role="guide"] {{ background: {guide_bg}; border: 1px solid {guide_border}; '
            'border-radius: 4px; padding: 6px; }',
            f'QWidget[invalid="true"] {{ border: 1px solid {problem}; }}',
        ]
    )


#: The studio's one style sheet (applied to the main window), light scheme.
STYLE = style_sheet(False)


def restyle(widget: QWidget) -> None:
    """Re-apply the style sheet after a property it selects on (``callout``, ``invalid``) changed."""
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)

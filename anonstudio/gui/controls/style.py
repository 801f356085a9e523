"""The studio's look: colours of the callout states and the one style sheet the main window applies.

No widget carries an inline style sheet of its own; a widget takes a look by a
dynamic property (``role``, ``callout``, ``invalid``) that :data:`STYLE` selects on.
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

__all__ = ["STATE_COLOURS", "STYLE", "restyle"]

#: Background and border of a callout per state.
STATE_COLOURS = {
    "info": ("#eef4fa", "#b8cfe6"),
    "ok": ("#e3f4e8", "#9fd2ae"),
    "warning": ("#fdf3d0", "#e6cf7a"),
    "incomplete": ("#fdf3d0", "#e6cf7a"),
    "failed": ("#fde2e1", "#e59a96"),
}

#: The studio's one style sheet (applied to the main window).
STYLE = "\n".join(
    [f'QLabel[callout="{state}"] {{ background: {bg}; border: 1px solid {border}; border-radius: 4px; '
     f'padding: 6px; }}' for state, (bg, border) in STATE_COLOURS.items()]
    + [
        'QLabel[role="note"] { color: #555; }',
        'QLabel[role="problem"] { color: #b00020; }',
        'QLabel[role="empty"] { color: #444; font-size: 13pt; padding: 40px; }',
        'QLabel[role="heading"] { font-weight: bold; }',
        'QLabel[role="empty-plot"] { color: #555; font-size: 11pt; background: transparent; }',
        'QLabel[role="guide"] { background: #f6f6f2; border: 1px solid #deded6; border-radius: 4px; '
        'padding: 6px; }',
        'QWidget[invalid="true"] { border: 1px solid #b00020; }',
    ]
)


def restyle(widget: QWidget) -> None:
    """Re-apply the style sheet after a property it selects on (``callout``, ``invalid``) changed."""
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)

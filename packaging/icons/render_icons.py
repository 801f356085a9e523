"""Render anonstudio.svg to the PNG sizes the desktop entry and the installers use.

Run from anywhere after changing the SVG: ``python packaging/icons/render_icons.py``
(needs PySide6, which anonstudio already depends on).
"""
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
SIZES = (48, 256)


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - QPainter needs it
    renderer = QSvgRenderer(str(HERE / "anonstudio.svg"))
    if not renderer.isValid():
        print("anonstudio.svg does not parse", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format_ARGB32)
        image.fill(Qt.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = HERE / f"anonstudio-{size}.png"
        if not image.save(str(out), "PNG"):
            print(f"could not write {out}", file=sys.stderr)
            return 1
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

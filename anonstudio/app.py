"""GUI entry point: the ``anonstudio`` command.

``anonstudio``                      open the studio on its start page
``anonstudio DATASET``              open the studio on a file
``anonstudio --sample NAME``        open on another bundled sample
``anonstudio --demo --screenshot studio.png [--max-m 4]``
                                    open, run the uniqueness analysis, save a
                                    screenshot of the window when it finishes
                                    and exit (works with QT_QPA_PLATFORM=offscreen)
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["main", "build_parser", "DemoDriver"]

DEMO_MAX_M = 4
#: The sample --demo runs on when none is named.
DEMO_SAMPLE = "chess"
DEMO_TIMEOUT_S = 300
DEMO_SIZE = (1600, 1000)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="anonstudio", description="Desktop studio for anonymizing set-valued data.",
                                     allow_abbrev=False)
    parser.add_argument("dataset", nargs="?", metavar="DATASET", help="dataset file to open, or a project file (.toml)")
    parser.add_argument("--sample", default=None, help="bundled sample to open when no DATASET is given "
                                                       f"(default: the start page; with --demo: {DEMO_SAMPLE})")
    parser.add_argument("--max-m", type=int, default=None, help="largest m for the uniqueness analysis")
    parser.add_argument("--demo", action="store_true",
                        help="run the uniqueness analysis at once (with --screenshot: save and exit)")
    parser.add_argument("--screenshot", metavar="PATH", help="with --demo: save a PNG of the window and exit")
    parser.add_argument("--window-size", metavar="WxH", type=window_size, default=None,
                        help="initial window size, e.g. 1280x720 (default: fit the screen; "
                             f"{DEMO_SIZE[0]}x{DEMO_SIZE[1]} for --screenshot)")
    return parser


def window_size(text: str) -> tuple[int, int]:
    """Parse ``"1280x720"`` for ``--window-size``."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1280x720") from None
    if width < 200 or height < 200:
        raise argparse.ArgumentTypeError(f"{text!r} is too small (at least 200x200)")
    return width, height


class DemoDriver:
    """Loads the dataset, runs the first workbench that fits it (Risk for set-valued data, Threats for a table),
    screenshots and quits.

    Exit status: 0 after the screenshot was written, 1 if loading or the
    analysis failed, 2 on timeout.
    """

    def __init__(self, app, window, *, screenshot: Path | None, max_m: int):
        from PySide6.QtCore import QTimer

        self.app = app
        self.window = window
        self.screenshot = screenshot
        self.max_m = max_m
        self.bench = None
        #: The exit status once decided; ``main`` returns it whatever the event loop returns, because closing
        #: the last window may end the loop with 0 before ``exit(status)`` is seen.
        self.status: int | None = None
        window.datasets.dataset_loaded.connect(self._loaded)
        if screenshot is not None:
            window.runner.error_handler = self._failed
            QTimer.singleShot(DEMO_TIMEOUT_S * 1000, self._timeout)

    def _loaded(self, dataset) -> None:
        from .methods.contract import get_method

        # A tab not built yet gives a declaration of its class (SPEC: a method workbench), not the class.
        fitting = [cls for cls in self.window.workbench_classes()
                   if getattr(cls, "SPEC", None) and get_method(cls.SPEC).accepts(dataset)]
        if not fitting:
            self._failed("Demo", f"no workbench works on {getattr(dataset, 'name', 'this dataset')}")
            return
        self.bench = self.window.workbench(fitting[0])
        self.window.tabs.setCurrentWidget(self.bench)
        self.bench.run_finished.connect(self._finished)
        panel = self.bench.param_panel
        if "max_m" in panel.fields:
            panel.set_value("max_m", self.max_m)
        panel.run_button.click()

    def _finished(self, run, complete: bool) -> None:
        if self.screenshot is None:
            return
        from PySide6.QtCore import QTimer

        # Let the last repaint (plots, table, jobs dock) happen before grabbing.
        QTimer.singleShot(300, self._grab)

    def _grab(self) -> None:
        self.window.grab().save(str(self.screenshot), "PNG")
        print(f"screenshot written to {self.screenshot}", file=sys.stderr)
        self._quit(0)

    def _failed(self, title: str, message: str) -> None:
        print(f"anonstudio --demo: {title} failed: {message}", file=sys.stderr)
        self._quit(1)

    def _timeout(self) -> None:
        print(f"anonstudio --demo: no result after {DEMO_TIMEOUT_S} s", file=sys.stderr)
        self._quit(2)

    def _quit(self, status: int) -> None:
        if self.status is None:  # the first outcome wins (a timeout after a failure changes nothing)
            self.status = status
        self.app.exit(self.status)
        self.window.close()


#: The libraries of Qt's window ("xcb") platform that a Linux may lack, as ``find_library`` names them,
#: with their Debian/Ubuntu packages (its other X11 libraries come with any X11 desktop).
LINUX_QT_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xkbcommon-x11": "libxkbcommon-x11-0",
                      "xcb-icccm": "libxcb-icccm4", "xcb-keysyms": "libxcb-keysyms1", "xcb-shape": "libxcb-shape0"}
#: What the studio prints when some are missing ({missing}: their packages), and how to get them.
LINUX_QT_HINT = ("anonstudio: the Qt window needs system libraries that are not installed: {missing}. "
                 "On Debian or Ubuntu: sudo apt install libxcb-cursor0 libxkbcommon-x11-0 "
                 "libxcb-icccm4 libxcb-keysyms1 libxcb-shape0. Without a display, set QT_QPA_PLATFORM=offscreen.")


def _library_found(name: str) -> bool:
    import ctypes.util

    # The desktop bundle (PyInstaller) carries the copies its build machine had, in its own
    # folder, which find_library does not search: a system without them still gets a window.
    bundle = getattr(sys, "_MEIPASS", None) if getattr(sys, "frozen", False) else None
    if bundle and any(Path(bundle).glob(f"lib{name}.so*")):
        return True
    return ctypes.util.find_library(name) is not None


def warn_missing_qt_libraries() -> bool:
    """Print :data:`LINUX_QT_HINT` when the window would need X11 libraries this Linux lacks; True if printed.

    Qt aborts with a cryptic message when its xcb plugin cannot load; this names the fix first.
    """
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if not sys.platform.startswith("linux") or platform and not platform.startswith("xcb"):
        return False
    if os.environ.get("WAYLAND_DISPLAY") and not platform:
        return False
    missing = [package for name, package in LINUX_QT_LIBRARIES.items() if not _library_found(name)]
    if missing:
        print(LINUX_QT_HINT.format(missing=", ".join(missing)), file=sys.stderr)
        return True
    return False


def _set_window_icon(app: QApplication) -> None:  # noqa: F821 (PySide6 is imported lazily)
    """The studio's icon on every window and in the task bar (the same pictures the desktop entry uses)."""
    from PySide6.QtGui import QIcon

    from . import RESOURCES

    icon = QIcon()
    for size in (48, 256):
        path = RESOURCES / "icons" / f"anonstudio-{size}.png"
        if path.is_file():
            icon.addFile(str(path))
    if not icon.isNull():
        app.setWindowIcon(icon)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.screenshot and not args.demo:
        build_parser().error("--screenshot needs --demo")
    if args.demo and args.screenshot:
        # Scripted runs (CI, docs) often have no display at all.
        if not any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        # A scripted run must not read or change the user's window layout.
        from .gui.settings import SETTINGS_ENV

        os.environ.setdefault(SETTINGS_ENV, tempfile.mkdtemp(prefix="anonstudio-demo-"))

    warn_missing_qt_libraries()
    from PySide6.QtWidgets import QApplication

    from .gui.main_window import MainWindow
    from .gui.settings import APPLICATION, ORGANIZATION

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    _set_window_icon(app)
    # Python's cyclic collector must not run in a worker thread: collecting a Qt widget there deadlocks
    # PySide. This collects on the GUI thread from a timer instead (automatic collection off).
    from pyqtgraph.util.garbage_collector import GarbageCollector

    collector = GarbageCollector(interval=1.0)  # noqa: F841 (kept alive for the application's lifetime)
    scripted = bool(args.demo and args.screenshot)
    # Nothing to open: the start page asks what the user wants to do.
    start_page = not (args.dataset or args.sample or args.demo)
    window = MainWindow(warm_up=not args.demo, restore_layout=not scripted, start_page=start_page)
    if args.window_size is not None:
        window.resize(*args.window_size)
    elif scripted:
        window.resize(*DEMO_SIZE)
    if args.max_m is not None:
        _set_max_m(window, args.max_m)
    driver = None
    if args.demo:
        driver = DemoDriver(app, window, screenshot=Path(args.screenshot) if args.screenshot else None,
                            max_m=args.max_m or DEMO_MAX_M)
    window.install_exception_hook()
    if scripted:
        window.projects.prompt_on_close = False
    window.show()
    if args.dataset and str(args.dataset).endswith(".toml"):
        window.open_project(args.dataset)
    elif args.dataset:
        window.open_dataset(args.dataset)
    elif not start_page:
        window.datasets.load_sample(args.sample or DEMO_SAMPLE)
    status = app.exec()
    if driver is not None and driver.status is not None:
        status = driver.status
    del driver
    return int(status)


def _set_max_m(window, max_m: int) -> None:
    from .gui.workbenches.uniqueness.workbench import UniquenessWorkbench

    try:
        window.workbench(UniquenessWorkbench).param_panel.set_value("max_m", max_m)
    except KeyError:
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

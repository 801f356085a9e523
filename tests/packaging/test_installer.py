"""Smoke test of the desktop bundle: build packaging/anonstudio.spec, then run what it built.

The build takes three to four minutes on two cores (PyInstaller's analysis and the
compilation of every kernel for the bundled cache), so this module runs only
where PyInstaller is installed (``pip install -e ".[test,installer]"``, which
``.ci/installer`` does) and is skipped where it is not (the ``.[test]`` install
of ``.ci/run``). It also measures the first start of the built app on a fresh
user account (printed, and held to the 15 s of issue 20).
"""
from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PyInstaller", reason='PyInstaller is not installed (pip install -e ".[installer]"; '
                                           ".ci/installer runs this smoke test)")
if not sys.platform.startswith("linux"):
    pytest.skip("the bundle layout checked here is the Linux one", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "anonstudio.spec"
EXECUTABLES = ("anonstudio", "anonstudio-cli", "anonstudio-selfcheck")
DEMO_SIZE = (1600, 1000)  # app.DEMO_SIZE, the window size of --demo --screenshot
# Issue 20: first start of the installed app on a fresh account, to a window whose first
# analysis does not wait for compilation, under 15 s. Measured on the shared two-core
# machine (packaging/README.md): the studio to its first analysis 4-5 s, the warm-up of every
# kernel from the bundled cache 1-3 s. The limit is the target itself: three times the measured
# figures or more, room for a machine busy with other jobs, never for a compilation (minutes).
FIRST_START_S = 15.0


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file in ``folder`` with its size and modification time."""
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


class Bundle:
    """The built folder and a private home (settings, caches) for its runs."""

    def __init__(self, folder: Path, home: Path, build_seconds: float):
        self.folder = folder
        self.home = home
        self.build_seconds = build_seconds
        self.files = snapshot(folder)

    def env(self, home: Path | None = None, **extra: str) -> dict[str, str]:
        home = home or self.home
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "ANONSTUDIO_", "XDG_"))}
        env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"),
                   XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
                   QT_QPA_PLATFORM="offscreen")
        env.update(extra)
        return env

    def run(self, executable: str, *args: str, home: Path | None = None, timeout: float = 600,
            **env: str) -> subprocess.CompletedProcess:
        """Run one of the bundle's executables; the bundle itself must stay untouched (it may be read-only).

        The seconds the run took are in the result's ``seconds``.
        """
        home = home or self.home
        t0 = time.perf_counter()
        proc = subprocess.run([str(self.folder / executable), *args], env=self.env(home, **env), cwd=home,
                              capture_output=True, text=True, timeout=timeout)
        proc.seconds = time.perf_counter() - t0
        print(f"{executable} {' '.join(args)}: exit {proc.returncode} after {proc.seconds:.1f} s")
        assert snapshot(self.folder) == self.files, f"{executable} wrote into its bundle folder"
        return proc


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Iterator[Bundle]:
    tmp = tmp_path_factory.mktemp("installer")
    log = tmp / "pyinstaller.log"
    env = dict(os.environ, ANONSTUDIO_SELFCHECK="1")
    t0 = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.run([sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm",
                               "--distpath", str(tmp / "dist"), "--workpath", str(tmp / "build")],
                              cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=1100)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, "pyinstaller failed:\n" + "".join(log.read_text().splitlines(True)[-40:])
    print(f"bundle built in {seconds:.0f} s")
    home = tmp / "home"
    home.mkdir()
    yield Bundle(tmp / "dist" / "anonstudio", home, seconds)
    # Build folder and bundle take over a gigabyte; pytest would keep them for three runs.
    shutil.rmtree(tmp, ignore_errors=True)


def test_the_folder_holds_both_executables_and_what_install_needs(bundle):
    for name in EXECUTABLES:
        assert os.access(bundle.folder / name, os.X_OK), name
    assert os.access(bundle.folder / "install.sh", os.X_OK)
    for name in ("anonstudio.desktop", "icons/anonstudio.svg", "icons/anonstudio-256.png", "icons/anonstudio-48.png"):
        assert (bundle.folder / name).is_file(), name
    internal = bundle.folder / "_internal"
    assert (internal / "resources" / "samples" / "chess").is_dir()
    assert (internal / "PySide6" / "Qt" / "plugins" / "platforms" / "libqoffscreen.so").is_file()
    assert (internal / "PySide6" / "Qt" / "plugins" / "platforms" / "libqxcb.so").is_file()
    # The kernels ship as source so that numba can key its cache on a real file.
    assert (internal / "anonstudio" / "kernels" / "support.py").is_file()
    assert not [p for p in bundle.folder.rglob("*") if p.is_symlink() and not p.exists()], "dangling links"
    size = sum(p.stat().st_size for p in bundle.folder.rglob("*") if p.is_file() and not p.is_symlink())
    print(f"bundle: {size / 2**20:.0f} MiB")


def test_frozen_discovery_finds_what_a_checkout_finds(bundle):
    """Methods, CLI commands, workbenches, kernels and samples are found by module name at run time."""
    proc = bundle.run("anonstudio-selfcheck")
    assert proc.returncode == 0, proc.stderr
    frozen = json.loads(proc.stdout)
    sys.path.insert(0, str(SPEC.parent / "launchers"))
    try:
        import selfcheck_main
    finally:
        sys.path.remove(str(SPEC.parent / "launchers"))
    here = selfcheck_main.report(warm_up=False)
    assert frozen["frozen"] and not here["frozen"]
    for key in ("methods", "commands", "workbenches", "workbench_problems", "kernels", "samples"):
        assert frozen[key] == here[key], key
    assert len(frozen["methods"]) >= 6 and "uniqueness" in frozen["commands"]
    assert Path(frozen["resources"]) == bundle.folder / "_internal" / "resources"
    assert frozen["numba_cache_dir"] == str(bundle.home / "cache" / "anonstudio" / "numba" / "anonstudio-selfcheck")


def cache_log(proc: subprocess.CompletedProcess) -> tuple[int, int]:
    """(entries loaded, entries saved) in numba's cache log (``NUMBA_DEBUG_CACHE=1``) of a run.

    numba saves an entry after every compilation of a ``cache=True`` kernel, so no
    entry saved means the run compiled none of them.
    """
    log = proc.stdout + proc.stderr
    return log.count("[cache] data loaded from"), log.count("[cache] data saved to")


def test_the_first_start_on_a_fresh_account_loads_every_kernel_from_the_bundled_cache(bundle, tmp_path):
    """Issue 20: the bundle carries its compiled kernels; the first start's warm-up compiles nothing."""
    bundled = bundle.folder / "_internal" / "numba_cache"
    indexes = sorted(p.name for p in (bundled / "anonstudio-selfcheck").glob("*.nbi"))
    assert indexes and sorted(p.name for p in (bundled / "anonstudio").glob("*.nbi")) == indexes
    home = tmp_path / "fresh"
    home.mkdir()
    proc = bundle.run("anonstudio-selfcheck", "--warm-up", home=home, NUMBA_DEBUG_CACHE="1")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout[proc.stdout.index("{\n"):])
    assert doc["warmed_up"] == [k for k in doc["kernels"] if k != "warmup"]
    loaded, saved = cache_log(proc)
    print(f"first start of anonstudio-selfcheck --warm-up: {proc.seconds:.1f} s, of which the warm-up "
          f"{doc['warm_up_seconds']:.1f} s; {loaded} kernels loaded, {saved} compiled")
    assert saved == 0, "the warm-up compiled kernels the bundle should carry"
    # A kernel another one calls is linked into its caller's entry: not every index is loaded directly.
    assert loaded >= len(doc["warmed_up"])
    # numba found the copy in its folder for this installation, one index per bundled one.
    cache = home / "cache" / "anonstudio" / "numba" / "anonstudio-selfcheck"
    assert sorted(p.name for p in cache.rglob("*.nbi")) == indexes
    # The studio runs this warm-up in the background once its window is up.
    assert doc["warm_up_seconds"] < FIRST_START_S

    # A later start does not copy again; one whose copy is stale (an update of the app) does.
    (marker,) = cache.rglob("anonstudio-bundle-id")
    copied = {p: p.stat().st_mtime_ns for p in cache.rglob("*.nbi")}
    proc = bundle.run("anonstudio-selfcheck", home=home)
    assert proc.returncode == 0, proc.stderr
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.nbi")} == copied
    marker.write_text("an earlier build")
    proc = bundle.run("anonstudio-selfcheck", "--warm-up", home=home, NUMBA_DEBUG_CACHE="1")
    assert proc.returncode == 0, proc.stderr
    assert cache_log(proc)[1] == 0 and marker.read_text() == (bundled / "build-id").read_text()


def test_the_studio_first_start_writes_a_screenshot_without_compiling(bundle, tmp_path):
    """The studio's demo on a fresh account: window, first analysis, screenshot, all from the bundled kernels.

    ``--max-m 1`` keeps the analysis itself short, so the time is the start's (the
    default m = 4 takes ten seconds more of counting, with or without compilation).
    """
    from PySide6.QtGui import QImage

    home = tmp_path / "fresh"
    home.mkdir()
    shot = home / "shot.png"
    proc = bundle.run("anonstudio", "--demo", "--max-m", "1", "--screenshot", str(shot), home=home,
                      NUMBA_DEBUG_CACHE="1")
    assert proc.returncode == 0, proc.stderr
    assert "failed to import" not in proc.stderr
    loaded, saved = cache_log(proc)
    print(f"first start of anonstudio --demo --screenshot (window, first analysis, screenshot): "
          f"{proc.seconds:.1f} s, {loaded} kernels loaded, {saved} compiled")
    assert loaded and saved == 0, "the studio's first analysis compiled kernels"
    assert proc.seconds < FIRST_START_S
    assert 30_000 < shot.stat().st_size < 5_000_000
    image = QImage(str(shot))
    assert (image.width(), image.height()) == DEMO_SIZE
    colours = {image.pixel(x, y) for x in range(0, image.width(), 16) for y in range(0, image.height(), 16)}
    assert len(colours) > 20, "the screenshot is blank"


def test_the_cli_lists_samples_and_measures_uniqueness(bundle, tmp_path):
    from anonstudio.cli import main as cli_main
    from anonstudio.data.samples import list_samples

    proc = bundle.run("anonstudio-cli", "samples")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert names == [sample.name for sample in list_samples()] and {"adult", "chess"} <= set(names)

    out = bundle.home / "uniqueness.json"
    proc = bundle.run("anonstudio-cli", "uniqueness", "chess", "--m", "1", "--quiet", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["m"] == [1] and doc["complete"]
    # 75 distinct items in chess, one of which occurs in a single record.
    assert doc["itemsets"] == [75] and doc["uniqueness"] == [pytest.approx(1 / 75)]
    # The same numbers as from the checkout (the person curve is sampled: same seed, same sample).
    assert cli_main(["uniqueness", "chess", "--m", "1", "--quiet", "--json", str(tmp_path / "here.json")]) == 0
    here = json.loads((tmp_path / "here.json").read_text())
    assert (doc["uniqueness"], doc["person"]["uniqueness"]) == (here["uniqueness"], here["person"]["uniqueness"])
    assert any((bundle.home / "cache" / "anonstudio" / "numba" / "anonstudio-cli").rglob("*.nbi"))


def test_the_cli_writes_and_reads_parquet(bundle):
    """pyarrow in the bundle (the recipe leaves some of its libraries out)."""
    out = bundle.home / "chess.parquet"
    proc = bundle.run("anonstudio-cli", "convert", "chess", str(out))
    assert proc.returncode == 0, proc.stderr
    proc = bundle.run("anonstudio-cli", "info", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "records: 3,196" in proc.stdout


def test_install_script_installs_for_the_user_and_uninstalls(bundle, tmp_path):
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_DATA_HOME", "ANONSTUDIO_PREFIX")}
    env["HOME"] = str(home)
    data = home / ".local" / "share"
    prefix = data / "anonstudio"

    proc = subprocess.run([str(bundle.folder / "install.sh")], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (prefix / "_internal").is_dir()
    for icon in ("scalable/apps/anonstudio.svg", "256x256/apps/anonstudio.png", "48x48/apps/anonstudio.png"):
        assert (data / "icons" / "hicolor" / icon).is_file(), icon
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(data / "applications" / "anonstudio.desktop")
    desktop = entry["Desktop Entry"]
    assert desktop["Exec"] == f'"{prefix / "anonstudio"}" %f'
    assert desktop["TryExec"] == str(prefix / "anonstudio")
    assert desktop["Icon"] == "anonstudio" and desktop["Type"] == "Application"
    # The commands linked into ~/.local/bin run from the installed folder.
    cli = home / ".local" / "bin" / "anonstudio-cli"
    assert cli.is_symlink() and cli.resolve() == (prefix / "anonstudio-cli").resolve()
    proc = subprocess.run([str(cli), "samples"], env=bundle.env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "chess" in proc.stdout, proc.stderr

    proc = subprocess.run([str(prefix / "install.sh"), "--uninstall"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not prefix.exists() and not cli.exists() and not (data / "applications" / "anonstudio.desktop").exists()
    assert not (data / "icons" / "hicolor" / "scalable" / "apps" / "anonstudio.svg").exists()
    assert bundle.folder.is_dir()

"""Run ``anonstudio-cli`` invocations fast and safely: a pre-imported server forks one child per case.

Starting the CLI costs a few seconds of imports; the fuzz tests run hundreds of
invocations. The server (this file run as a script) imports anonstudio once and
then, for every request, forks a child that runs :func:`anonstudio.cli.main`
with its own stdin, stdout and stderr, exactly as the console script would.
The parent of the child enforces a timeout (a hang is reported, the child is
killed with its process group) and can send SIGINT or SIGKILL after a delay,
for the interruption tests.

Protocol: one JSON request per line on the server's stdin
(``{"argv": [...], "cwd": ..., "timeout": s, "signals": [[delay, "INT"], ...]}``),
one JSON reply per line on its stdout (``code``, ``signal``, ``stdout``,
``stderr``, ``hung``, ``seconds``).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

__all__ = ["CliRunner", "CliResult"]

REPO = Path(__file__).resolve().parents[2]


class CliResult:
    """What one CLI invocation did."""

    def __init__(self, doc: dict):
        self.code: int | None = doc["code"]
        self.signal: int | None = doc.get("signal")
        self.stdout: str = doc["stdout"]
        self.stderr: str = doc["stderr"]
        self.hung: bool = doc["hung"]
        self.seconds: float = doc["seconds"]

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.stderr

    @property
    def error_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ": error: " in ln]

    def __repr__(self) -> str:
        return (f"CliResult(code={self.code}, signal={self.signal}, hung={self.hung}, "
                f"stderr={self.stderr[-600:]!r}, stdout={self.stdout[-300:]!r})")


class CliRunner:
    """A client of one fork server; ``run(argv)`` returns a :class:`CliResult`."""

    def __init__(self, python: str = sys.executable):
        env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
        self._proc = subprocess.Popen([python, str(Path(__file__).resolve())], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, env=env, cwd=str(REPO))
        self._lock = threading.Lock()
        ready = self._proc.stdout.readline()
        if ready.strip() != "ready":
            raise RuntimeError(f"fork server did not start: {ready!r}")

    def run(self, argv: list[str], *, cwd: str | Path | None = None, timeout: float = 60.0,
            signals: list[tuple[float, str]] = (), stdin: str = "", streams: str = "") -> CliResult:
        """Run ``argv``; ``streams`` is ``""``, ``"close-stdout"``, ``"close-stderr"`` or ``"pipe-closed"``."""
        request = {"argv": [str(a) for a in argv], "cwd": str(cwd or tempfile.gettempdir()), "timeout": timeout,
                   "signals": [list(s) for s in signals], "stdin": stdin, "streams": streams}
        with self._lock:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError("fork server died")
        return CliResult(json.loads(line))

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()


# ------------------------------------------------------------------ server side
def _child(request: dict, out_path: str, err_path: str, in_path: str, ready: int) -> None:
    """In the forked child: become the CLI process and exit with its status."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for fd, path, flags in ((0, in_path, os.O_RDONLY), (1, out_path, os.O_WRONLY), (2, err_path, os.O_WRONLY)):
        handle = os.open(path, flags)
        os.dup2(handle, fd)
        os.close(handle)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", closefd=False, buffering=1)
    sys.stderr = open(2, "w", closefd=False, buffering=1)
    streams = request.get("streams", "")
    if streams in ("close-stdout", "close-stderr"):
        # ``cmd >&-`` / ``cmd 2>&-``: the descriptor is closed, and Python starts with the stream None.
        fd = 1 if streams == "close-stdout" else 2
        os.close(fd)
        setattr(sys, "stdout" if fd == 1 else "stderr", None)
    elif streams == "pipe-closed":
        # ``cmd | true``: stdout is a pipe whose reader is gone (writes fail with EPIPE; SIGPIPE is ignored).
        read, write = os.pipe()
        os.close(read)
        os.dup2(write, 1)
        os.close(write)
    os.chdir(request["cwd"])
    sys.argv = ["anonstudio-cli", *request["argv"]]
    code = 1
    from anonstudio.cli import main  # imported by the server: a lookup, not an import

    # Python drops the signals that arrive before its after-fork bookkeeping in the child, and a signal during
    # the set-up above would interrupt this harness, not the CLI (a console script has neither: it is exec'd
    # straight into the CLI), so the parent starts its signal clock only now, as the CLI starts.
    os.write(ready, b"1")
    os.close(ready)
    try:
        code = main(request["argv"])
    except SystemExit as exc:  # argparse errors exit 2 through SystemExit
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - what the console script would print: a traceback
        import traceback

        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code if isinstance(code, int) else 1)


def _serve_one(request: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="forkrun-") as tmp:
        out_path, err_path, in_path = (os.path.join(tmp, n) for n in ("out", "err", "in"))
        for p in (out_path, err_path):
            open(p, "w").close()
        with open(in_path, "w") as fh:
            fh.write(request.get("stdin", ""))
        t0 = time.monotonic()
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ready_read)
            _child(request, out_path, err_path, in_path, ready_write)
        os.close(ready_write)
        os.read(ready_read, 1)  # returns early (b"") if the child died before it was ready
        os.close(ready_read)
        t_signals = time.monotonic()
        pending = sorted(request.get("signals", []))
        deadline = t0 + float(request["timeout"])
        hung = False
        status = None
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            now = time.monotonic()
            while pending and now - t_signals >= pending[0][0]:
                _, name = pending.pop(0)
                try:
                    os.kill(pid, getattr(signal, f"SIG{name}"))
                except ProcessLookupError:
                    pass
            if now > deadline:
                hung = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                status = None
                break
            time.sleep(0.005)
        seconds = time.monotonic() - t0
        code = sig = None
        if status is not None:
            if os.WIFEXITED(status):
                code = os.WEXITSTATUS(status)
            elif os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
        with open(out_path, errors="replace") as fh:
            stdout = fh.read()
        with open(err_path, errors="replace") as fh:
            stderr = fh.read()
    return {"code": code, "signal": sig, "stdout": stdout[-20000:], "stderr": stderr[-20000:], "hung": hung,
            "seconds": round(seconds, 3)}


def serve() -> None:
    # Everything a command needs, imported once: children start in milliseconds.
    import importlib
    import pkgutil

    import anonstudio
    import anonstudio.cli
    from anonstudio.methods.contract import discover_methods

    discover_methods()
    anonstudio.cli.build_parser()
    import anonstudio.cli.commands.attack
    import anonstudio.data.io

    # The commands import numpy, pandas, numba and their family's algorithm, kernels and verifier only where they
    # use them (a quick --help); imported here once, a forked child does not import them again for every case.
    for info in pkgutil.walk_packages(anonstudio.__path__, "anonstudio."):
        name = info.name
        if name.startswith(("anonstudio.gui", "anonstudio.app")) or name.endswith("__main__"):
            continue  # Qt, and modules that run something when imported
        importlib.import_module(name)

    print("ready", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = _serve_one(json.loads(line))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    serve()

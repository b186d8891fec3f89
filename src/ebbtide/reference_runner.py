"""The causal-memory reference for benchmarks: `bench/reference/causal_memory_runner.py` run
by the Python of its own virtual environment (`bench/_venv.py`), spoken to in JSON lines."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from .errors import EbbtideError

# What the runner's stderr shows of why it stopped: the end of a traceback.
_STDERR_TAIL = 25


class ReferenceUnavailable(EbbtideError, RuntimeError):
    """The reference system could not be installed, started or kept running."""

    code = "reference_unavailable"


class ReferenceRunner:
    """One runner process, started on first use (or by `start`); `quit` stops it."""

    def __init__(self, bench_folder: Path) -> None:
        self.folder = bench_folder
        self.proc: subprocess.Popen[str] | None = None
        self._stderr: Any = None

    def send(self, cmd: dict[str, Any]) -> dict[str, Any]:
        self.start()
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        try:
            self.proc.stdin.write(json.dumps(cmd) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise self._exited() from None
        line = self.proc.stdout.readline()
        if not line:
            raise self._exited()
        return json.loads(line)

    def start(self) -> None:
        """Build the reference venv if it is not there yet and start the runner in it."""
        if self.proc is not None:
            return
        spec = importlib.util.spec_from_file_location(
            "_ebbtide_bench_venv", self.folder / "_venv.py"
        )
        if spec is None or spec.loader is None:
            raise ReferenceUnavailable(f"cannot load {self.folder / '_venv.py'}")
        venv = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(venv)
        try:
            python = venv.reference_python()  # builds the venv once, then reuses it
        except Exception as exc:  # ReferenceVenvError (pip unreachable, no disk), OSError
            raise ReferenceUnavailable(f"causal-memory: {exc}") from exc
        # A file, not a pipe: nobody reads it while the runner works, and a pipe would fill.
        # Closed by _forget, when the runner is gone.
        self._stderr = tempfile.TemporaryFile(  # noqa: SIM115
            mode="w+", encoding="utf-8", errors="replace"
        )
        self.proc = subprocess.Popen(
            [str(python), str(self.folder / "reference" / "causal_memory_runner.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )

    def quit(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ReferenceUnavailable, OSError, ValueError):
            self.send({"op": "quit"})
        if self.proc is not None:
            self.proc.wait(timeout=30)
        self._forget()

    def _exited(self) -> ReferenceUnavailable:
        """The error for a runner that stopped answering, with what it last wrote to stderr."""
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        tail = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            tail = "\n".join(self._stderr.read().strip().splitlines()[-_STDERR_TAIL:])
        self._forget()
        return ReferenceUnavailable(
            f"the causal-memory runner exited (code {code})" + (f":\n{tail}" if tail else "")
        )

    def _forget(self) -> None:
        if self.proc is not None:
            for pipe in (self.proc.stdin, self.proc.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
        self.proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

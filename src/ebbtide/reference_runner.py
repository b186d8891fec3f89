"""The causal-memory reference for benchmarks: `bench/reference/causal_memory_runner.py` run
by the Python of its own virtual environment (`bench/_venv.py`), spoken to in JSON lines."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any


class ReferenceRunner:
    """One runner process, started on first use; `quit` stops it."""

    def __init__(self, bench_folder: Path) -> None:
        self.folder = bench_folder
        self.proc: subprocess.Popen[str] | None = None

    def send(self, cmd: dict[str, Any]) -> dict[str, Any]:
        if self.proc is None:
            self._start()
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("causal-memory runner exited")
        return json.loads(line)

    def quit(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(RuntimeError, OSError, ValueError):
            self.send({"op": "quit"})
        self.proc.wait(timeout=30)
        self.proc = None

    def _start(self) -> None:
        spec = importlib.util.spec_from_file_location(
            "_ebbtide_bench_venv", self.folder / "_venv.py"
        )
        if spec is None or spec.loader is None:
            raise RuntimeError(f"cannot load {self.folder / '_venv.py'}")
        venv = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(venv)
        python = venv.reference_python()  # builds the venv once, then reuses it
        self.proc = subprocess.Popen(
            [str(python), str(self.folder / "reference" / "causal_memory_runner.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

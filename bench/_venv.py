"""Reference-system virtual environment for benchmarks.

ebbtide's benchmarks compare against the PyPI package ``causal-memory``
(pinned below). It runs in its own virtual environment so its native wheel
and dependencies never mix with ebbtide's. ``reference_python()`` creates that
environment once (under ``bench/.venvs/``, git-ignored) and returns its Python
executable; later calls reuse it.

Stdlib only: this module is imported from ebbtide's own environment.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import venv
from pathlib import Path

REFERENCE_PACKAGE = "causal-memory"
REFERENCE_VERSION = "0.10.0"

_BENCH_DIR = Path(__file__).resolve().parent
VENVS_DIR = _BENCH_DIR / ".venvs"
REFERENCE_VENV = VENVS_DIR / "causal-memory"
# Written only after a verified install; its content is the pinned requirement.
_STAMP_NAME = ".ebbtide-ready"


class ReferenceVenvError(RuntimeError):
    """The reference virtual environment could not be created or installed."""


def _venv_python(root: Path) -> Path:
    if os.name == "nt":
        return root / "Scripts" / "python.exe"
    return root / "bin" / "python"


def _requirement() -> str:
    return f"{REFERENCE_PACKAGE}=={REFERENCE_VERSION}"


def _run(cmd: list[str], what: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise ReferenceVenvError(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")
    return proc.stdout


def _is_ready(root: Path) -> bool:
    stamp = root / _STAMP_NAME
    py = _venv_python(root)
    try:
        return py.exists() and stamp.read_text().strip() == _requirement()
    except OSError:
        return False


def reference_python(root: Path | None = None) -> Path:
    """Return the Python executable of the causal-memory reference venv.

    Creates the venv at ``bench/.venvs/causal-memory/`` (or ``root``) and
    installs ``causal-memory==0.10.0`` from PyPI on first use; afterwards the
    cached venv is returned at once. Raises ``ReferenceVenvError`` with pip's
    output when the environment cannot be built.
    """
    root = Path(root) if root is not None else REFERENCE_VENV
    py = _venv_python(root)
    if _is_ready(root):
        return py

    root.parent.mkdir(parents=True, exist_ok=True)
    lock_path = root.parent / f".{root.name}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it
        try:
            if _is_ready(root):
                return py
            (root / _STAMP_NAME).unlink(missing_ok=True)
            if not py.exists():
                try:
                    venv.EnvBuilder(with_pip=True, clear=True).create(root)
                except Exception as exc:  # ensurepip / permissions / disk
                    raise ReferenceVenvError(
                        f"creating the reference venv at {root} failed: {exc}"
                    ) from exc
            _run(
                [
                    str(py),
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--quiet",
                    _requirement(),
                ],
                f"installing {_requirement()} into {root}",
            )
            got = _run(
                [
                    str(py),
                    "-c",
                    "import importlib.metadata as m, causal_memory;"
                    f"print(m.version({REFERENCE_PACKAGE!r}))",
                ],
                "importing causal_memory in the reference venv",
            ).strip()
            if got != REFERENCE_VERSION:
                raise ReferenceVenvError(
                    f"reference venv has {REFERENCE_PACKAGE} {got!r}, expected {REFERENCE_VERSION}"
                )
            (root / _STAMP_NAME).write_text(_requirement() + "\n")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return py


if __name__ == "__main__":
    try:
        print(reference_python())
    except ReferenceVenvError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)

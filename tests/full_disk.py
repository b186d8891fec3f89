"""A disk that fills up, for real: the process may not grow a file past a size (RLIMIT_FSIZE)."""

from __future__ import annotations

import resource
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def disk_with_room_for(limit: int) -> Iterator[None]:
    """Files this process writes cannot grow past `limit` bytes while inside, as on a disk
    nearly full: a write past it fails (EFBIG) instead of killing the process (SIGXFSZ)."""
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)


def full_disk(folder: Path) -> int:
    """Room for what `folder` holds now and not a byte more: a file may be rewritten in place
    but none may grow (a SQLite store's write-ahead log grows with every commit)."""
    return max(p.stat().st_size for p in folder.iterdir())

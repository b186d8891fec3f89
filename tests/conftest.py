from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ebbtide import ManualClock, Memory, open_memory


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock("2026-03-02T09:00:00+00:00")


@pytest.fixture
def memory(tmp_path, clock) -> Memory:
    mem = open_memory(tmp_path / "memory.db", clock=clock)
    yield mem
    mem.close()


# Backends ------------------------------------------------------------------------------------
# Every backend-parametrised test asks for a store URL through `backend_url`; the Neo4j server
# starts on first use only, so a run that selects SQLite alone never starts Java.

BACKENDS = [
    "sqlite",
    pytest.param("kuzu", marks=pytest.mark.kuzu),
    pytest.param("neo4j", marks=pytest.mark.neo4j),
]


def _unavailable(what: str, reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} unavailable under CI: {reason}", pytrace=False)
    pytest.skip(f"{what} unavailable: {reason}")


@dataclass
class _ExternalServer:
    uri: str


@pytest.fixture(scope="session")
def neo4j_server():
    """A real Neo4j 5 server for the whole session (tests/neo4j_server.py), started lazily.

    `EBBTIDE_TEST_NEO4J_URI=bolt://host:port` uses a running server instead (no auth). Without
    Java, Maven or the driver the Neo4j tests skip, saying why; under CI=true they fail."""
    try:
        import neo4j  # noqa: F401
    except ImportError as exc:
        _unavailable("Neo4j", f"the neo4j driver is not installed ({exc}); pip install '.[neo4j]'")
    external = os.environ.get("EBBTIDE_TEST_NEO4J_URI")
    if external:
        yield _ExternalServer(external)
        return
    from neo4j_server import Neo4jServer, Neo4jUnavailable

    try:
        server = Neo4jServer().start()
    except Neo4jUnavailable as exc:
        _unavailable("Neo4j test server", exc.reason)
    try:
        yield server
    finally:
        server.stop()


def backend_url(request: pytest.FixtureRequest, backend: str, tmp_path: Path, name: str) -> str:
    """A store URL for `backend` holding nothing yet: a fresh file, directory or tenant."""
    if backend == "sqlite":
        return str(tmp_path / f"{name}.db")
    if backend == "kuzu":
        try:
            import kuzu  # noqa: F401
        except ImportError as exc:
            _unavailable("Kùzu", f"kuzu is not installed ({exc}); pip install '.[kuzu]'")
        return f"kuzu:///{tmp_path / name}.kz"
    if backend == "neo4j":
        server = request.getfixturevalue("neo4j_server")
        return f"{server.uri}?tenant={name}-{secrets.token_hex(6)}"
    raise ValueError(backend)


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def store_url(request, backend, tmp_path) -> Callable[..., str]:
    """`store_url(name)`: a fresh store URL on this test's backend (sqlite, kuzu, neo4j)."""
    return lambda name="memory": backend_url(request, backend, tmp_path, name)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "kuzu: needs the kuzu package")

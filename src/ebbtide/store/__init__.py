"""Storage backends behind one protocol, chosen by URL."""

from __future__ import annotations

import os
from urllib.parse import parse_qs, unquote, urlsplit

from ..config import Config
from ..errors import ValidationError
from .base import (
    AuditEntry,
    EdgeRow,
    GraphArrays,
    Matches,
    NodeBrief,
    PendingReview,
    SearchFilter,
    Store,
)
from .sqlite import SQLiteStore

__all__ = [
    "NEO4J_SCHEMES",
    "AuditEntry",
    "EdgeRow",
    "GraphArrays",
    "Matches",
    "NodeBrief",
    "PendingReview",
    "SQLiteStore",
    "SearchFilter",
    "Store",
    "local_path",
    "open_store",
]

NEO4J_SCHEMES = frozenset({"neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc"})
_NEO4J_PARAMS = frozenset({"tenant", "database"})
MAX_TENANT = 200


def open_store(url: str, config: Config | None = None) -> Store:
    """Open a store by URL.

    * SQLite, as in SQLAlchemy: `sqlite:///relative.db`, `sqlite:////absolute.db`,
      `sqlite:///:memory:`, or a bare path / `:memory:`.
    * Neo4j: `neo4j://host:7687`, `neo4j+s://…`, `bolt://…` (and `+ssc`), with
      `?tenant=…&database=…`. Credentials from the URL (`neo4j://user:pass@host`) or
      `EBBTIDE_NEO4J_USER` / `EBBTIDE_NEO4J_PASSWORD`; none means no auth. The tenant defaults
      to `EBBTIDE_TENANT`, else `default`; the database to `EBBTIDE_NEO4J_DATABASE`, else the
      server's default.
    * Kùzu: `kuzu:///relative/dir`, `kuzu:////absolute/dir`, `kuzu://:memory:`.
    """
    config = config or Config()
    scheme = _scheme(url)
    if scheme in NEO4J_SCHEMES:
        return _open_neo4j(url, scheme)
    if scheme == "kuzu":
        from .kuzu import KuzuStore

        return KuzuStore(_path_of(url, "kuzu"))
    if scheme == "sqlite":
        path = _path_of(url, "sqlite")
    elif scheme:
        raise ValidationError(
            "store",
            f"unknown store scheme {scheme!r}; use sqlite://, neo4j://, bolt://, kuzu:// or a path",
        )
    else:
        path = url
    return SQLiteStore(
        path, synchronous=config.sqlite_synchronous, busy_timeout_ms=config.busy_timeout_ms
    )


def local_path(url: str) -> str | None:
    """The file or folder an embedded store (SQLite, Kùzu) keeps its data in; None for a
    server's store or one in memory."""
    scheme = _scheme(url)
    if not scheme:  # a bare path is SQLite's
        path = url
    elif scheme in ("sqlite", "kuzu"):
        path = _path_of(url, scheme)
    else:
        return None
    return None if path == ":memory:" else path


def _scheme(url: str) -> str:
    """A store URL's scheme, lowercased; "" for a bare path."""
    return url.split("://", 1)[0].lower() if "://" in url else ""


def _path_of(url: str, scheme: str) -> str:
    return url[len(scheme) + 3 :].removeprefix("/") or ":memory:"


def _open_neo4j(url: str, scheme: str) -> Store:
    from .neo4j import Neo4jStore

    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = set(query) - _NEO4J_PARAMS
    if unknown:
        raise ValidationError(
            "store", f"unknown Neo4j URL parameter(s) {sorted(unknown)}; use tenant, database"
        )
    user = unquote(parts.username) if parts.username else os.environ.get("EBBTIDE_NEO4J_USER")
    password = (
        unquote(parts.password) if parts.password else os.environ.get("EBBTIDE_NEO4J_PASSWORD")
    )
    if user and password is None:
        raise ValidationError("store", "a Neo4j user needs a password (EBBTIDE_NEO4J_PASSWORD)")
    tenant = (query.get("tenant") or [""])[0] or os.environ.get("EBBTIDE_TENANT") or "default"
    if len(tenant) > MAX_TENANT or not tenant.strip():
        raise ValidationError("tenant", f"must be 1-{MAX_TENANT} characters", tenant)
    database = (query.get("database") or [""])[0] or os.environ.get("EBBTIDE_NEO4J_DATABASE")
    hostport = parts.netloc.rsplit("@", 1)[-1]
    if not hostport:
        raise ValidationError("store", "a Neo4j URL needs a host, e.g. neo4j://localhost:7687")
    shown = f"{scheme}://{user + '@' if user else ''}{hostport}?tenant={tenant}"
    if database:
        shown += f"&database={database}"
    return Neo4jStore(
        f"{scheme}://{hostport}",
        auth=(user, password or "") if user else None,
        database=database or None,
        tenant=tenant,
        url=shown,
    )

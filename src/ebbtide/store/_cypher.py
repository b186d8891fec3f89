"""Query shapes for the Neo4j backend: schema, full-text queries, search filters."""

from __future__ import annotations

import hashlib
from typing import Any

from ..text import search_words
from ._props import unique
from .base import SearchFilter, Window, window_conditions

SCHEMA: dict[str, str] = {
    "ebbtide_node_id": "CREATE CONSTRAINT ebbtide_node_id IF NOT EXISTS "
    "FOR (n:EbbNode) REQUIRE (n.tenant, n.id) IS UNIQUE",
    "ebbtide_edge_id": "CREATE CONSTRAINT ebbtide_edge_id IF NOT EXISTS "
    "FOR ()-[r:LINK]-() REQUIRE (r.tenant, r.id) IS UNIQUE",
    "ebbtide_meta_key": "CREATE CONSTRAINT ebbtide_meta_key IF NOT EXISTS "
    "FOR (m:EbbMeta) REQUIRE (m.tenant, m.key) IS UNIQUE",
    "ebbtide_review_node": "CREATE CONSTRAINT ebbtide_review_node IF NOT EXISTS "
    "FOR (r:EbbReview) REQUIRE (r.tenant, r.node_id) IS UNIQUE",
    "ebbtide_cooldown_node": "CREATE CONSTRAINT ebbtide_cooldown_node IF NOT EXISTS "
    "FOR (c:EbbCooldown) REQUIRE (c.tenant, c.node_id) IS UNIQUE",
    "ebbtide_vector_key": "CREATE CONSTRAINT ebbtide_vector_key IF NOT EXISTS "
    "FOR (v:EbbVector) REQUIRE (v.tenant, v.node_id, v.model) IS UNIQUE",
    "ebbtide_node_seq": "CREATE INDEX ebbtide_node_seq IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.seq)",
    "ebbtide_node_kind": "CREATE INDEX ebbtide_node_kind IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.kind)",
    # What a node of a kind counted is counted under (base.tally_value): its totals are read
    # from the index alone (`tally`), not from the nodes.
    "ebbtide_node_tally": "CREATE INDEX ebbtide_node_tally IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.kind, n.tally)",
    "ebbtide_node_text": "CREATE INDEX ebbtide_node_text IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.text_hash)",
    "ebbtide_edge_seq": "CREATE INDEX ebbtide_edge_seq IF NOT EXISTS "
    "FOR ()-[r:LINK]-() ON (r.tenant, r.seq)",
    "ebbtide_edge_relation": "CREATE INDEX ebbtide_edge_relation IF NOT EXISTS "
    "FOR ()-[r:LINK]-() ON (r.tenant, r.relation)",
    "ebbtide_vector_model": "CREATE INDEX ebbtide_vector_model IF NOT EXISTS "
    "FOR (v:EbbVector) ON (v.tenant, v.model)",
    "ebbtide_told": "CREATE INDEX ebbtide_told IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.told_from)",
    "ebbtide_said": "CREATE INDEX ebbtide_said IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.said_from)",
    "ebbtide_told_local": "CREATE INDEX ebbtide_told_local IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.told_local_from)",
    "ebbtide_said_local": "CREATE INDEX ebbtide_said_local IF NOT EXISTS "
    "FOR (n:EbbNode) ON (n.tenant, n.said_local_from)",
    # The ids a node's attributes name (store.base.named_ids), one :EbbName each.
    "ebbtide_name_name": "CREATE INDEX ebbtide_name_name IF NOT EXISTS "
    "FOR (x:EbbName) ON (x.tenant, x.name)",
    "ebbtide_name_node": "CREATE INDEX ebbtide_name_node IF NOT EXISTS "
    "FOR (x:EbbName) ON (x.tenant, x.node_id)",
    "ebbtide_audit_at": "CREATE INDEX ebbtide_audit_at IF NOT EXISTS "
    "FOR (a:EbbAudit) ON (a.tenant, a.at)",
    "ebbtide_audit_seq": "CREATE INDEX ebbtide_audit_seq IF NOT EXISTS "
    "FOR (a:EbbAudit) ON (a.tenant, a.seq)",
    # Over the words ebbtide splits a text into (neo4j._derived_props), not the text itself.
    # Stores made before it also hold `ebbtide_text` over `text`, which nothing reads now
    # (dropping it would fail replicas still running an older ebbtide).
    "ebbtide_words": "CREATE FULLTEXT INDEX ebbtide_words IF NOT EXISTS "
    "FOR (n:EbbNode) ON EACH [n.words, n.tenant_token] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
}
TEXT_INDEX = "ebbtide_words"
# Schemas already checked by this process, per server and database.
# Lucene's English stop words: a term made only of these matches nothing, so it must not be
# sent (the tenant clause alone would match every node).
_LUCENE_STOPWORDS_TEXT = """
a an and are as at be but by for if in into is it no not of on or such that the their then there
these they this to was will with
"""
LUCENE_STOPWORDS = frozenset(_LUCENE_STOPWORDS_TEXT.split())
MAX_TERMS = 256  # Lucene rejects queries with more than 1024 clauses


def tenant_token(tenant: str) -> str:
    """A digits-only token for the tenant in the full-text index (analysers leave it whole)."""
    return str(int(hashlib.sha1(tenant.encode()).hexdigest()[:15], 16))


def lucene_terms(query: str) -> list[str]:
    """The words a full-text query for `query` asks for, each a term Lucene can quote."""
    words = [t for t in search_words(query) if t not in LUCENE_STOPWORDS]
    return unique([w.replace('"', "").replace("\\", "") for w in words if w])[:MAX_TERMS]


def lucene_query(query: str, token: str) -> str | None:
    """Any of the query's content words (`lucene_terms`), each a quoted term, AND the tenant's
    token."""
    terms = lucene_terms(query)
    if not terms:
        return None
    either = " OR ".join(f'words:"{t}"' for t in terms)
    return f'({either}) AND tenant_token:"{token}"^0'


def search_filter(flt: SearchFilter, a: str = "n") -> tuple[str, dict[str, Any]]:
    where: list[str] = []
    params: dict[str, Any] = {}
    if flt.include_cold:
        where.append(f"{a}.status IN ['active', 'archived']")
    else:
        where.append(f"{a}.tier IN ['hot', 'warm'] AND {a}.status = 'active'")
    if flt.with_successors and not flt.include_invalid:
        where.append(f"({a}.valid_to IS NULL OR {a}.superseded_by IS NOT NULL)")
    elif not flt.include_invalid:
        where.append(f"{a}.valid_to IS NULL")
    if flt.exclude_kinds:
        where.append(f"NOT {a}.kind IN $f_exclude")
        params["f_exclude"] = sorted(flt.exclude_kinds)
    if flt.kinds:
        where.append(f"{a}.kind IN $f_kinds")
        params["f_kinds"] = sorted(flt.kinds)
    if flt.scope is not None:
        where.append(f"{a}.scope = $f_scope")
        params["f_scope"] = flt.scope
    if flt.task_tag is not None:
        where.append(f"({a}.task_tag = $f_task_tag OR {a}.task_tag IS NULL)")
        params["f_task_tag"] = flt.task_tag
    return " AND ".join(where), params


def dated_within(w: Window, lo: str, hi: str) -> tuple[str, str]:
    """Conditions on `n` for being told of, and said in, the window [lo, hi) (Cypher
    expressions) whose bounds are local or instants as `w`'s are (`base.dated_within`)."""
    return window_conditions(w, lo, hi, prefix="n.")


def vector_label(model: str, dim: int) -> tuple[str, str]:
    h = hashlib.sha1(model.encode()).hexdigest()[:12]
    return f"EbbVec_{h}_{dim}", f"ebbtide_vec_{h}_{dim}"

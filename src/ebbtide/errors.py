"""One exception hierarchy, so callers (and the MCP / HTTP faces) catch by meaning."""

from __future__ import annotations


class EbbtideError(Exception):
    """Base of every error ebbtide raises on purpose."""

    code = "error"


class ValidationError(EbbtideError, ValueError):
    """Input broke a rule. Nothing was changed.

    `field` names the offending input, `rule` says what it must satisfy.
    """

    code = "invalid_input"

    def __init__(self, field: str, rule: str, value: object = None) -> None:
        self.field = field
        self.rule = rule
        self.value = value
        super().__init__(f"{field}: {rule}")


class NotFound(EbbtideError, LookupError):
    """A referenced node, edge or review item does not exist (in this tenant)."""

    code = "not_found"

    def __init__(self, what: str, ident: str, field: str | None = None) -> None:
        self.what = what
        self.ident = ident
        self.field = field or what
        super().__init__(f"{self.field}: no {what} with id {ident!r}")


class StoreUnavailable(EbbtideError, RuntimeError):
    """The backing store cannot be reached, opened or written (its disk is full, say)."""

    code = "store_unavailable"


class EmbeddingUnavailable(EbbtideError, RuntimeError):
    """The configured embedding provider cannot produce vectors."""

    code = "embedding_unavailable"


class ExtractorUnavailable(EbbtideError, RuntimeError):
    """The configured LLM extractor cannot be reached or did not answer as asked."""

    code = "extractor_unavailable"


class ExtractorUnreachable(ExtractorUnavailable):
    """The LLM extractor's server did not answer (down, refusing, timing out), as opposed to
    answering something unusable: not worth asking again at once."""

"""Input rules, checked before anything is written. Each failure names the field and the rule."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from .errors import ValidationError
from .model import CAUSAL_RELATIONS, CONFIDENCE_SOURCES, KINDS

MAX_TEXT = 100_000
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}$")


def text(field: str, value: Any, *, max_len: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise ValidationError(field, "must be a string", value)
    stripped = value.strip()
    if not stripped:
        raise ValidationError(field, "must not be empty or whitespace", value)
    if len(stripped) > max_len:
        raise ValidationError(field, f"must be at most {max_len} characters", len(stripped))
    return stripped


def optional_text(field: str, value: Any, *, max_len: int = MAX_TEXT) -> str | None:
    return None if value is None else text(field, value, max_len=max_len)


def kind(value: Any, field: str = "kind") -> str:
    if value not in KINDS:
        raise ValidationError(field, f"must be one of {', '.join(sorted(KINDS))}", value)
    return value


def relation(value: Any, known: Iterable[str], field: str = "relation") -> str:
    names = sorted(known)
    if value not in names:
        raise ValidationError(field, f"must be one of {', '.join(names)}", value)
    return value


def causal_relation(value: Any, field: str = "relation") -> str:
    return relation(value, CAUSAL_RELATIONS, field)


def confidence_source(value: Any, field: str = "confidence_source") -> str:
    return relation(value, CONFIDENCE_SOURCES, field)


def unit(field: str, value: Any) -> float:
    """A number in [0, 1] (weights and confidences)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValidationError(field, "must be a number between 0 and 1", value)
    if not 0.0 <= float(value) <= 1.0:
        raise ValidationError(field, "must be between 0 and 1", value)
    return float(value)


def count(field: str, value: Any, *, low: int = 1, high: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(field, f"must be an integer between {low} and {high}", value)
    if not low <= value <= high:
        raise ValidationError(field, f"must be between {low} and {high}", value)
    return value


def flag(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValidationError(field, "must be true or false", value)
    return value


def node_id(value: Any, field: str = "node_id") -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise ValidationError(
            field, "must be 1-128 characters of letters, digits, '_', '-', '.', ':'", value
        )
    return value


def one_of(field: str, value: Any, allowed: Iterable[str]) -> str:
    names = list(allowed)
    if value not in names:
        raise ValidationError(field, f"must be one of {', '.join(names)}", value)
    return value


def attributes(value: Any, field: str = "attributes") -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValidationError(field, "must be an object with string keys", value)
    return dict(value)

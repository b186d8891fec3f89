"""Optional extraction by an LLM behind an OpenAI-compatible ``/v1/chat/completions`` endpoint.

The rules (extract/) always run; when ``EBBTIDE_EXTRACT_URL`` is set, the transcript is also
sent to the model, which answers in JSON with items (facts, preferences, events, lessons, each
naming the messages it came from) and causal links between them. What it adds is merged after
the rules' items (`extract.merge`): an item a rule already found is not stored twice, every
item keeps only message ids the transcript has (one that names none is dropped), and links
are stored with ``confidence_source="llm_inferred"``. An answer that is not the JSON asked for,
or a server that cannot be reached, raises `ExtractorUnavailable`; the memory then stores
what the rules found and says so.

Settings: ``EBBTIDE_EXTRACT_URL`` (the API base, e.g. ``http://localhost:11434/v1``),
``EBBTIDE_EXTRACT_MODEL`` (required with it), ``EBBTIDE_EXTRACT_KEY`` (optional), and
``EBBTIDE_EXTRACT_TIMEOUT`` (seconds per request, default 120) and ``EBBTIDE_EXTRACT_RETRIES``
(default 2): a remember waits for the model at most about timeout × (retries + 1).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ._http import (
    base_url,
    check_number,
    display,
    post_json,
    setting_hints,
    snippet,
    warn_plain_key,
)
from .errors import ExtractorUnavailable, ExtractorUnreachable, ValidationError
from .extract import Extraction, Item, ItemLink, said_in
from .transcript import Message

__all__ = ["ENV_KEY", "ENV_MODEL", "ENV_URL", "LlmExtractor", "get_extractor"]

ENV_URL = "EBBTIDE_EXTRACT_URL"
ENV_KEY = "EBBTIDE_EXTRACT_KEY"
ENV_MODEL = "EBBTIDE_EXTRACT_MODEL"
ENV_TIMEOUT = "EBBTIDE_EXTRACT_TIMEOUT"
ENV_RETRIES = "EBBTIDE_EXTRACT_RETRIES"

KINDS = ("fact", "preference", "event", "lesson")
RELATIONS = ("caused", "enabled", "prevented")
LINK_WEIGHT = 0.7  # what an inferred link starts at (SOURCE_CONFIDENCE["llm_inferred"])
MAX_ITEM_CHARS = 500
MAX_ITEMS = 200  # per transcript: more is a model that has lost the thread

PROMPT = """You extract long-term memory from a conversation. Each message is given as
[id] (time) speaker: text. Answer with one JSON object and nothing else:
{"items": [{"kind": "fact" | "preference" | "event" | "lesson",
            "text": "one self-contained sentence, people named, no pronouns",
            "sources": ["ids of the messages it comes from"],
            "when": "YYYY-MM-DD when an event's date is known, else null"}],
 "links": [{"cause": <index into items>, "effect": <index into items>,
            "relation": "caused" | "enabled" | "prevented"}]}
Keep what is worth remembering weeks later: who did what and when, what people like or
dislike, decisions and what followed from them, lessons learned. Link items only when the
conversation says one led to, made possible, or stopped the other."""

_HINTS = setting_hints(ENV_KEY, ENV_URL, ENV_MODEL)


class LlmExtractor:
    """Client of an OpenAI-compatible chat endpoint that extracts items from transcripts."""

    def __init__(
        self,
        url: str | None,
        model: str | None,
        *,
        key: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
    ) -> None:
        if not url:
            raise ValidationError(ENV_URL, "is required for LLM extraction")
        if not model:
            raise ValidationError(
                ENV_MODEL, "is required with EBBTIDE_EXTRACT_URL: the model name the server expects"
            )
        self.url = base_url(url, ENV_URL, "chat/completions")
        self.model = model
        self.name = f"llm:{model}"
        self._key = key
        self.timeout = float(check_number("timeout", timeout, (int, float), 0.001))
        self.max_retries = check_number("max_retries", max_retries, int, 0)
        warn_plain_key(self.url, key, ENV_KEY, ENV_URL)

    def __repr__(self) -> str:
        return f"LlmExtractor({self.name!r}, url={display(self.url)!r})"

    def extract(self, messages: Sequence[Message], date: datetime | None = None) -> Extraction:
        """Items and causal links the model finds in `messages` (validated; see the module)."""
        if not messages:
            return Extraction([], [])
        raw = post_json(
            self.url,
            {
                "model": self.model,
                "temperature": 0,
                "response_format": {"type": "json_object"},
                "messages": [
                    {"role": "system", "content": PROMPT},
                    {"role": "user", "content": _transcript(messages, date)},
                ],
            },
            key=self._key,
            timeout=self.timeout,
            max_retries=self.max_retries,
            what="extraction server",
            error=ExtractorUnreachable,
            hints=_HINTS,
            slow_hint=f"a slow model may be given longer with {ENV_TIMEOUT}",
        )
        return _parse(raw, messages, date, self.name, display(self.url))


def get_extractor(env: Mapping[str, str] | None = None) -> LlmExtractor | None:
    """The LLM extractor the settings ask for, or None (rules only) without a URL."""
    env = os.environ if env is None else env
    url = env.get(ENV_URL, "").strip()
    if not url:
        return None
    tuning: dict[str, Any] = {}
    for name, var, kind, least in (
        ("timeout", ENV_TIMEOUT, float, 0.001),
        ("max_retries", ENV_RETRIES, int, 0),
    ):
        raw = env.get(var, "").strip()
        if not raw:
            continue
        try:
            value = kind(raw)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value) or value < least:
            rule = f"must be {'an integer' if kind is int else 'a number'} >= {least:g}"
            raise ValidationError(var, f"{rule} (got {raw!r})")
        tuning[name] = value
    return LlmExtractor(
        url, env.get(ENV_MODEL, "").strip() or None, key=env.get(ENV_KEY) or None, **tuning
    )


def _transcript(messages: Sequence[Message], date: datetime | None) -> str:
    lines = []
    for m in messages:
        when = m.time or date
        stamp = f" ({when.date().isoformat()})" if when is not None else ""
        lines.append(f"[{m.id}]{stamp} {m.said()}")
    return "\n".join(lines)


def _parse(
    raw: bytes, messages: Sequence[Message], date: datetime | None, name: str, where: str
) -> Extraction:
    def bad(why: str) -> ExtractorUnavailable:
        return ExtractorUnavailable(f"extraction server {where} answered no usable items: {why}")

    try:
        content = json.loads(raw)["choices"][0]["message"]["content"]
        # No text (a refusal, a tool call: content null) or parts instead of a string is
        # not the JSON asked for either: the rules' items must still be stored.
        answer = json.loads(_unfenced(content)) if isinstance(content, str) else None
    except (ValueError, KeyError, IndexError, TypeError):
        raise bad(f"not the JSON asked for: {snippet(raw)}") from None
    if answer is None:
        raise bad(f"not the JSON asked for: {snippet(raw)}")
    if not isinstance(answer, dict) or not isinstance(answer.get("items", []), list):
        raise bad(f"no 'items' list in {snippet(raw)}")
    if not isinstance(answer.get("links") or [], list):
        raise bad(f"'links' is not a list in {snippet(raw)}")
    index = {m.id: k for k, m in enumerate(messages)}
    items: list[Item] = []
    kept: dict[int, int] = {}  # the model's item index -> ours
    for n, entry in enumerate(answer.get("items", [])[:MAX_ITEMS]):
        item = _item(entry, messages, index, date, name)
        if item is not None:
            kept[n] = len(items)
            items.append(item)
    links = []
    for entry in answer.get("links") or []:
        if not isinstance(entry, dict) or entry.get("relation") not in RELATIONS:
            continue
        cause, effect = kept.get(_int(entry.get("cause"))), kept.get(_int(entry.get("effect")))
        if cause is not None and effect is not None and cause != effect:
            links.append(ItemLink(cause, effect, entry["relation"], LINK_WEIGHT, "llm_inferred"))
    return Extraction(items, links)


def _item(
    entry: Any,
    messages: Sequence[Message],
    index: Mapping[str, int],
    date: datetime | None,
    name: str,
) -> Item | None:
    """One answered item, or None when it is not usable (unknown kind, no text, no message
    of this transcript named)."""
    if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
        return None
    text = entry.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    raw_sources = entry.get("sources")
    named = [  # a numeric id ("[1100] ana: …") may come back as a number
        str(s) if isinstance(s, int) and not isinstance(s, bool) else s
        for s in (raw_sources if isinstance(raw_sources, list) else [])
    ]
    sources = [s for s in dict.fromkeys(named) if isinstance(s, str) and s in index]
    if not sources:
        return None
    attributes = {**said_in(messages, index[sources[0]], date), "extracted_by": name}
    return Item(
        entry["kind"],
        " ".join(text.split())[:MAX_ITEM_CHARS],
        sources,
        _date(entry.get("when")),
        attributes,
        provenance="transcript:llm",
    )


def _date(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        day = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return day if day.tzinfo is not None else day.replace(tzinfo=UTC)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _unfenced(content: str) -> str:
    """The JSON inside a ```json fence, which some models add even when asked not to."""
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text

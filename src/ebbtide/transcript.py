"""Chat transcripts as messages: "speaker: text" lines, or lists of dicts or such strings.

Each message keeps its id (given, or numbered), speaker, text, an optional time and an optional
image caption; bad entries are refused with the field and the rule they broke.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .clock import to_datetime
from .errors import ValidationError
from .timeparse import parse_datetime

__all__ = ["Message", "parse_transcript"]


@dataclass(frozen=True)
class Message:
    id: str
    speaker: str
    text: str
    time: datetime | None = None
    caption: str | None = None  # an image shared with the message, described in words
    # Its id is its place in the transcript, not one it was given.
    numbered: bool = field(default=False, compare=False)

    def said(self) -> str:
        """The message as one line: speaker (when someone is named), text and any image
        described."""
        image = f" [image: {self.caption}]" if self.caption else ""
        said = f"{self.speaker}: {self.text}" if self.speaker else self.text
        return f"{said}{image}"


_LINE = re.compile(
    r"^\s*(?:\[(?P<stamp>[^\]]{1,60})\]|(?P<iso>\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?"
    r"(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?))?\s*(?P<speaker>[^\s:\[][^:\n]{0,59}?)\s*:\s+(?P<text>.*)$"
)
_ALIASES = {
    "speaker": ("speaker", "role", "name"),
    "text": ("text", "content"),
    "id": ("id", "dia_id"),
    "time": ("time", "timestamp"),
    "caption": ("caption", "blip_caption"),
}


def parse_transcript(value: str | Sequence[Any], *, id_prefix: str = "m") -> list[Message]:
    """Messages from "speaker: text" lines, or a list of dicts or such strings.

    A line may start with a timestamp, "[2023-05-08 13:56]" or ISO; a line without a speaker
    continues the message before it. Dicts take speaker (or role), text (or content), and
    optional id, time and caption. Missing ids become f"{id_prefix}1", f"{id_prefix}2", ...
    (`numbered`; a Message passed in keeps what it was).
    Anything else raises ValidationError naming the field ("messages[3].text").
    """
    if isinstance(value, str):
        drafts = _parse_lines(value)
    elif isinstance(value, Sequence):
        drafts = [_parse_entry(f"messages[{i}]", e) for i, e in enumerate(value)]
    else:
        raise ValidationError("messages", "must be a transcript string or a list of messages")
    seen: set[str] = set()
    out: list[Message] = []
    for i, (field_, d) in enumerate(drafts):
        ident = d.get("id") or f"{id_prefix}{i + 1}"
        if ident in seen:
            raise ValidationError(f"{field_}.id", "must be unique in the transcript", ident)
        seen.add(ident)
        numbered = d.get("numbered", not d.get("id"))
        out.append(
            Message(ident, d["speaker"], d["text"], d.get("time"), d.get("caption"), numbered)
        )
    return out


def _parse_lines(value: str) -> list[tuple[str, dict[str, Any]]]:
    drafts: list[tuple[str, dict[str, Any]]] = []
    for n, line in enumerate(value.splitlines()):
        if not line.strip():
            continue
        field_ = f"lines[{n}]"
        m = _LINE.match(line)
        if m is None or len(m["speaker"].split()) > 6:
            if not drafts:
                raise ValidationError(field_, "must look like 'speaker: text'", line[:80])
            drafts[-1][1]["text"] += "\n" + line.strip()
            continue
        text = m["text"].strip()
        if not text:
            raise ValidationError(f"{field_}.text", "must not be empty")
        entry: dict[str, Any] = {"speaker": m["speaker"].strip(), "text": text}
        stamp = m["stamp"] or m["iso"]
        if stamp:
            entry["time"] = _time(f"{field_}.time", stamp)
        drafts.append((field_, entry))
    return drafts


def _parse_entry(field_: str, entry: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(entry, Message):  # numbered stays numbered: its id is still its place
        return field_, {**{k: getattr(entry, k) for k in _ALIASES}, "numbered": entry.numbered}
    if isinstance(entry, str):
        m = _LINE.match(entry)
        if m is None or not m["text"].strip():
            raise ValidationError(field_, "must look like 'speaker: text'", entry[:80])
        d: dict[str, Any] = {"speaker": m["speaker"].strip(), "text": m["text"].strip()}
        if m["stamp"] or m["iso"]:
            d["time"] = _time(f"{field_}.time", m["stamp"] or m["iso"])
        return field_, d
    if not isinstance(entry, dict):
        raise ValidationError(field_, "must be an object or a 'speaker: text' string")
    got = {k: next((entry[a] for a in names if entry.get(a) is not None), None)
           for k, names in _ALIASES.items()}  # fmt: skip
    out: dict[str, Any] = {}
    for key in ("speaker", "caption"):
        if got[key] is not None:
            out[key] = _string(f"{field_}.{key}", got[key], 200 if key == "speaker" else 10_000)
    if "speaker" not in out:
        raise ValidationError(f"{field_}.speaker", "is required")
    text = got["text"]
    if "caption" in out and (text is None or (isinstance(text, str) and not text.strip())):
        out["text"] = ""  # an image alone says something too
    elif text is None:
        raise ValidationError(f"{field_}.text", "is required")
    else:
        out["text"] = _string(f"{field_}.text", text, 100_000)
    if got["id"] is not None:
        ident = got["id"]
        if isinstance(ident, bool) or not isinstance(ident, (str, int)):
            raise ValidationError(f"{field_}.id", "must be a string or an integer", ident)
        out["id"] = _string(f"{field_}.id", str(ident), 200)
    if got["time"] is not None:
        out["time"] = _time(f"{field_}.time", got["time"])
    return field_, out


def _string(field_: str, value: Any, max_len: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field_, "must be a non-empty string", value)
    if len(value) > max_len:
        raise ValidationError(field_, f"must be at most {max_len} characters", len(value))
    return value.strip()


def _time(field_: str, value: Any) -> datetime:
    if isinstance(value, datetime):
        return to_datetime(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return to_datetime(value)
        except (ValueError, OverflowError, OSError):
            pass
    elif isinstance(value, str) and (parsed := parse_datetime(value)) is not None:
        return parsed
    raise ValidationError(field_, "must be a date and time (ISO 8601 or '8 May 2023')", value)

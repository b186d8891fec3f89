"""Chat transcripts as messages: "speaker: text" lines, or lists of dicts or such strings.

Each message keeps its id (given, or numbered), speaker, text, an optional time and an optional
image caption; bad entries are refused with the field and the rule they broke. A numbered
message's id is its place in its conversation (`in_conversation`), and an id a chat file gave
is placed in that file (`in_file`), so that the places ("m1" starts every transcript) and ids
("1" starts many an export) of two conversations are told apart wherever ids are.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from .clock import to_datetime
from .errors import ValidationError
from .timeparse import parse_datetime

__all__ = ["Message", "conversation_name", "in_conversation", "in_file", "parse_transcript"]


@dataclass(frozen=True)
class Message:
    id: str
    speaker: str
    text: str
    time: datetime | None = None
    caption: str | None = None  # an image shared with the message, described in words
    # Its id is its place in the transcript, not one it was given.
    numbered: bool = field(default=False, compare=False)
    # The conversation a numbered message's place is in, or the chat file an id it gave is in:
    # its id is f"{conversation}.{place}".
    conversation: str | None = field(default=None, compare=False)

    @property
    def place(self) -> str:
        """Its id without its conversation's name: for a numbered message, its place ("m3");
        for one a chat file gave an id, that id ("3")."""
        if self.conversation is None:
            return self.id
        return self.id.removeprefix(f"{self.conversation}.")

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
# Field names as chat exports spell them: OpenAI (role, content), Discord (author, content,
# timestamp), Slack (user_profile before user, which is an id; text, ts), Telegram (from,
# text, date), mail-like (sender, body).
_ALIASES = {
    "speaker": ("speaker", "role", "name", "author", "user_profile", "user", "sender", "from"),
    "text": ("text", "content", "body", "message"),
    "id": ("id", "dia_id"),
    "time": ("time", "timestamp", "created_at", "date", "ts"),
    "caption": ("caption", "blip_caption"),
}
_NAMES = ("name", "nickname", "display_name", "username")  # of a speaker given as an object
_LIST_ITEM = re.compile(r"(?:[-*+•>]|\d{1,3}[.)])(?:\s|$)")  # "- a: b", "1. Step: x"
EPOCH_MS = 1e11  # epoch seconds past this (year 5138) are milliseconds (or finer)
# Epoch seconds written as a string, as Slack's "ts" ("1683554160.000200") and quoted JSON
# give them; nine digits at least (1973 on), so that "2023" stays a year.
_EPOCH_TEXT = re.compile(r"\s*\d{9,}(?:\.\d+)?\s*")


def parse_transcript(value: str | Sequence[Any], *, id_prefix: str = "m") -> list[Message]:
    """Messages from "speaker: text" lines, or a list of dicts or such strings.

    A line may start with a timestamp, "[2023-05-08 13:56]" or ISO; a line without a speaker,
    a list item ("- a: b", "1. Step: x") or a line indented deeper than the first message
    continues the message before it; so do the lines after the first of a string in a list.
    Dicts take speaker (or role, name, author, user_profile, user, sender, from; an object's
    name), text (or content, body, message; a list of text parts is joined), and optional id,
    time (or timestamp, created_at, date, ts; ISO, prose, or epoch seconds or milliseconds, as
    a number or a string of digits) and caption. A
    dict whose text is null or blank and that has no caption said nothing and is left out
    (a tool call, an attachment). Missing ids become f"{id_prefix}1", f"{id_prefix}2", ...
    by place (`numbered`; a Message passed in keeps what it was).
    Anything else raises ValidationError naming the field ("messages[3].text").
    """
    if isinstance(value, str):
        drafts = list(enumerate(_parse_lines(value)))
    elif isinstance(value, Sequence):
        entries = [(i, _parse_entry(f"messages[{i}]", e)) for i, e in enumerate(value)]
        drafts = [(i, e) for i, e in entries if e[1] is not None]
    else:
        raise ValidationError("messages", "must be a transcript string or a list of messages")
    # A numbered message's id is only its place until it is put in its conversation
    # (`in_conversation`), so a given "m2" and the place "m2" are two ids.
    seen: set[tuple[bool, str]] = set()
    out: list[Message] = []
    for i, (field_, d) in drafts:
        ident = d.get("id") or f"{id_prefix}{i + 1}"
        numbered = d.get("numbered", not d.get("id"))
        if (numbered, ident) in seen:
            raise ValidationError(f"{field_}.id", "must be unique in the transcript", ident)
        seen.add((numbered, ident))
        got = (d.get("time"), d.get("caption"), numbered, d.get("conversation"))
        out.append(Message(ident, d["speaker"], d["text"], *got))
    return out


def conversation_name(*said: Any) -> str:
    """A short name (8 lowercase letters and digits: 40 bits of a hash) for the conversation
    that `said` identifies (a call's scope, date and words; a chat file's path and date)."""
    digest = hashlib.sha256(json.dumps(said, default=str).encode()).digest()
    return base64.b32encode(digest[:5]).decode().lower()


def in_conversation(messages: Sequence[Message], name: str) -> list[Message]:
    """The messages with each numbered one not yet in a conversation put in `name`: its id
    f"{name}.{place}" ("k3x9q2ab.m1"), what the items it tells give as their source. A
    message with an id of its own, or already in a conversation, is left as it is."""
    return _placed(messages, name, numbered=True)


def in_file(messages: Sequence[Message], name: str) -> list[Message]:
    """The messages with each id a chat file gave put in `name`, the file's: "1" is
    f"{name}.1". Exports number their messages alike ("1", "2", ...), so two files' ids are
    told apart as two conversations' places are (`in_conversation`, which numbered messages
    are left to). Ids an API or MCP caller gives are theirs, never placed."""
    return _placed(messages, name, numbered=False)


def _placed(messages: Sequence[Message], name: str, *, numbered: bool) -> list[Message]:
    return [
        replace(m, id=f"{name}.{m.id}", conversation=name)
        if m.numbered is numbered and m.conversation is None
        else m
        for m in messages
    ]


def _parse_lines(value: str) -> list[tuple[str, dict[str, Any]]]:
    drafts: list[tuple[str, dict[str, Any]]] = []
    indent = 0  # of the first message's line: a line indented deeper continues a message
    bulleted = False  # every message a list item ("- Ana: hi"): items are messages then
    for n, line in enumerate(value.splitlines()):
        if not line.strip():
            continue
        field_ = f"lines[{n}]"
        m = _LINE.match(line)
        if drafts and (
            m is None
            or len(m["speaker"].split()) > 6
            or (not bulleted and _LIST_ITEM.match(m["speaker"]))
            or len(line) - len(line.lstrip()) > indent
        ):
            drafts[-1][1]["text"] += "\n" + line.strip()
            continue
        if m is None or len(m["speaker"].split()) > 6:
            raise ValidationError(field_, "must look like 'speaker: text'", line[:80])
        if not drafts:
            indent = len(line) - len(line.lstrip())
            bulleted = _LIST_ITEM.match(m["speaker"]) is not None
        text = m["text"].strip()
        if not text:
            raise ValidationError(f"{field_}.text", "must not be empty")
        speaker = _LIST_ITEM.sub("", m["speaker"], count=1) if bulleted else m["speaker"]
        if not speaker.strip():
            raise ValidationError(field_, "must look like 'speaker: text'", line[:80])
        entry: dict[str, Any] = {"speaker": speaker.strip(), "text": text}
        stamp = m["stamp"] or m["iso"]
        if stamp:
            entry["time"] = _time(f"{field_}.time", stamp)
        drafts.append((field_, entry))
    return drafts


def _parse_entry(field_: str, entry: Any) -> tuple[str, dict[str, Any] | None]:
    if isinstance(entry, Message):  # numbered stays numbered: its id is still its place
        kept = {"numbered": entry.numbered, "conversation": entry.conversation}
        return field_, {**{k: getattr(entry, k) for k in _ALIASES}, **kept}
    if isinstance(entry, str):
        first, _, rest = entry.strip().replace("\r\n", "\n").partition("\n")  # on for lines
        m = _LINE.match(first)
        text = f"{m['text']}\n{rest}".strip() if m else ""
        if m is None or not text:
            raise ValidationError(field_, "must look like 'speaker: text'", entry[:80])
        d: dict[str, Any] = {"speaker": m["speaker"].strip(), "text": text}
        if m["stamp"] or m["iso"]:
            d["time"] = _time(f"{field_}.time", m["stamp"] or m["iso"])
        return field_, d
    if not isinstance(entry, dict):
        raise ValidationError(field_, "must be an object or a 'speaker: text' string")
    got = {k: next((entry[a] for a in names if entry.get(a) is not None), None)
           for k, names in _ALIASES.items()}  # fmt: skip
    out: dict[str, Any] = {}
    if isinstance(got["speaker"], dict):  # {"author": {"id": …, "name": "Ana"}}
        who = got["speaker"]
        got["speaker"] = next((who[k] for k in _NAMES if isinstance(who.get(k), str)), who)
    text = got["text"]
    if isinstance(text, list):  # [{"type": "text", "text": …}, {"type": "image_url", …}]
        text = _parts(f"{field_}.text", text)
    blank = text is None or (isinstance(text, str) and not text.strip())
    if blank and got["caption"] is None and any(a in entry for a in _ALIASES["text"]):
        return field_, None  # nothing said: a tool call, an attachment, a service message
    for key in ("speaker", "caption"):
        if got[key] is not None:
            out[key] = _string(f"{field_}.{key}", got[key], 200 if key == "speaker" else 10_000)
    if "speaker" not in out:
        raise ValidationError(f"{field_}.speaker", "is required")
    if blank and "caption" not in out:
        raise ValidationError(f"{field_}.text", "is required")
    out["text"] = "" if blank else _string(f"{field_}.text", text, 100_000)
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


def _parts(field_: str, parts: list[Any]) -> str:
    """The words of a message given in parts: OpenAI's content parts ({"type": "text",
    "text": …} each, joined by lines; images and other kinds are left out), or Telegram's
    strings and entities ("see ", {"type": "link", "text": …}, " now": one sentence)."""
    words = []
    for part in parts:
        if isinstance(part, str):
            words.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            words.append(part["text"])
        elif not isinstance(part, dict) or "type" not in part:
            raise ValidationError(field_, "must be a string or a list of text parts", part)
    if any(isinstance(part, str) for part in parts):
        return "".join(words)
    return "\n".join(w.strip() for w in words if w.strip())


def _time(field_: str, value: Any) -> datetime:
    if isinstance(value, datetime):
        return to_datetime(value)
    if isinstance(value, str) and _EPOCH_TEXT.fullmatch(value):
        value = float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for _ in range(3):  # milliseconds (JavaScript's Date.now()), micro- or nanoseconds
            if math.isfinite(value) and abs(value) >= EPOCH_MS:
                value /= 1000
        try:
            return to_datetime(value)
        except (ValueError, OverflowError, OSError):
            pass
    elif isinstance(value, str) and (parsed := parse_datetime(value)) is not None:
        return parsed
    raise ValidationError(
        field_, "must be a date and time (ISO 8601, '8 May 2023' or epoch seconds)", value
    )

"""JSON over HTTP to OpenAI-compatible servers (stdlib only), shared by the embedding client
and the LLM extractor: 408, 429, 5xx and connection failures are retried with backoff, and
every failure ends in the caller's error type naming the server and what went wrong (never
the key). Proxies come from the usual ``*_proxy`` variables."""

from __future__ import annotations

import http.client
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from .errors import ValidationError

log = logging.getLogger("ebbtide.http")

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 20.0
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def post_json(
    url: str,
    body: Mapping[str, Any],
    *,
    key: str | None,
    timeout: float,
    max_retries: int,
    what: str,
    error: type[Exception],
    hints: Mapping[int, str] | None = None,
    slow_hint: str | None = None,
) -> bytes:
    """POST `body` as JSON and return the raw answer; `what` names the server in errors
    ("embedding server"), `hints` says what to check for an HTTP status."""
    data = json.dumps(body).encode("utf-8")
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": "ebbtide",
    }
    if key:
        headers["Authorization"] = f"Bearer {key}"
    where = display(url)
    attempt = 0
    while True:
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        delay = 0.5 * 2**attempt
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            if exc.code in RETRY_STATUS and attempt < max_retries:
                delay = _retry_after(exc, delay)
                problem = f"HTTP {exc.code}"
            else:
                text = f"{what} {where} answered HTTP {exc.code}"
                if detail:
                    text += f": {detail}"
                hint = (hints or {}).get(exc.code)
                failure = error(f"{text} ({hint})" if hint else text)
                failure.status = exc.code  # type: ignore[attr-defined]
                raise failure from None
        except TimeoutError as exc:
            problem = f"no answer within {timeout:g} s" + (f" ({slow_hint})" if slow_hint else "")
            if attempt >= max_retries:
                raise error(f"{what} {where}: {problem}") from exc
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                problem = f"no answer within {timeout:g} s" + (
                    f" ({slow_hint})" if slow_hint else ""
                )
            else:
                problem = f"cannot connect ({reason})"
            if attempt >= max_retries:
                raise error(f"{what} {where}: {problem}") from exc
        except (OSError, http.client.HTTPException) as exc:  # reset mid-answer, …
            problem = f"connection failed ({exc})"
            if attempt >= max_retries:
                raise error(f"{what} {where}: {problem}") from exc
        attempt += 1
        log.info("%s %s: %s; retry %d in %.1f s", what, where, problem, attempt, delay)
        time.sleep(delay)


def setting_hints(key: str, url: str, model: str) -> dict[int, str]:
    """What to check for the HTTP statuses a misconfiguration gives, by setting name."""
    return {
        401: f"check {key}",
        403: f"check {key}",
        404: f"check {url} (the API base, e.g. http://host:port/v1) and {model}",
    }


def base_url(url: str, setting: str, path: str) -> str:
    """The endpoint for an API base: ``https://host/v1`` → ``https://host/v1/<path>``;
    ``http://host:8080`` → ``http://host:8080/v1/<path>``; a URL already ending in
    ``/<path>`` is kept. Query strings are kept; `setting` names the variable in errors."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError(
            setting,
            f"must be an http:// or https:// URL such as https://api.openai.com/v1 (got {url!r})",
        )
    clean = parts.path.rstrip("/")
    if not clean.endswith(f"/{path}"):
        clean = (clean or "/v1") + f"/{path}"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, clean, parts.query, ""))


def warn_plain_key(url: str, key: str | None, key_setting: str, url_setting: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if key and parts.scheme == "http" and parts.hostname not in LOOPBACK:
        log.warning(
            "%s is set but %s is plain http to %s: the key travels unencrypted",
            key_setting,
            url_setting,
            parts.hostname,
        )


def display(url: str) -> str:
    """The URL without user info or query, safe to put in messages and logs."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def snippet(raw: bytes, limit: int = 200) -> str:
    text = raw.decode("utf-8", "replace").strip().replace("\n", " ")
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        raw = exc.read()
    except Exception:
        return ""
    try:
        message = json.loads(raw)["error"]
        message = message.get("message", message) if isinstance(message, dict) else message
        return repr(str(message)[:200])
    except Exception:
        return snippet(raw) if raw else ""


def _retry_after(exc: urllib.error.HTTPError, default: float) -> float:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        seconds = float(value) if value is not None else default
    except ValueError:
        seconds = default
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def check_number(name: str, value: Any, kind: Any, minimum: float) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind) or value < minimum:
        raise ValidationError(name, f"must be a number >= {minimum:g} (got {value!r})")
    return value

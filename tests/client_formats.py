"""How each MCP client reads the entry `ebbtide config --url` prints for a served ebbtide: the
URL it connects to and the headers it sends, its placeholders filled in from `env` by the
rule that client documents (Cursor `${env:NAME}` in mcp.json, Claude Code `${NAME}` in
.mcp.json, Codex `bearer_token_env_var`)."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Callable, Mapping

Connection = tuple[str, dict[str, str]]


def _body(snippet: str) -> str:
    return "\n".join(line for line in snippet.splitlines() if not line.startswith("#"))


def _fill(pattern: str, text: str, env: Mapping[str, str]) -> str:
    return re.sub(pattern, lambda m: env[m.group(1)], text)


def cursor(snippet: str, env: Mapping[str, str]) -> Connection:
    entry = json.loads(_body(snippet))["mcpServers"]["ebbtide"]
    assert set(entry) == {"url", "headers"}, entry
    fill = r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}"  # in url and headers alike
    headers = {k: _fill(fill, v, env) for k, v in entry["headers"].items()}
    return _fill(fill, entry["url"], env), headers


def codex(snippet: str, env: Mapping[str, str]) -> Connection:
    entry = tomllib.loads(_body(snippet))["mcp_servers"]["ebbtide"]
    assert set(entry) == {"url", "bearer_token_env_var"}, entry
    return entry["url"], {"Authorization": f"Bearer {env[entry['bearer_token_env_var']]}"}


def claude_code(snippet: str, env: Mapping[str, str]) -> Connection:
    (line,) = _body(snippet).splitlines()  # one command, not cut where a console wraps
    words = shlex.split(line)
    assert words[:3] == ["claude", "mcp", "add"], words
    options: dict[str, list[str]] = {}
    positional: list[str] = []
    rest = iter(words[3:])
    for word in rest:
        if word.startswith("-"):
            options.setdefault(word, []).append(next(rest))
        else:
            positional.append(word)
    assert options.pop("--transport") == ["http"]
    # `${NAME}` is expanded in .mcp.json, which the project scope writes.
    assert options.pop("--scope") == ["project"]
    assert set(options) == {"--header"}, options
    name, url = positional
    assert name == "ebbtide"
    fill = r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}"  # in url and headers alike
    headers = {}
    for header in options["--header"]:
        key, _, value = header.partition(":")
        headers[key.strip()] = _fill(fill, value.strip(), env)
    return _fill(fill, url, env), headers


READERS: dict[str, Callable[[str, Mapping[str, str]], Connection]] = {
    "cursor": cursor,
    "codex": codex,
    "claude-code": claude_code,
}

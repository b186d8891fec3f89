"""How each MCP client reads the entries `ebbtide config --url` prints for served ebbtides:
for each server's name, the URL it connects to and the headers it sends, placeholders filled
in from `env` by the rule that client documents (Cursor `${env:NAME}` in mcp.json, Claude Code
`${NAME}` in .mcp.json, Codex `bearer_token_env_var`). Several snippets are read as one
config, the way a person adds each to the same file."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Callable, Mapping, Sequence

Connection = tuple[str, dict[str, str]]
Servers = dict[str, Connection]


def _body(snippet: str) -> str:
    return "\n".join(line for line in snippet.splitlines() if not line.startswith("#"))


def _fill(pattern: str, text: str, env: Mapping[str, str]) -> str:
    return re.sub(pattern, lambda m: env[m.group(1)], text)


def cursor(snippets: Sequence[str], env: Mapping[str, str]) -> Servers:
    # Each snippet's entries are added under the file's one "mcpServers": a second entry of
    # the same name replaces the first.
    entries: dict[str, dict] = {}
    for snippet in snippets:
        entries.update(json.loads(_body(snippet))["mcpServers"])
    fill = r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}"  # in url and headers alike
    servers = {}
    for name, entry in entries.items():
        assert set(entry) == {"url", "headers"}, entry
        headers = {k: _fill(fill, v, env) for k, v in entry["headers"].items()}
        servers[name] = (_fill(fill, entry["url"], env), headers)
    return servers


def codex(snippets: Sequence[str], env: Mapping[str, str]) -> Servers:
    # One config.toml: a table defined twice is an error there.
    tables = tomllib.loads("\n".join(map(_body, snippets)))["mcp_servers"]
    servers = {}
    for name, entry in tables.items():
        assert set(entry) == {"url", "bearer_token_env_var"}, entry
        token = env[entry["bearer_token_env_var"]]
        servers[name] = (entry["url"], {"Authorization": f"Bearer {token}"})
    return servers


def _claude_add(line: str, env: Mapping[str, str]) -> tuple[str, Connection]:
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
    fill = r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}"  # in url and headers alike
    headers = {}
    for header in options["--header"]:
        key, _, value = header.partition(":")
        headers[key.strip()] = _fill(fill, value.strip(), env)
    return name, (_fill(fill, url, env), headers)


def claude_code(snippets: Sequence[str], env: Mapping[str, str]) -> Servers:
    servers: Servers = {}
    for snippet in snippets:
        (line,) = _body(snippet).splitlines()  # one command, not cut where a console wraps
        name, connection = _claude_add(line, env)
        assert name not in servers, f"claude mcp add: {name} already exists"
        servers[name] = connection
    return servers


CONFIGS: dict[str, Callable[[Sequence[str], Mapping[str, str]], Servers]] = {
    "cursor": cursor,
    "codex": codex,
    "claude-code": claude_code,
}


def _sole(read: Callable[[Sequence[str], Mapping[str, str]], Servers]):
    def connection(snippet: str, env: Mapping[str, str]) -> Connection:
        ((_, told),) = read([snippet], env).items()
        return told

    return connection


# The one server a single snippet connects to, whatever its name.
READERS: dict[str, Callable[[str, Mapping[str, str]], Connection]] = {
    client: _sole(read) for client, read in CONFIGS.items()
}

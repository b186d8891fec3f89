"""Snippets that plug `ebbtide serve` into MCP clients."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

CLIENTS = ("claude-desktop", "claude-code", "cursor", "codex")


def server_command() -> str:
    """The absolute path of the `ebbtide` executable, so a client finds it outside this venv."""
    found = shutil.which("ebbtide")
    if found:
        return str(Path(found).resolve())
    return str(Path(sys.executable).with_name("ebbtide"))


def absolute_store(store: str) -> str:
    """The store as the client's server process must be told it: a client starts the server
    in a directory of its own (Claude Desktop in `/`), so a relative path is made absolute
    here, where it was meant; URLs of a server store and `:memory:` stay as they are."""
    for scheme in ("sqlite", "kuzu"):
        prefix = f"{scheme}:///"
        if store.lower().startswith(prefix):
            rest = store[len(prefix) :]
            if rest in ("", ":memory:") or rest.startswith("/"):
                return store
            return prefix + str(Path(rest).expanduser().resolve())
    if "://" in store or store == ":memory:":
        return store
    return str(Path(store).expanduser().resolve())


def _toml_string(value: str) -> str:
    # A JSON string is a TOML basic string: quotes, backslashes (Windows paths) and control
    # characters escaped the same way.
    return json.dumps(value, ensure_ascii=False)


def snippet(client: str, store: str | None = None) -> str:
    cmd = server_command()
    store = absolute_store(store) if store else None
    env = {"EBBTIDE_STORE": store} if store else {}
    entry: dict[str, object] = {"command": cmd, "args": ["serve"]}
    if env:
        entry["env"] = env
    if client in ("claude-desktop", "cursor"):
        where = (
            "claude_desktop_config.json (Settings > Developer > Edit Config)"
            if client == "claude-desktop"
            else "~/.cursor/mcp.json (or .cursor/mcp.json in a project)"
        )
        body = json.dumps({"mcpServers": {"ebbtide": entry}}, indent=2)
        return f"# {client}: add to {where}\n{body}"
    if client == "claude-code":
        env_flag = f" -e {shlex.quote(f'EBBTIDE_STORE={store}')}" if store else ""
        return (
            f"# claude-code: run once\nclaude mcp add ebbtide{env_flag} -- {shlex.quote(cmd)} serve"
        )
    if client == "codex":
        lines = [
            "# codex: add to ~/.codex/config.toml",
            "[mcp_servers.ebbtide]",
            f"command = {_toml_string(cmd)}",
            'args = ["serve"]',
        ]
        if store:
            lines.append(f"env = {{ EBBTIDE_STORE = {_toml_string(store)} }}")
        return "\n".join(lines)
    raise ValueError(f"client: must be one of {', '.join(CLIENTS)}")

"""Snippets that plug `ebbtide serve` into MCP clients."""

from __future__ import annotations

import json
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


def snippet(client: str, store: str | None = None) -> str:
    cmd = server_command()
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
        env_flag = f" -e EBBTIDE_STORE={store}" if store else ""
        return f"# claude-code: run once\nclaude mcp add ebbtide{env_flag} -- {cmd} serve"
    if client == "codex":
        lines = [
            "# codex: add to ~/.codex/config.toml",
            "[mcp_servers.ebbtide]",
            f'command = "{cmd}"',
            'args = ["serve"]',
        ]
        if store:
            lines.append(f'env = {{ EBBTIDE_STORE = "{store}" }}')
        return "\n".join(lines)
    raise ValueError(f"client: must be one of {', '.join(CLIENTS)}")

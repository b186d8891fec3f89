"""Snippets that plug ebbtide into MCP clients: a local `ebbtide serve` each client starts,
or a shared one served over HTTP (`ebbtide serve --transport http`) at a URL."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from .errors import ValidationError
from .server import MCP_PATH, TOKEN_VARIABLE

CLIENTS = ("claude-desktop", "claude-code", "cursor", "codex")
SERVER_NAME = "ebbtide"

# How Claude Code and Codex name a server; the first character is not `-` so `claude mcp add`
# does not read the name as an option, and 32 at most since clients call a tool
# `mcp__NAME__TOOL`, which the models' APIs cap at 64 characters.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
_NAME_RULE = "must be 1 to 32 letters, digits, - or _, not starting with -, like team-a"
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE_RULE = "must be a variable name: letters, digits and _, not starting with a digit"


def server_name(name: str) -> str:
    """The name a client knows the server by, checked: ValidationError on `--name` otherwise."""
    if not _NAME.fullmatch(name):
        raise ValidationError("--name", _NAME_RULE, name)
    return name


def token_variable(variable: str) -> str:
    """The variable a client reads the token from, checked: ValidationError on `--token-env`
    otherwise (each client's `${...}` placeholder takes a plain variable name only)."""
    if not _VARIABLE.fullmatch(variable):
        raise ValidationError("--token-env", _VARIABLE_RULE, variable)
    return variable


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


def snippet(client: str, store: str | None = None, name: str = SERVER_NAME) -> str:
    """How `client` starts a local `ebbtide serve` it knows as `name` (a name `server_name`
    passed)."""
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
        body = json.dumps({"mcpServers": {name: entry}}, indent=2)
        return f"# {client}: add to {where}\n{body}"
    if client == "claude-code":
        env_flag = f" -e {shlex.quote(f'EBBTIDE_STORE={store}')}" if store else ""
        return (
            "# claude-code: run once\n"
            f"claude mcp add {shlex.quote(name)}{env_flag} -- {shlex.quote(cmd)} serve"
        )
    if client == "codex":
        lines = [
            "# codex: add to ~/.codex/config.toml",
            # The name's rule keeps it a bare TOML key: no dot to split it into two tables.
            f"[mcp_servers.{name}]",
            f"command = {_toml_string(cmd)}",
            'args = ["serve"]',
        ]
        if store:
            lines.append(f"env = {{ EBBTIDE_STORE = {_toml_string(store)} }}")
        return "\n".join(lines)
    raise ValueError(f"client: must be one of {', '.join(CLIENTS)}")


_URL_RULE = (
    "must be an http:// or https:// URL with a host (and a port from 1 to 65535, if any), "
    "like https://memory.example.com/mcp"
)


def server_url(url: str, token_env: str = TOKEN_VARIABLE) -> str:
    """The MCP endpoint of a served ebbtide from the URL a person gave: checked, and a bare
    host given the path ebbtide serves at. ValidationError on `--url` otherwise; the URL is
    not echoed, since a user part of it may be the token itself (clients read it from
    `token_env`)."""
    try:
        parts = urlsplit(url)
        port = parts.port  # a port out of range or not a number raises here
    except ValueError:
        raise ValidationError("--url", _URL_RULE) from None
    if parts.username is not None or parts.password is not None:
        raise ValidationError(
            "--url",
            f"must not carry a user or password: clients send the token from ${token_env}",
        )
    if (
        parts.scheme.lower() not in ("http", "https")
        or not parts.hostname
        or port == 0
        # No URL holds braces, and a client would read `${...}` in one as its variable.
        or any(c.isspace() or not c.isprintable() or c in "{}" for c in url)
    ):
        raise ValidationError("--url", _URL_RULE)
    if parts.path in ("", "/"):
        return urlunsplit(parts._replace(path=MCP_PATH))
    if parts.path.endswith(MCP_PATH + "/"):
        # The server redirects `/mcp/` to `/mcp` over plain http, which a client behind a TLS
        # proxy refuses to follow (https to http).
        return urlunsplit(parts._replace(path=parts.path.rstrip("/")))
    return url


def remote_snippet(
    client: str, url: str, name: str = SERVER_NAME, token_env: str = TOKEN_VARIABLE
) -> str:
    """How `client` connects to a served ebbtide at `url` (an endpoint `server_url` gave) that
    it knows as `name` (`server_name` passed), sending the token as a bearer header read from
    the variable `token_env` (`token_variable` passed) in the client's environment: the
    token's value is never written here, only the variable's name."""
    if client == "cursor":
        entry = {"url": url, "headers": {"Authorization": f"Bearer ${{env:{token_env}}}"}}
        body = json.dumps({"mcpServers": {name: entry}}, indent=2)
        return (
            "# cursor: add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project); Cursor "
            f"fills in ${{env:{token_env}}} from the environment it was started in\n{body}"
        )
    if client == "claude-code":
        # Project scope writes .mcp.json, where Claude Code expands ${VAR} when it connects;
        # the single quotes keep the shell from writing the token's value there instead.
        header = shlex.quote(f"Authorization: Bearer ${{{token_env}}}")
        return (
            "# claude-code: run once in your project (it writes .mcp.json, which names the "
            f"variable, not the token)\nclaude mcp add --transport http --scope project "
            f"{shlex.quote(name)} {shlex.quote(url)} --header {header}"
        )
    if client == "codex":
        return "\n".join(
            [
                f"# codex: add to ~/.codex/config.toml; Codex sends ${token_env} as the "
                "bearer token",
                f"[mcp_servers.{name}]",  # a bare key, by the name's rule
                f"url = {_toml_string(url)}",
                f"bearer_token_env_var = {_toml_string(token_env)}",
            ]
        )
    if client == "claude-desktop":
        return (
            "# claude-desktop: cannot send this server's token\n"
            "# Claude Desktop reaches a remote MCP server only as a connector (its Connectors\n"
            "# settings), which signs in with OAuth or not at all, never with a bearer header;\n"
            "# claude_desktop_config.json takes local servers only. Use Claude Code, Cursor or\n"
            "# Codex for this server."
        )
    raise ValueError(f"client: must be one of {', '.join(CLIENTS)}")

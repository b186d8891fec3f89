"""`ebbtide config`: every snippet pastes as printed and parses as its client reads it."""

from __future__ import annotations

import json
import shlex
import tomllib
from urllib.parse import urlsplit

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from client_formats import CONFIGS, READERS
from ebbtide import ValidationError, clientconfig
from ebbtide.cli import main

LONG_EXE = "/home/ana maria/projects/very-long-directory-name/ebbtide/.venv/bin/ebbtide"


def blocks(out: str) -> dict[str, str]:
    """client -> the snippet's body, from `ebbtide config`'s output."""
    found = {}
    for block in out.strip().split("\n\n"):
        head, _, body = block.partition("\n")
        found[head.removeprefix("# ").split(":")[0]] = body
    return found


def test_every_snippet_parses_with_a_long_executable_path_and_a_relative_store(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(clientconfig, "server_command", lambda: LONG_EXE)
    monkeypatch.chdir(tmp_path)
    store = 'my memories/team "a".db'
    assert main(["config", "--store", store]) == 0
    got = blocks(capsys.readouterr().out)
    assert set(got) == set(clientconfig.CLIENTS)
    # The client starts the server in a directory of its own: the store is told absolute.
    wanted = {
        "command": LONG_EXE,
        "args": ["serve"],
        "env": {"EBBTIDE_STORE": str(tmp_path / store)},
    }
    for client in ("claude-desktop", "cursor"):
        assert json.loads(got[client])["mcpServers"]["ebbtide"] == wanted
    assert tomllib.loads(got["codex"])["mcp_servers"]["ebbtide"] == wanted
    (line,) = got["claude-code"].splitlines()  # one command, not cut where a console wraps
    words = shlex.split(line)
    assert words[:3] == ["claude", "mcp", "add"]
    assert words[words.index("-e") + 1] == f"EBBTIDE_STORE={tmp_path / store}"
    assert words[words.index("--") + 1 :] == [LONG_EXE, "serve"]


def test_a_windows_executable_path_is_valid_toml(monkeypatch):
    exe = r"C:\Users\ana\AppData\Roaming\Python\Scripts\ebbtide.exe"
    monkeypatch.setattr(clientconfig, "server_command", lambda: exe)
    parsed = tomllib.loads(clientconfig.snippet("codex", "neo4j://db.internal:7687?tenant=a"))
    assert parsed["mcp_servers"]["ebbtide"]["command"] == exe
    assert parsed["mcp_servers"]["ebbtide"]["env"] == {
        "EBBTIDE_STORE": "neo4j://db.internal:7687?tenant=a"
    }


@pytest.mark.parametrize(
    ("store", "told"),
    [
        ("neo4j://db:7687?tenant=a", "neo4j://db:7687?tenant=a"),
        (":memory:", ":memory:"),
        ("sqlite:////data/team.db", "sqlite:////data/team.db"),
        ("sqlite:///team.db", "sqlite:///{cwd}/team.db"),
        ("kuzu:///mem.kz", "kuzu:///{cwd}/mem.kz"),
        ("team.db", "{cwd}/team.db"),
    ],
)
def test_a_relative_store_is_told_absolute_and_urls_as_they_are(tmp_path, monkeypatch, store, told):
    monkeypatch.chdir(tmp_path)
    assert clientconfig.absolute_store(store) == told.format(cwd=tmp_path.resolve())


def test_without_store_the_snippet_names_the_store_this_shell_uses(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EBBTIDE_STORE", str(tmp_path / "shell.db"))
    assert main(["config", "--client", "cursor"]) == 0
    entry = json.loads(blocks(capsys.readouterr().out)["cursor"])["mcpServers"]["ebbtide"]
    assert entry["env"] == {"EBBTIDE_STORE": str(tmp_path / "shell.db")}


# A served ebbtide (`ebbtide serve --transport http`) ------------------------------------------

SECRET = "s3cret-team-token-0123456789"


def test_each_client_reaches_the_served_url_with_the_token_from_its_environment(
    monkeypatch, capsys
):
    monkeypatch.setenv("EBBTIDE_HTTP_TOKEN", SECRET)
    monkeypatch.setenv("EBBTIDE_STORE", "/home/ana/own.db")  # the server's store is its own
    url = "https://memory.example.com:8443/mcp"
    assert main(["config", "--url", url]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out and "own.db" not in out
    got = blocks(out)
    assert set(got) == set(clientconfig.CLIENTS)
    for client, read in CONFIGS.items():
        servers = read([got[client]], {"EBBTIDE_HTTP_TOKEN": SECRET})
        assert servers == {"ebbtide": (url, {"Authorization": f"Bearer {SECRET}"})}, client
    # Claude Desktop sends no header of the user's to a remote server: it says so instead.
    assert "# claude-desktop: cannot send" in out and "Connectors" in got["claude-desktop"]


def test_a_bare_host_is_given_the_path_ebbtide_serves_mcp_at(capsys):
    assert main(["config", "--client", "cursor", "--url", "http://10.0.0.7:8765"]) == 0
    cursor = blocks(capsys.readouterr().out)["cursor"]
    assert READERS["cursor"](cursor, {"EBBTIDE_HTTP_TOKEN": "t"})[0] == "http://10.0.0.7:8765/mcp"


@pytest.mark.parametrize(
    ("given", "endpoint"),
    [
        ("https://memory.example.com/mcp/", "https://memory.example.com/mcp"),
        ("https://example.com/team/mcp/", "https://example.com/team/mcp"),
        ("https://example.com/team/", "https://example.com/team/"),  # a proxy's own path
    ],
)
def test_a_trailing_slash_after_mcp_is_dropped_since_the_server_redirects_it_to_plain_http(
    capsys, given, endpoint
):
    assert main(["config", "--client", "cursor", "--url", given]) == 0
    cursor = blocks(capsys.readouterr().out)["cursor"]
    assert READERS["cursor"](cursor, {"EBBTIDE_HTTP_TOKEN": "t"})[0] == endpoint


@pytest.mark.parametrize(
    "url",
    [
        "memory.example.com/mcp",  # no scheme
        "ftp://memory.example.com/mcp",
        "file:///srv/mcp",
        "https:///mcp",  # no host
        "https://memory.example.com:99999/mcp",
        "https://memory example.com/mcp",
        "https://memory.example.com/${env:TENANT}/mcp",  # each client would fill it in
        "",
    ],
)
def test_a_url_that_is_not_an_http_server_is_refused_naming_the_option(url, capsys):
    assert main(["config", "--url", url]) == 2
    said = capsys.readouterr()
    assert said.out == "" and "--url: must be" in said.err


def test_a_url_carrying_credentials_is_refused_without_echoing_them(capsys):
    assert main(["config", "--url", f"https://ana:{SECRET}@memory.example.com/mcp"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and "--url:" in said.err and SECRET not in said.err
    assert "EBBTIDE_HTTP_TOKEN" in said.err
    url = f"https://ana:{SECRET}@ops.example.com/mcp"
    assert main(["config", "--url", url, "--token-env", "OPS_TOKEN"]) == 2
    said = capsys.readouterr()
    assert "$OPS_TOKEN" in said.err and SECRET not in said.err


def test_a_store_given_with_a_url_is_refused_since_the_server_opens_its_own(capsys):
    assert main(["config", "--url", "https://m.example.com/mcp", "--store", "team.db"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and "--store:" in said.err


_urls = st.one_of(
    st.text(),
    st.builds(
        "{}://{}{}{}".format,
        st.sampled_from(["http", "https", "HTTPS", "ftp", "", "http:"]),
        st.text(alphabet="abcxyz.-:[]@ 019", max_size=20),
        st.sampled_from(["", ":8765", ":0", ":65536", ":x"]),
        st.text(alphabet="/mcp?=&#%\"' $`{}", max_size=12),
    ),
)


@given(_urls)
@example("https://m.example.com/${env:HOME}/mcp")  # a client would fill it in
@example("https://m.example.com/${HOME}/mcp")
def test_any_url_is_refused_naming_the_option_or_reaches_each_client_unchanged(url):
    try:
        endpoint = clientconfig.server_url(url)
    except ValidationError as exc:
        assert exc.field == "--url"
        return
    # Only a bare host is changed: it gains the path.
    bare = urlsplit(url).path in ("", "/")
    assert endpoint == url or (bare and urlsplit(endpoint).path == "/mcp")
    for client, read in READERS.items():
        told, _ = read(clientconfig.remote_snippet(client, endpoint), {"EBBTIDE_HTTP_TOKEN": "t"})
        assert told == endpoint, client


# Two served ebbtides (two tenants, two tokens) in one client -----------------------------------


def _printed(capsys, *args: str) -> dict[str, str]:
    assert main(["config", *args]) == 0
    return blocks(capsys.readouterr().out)


def test_two_servers_with_their_own_names_and_token_variables_sit_side_by_side(capsys):
    a = _printed(
        capsys,
        "--url",
        "https://a.example.com/mcp",
        "--name",
        "team-a",
        "--token-env",
        "TEAM_A_TOKEN",
    )
    b = _printed(
        capsys,
        "--url",
        "https://b.example.com/mcp",
        "--name",
        "ops_b",
        "--token-env",
        "OPS_B_TOKEN",
    )
    env = {"TEAM_A_TOKEN": "token-of-team-a", "OPS_B_TOKEN": "token-of-ops-b"}
    for client, read in CONFIGS.items():
        # Both added to the one config file the client reads.
        assert read([a[client], b[client]], env) == {
            "team-a": ("https://a.example.com/mcp", {"Authorization": "Bearer token-of-team-a"}),
            "ops_b": ("https://b.example.com/mcp", {"Authorization": "Bearer token-of-ops-b"}),
        }, client


def test_without_names_a_second_server_takes_the_first_ones_place(capsys):
    a = _printed(capsys, "--client", "cursor", "--url", "https://a.example.com/mcp")
    b = _printed(capsys, "--client", "cursor", "--url", "https://b.example.com/mcp")
    servers = CONFIGS["cursor"]([a["cursor"], b["cursor"]], {"EBBTIDE_HTTP_TOKEN": "t"})
    assert list(servers) == ["ebbtide"] and servers["ebbtide"][0] == "https://b.example.com/mcp"


def test_a_local_server_is_named_as_told_in_every_client(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(clientconfig, "server_command", lambda: LONG_EXE)
    got = _printed(capsys, "--name", "personal", "--store", str(tmp_path / "me.db"))
    for client in ("claude-desktop", "cursor"):
        assert list(json.loads(got[client])["mcpServers"]) == ["personal"], client
    assert list(tomllib.loads(got["codex"])["mcp_servers"]) == ["personal"]
    assert shlex.split(got["claude-code"])[:4] == ["claude", "mcp", "add", "personal"]


@pytest.mark.parametrize(
    "name",
    ["", "team a", "team.a", "team/a", "@team", "-team", "t\u00e9am", 'team"', "x" * 33],
)
def test_a_name_clients_reject_is_refused_naming_the_option_and_rule(name, capsys):
    for where in (["--url", "https://m.example.com/mcp"], []):  # served, and local
        assert main(["config", *where, f"--name={name}"]) == 2
        said = capsys.readouterr()
        assert said.out == "" and "--name: must be 1 to 32 letters, digits, - or _" in said.err


@pytest.mark.parametrize(
    "variable", ["", "1TOKEN", "TEAM-TOKEN", "TEAM TOKEN", "${TOKEN}", "T\u00d6KEN", "TOKEN="]
)
def test_a_token_variable_that_is_not_a_variable_name_is_refused(variable, capsys):
    assert main(["config", "--url", "https://m.example.com/mcp", f"--token-env={variable}"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and "--token-env: must be a variable name" in said.err


def test_a_token_variable_without_a_url_is_refused_since_a_local_server_needs_no_token(capsys):
    assert main(["config", "--token-env", "TEAM_A_TOKEN"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and "--token-env:" in said.err and "--url" in said.err


_names = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="aZ09-_.:/ \\\"'$[]{}", max_size=40),
    st.from_regex(r"[A-Za-z0-9_-]{1,34}", fullmatch=True),  # around the length limit
)
_variables = st.one_of(
    st.text(max_size=20),
    st.text(alphabet="aZ09_-$ {}=", max_size=20),
    st.from_regex(r"[A-Za-z0-9_]{1,20}", fullmatch=True),
)


@given(_names, _variables)
@example("a" * 32, "_")
@example("0", "A_1")
@example("x.y", "X")  # a dotted TOML key is two tables
def test_any_name_and_variable_is_refused_naming_the_option_or_read_back_unchanged(name, variable):
    try:
        told_name = clientconfig.server_name(name)
        told_variable = clientconfig.token_variable(variable)
    except ValidationError as exc:
        assert exc.field in ("--name", "--token-env")
        return
    assert (told_name, told_variable) == (name, variable)
    url = "https://m.example.com/mcp"
    for client, read in CONFIGS.items():
        text = clientconfig.remote_snippet(client, url, name=name, token_env=variable)
        servers = read([text], {variable: "the-token"})
        assert servers == {name: (url, {"Authorization": "Bearer the-token"})}, client

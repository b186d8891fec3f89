"""`ebbtide serve --transport http`: stateless replicas behind a load balancer.

Each server is a real subprocess driven by the official MCP client over streamable HTTP. On
SQLite one replica serves concurrent clients; on a real Neo4j server two replicas share one
graph, so a write through one is read through the other (no stickiness needed)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from client_formats import CONFIGS
from ebbtide import StoreUnavailable, open_memory
from ebbtide.cli import main


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@contextmanager
def replica(store: str, *args: str, log: Path | None = None, **env: str) -> Iterator[str]:
    """An `ebbtide serve --transport http` process; yields its base URL once it is healthy.
    What it writes to stderr goes to `log` (the operator's view) when given."""
    port = _free_port()
    exe = shutil.which("ebbtide") or str(Path(sys.executable).with_name("ebbtide"))
    err = open(log, "w") if log else subprocess.PIPE  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [exe, "serve", "--transport", "http", "--port", str(port), *args],
        env={**os.environ, "EBBTIDE_STORE": store, "EBBTIDE_EMBEDDINGS": "none", **env},
        stderr=err,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                said = log.read_text() if log else proc.stderr.read()
                pytest.fail(f"ebbtide serve exited: {said}")
            try:
                if _get(base + "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("ebbtide serve --transport http did not come up in 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if log:
            err.close()


def test_a_replica_reports_ready_and_serves_concurrent_clients(tmp_path):
    with replica(str(tmp_path / "m.db")) as base:
        status, body = _get(base + "/readyz")
        assert status == 200 and body["status"] == "ready"

        async def write(i: int) -> None:
            async with Client(base + "/mcp") as client:
                r = await client.call_tool("remember", {"text": f"deploy note {i}: canary ok"})
                assert not r.is_error, r.content

        async def go():
            async with anyio.create_task_group() as tg:
                for i in range(12):
                    tg.start_soon(write, i)
            async with Client(base + "/mcp") as client:
                hits = await client.call_tool("recall", {"query": "deploy note 7", "k": 3})
                assert hits.structured_content["hits"][0]["node"]["text"].startswith(
                    "deploy note 7"
                )
                bad = await client.call_tool("remember", {"text": "   "})
                assert bad.is_error and "text" in bad.content[0].text

        anyio.run(go)
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        assert mem.stats().nodes == 12


def test_the_readiness_probe_fails_when_the_store_cannot_answer(tmp_path):
    mem = open_memory(tmp_path / "m.db", embeddings="none")
    mem.ping()
    mem.close()
    with pytest.raises(StoreUnavailable):
        mem.ping()


@pytest.mark.parametrize("backend", [pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_two_replicas_on_one_neo4j_share_the_memory(store_url):
    url = store_url("replicas")
    with replica(url, "--profile", "all") as a, replica(url, "--profile", "all") as b:
        assert _get(a + "/readyz")[0] == _get(b + "/readyz")[0] == 200

        async def go():
            async with Client(a + "/mcp") as ca, Client(b + "/mcp") as cb:
                dec = await ca.call_tool(
                    "record_decision",
                    {"decision": "Skipped the canary", "outcome": "Weekend outage",
                     "task_tag": "deploy"},
                )  # fmt: skip
                assert not dec.is_error, dec.content
                verdict = await cb.call_tool("intervention_query", {"action": "skip the canary"})
                assert verdict.structured_content["verdict"] == "DANGER"
                note = await cb.call_tool("remember", {"text": "Ana owns the payments service"})
                hits = await ca.call_tool("recall", {"query": "who owns payments?", "k": 3})
                assert (
                    hits.structured_content["hits"][0]["node"]["id"]
                    == (note.structured_content["node"]["id"])
                )

        anyio.run(go)


def test_a_replica_says_where_it_serves_and_logs_a_store_failure_it_told_an_agent(tmp_path):
    path, log = tmp_path / "m.db", tmp_path / "serve.log"
    with open_memory(path, embeddings="none") as mem:
        for n in range(300):
            mem.remember(f"Harbour gate {n} opens at six and ferry {n} leaves at nine")
    with replica(str(path), "--profile", "all", log=log) as base:
        started = log.read_text()
        assert f"{base}/mcp" in started
        assert f"store sqlite:///{path}" in started and "profile all" in started

        with open(path, "r+b") as f:  # the disk under the replica goes bad
            for at in range(2 * 4096, path.stat().st_size, 4096):
                f.seek(at)
                f.write(os.urandom(4096))

        async def go():
            async with Client(base + "/mcp") as client:
                failed = await client.call_tool("recall", {"query": "when does the ferry leave?"})
                assert failed.is_error and "its file is damaged" in failed.content[0].text
                bad = await client.call_tool("recall", {"query": "  "})
                assert bad.is_error and "query" in bad.content[0].text

        anyio.run(go)
        logged = log.read_text()[len(started) :]
    # The operator reads what failed on the server's side, naming the tool; an agent's own
    # mistake (an empty query) is the agent's to fix and stays out of the log.
    assert "recall" in logged and "its file is damaged" in logged
    assert "query: must not be empty" not in logged


TOKEN = "team-memory-7f3a9c2e51d8"


def _post_mcp(base: str, headers: dict[str, str]) -> tuple[int, dict]:
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(
        base + "/mcp",
        data=ping,
        headers={"Content-Type": "application/json", "Accept": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_a_replica_given_a_token_serves_only_agents_that_send_it(tmp_path):
    with replica(str(tmp_path / "m.db"), EBBTIDE_HTTP_TOKEN=TOKEN) as base:
        status, body = _post_mcp(base, {})
        assert status == 401 and "EBBTIDE_HTTP_TOKEN" not in body["error"]
        assert "Authorization: Bearer" in body["error"]
        assert _post_mcp(base, {"Authorization": "Bearer wrong-token-of-some-length"})[0] == 401
        # The load balancer's probes carry no token.
        assert _get(base + "/healthz")[0] == _get(base + "/readyz")[0] == 200

        async def go():
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
            async with http, Client(streamable_http_client(base + "/mcp", http_client=http)) as c:
                note = await c.call_tool("remember", {"text": "Ana owns the payments service"})
                assert not note.is_error, note.content

        anyio.run(go)
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        assert mem.stats().nodes == 1


def test_a_team_member_connects_to_two_servers_with_what_config_prints_for_their_client(
    tmp_path, monkeypatch, capsys
):
    # Two tenants: each its own replica, memory and token; the second named apart from the first.
    ops_token = "ops-token-of-some-length-0123"
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        mem.remember("Ana owns the payments service")
    with open_memory(tmp_path / "ops.db", embeddings="none") as mem:
        mem.remember("Bo owns the billing service")
    with (
        replica(str(tmp_path / "m.db"), EBBTIDE_HTTP_TOKEN=TOKEN) as base,
        replica(str(tmp_path / "ops.db"), EBBTIDE_HTTP_TOKEN=ops_token) as ops_base,
    ):
        env = {"EBBTIDE_HTTP_TOKEN": TOKEN, "OPS_TOKEN": ops_token}  # the team member's shell
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        assert main(["config", "--url", base + "/mcp"]) == 0
        assert main(["config", "--url", ops_base, "--name", "ops", "--token-env", "OPS_TOKEN"]) == 0
        printed = capsys.readouterr().out
        assert TOKEN not in printed and ops_token not in printed
        snippets: dict[str, list[str]] = {}
        for block in printed.strip().split("\n\n"):
            snippets.setdefault(block.partition("\n")[0].split(":")[0][2:], []).append(block)

        async def connect(url: str, headers: dict[str, str], owner: str) -> None:
            http = create_mcp_http_client(headers=headers)
            async with http, Client(streamable_http_client(url, http_client=http)) as c:
                assert "recall" in {tool.name for tool in (await c.list_tools()).tools}
                hits = await c.call_tool("recall", {"query": "who owns the service?", "k": 3})
                assert not hits.is_error, hits.content
                assert hits.structured_content["hits"][0]["node"]["text"].startswith(owner)

        for client, read in CONFIGS.items():
            # Exactly the URLs and headers the client takes from its config holding both.
            servers = read(snippets[client], env)
            assert set(servers) == {"ebbtide", "ops"}, client
            anyio.run(connect, *servers["ebbtide"], "Ana")
            anyio.run(connect, *servers["ops"], "Bo")


@pytest.mark.parametrize("told", ["", "   ", "short"])
def test_a_blank_or_short_token_is_refused_before_serving(tmp_path, monkeypatch, capsys, told):
    monkeypatch.setenv("EBBTIDE_HTTP_TOKEN", told)
    store = tmp_path / "m.db"
    assert main(["serve", "--transport", "http", "--store", str(store)]) == 2
    assert "EBBTIDE_HTTP_TOKEN: must be at least 16 characters" in capsys.readouterr().err
    assert not store.exists()


def test_a_replica_open_to_the_network_without_a_token_warns_the_operator(tmp_path):
    log = tmp_path / "serve.log"
    with replica(str(tmp_path / "m.db"), "--host", "0.0.0.0", log=log):
        said = log.read_text()
    assert "WARNING" in said and "EBBTIDE_HTTP_TOKEN" in said
    with replica(str(tmp_path / "m.db"), log=log):
        assert "WARNING" not in log.read_text()  # loopback only: this machine's users


def test_a_replica_that_cannot_take_its_port_never_says_it_is_serving(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        exe = shutil.which("ebbtide") or str(Path(sys.executable).with_name("ebbtide"))
        run = subprocess.run(
            [exe, "serve", "--transport", "http", "--port", str(port)],
            env={**os.environ, "EBBTIDE_STORE": str(tmp_path / "m.db")},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode != 0
    assert "address already in use" in run.stderr and "serving" not in run.stderr


class _Link:
    """A TCP forwarder in front of a real server, which the test can cut like a network."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.socks: list[socket.socket] = []
        self.stalled = False  # drops what it carries, like a host that stopped answering
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            far = socket.create_connection(self.upstream)
            self.socks += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                if not self.stalled:
                    dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def cut(self) -> None:
        # shutdown first: close alone leaves a blocked accept() listening on Linux.
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for s in self.socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


def _relayed(neo4j_server) -> tuple[_Link, str]:
    """A relay in front of the test server, and a store URL that goes through it."""
    host, _, port = neo4j_server.uri.split("://", 1)[1].rpartition(":")
    link = _Link(host, int(port))
    return link, f"bolt://127.0.0.1:{link.port}?tenant=probe-{os.getpid()}"


@pytest.mark.neo4j
def test_the_readiness_probe_answers_at_once_when_neo4j_goes_away(neo4j_server):
    link, url = _relayed(neo4j_server)
    with replica(url) as base:
        assert _get(base + "/readyz")[0] == 200
        link.cut()
        started = time.monotonic()
        status, body = _get(base + "/readyz")
        # A probe that takes the store's 30 s of retries outlives every load balancer's timeout.
        assert time.monotonic() - started < 4
        assert status == 503 and "unreachable" in body["error"]


@pytest.mark.neo4j
def test_the_readiness_probe_gives_up_on_a_neo4j_that_stops_answering(neo4j_server):
    link, url = _relayed(neo4j_server)
    with replica(url) as base:
        assert _get(base + "/readyz")[0] == 200
        link.stalled = True
        status, body = _get(base + "/readyz")
        assert status == 503 and "did not answer within 3 s" in body["error"]
        link.cut()

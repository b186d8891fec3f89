"""`ebbtide serve --transport http`: stateless replicas behind a load balancer.

Each server is a real subprocess driven by the official MCP client over streamable HTTP. On
SQLite one replica serves concurrent clients; on a real Neo4j server two replicas share one
graph, so a write through one is read through the other (no stickiness needed)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from mcp import Client

from ebbtide import StoreUnavailable, open_memory


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
def replica(store: str, *args: str) -> Iterator[str]:
    """An `ebbtide serve --transport http` process; yields its base URL once it is healthy."""
    port = _free_port()
    exe = shutil.which("ebbtide") or str(Path(sys.executable).with_name("ebbtide"))
    proc = subprocess.Popen(
        [exe, "serve", "--transport", "http", "--port", str(port), *args],
        env={**os.environ, "EBBTIDE_STORE": store, "EBBTIDE_EMBEDDINGS": "none"},
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"ebbtide serve exited: {proc.stderr.read()}")
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

"""End to end: `ebbtide serve` as a subprocess, driven by the official MCP client over stdio."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from ebbtide import open_memory
from ebbtide.cli import main

DEFAULT_TOOLS = {
    "remember", "recall", "connect", "forget", "record_decision", "record_fact",
    "trace_cause_chain", "intervention_query", "counterfactual_query",
}  # fmt: skip
CAUSAL_MEMORY_TOOLS = {
    "record_decision", "remember", "record_fact", "search_causal", "search_facts",
    "search_memory", "causal_directory", "trace_cause", "trace_cause_chain",
    "intervention_query", "counterfactual_query", "prediction_report", "invalidate_decision",
    "invalidate_pattern", "resolve_updates", "search_patterns", "reconstruct_lesson",
}  # fmt: skip


def server_params(store: Path, *args: str) -> StdioServerParameters:
    exe = shutil.which("ebbtide") or str(Path(sys.executable).with_name("ebbtide"))
    return StdioServerParameters(
        command=exe, args=["serve", *args], env={**os.environ, "EBBTIDE_STORE": str(store)}
    )


def run(coro_fn):
    return anyio.run(coro_fn)


def list_tools(store, *args):
    async def go():
        async with Client(server_params(store, *args)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    return run(go)


def test_the_default_profile_is_a_compact_agent_loop(tmp_path):
    assert set(list_tools(tmp_path / "m.db")) == DEFAULT_TOOLS


def test_causal_memory_profile_keeps_its_17_tool_names_and_parameters(tmp_path):
    tools = list_tools(tmp_path / "m.db", "--profile", "causal-memory")
    assert set(tools) == CAUSAL_MEMORY_TOOLS
    params = {name: set(t.input_schema["properties"]) for name, t in tools.items()}
    assert {
        "decision",
        "outcome",
        "relation",
        "task_tag",
        "confidence_source",
        "context",
        "influenced_by",
    } <= params["record_decision"]
    assert {"messages", "date"} <= params["remember"]
    assert {
        "query",
        "task_tag",
        "scope",
        "limit",
        "detail_level",
        "max_tokens",
        "explain",
    } <= params["search_memory"]
    assert {"outcome_description", "max_depth", "min_confidence", "limit"} <= params[
        "trace_cause_chain"
    ]
    assert {"decision", "alternative", "task_tag", "limit"} <= params["counterfactual_query"]
    assert {"limit", "apply"} <= params["resolve_updates"]


def test_every_tool_is_described_annotated_and_has_an_output_schema(tmp_path):
    tools = list_tools(tmp_path / "m.db", "--profile", "all")
    assert set(tools) >= DEFAULT_TOOLS | CAUSAL_MEMORY_TOOLS
    for t in tools.values():
        assert len(t.description) > 40, t.name
        a = t.annotations
        assert a is not None and a.open_world_hint is False, t.name
        assert a.read_only_hint is not None and a.destructive_hint is not None, t.name
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
    assert tools["recall"].annotations.destructive_hint is False
    assert tools["stats"].annotations.read_only_hint is True
    assert tools["forget"].annotations.destructive_hint is True


def test_an_agent_loop_over_stdio(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db", "--profile", "all")) as client:
            a = await client.call_tool(
                "remember", {"text": "Ana owns the payments service", "kind": "fact"}
            )
            assert not a.is_error
            node_id = a.structured_content["node"]["id"]
            assert node_id in a.content[0].text
            b = await client.call_tool("remember", {"text": "Payments service", "kind": "project"})
            b_id = b.structured_content["node"]["id"]
            link = await client.call_tool("connect", {"a": node_id, "b": b_id, "relation": "about"})
            assert link.structured_content["relation"] == "about"
            dec = await client.call_tool(
                "record_decision",
                {
                    "decision": "Skipped the canary",
                    "outcome": "Weekend outage",
                    "relation": "caused",
                    "task_tag": "deploys",
                },
            )
            assert dec.structured_content["polarity"] < 0
            verdict = await client.call_tool("intervention_query", {"action": "skip the canary"})
            assert verdict.structured_content["verdict"] == "DANGER"
            hits = await client.call_tool("recall", {"query": "who owns payments?", "k": 3})
            top = hits.structured_content["hits"][0]
            assert top["node"]["id"] == node_id and "text" in top["why"]["lists"]
            forgot = await client.call_tool("forget", {"node_id": node_id})
            assert forgot.structured_content["queued"] is True
            queue = await client.call_tool("review_queue", {})
            assert [i["node"]["id"] for i in queue.structured_content["items"]] == [node_id]
            stats = await client.call_tool("stats", {})
            # Four items, plus the logged prediction (kept for prediction_report).
            assert stats.structured_content["by_kind"]["prediction"] == 1
            assert stats.structured_content["nodes"] == 5

    run(go)


def test_an_agent_asking_what_an_action_leads_to_as_a_question_over_stdio(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            await client.call_tool(
                "record_decision",
                {"decision": "Skipped the canary deploy", "outcome": "Checkout outage"},
            )
            risky = await client.call_tool(
                "intervention_query", {"action": "what will happen if I skip the canary deploy?"}
            )
            assert risky.structured_content["verdict"] == "DANGER"
            assert risky.structured_content["action"] == "skip the canary deploy"
            kept = await client.call_tool(
                "intervention_query", {"action": "What would happen if we run the canary deploy?"}
            )
            assert (kept.structured_content["verdict"], kept.structured_content["matched"]) == (
                "UNKNOWN",
                [],
            )
            options = await client.call_tool(
                "counterfactual_query",
                {
                    "decision": "should we skip the canary deploy?",
                    "alternative": "what if we keep it?",
                },
            )
            assert options.structured_content["preferred"] == "alternative"

    run(go)


def test_comparing_two_options_over_stdio_says_which_to_prefer_and_the_evidence_for_each(
    tmp_path,
):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            for decision, outcome in [
                ("Skipped the canary deploy", "Checkout outage for two hours"),
                ("Ran the canary deploy", "A bad release was caught before it reached users"),
            ]:
                await client.call_tool(
                    "record_decision", {"decision": decision, "outcome": outcome}
                )
            options = await client.call_tool(
                "counterfactual_query",
                {"decision": "skip the canary deploy", "alternative": "run the canary deploy"},
            )
            sc = options.structured_content
            assert sc["preferred"] == "alternative" and sc["margin"] < 0
            head, decision, alternative = options.content[0].text.splitlines()
            assert head == "prefer the alternative: run the canary deploy (score +1.00 vs -1.00)"
            assert decision == (
                "- decision, skip the canary deploy (score -1.00): Skipped the canary deploy"
                " -caused-> Checkout outage for two hours (followed, bad)"
            )
            assert alternative == (
                "- alternative, run the canary deploy (score +1.00): Ran the canary deploy"
                " -caused-> A bad release was caught before it reached users (followed, good)"
            )
            assert sc["decision"]["evidence"] in decision
            assert sc["alternative"]["evidence"] in alternative
            untried = await client.call_tool(
                "counterfactual_query",
                {"decision": "skip the canary deploy", "alternative": "deploy on Fridays only"},
            )
            head, _, alternative = untried.content[0].text.splitlines()
            assert head == "prefer the alternative: deploy on Fridays only (score +0.00 vs -1.00)"
            assert alternative.endswith("(score +0.00): no recorded good or bad outcome")

    run(go)


def test_every_causal_answer_over_stdio_writes_a_lesson_the_same_way(tmp_path):
    """An agent reading lessons from several tools sees one arrow (-caused->), and a lesson's
    list of what to avoid reads as a list: no doubled punctuation."""

    async def go():
        async with Client(server_params(tmp_path / "m.db", "--profile", "all")) as client:
            await client.call_tool(
                "record_decision",
                {"decision": "Ran the migration at night.", "outcome": "Login outage"},
            )
            await client.call_tool(
                "record_decision",
                {"decision": "Skipped the review of the migration", "outcome": "Data loss"},
            )
            index = await client.call_tool("causal_directory", {})
            assert "- Ran the migration at night. -caused-> Login outage" in index.content[0].text
            assert "--caused-->" not in index.structured_content["text"]
            found = await client.call_tool("search_causal", {"query": "migration at night"})
            assert "Ran the migration at night. -caused-> Login outage" in found.content[0].text
            lesson = await client.call_tool("reconstruct_lesson", {"query": "the migration"})
            avoid = next(x for x in lesson.content[0].text.splitlines() if x.startswith("Avoid"))
            assert avoid in (
                "Avoid: Ran the migration at night; Skipped the review of the migration.",
                "Avoid: Skipped the review of the migration; Ran the migration at night.",
            )
            assert "- Ran the migration at night. -caused-> Login outage" in lesson.content[0].text

    run(go)


def test_a_lesson_whose_outcome_tells_its_cause_reads_as_that_sentence_over_stdio(tmp_path):
    """'The nightly deploy broke the login page' is stored as the deploy causing what the
    sentence tells: the answers write the sentence once, not 'The nightly deploy -caused->
    The nightly deploy broke …', nor the bare cause in a list of what to avoid."""
    told = "The nightly deploy broke the login page for two hours."

    async def go():
        async with Client(server_params(tmp_path / "m.db", "--profile", "all")) as client:
            stored = await client.call_tool(
                "remember", {"messages": [{"speaker": "dana", "text": told}]}
            )
            (edge,) = stored.structured_content["edges"]
            assert edge["relation"] == "caused"
            for tool, args in [
                ("causal_directory", {}),
                ("search_causal", {"query": "nightly deploy"}),
                ("trace_cause", {"outcome_description": "login page broke"}),
                ("trace_cause_chain", {"outcome_description": "login page broke"}),
                ("reconstruct_lesson", {"query": "nightly deploy"}),
            ]:
                text = (await client.call_tool(tool, args)).content[0].text
                assert text.count("The nightly deploy") == (
                    2 if tool == "reconstruct_lesson" else 1
                )
                assert told in text, tool
            lesson = await client.call_tool("reconstruct_lesson", {"query": "nightly deploy"})
            assert lesson.content[0].text.startswith(f"Avoid: {told}\nEpisodes:\n- {told}")

    run(go)


def test_an_agent_sending_overlapping_windows_of_its_chat_over_stdio(tmp_path):
    chat = [
        {
            "id": "c1",
            "speaker": "Ana",
            "text": "We chose the managed queue because it was cheaper.",
        },
        {"id": "c2", "speaker": "Ben", "text": "It paid off: not one page in three weeks."},
        {"id": "c3", "speaker": "Ana", "text": "We skipped the load test before the promo."},
        {"id": "c4", "speaker": "Ben", "text": "That was a mistake: checkout stalled."},
    ]

    async def go():
        async with Client(server_params(tmp_path / "m.db", "--profile", "all")) as client:
            first = await client.call_tool("remember", {"messages": chat[:3]})
            assert not first.is_error and first.structured_content["known"] == 0
            second = await client.call_tool("remember", {"messages": chat[1:]})
            assert second.structured_content["known"] == 2
            assert "2 message(s) known already" in second.content[0].text
            risky = await client.call_tool(
                "intervention_query", {"action": "skip the load test before a promo"}
            )
            assert risky.structured_content["verdict"] == "DANGER"
            again = await client.call_tool("remember", {"messages": chat})
            assert (again.structured_content["known"], again.structured_content["nodes"]) == (4, [])

    run(go)


def test_two_chats_sent_without_ids_are_told_apart_in_recall_over_stdio(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            for chat in ("Ana: I love pottery.", "Bo: I love pottery too."):
                told = await client.call_tool("remember", {"messages": chat})
                assert not told.is_error
            hits = await client.call_tool("recall", {"query": "pottery", "k": 5})
            by_text = {h["node"]["text"]: h for h in hits.structured_content["hits"]}
            ana, bo = by_text["Ana loves pottery."], by_text["Bo loves pottery too."]
            assert ana["why"]["repeats"] is None and bo["why"]["repeats"] is None
            assert set(ana["node"]["sources"]).isdisjoint(bo["node"]["sources"])

    run(go)


def test_two_projects_share_one_store_and_each_recalls_only_its_own(tmp_path):
    chat = [
        {"speaker": "Ana", "text": "The billing API listens on port 8443."},
        {"speaker": "Ben", "text": "We chose Postgres for billing because of its JSON support."},
    ]

    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            await client.call_tool(
                "remember", {"text": "The search API listens on port 9200", "scope": "search"}
            )
            told = await client.call_tool("remember", {"messages": chat, "scope": "billing"})
            assert not told.is_error and told.structured_content["nodes"]
            billing = await client.call_tool(
                "recall", {"query": "which port does the API listen on?", "scope": "billing"}
            )
            texts = [h["node"]["text"] for h in billing.structured_content["hits"]]
            assert any("8443" in t for t in texts)
            assert not any("9200" in t for t in texts)
            assert {h["node"]["scope"] for h in billing.structured_content["hits"]} == {"billing"}
            search = await client.call_tool(
                "recall", {"query": "which port does the API listen on?", "scope": "search"}
            )
            assert [h["node"]["text"] for h in search.structured_content["hits"]] == [
                "The search API listens on port 9200"
            ]
            episode = {
                "decision": "Turned on slow query logging",
                "outcome": "Found the slow invoice query",
                "scope": "billing",
            }
            await client.call_tool("record_decision", episode)
            decided = await client.call_tool(
                "recall", {"query": "slow query logging", "scope": "billing", "kinds": ["decision"]}
            )
            decisions = [h["node"]["text"] for h in decided.structured_content["hits"]]
            assert "Turned on slow query logging" in decisions
            everywhere = await client.call_tool(
                "recall", {"query": "which port does the API listen on?", "kinds": ["note"]}
            )
            assert any("9200" in h["node"]["text"] for h in everywhere.structured_content["hits"])
            assert {h["node"]["kind"] for h in everywhere.structured_content["hits"]} == {"note"}

    run(go)


@pytest.mark.parametrize(
    ("tool", "args", "needle"),
    [
        ("remember", {"text": "   "}, "text: must not be empty"),
        ("remember", {}, "text: is required"),
        ("remember", {"text": "x", "kind": "spaceship"}, "kind: must be one of"),
        ("connect", {"a": "nope", "b": "nada"}, "a: no node"),
        ("connect", {"a": "x", "b": "y", "weight": 7}, "weight"),
        ("recall", {"query": "x", "k": "many"}, "k: must be a valid integer"),
        ("recall", {}, "query: is required"),
        ("recall", {"query": "x", "limit": 3}, "limit: recall takes no such argument (it takes"),
        ("recall", {"query": "x", "scope": "  "}, "scope: must not be empty"),
        ("recall", {"query": "x", "kinds": ["spaceship"]}, "kinds: must be one of"),
        ("record_decision", {"decision": "d", "outcome": "o", "relation": "maybe"}, "relation"),
    ],
)
def test_bad_input_is_a_tool_error_opening_with_its_field_and_the_server_keeps_serving(
    tmp_path, tool, args, needle
):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            bad = await client.call_tool(tool, args)
            # The field first, as a schema error reads: no "Error executing tool …" before it.
            assert bad.is_error and bad.content[0].text.startswith(needle), bad.content[0].text
            assert "pydantic" not in bad.content[0].text  # the field and the rule, no report
            ok = await client.call_tool("recall", {"query": "anything"})
            assert not ok.is_error and ok.structured_content["hits"] == []

    run(go)


def test_a_client_sending_null_for_every_unset_argument_gets_the_defaults(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            told = await client.call_tool(
                "remember",
                {"text": "Ana owns billing", "kind": None, "scope": None, "messages": None},
            )
            assert not told.is_error and told.structured_content["node"]["scope"] == "default"
            found = await client.call_tool(
                "recall", {"query": "billing", "k": None, "include_cold": None, "scope": None}
            )
            assert not found.is_error and found.structured_content["hits"]
            missing = await client.call_tool("recall", {"query": None})
            assert missing.is_error and "query: is required" in missing.content[0].text

    run(go)


def test_the_causal_memory_profile_ignores_an_argument_only_that_server_takes(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db", "--profile", "causal-memory")) as c:
            found = await c.call_tool("search_memory", {"query": "x", "session_id": "abc"})
            assert not found.is_error

    run(go)


def test_ebb_profile_keeps_exactly_the_ebb_tool_names(tmp_path):
    assert set(list_tools(tmp_path / "m.db", "--profile", "ebb")) == {
        "remember",
        "recall",
        "connect",
        "reinforce",
        "forget",
        "neighbors",
        "pin",
        "maintain",
        "review_queue",
        "stats",
    }


def test_with_the_model_servers_down_the_agent_loop_goes_on_without_them(tmp_path):
    params = server_params(tmp_path / "m.db", "--profile", "all")
    params.env = {
        **params.env,
        "EBBTIDE_EMBEDDINGS": "http",
        "EBBTIDE_EMBED_URL": "http://127.0.0.1:9/v1",  # nobody listens: connection refused
        "EBBTIDE_EMBED_MODEL": "text-embedding-3-small",
        "EBBTIDE_EXTRACT_URL": "http://127.0.0.1:9/v1",
        "EBBTIDE_EXTRACT_MODEL": "some-llm",
    }

    async def go():
        async with Client(params) as client:
            note = await client.call_tool("remember", {"text": "Ana owns the payments service"})
            assert not note.is_error
            hits = await client.call_tool("recall", {"query": "who owns payments?"})
            assert not hits.is_error
            found = hits.structured_content
            assert found["hits"][0]["node"]["id"] == note.structured_content["node"]["id"]
            assert "cannot connect" in found["degraded"]
            none = await client.call_tool("recall", {"query": "kubernetes ingress"})
            assert none.structured_content["hits"] == []
            assert "embedding model is unavailable" in none.content[0].text
            chain = await client.call_tool("trace_cause_chain", {"outcome_description": "outage"})
            assert not chain.is_error
            assert "embedding model is unavailable" in chain.content[0].text
            talk = await client.call_tool(
                "remember", {"messages": "Ana: I switched the backups to hourly.\nBen: Why?"}
            )
            assert not talk.is_error
            assert "rules only" in talk.structured_content["degraded"]
            assert any("hourly" in n["text"] for n in talk.structured_content["nodes"])
            stats = await client.call_tool("stats", {})
            assert stats.structured_content["vectors_missing"] == stats.structured_content["nodes"]

    run(go)


def test_forgetting_what_a_person_chose_to_keep_says_it_stays(tmp_path):
    store = tmp_path / "m.db"

    async def ask_twice():
        async with Client(server_params(store)) as client:
            note = await client.call_tool("remember", {"text": "The VPN needs a hardware token"})
            node_id = note.structured_content["node"]["id"]
            first = await client.call_tool("forget", {"node_id": node_id, "reason": "outdated"})
            assert "archived and queued for review" in first.content[0].text
            return node_id

    node_id = run(ask_twice)
    with open_memory(store, embeddings="none") as memory:
        memory.reject(node_id)  # a person keeps it

    async def ask_again():
        async with Client(server_params(store)) as client:
            again = await client.call_tool("forget", {"node_id": node_id, "reason": "outdated"})
            kept = again.structured_content
            assert kept["queued"] is False and kept["kept_until"]
            text = again.content[0].text
            assert "archived" not in text.replace("not archived", "")
            assert f"keep it until {kept['kept_until']}" in text
            hits = await client.call_tool("recall", {"query": "VPN hardware token"})
            assert hits.structured_content["hits"][0]["node"]["id"] == node_id

    run(ask_again)


def test_tool_descriptions_carry_no_source_indentation(tmp_path):
    tools = list_tools(tmp_path / "m.db", "--profile", "all")
    for t in tools.values():
        assert not any(line.startswith(" ") for line in t.description.splitlines()), t.name


def test_a_client_showing_the_model_only_text_still_gets_what_each_result_is_for(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db", "--profile", "all")) as client:
            told = await client.call_tool(
                "remember",
                {"messages": "Ana: We skipped the load test before the June promo.\n"
                 "Ben: That was a mistake: checkout stalled for an hour."},
            )  # fmt: skip
            for node in told.structured_content["nodes"]:  # ids to connect or forget
                assert f"{node['id']} {node['kind']}: " in told.content[0].text
            await client.call_tool(
                "record_decision",
                {"decision": "Checkout stalled for an hour during the June promo",
                 "outcome": "Escalation from Acme Retail, our largest client"},
            )  # fmt: skip
            chain = await client.call_tool(
                "trace_cause_chain", {"outcome_description": "escalation from Acme Retail"}
            )
            text = chain.content[0].text
            assert len(chain.structured_content["chains"]) == len(text.splitlines()) - 1
            for step in chain.structured_content["chains"][0]["steps"]:
                assert step["outcome"][:60] in text  # not cut to 30 characters
            risky = await client.call_tool("intervention_query", {"action": "skip the load test"})
            assert risky.structured_content["evidence"]
            for line in risky.structured_content["evidence"]:
                assert line in risky.content[0].text
            index = await client.call_tool("causal_directory", {})
            assert index.structured_content["text"] in index.content[0].text
            lesson = await client.call_tool("reconstruct_lesson", {"query": "skip the load test"})
            assert lesson.content[0].text == lesson.structured_content["lesson"]
            hub = told.structured_content["nodes"][0]["id"]
            near = await client.call_tool("neighbors", {"node_id": hub})
            for n in near.structured_content["neighbors"]:
                assert n["node"]["id"] in near.content[0].text
            lessons = await client.call_tool("search_causal", {"query": "load test"})
            for hit in lessons.structured_content["hits"]:  # edge ids to invalidate_decision
                assert hit["lesson"]["edge_id"] in lessons.content[0].text
            fact = await client.call_tool("record_fact", {"key": "office", "value": "Porto"})
            await client.call_tool("record_fact", {"key": "pager", "value": "Opsgenie"})
            facts = await client.call_tool("search_facts", {})
            assert "office: Porto" in facts.content[0].text
            assert "pager: Opsgenie" in facts.content[0].text
            await client.call_tool("forget", {"node_id": fact.structured_content["fact"]["id"]})
            queue = await client.call_tool("review_queue", {})
            assert fact.structured_content["fact"]["id"] in queue.content[0].text

    run(go)


def test_every_tool_parameter_says_what_it_takes(tmp_path):
    tools = list_tools(tmp_path / "m.db", "--profile", "all")
    for t in tools.values():
        for name, schema in t.input_schema["properties"].items():
            assert schema.get("description"), f"{t.name}.{name}"
    record = tools["record_decision"].input_schema["properties"]
    assert "did not happen" in record["relation"]["description"]
    assert "0.7" in record["confidence_source"]["description"]
    node_id = tools["remember"].input_schema["properties"]["node_id"]["description"]
    assert "not in memory yet makes a new node" in node_id


def test_an_agent_recalling_a_vault_over_stdio_reads_which_note_each_hit_came_from(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    vault = tmp_path / "vault"
    (vault / "Incidents").mkdir(parents=True)
    (vault / "Incidents" / "Checkout outage.md").write_text(
        "# Checkout outage\n\nThe nightly backup job filled the disk, which caused the checkout"
        " outage.\n"
    )
    store = tmp_path / "m.db"
    assert main(["ingest", str(vault), "--store", str(store)]) == 0

    async def go():
        async with Client(server_params(store)) as client:
            got = await client.call_tool("recall", {"query": "why did checkout go down", "k": 5})
            return got.content[0].text, got.structured_content

    text, structured = run(go)
    ids = [h["node"]["id"] for h in structured["hits"]]
    lines = dict(zip(ids, text.splitlines()[1:], strict=True))
    (doc,) = [h["node"]["id"] for h in structured["hits"] if h["node"]["kind"] == "document"]
    assert lines[doc].endswith(" from Incidents/Checkout outage.md")
    assert all("from Incidents/Checkout outage.md" in line for line in lines.values())

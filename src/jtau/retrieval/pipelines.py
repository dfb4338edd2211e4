"""J-tau's retrieval inside tau2 1.0.1's knowledge pipeline (`tau2.knowledge`; tau2 1.0.1 only).

Registered with tau2's own registry, so a `RetrievalPipeline` config names them as it names tau2's:

- `bm25_ja_indexer` (document preprocessor) and `bm25_ja` (retriever): tau2's `bm25_indexer` and
  `bm25` with the Japanese tokenizer (bm25.py) instead of `text.lower().split()`; same state keys,
  same scoring, same ranking.  The index of a document set is built once per process and shared
  (read-only) by every pipeline over the same documents: tau2 builds a pipeline per environment,
  that is per simulation.
- `jtau_embeddings` (document preprocessor): the document vectors from the file `jtau banking embed`
  wrote, checked against the documents (embeddings.load), in the pipeline's document order;
  nothing is embedded at run time.  tau2's `cosine` retriever reads them as it reads its own.
- `jtau_query_embedding` (input preprocessor): the query's vector from the endpoint the documents
  were embedded at ($JTAU_EMBED_BASE_URL overrides it; key $JTAU_EMBED_API_KEY or $OPENAI_API_KEY),
  the same model, with the Qwen query instruction where tau2's embedder adds it; cached per query.

`bm25_pipeline`, `dense_pipeline` and `grep_pipeline` build the three pipelines tau2's retrieval.py
builds, from an explicit document list (never tau2's process-wide document cache, which would hand
an environment built after the English one the English documents); `sandbox` is tau2's shell sandbox.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
from tau2.knowledge.document_preprocessors.base import BaseDocumentPreprocessor
from tau2.knowledge.document_preprocessors.bm25_indexer import BM25Indexer
from tau2.knowledge.input_preprocessors.base import BaseInputPreprocessor
from tau2.knowledge.registry import (
    register_document_preprocessor,
    register_input_preprocessor,
    register_retriever,
)
from tau2.knowledge.retrievers.bm25_retriever import BM25Retriever

from jtau.retrieval import bm25, embeddings
from jtau.retrieval.tokenize import tokenize

__all__ = ["bm25_pipeline", "dense_pipeline", "grep_pipeline", "sandbox", "documents_of"]

_INDEXES: OrderedDict[tuple, bm25.Index] = OrderedDict()
_LOCK = threading.Lock()
_KEEP = 4  # document sets whose index stays built (J-tau has one)


def _shared_index(documents: list[dict[str, Any]], texts: list[str]) -> bm25.Index:
    key = tuple(zip((doc["id"] for doc in documents), texts))
    with _LOCK:
        index = _INDEXES.get(key)
        if index is None:
            index = bm25.build_index([{"id": doc["id"], "text": text} for doc, text in zip(documents, texts)])
            _INDEXES[key] = index
            while len(_INDEXES) > _KEEP:
                _INDEXES.popitem(last=False)
        _INDEXES.move_to_end(key)
        return index


@register_document_preprocessor("bm25_ja_indexer")
class JaBM25Indexer(BM25Indexer):
    """tau2's bm25_indexer over Japanese tokens."""

    def process(self, documents: list[dict[str, Any]], state: dict[str, Any]) -> list[dict[str, Any]]:
        texts = []
        for doc in documents:
            text = doc.get(self.content_field) or doc.get("content") or doc.get("text")
            if text is None:
                raise ValueError(f"Document {doc.get('id', 'unknown')} missing content field")
            texts.append(text)
        index = _shared_index(documents, texts)
        state[self.state_key] = index.bm25
        state[f"{self.state_key}_doc_ids"] = list(index.doc_ids)
        return documents


@register_retriever("bm25_ja")
class JaBM25Retriever(BM25Retriever):
    """tau2's bm25 retriever, tokenizing the query as the Japanese index was tokenized."""

    def retrieve(self, input_data: dict[str, Any], state: dict[str, Any]) -> list[tuple[str, float]]:
        query = input_data.get(self.query_key)
        if not query or not query.strip():
            return []
        scores = state[self.bm25_state_key].get_scores(tokenize(query))
        return bm25.rank(scores, state[self.doc_ids_state_key], self.top_k)

    def retrieve_batch(self, input_data_list, state):
        return [self.retrieve(input_data, state) for input_data in input_data_list]


@register_document_preprocessor("jtau_embeddings")
class CachedEmbeddings(BaseDocumentPreprocessor):
    """Document vectors from a `jtau banking embed` file; the documents must be the ones embedded."""

    def __init__(self, path: str, model: str, state_key: str = "doc_embeddings", **kwargs):
        super().__init__(path=path, model=model, state_key=state_key, **kwargs)
        self.path, self.model, self.state_key = Path(path), model, state_key

    def process(self, documents: list[dict[str, Any]], state: dict[str, Any]) -> list[dict[str, Any]]:
        found = embeddings.load(self.path, documents, self.model)
        doc_ids = [doc["id"] for doc in documents]
        state[self.state_key] = found.rows_for(doc_ids)
        state[f"{self.state_key}_doc_ids"] = doc_ids
        state["jtau_embeddings_base_url"] = found.base_url
        return documents


@register_input_preprocessor("jtau_query_embedding")
class QueryEmbedding(BaseInputPreprocessor):
    """The query's vector from the embeddings' endpoint and model (tau2's embedding_encoder's place)."""

    def __init__(self, model: str, query_instruction: str | None = None, input_key: str = "query",
                 output_key: str = "query_embedding", **kwargs):
        super().__init__(model=model, query_instruction=query_instruction, input_key=input_key,
                         output_key=output_key, **kwargs)
        self.model, self.instruction = model, query_instruction
        self.input_key, self.output_key = input_key, output_key
        self._client: embeddings.Client | None = None
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def _text(self, text: str) -> str:
        # tau2's OpenRouterEmbedder._format_text for Qwen queries
        return f"Instruct: {self.instruction}\nQuery:{text}" if self.instruction else text

    def _embed(self, texts: list[str], state: dict[str, Any]) -> np.ndarray:
        with self._lock:
            if self._client is None:
                base_url = os.environ.get("JTAU_EMBED_BASE_URL") or state["jtau_embeddings_base_url"]
                endpoint = embeddings.endpoint_from_env(base_url, self.model)
                self._client = embeddings.Client(endpoint, embeddings.Settings(timeout=30, attempts=3))
        return self._client.embed([self._text(text) for text in texts])

    def process(self, input_data: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
        text = input_data.get(self.input_key, "")
        if not text or not text.strip():
            raise ValueError(f"Empty or missing input for key '{self.input_key}': "
                             f"cannot generate embedding from blank text.")
        if text not in self._cache:
            self._cache[text] = self._embed([text], state)[0]
        input_data[self.output_key] = self._cache[text]
        return input_data

    def process_batch(self, input_data_list, state):
        missing = sorted({d[self.input_key] for d in input_data_list} - set(self._cache))
        if missing:
            for text, row in zip(missing, self._embed(missing, state)):
                self._cache[text] = row
        for input_data in input_data_list:
            input_data[self.output_key] = self._cache[input_data[self.input_key]]
        return input_data_list


# --- the pipelines tau2's retrieval.py builds, over J-tau's documents ---------------------------

def documents_of(knowledge_base) -> list[dict[str, Any]]:
    """The documents as tau2's pipelines take them (`id`, `text`, `title`), in id order (tau2 uses
    the order the files were listed in, which differs between machines)."""
    docs = sorted(knowledge_base.get_all_documents(), key=lambda doc: doc.id)
    return [{"id": doc.id, "text": doc.content, "title": doc.title} for doc in docs]


def _pipeline(config: dict, documents: list[dict[str, Any]]):
    from tau2.knowledge.pipeline import RetrievalPipeline

    pipeline = RetrievalPipeline(config)
    pipeline.index_documents(documents)
    return pipeline


def reranker(spec) -> list[dict]:
    """tau2's postprocessors for a spec: its pointwise LLM reranker, when the variant has one."""
    if not getattr(spec, "reranker", False):
        return []
    return [{"type": "pointwise_llm_reranker", "params": {"min_score": spec.reranker_min_score}}]


def bm25_pipeline(documents: list[dict[str, Any]], top_k: int = 10, postprocessors: list | None = None,
                  japanese: bool = True):
    """tau2's create_bm25_retrieval_pipeline with the Japanese indexer and retriever (English
    documents, `japanese=False`: tau2's own)."""
    indexer, retriever = ("bm25_ja_indexer", "bm25_ja") if japanese else ("bm25_indexer", "bm25")
    return _pipeline({
        "document_preprocessors": [{"type": indexer, "params": {"state_key": "bm25"}}],
        "input_preprocessors": [],
        "retriever": {"type": retriever, "params": {"query_key": "query", "bm25_state_key": "bm25",
                                                    "doc_ids_state_key": "bm25_doc_ids", "top_k": top_k}},
        "postprocessors": postprocessors or [],
    }, documents)


def dense_pipeline(documents: list[dict[str, Any]], path: Path, model: str, query_instruction: str | None,
                   top_k: int = 10, postprocessors: list | None = None):
    """tau2's create_embedding_retrieval_pipeline reading jtau's embeddings file."""
    return _pipeline({
        "document_preprocessors": [{"type": "jtau_embeddings", "params": {"path": str(path), "model": model}}],
        "input_preprocessors": [{"type": "jtau_query_embedding",
                                 "params": {"model": model, "query_instruction": query_instruction}}],
        "retriever": {"type": "cosine", "params": {"top_k": top_k}},
        "postprocessors": postprocessors or [],
    }, documents)


def grep_pipeline(documents: list[dict[str, Any]], top_k: int = 10, case_sensitive: bool = False):
    """tau2's create_grep_retrieval_pipeline (grep works on Japanese as it is)."""
    return _pipeline({
        "document_preprocessors": [], "input_preprocessors": [],
        "retriever": {"type": "grep", "params": {"query_key": "query", "content_state_key": "doc_content_map",
                                                 "top_k": top_k, "case_sensitive": case_sensitive}},
        "postprocessors": [],
    }, documents)


def sandbox(knowledge_base, spec):
    """tau2's _create_sandbox: the documents as files in a read-only (or writable) shell sandbox."""
    from tau2.knowledge.sandbox_manager import SandboxManager

    manager = SandboxManager(allow_writes=spec.allow_writes)
    docs = sorted(knowledge_base.get_all_documents(), key=lambda doc: doc.id)
    manager.export_documents([{"id": d.id, "title": d.title, "content": d.content} for d in docs],
                             file_format=spec.file_format)
    return manager

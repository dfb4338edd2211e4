"""Japanese BM25: tau2's BM25 (rank_bm25's BM25Okapi, k1 1.5, b 0.75, epsilon 0.25) over Japanese tokens.

tau2 1.0.1 indexes `text.lower().split()` of each document's content; J-tau indexes
`tokenize(content)` (tokenize.py) and scores with the same BM25Okapi, so English and Japanese
retrieval differ only in their tokens.  `JaBM25` counts terms with `collections.Counter` instead
of BM25Okapi's per-token Python loop: the same counts in the same order, so the same idf and
bit-for-bit the same scores (tests/retrieval/test_retrieval_bm25.py), in half the time.

`build_index(documents)` and `search(index, query, top_k)` are the whole API; they rank exactly
as tau2's `BM25Retriever` does (stable sort on score, ties in index order).  tau2's pipeline
classes that use them are in pipelines.py (tau2 1.0.1 only); this module needs only rank_bm25.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import chain

from rank_bm25 import BM25Okapi

from jtau.retrieval.tokenize import tokenize

__all__ = ["JaBM25", "Index", "build_index", "search", "document_text"]


class JaBM25(BM25Okapi):
    """BM25Okapi with a faster index build and bit-for-bit the same index and scores.

    BM25Okapi counts each token in a Python loop; here `Counter` counts in C, in the same
    first-occurrence order, and an idf is computed once per distinct document frequency with
    BM25Okapi's own expression, summed in BM25Okapi's order (so `average_idf` is the same float)."""

    def _initialize(self, corpus: Iterable[list[str]]) -> dict[str, int]:
        documents = corpus if isinstance(corpus, list) else list(corpus)
        self.doc_freqs = [Counter(document) for document in documents]
        self.doc_len = [len(document) for document in documents]
        self.corpus_size = len(self.doc_freqs)
        self.avgdl = sum(self.doc_len) / self.corpus_size
        return Counter(chain.from_iterable(self.doc_freqs))  # word -> number of documents with it

    def _calc_idf(self, nd: dict[str, int]) -> None:
        n = self.corpus_size
        by_frequency = {f: math.log(n - f + 0.5) - math.log(f + 0.5) for f in set(nd.values())}
        self.idf = {word: by_frequency[f] for word, f in nd.items()}
        self.average_idf = reduce(operator.add, self.idf.values(), 0) / len(self.idf)
        negative = {f for f, idf in by_frequency.items() if idf < 0}
        if negative:  # BM25Okapi's floor: eps = epsilon * average idf
            eps = self.epsilon * self.average_idf
            for word, f in nd.items():
                if f in negative:
                    self.idf[word] = eps


@dataclass(frozen=True)
class Index:
    bm25: JaBM25
    doc_ids: list[str]


def document_text(document: Mapping) -> str:
    """What tau2's BM25 indexer reads of a document: `text`, else `content` (never the title)."""
    text = document.get("text") or document.get("content")
    if text is None:
        raise ValueError(f"Document {document.get('id', 'unknown')} missing content field")
    return text


def build_index(documents: Sequence[Mapping]) -> Index:
    """The Japanese BM25 index of `documents` (dicts with `id` and `text` or `content`)."""
    if not documents:
        raise ValueError("Documents list is empty.")
    return Index(JaBM25([tokenize(document_text(doc)) for doc in documents]), [doc["id"] for doc in documents])


def search(index: Index, query: str, top_k: int = 10) -> list[tuple[str, float]]:
    """The `top_k` best (doc id, score) for `query`, ranked as tau2's BM25Retriever ranks."""
    if not query or not query.strip():
        return []
    return rank(index.bm25.get_scores(tokenize(query)), index.doc_ids, top_k)


def rank(scores, doc_ids: list[str], top_k: int) -> list[tuple[str, float]]:
    """tau2's ranking: the first `top_k` indices by score, a stable sort (ties in index order)."""
    best = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[: min(top_k, len(doc_ids))]
    return [(doc_ids[i], float(scores[i])) for i in best]

"""Japanese BM25 (jtau.retrieval.bm25) on the Japanese sample: it finds a document from a Japanese
phrase of it where tau2's English `text.lower().split()` BM25 finds nothing; it scores exactly as
rank_bm25's BM25Okapi (tau2's) over the same tokens; English queries are not helped.  Pure Python
and rank_bm25: runs on both tau2 runtimes (test_retrieval_tau3.py repeats the first test with
tau2 1.0.1's own BM25 pipeline)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from jtau.retrieval.bm25 import JaBM25, build_index, rank, search
from jtau.retrieval.tokenize import tokenize

SAMPLE = Path(__file__).parents[1] / "data" / "banking_ja_sample"
DOCS = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((SAMPLE / "documents").glob("*.json"))]
QUESTIONS = json.loads((SAMPLE / "queries.json").read_text(encoding="utf-8"))

# Phrases as they stand in one document each (a sentence's middle, not a heading).
PHRASES = {
    "doc_customer_support_special_support_codes_001": "アカウント復旧バイパスコードを用いて復旧を進める",
    "doc_checking_accounts_gold_years_account_002": "海外のATMで現金を引き出す際の標準手数料",
    "doc_business_savings_accounts_emerald_saver_002": "認証済みのカーボンオフセット・プログラム",
    "doc_everyone_pay_scheduled_payments_003": "次回の実行の13時間前からは編集がロックされます",
    "doc_credit_cards_credit_cards_(general)_003": "本来受け取るべきキャッシュバック",
}


def english_bm25(docs):
    """tau2 1.0.1's BM25 as bm25_indexer.py and bm25_retriever.py build and query it."""
    return BM25Okapi([doc["content"].lower().split() for doc in docs])


def test_documents_hold_the_phrases():
    by_id = {doc["id"]: doc for doc in DOCS}
    for doc_id, phrase in PHRASES.items():
        assert phrase in by_id[doc_id]["content"]


@pytest.mark.parametrize("doc_id", sorted(PHRASES))
def test_japanese_bm25_finds_a_japanese_phrase_that_english_split_bm25_does_not(doc_id):
    phrase = PHRASES[doc_id]
    index = build_index(DOCS)
    results = search(index, phrase, top_k=10)
    assert results[0][0] == doc_id and results[0][1] > 0

    english = english_bm25(DOCS)
    scores = english.get_scores(phrase.lower().split())
    assert not scores.any()  # the phrase is no whitespace token of any document: nothing scores
    ranked = rank(scores, [doc["id"] for doc in DOCS], 10)
    assert all(score == 0 for _, score in ranked)  # tau2 would list ten arbitrary documents


def test_scores_are_bm25okapis_bit_for_bit():
    corpus = [tokenize(doc["content"]) for doc in DOCS]
    ours, theirs = JaBM25(corpus), BM25Okapi(corpus)
    assert ours.doc_freqs == theirs.doc_freqs and ours.doc_len == theirs.doc_len
    assert list(ours.idf.items()) == list(theirs.idf.items()) and ours.average_idf == theirs.average_idf
    assert any(idf == ours.epsilon * ours.average_idf for idf in ours.idf.values())  # the floor is used
    for query in [*PHRASES.values(), *(q["ja"] for q in QUESTIONS), "ACH 当日 open_bank_account_4821", "円"]:
        tokens = tokenize(query)
        assert np.array_equal(ours.get_scores(tokens), theirs.get_scores(tokens))


def test_ranking_is_tau2s():
    """Ties keep index order (tau2's stable sort); top_k beyond the corpus is the corpus."""
    assert rank(np.array([1.0, 3.0, 1.0, 3.0]), ["a", "b", "c", "d"], 3) == [("b", 3.0), ("d", 3.0), ("a", 1.0)]
    assert len(rank(np.zeros(2), ["a", "b"], 10)) == 2
    assert search(build_index(DOCS), "   ") == []


def test_questions_find_their_documents():
    index = build_index(DOCS)
    found = sum(q["id"] in [doc_id for doc_id, _ in search(index, q["ja"], top_k=10)] for q in QUESTIONS)
    assert found >= 26  # measured: 27 of 30 (scripts/benchmarks/bench_tokenizers.py)


def test_english_queries_are_not_helped():
    """No bilingual index: every Latin token of the index is printed in some document, and English
    titles find their Japanese documents only through such words (ACH, SWIFT, BNPL, QR ...)."""
    index = build_index(DOCS)
    printed = {token for doc in DOCS for token in tokenize(doc["content"]) if token.isascii()}
    assert {token for token in index.bm25.idf if token.isascii()} == printed
    english_titles = {
        "doc_checking_accounts_evergreen_account_002": "Evergreen Account specifications and requirements",
        "doc_credit_cards_ecocard_006": "EcoCard: Tracking Your Environmental Impact",
        "doc_savings_accounts_silver_account_001": "Silver Account specifications and requirements",
        "doc_everyone_pay_split-the-bill_002": "Setting up a group payment",
    }
    for title in english_titles.values():
        results = search(index, title, top_k=10)
        assert all(score == 0 for _, score in results), title
    results = search(index, "SWIFT and SEPA", top_k=1)  # the Latin words a Japanese document prints
    assert results[0] == ("doc_business_checking_accounts_world_blue_004", pytest.approx(results[0][1]))

"""Japanese retrieval for J-tau's banking_knowledge_ja.

tau2 1.0.1's banking_knowledge agent searches a knowledge base through one of 20 retrieval
variants.  On J-tau the documents are Japanese, and tau2's BM25 (`text.lower().split()`) finds
almost nothing in text without spaces.  This package gives each upstream variant its
banking_knowledge_ja form:

- BM25 (`bm25*`, alltools' BM25): Japanese BM25, kanji/katakana bigrams (tokenize.py) in tau2's
  BM25Okapi (bm25.py);
- dense (`*_embeddings*`, alltools' dense): the same model over the Japanese documents' vectors,
  built by `jtau banking embed` (embeddings.py), read from a file, never computed at run time;
- grep, shell, rerankers: tau2's own, over the Japanese documents;
- no_knowledge, full_kb, golden_retrieval: tau2's own (prompt-only variants).

No variant answers English queries through a translation: the index holds only what the Japanese
documents print (an agent that searches in English is the English pivot J-tau exists to reveal).

- tokenize.py: Japanese tokens for BM25: kanji and katakana bigrams, Latin and digit words whole
- bm25.py: tau2's BM25Okapi over those tokens, ranking exactly as tau2's BM25Retriever does
- embeddings.py: the documents' embeddings through an OpenAI-compatible endpoint, in a file checked against them
- variants.py: tau2's retrieval variants with J-tau's KB-search pipelines (`ja_variant`, `build_ja_tools`)
- pipelines.py: J-tau's indexers, retrievers and query embedding in tau2's knowledge pipeline registry

tokenize.py, bm25.py and embeddings.py are pure Python and work on either runtime; variants.py and
pipelines.py import tau2 1.0.1's knowledge pipeline.

## For the environment builder (tau2 1.0.1)

    from jtau.retrieval import build_ja_tools, ja_variant

    variant = ja_variant(retrieval_variant or "alltools", **(retrieval_kwargs or {}))
    tools = build_ja_tools(variant, db, knowledge_base, read_log_allowlist, wrap=overlay)
    variant.prompt_template = JA_PROMPTS / variant.prompt_template.name   # the environment's prompts
    policy = build_policy(variant, knowledge_base, task)                    # tau2's, unchanged

- `ja_variant(name, *, embeddings_file=None, language="ja", domain=..., **overrides) -> tau2
  RetrievalVariant`: every name tau2's `resolve_variant` takes (`variant_names()`: the 20 and
  `AllTools`), tau2's overrides (`top_k`, `grep_top_k`, `case_sensitive`, `reranker_min_score`);
  tau2's ValueError for others.  `language="en"` and `domain` serve an arm whose documents are
  English (tau2's BM25, that arm's embeddings).
- `build_ja_tools(variant, db, knowledge_base, read_log_allowlist=None, wrap=identity)`: tau2's
  `build_tools` for it; `wrap(cls)` gives the class to build instead of tau2's toolkit class.
- Dense variants read `embeddings.default_file(model, domain)` (`$JTAU_EMBEDDINGS`, else
  `~/.cache/jtau/embeddings/<domain>.<model>.pkl`): `text-embedding-3-large` for
  openai_embeddings* and alltools, `qwen/qwen3-embedding-8b` for qwen_embeddings* and alltools-qwen.
  A missing file, or one built from other documents, is an InputError naming the command to run.
  Queries go to the endpoint the file was built against (`$JTAU_EMBED_BASE_URL` overrides; key
  `$JTAU_EMBED_API_KEY`, else `$OPENAI_API_KEY`).
- Documents are indexed in id order, from the knowledge base given, never from tau2's
  process-wide document cache (`get_or_create_docs`), which serves whichever knowledge base was
  loaded first: do not build J-tau pipelines with tau2's `create_*_pipeline` helpers.
"""

from __future__ import annotations

__all__ = ["ja_variant", "build_ja_tools", "variant_names"]


def __getattr__(name: str):
    """`ja_variant`, `build_ja_tools`, `variant_names` import tau2 1.0.1 only when asked for."""
    if name in __all__:
        from jtau.retrieval import variants

        return getattr(variants, name)
    raise AttributeError(f"module 'jtau.retrieval' has no attribute {name!r}")

"""tau2 1.0.1's retrieval variants as banking_knowledge_ja runs them (tau2 1.0.1 only).

`ja_variant(name, **overrides)` takes any name tau2's `resolve_variant` takes (the 20 of
`RETRIEVAL_VARIANTS` and the alias `AllTools`, with its overrides `top_k`, `grep_top_k`,
`case_sensitive`, `reranker_min_score`) and returns tau2's own `RetrievalVariant` for it (prompt
template, prompt builder, grep, shell, `supports_top_k` untouched) whose KB-search specs are
`JaPipelineSpec`s:

- BM25 (`kb_search` of bm25*, `kb_search_bm25` of alltools*): `type="bm25_ja"`, the Japanese BM25;
- dense (`kb_search` of *_embeddings*, `kb_search_dense` of alltools*): `type="embedding_ja"`, the
  vectors of the Japanese documents from `embeddings` (default: embeddings.default_file of
  `endpoint_model`), queries embedded with `endpoint_model` (upstream's model as its endpoint names
  it: text-embedding-3-large, qwen/qwen3-embedding-8b) and upstream's Qwen query instruction;
- rerankers, top_k and the reranker's min_score as upstream sets them.

`ja_variant(name, language="en", domain=...)` is the same for an arm of J-tau whose documents are
English (jtau.arms `ja-entities`): BM25 is tau2's own (`type="bm25_en"`: its `bm25_indexer` and
`bm25` over the arm's documents, never tau2's process-wide document cache), dense search reads the
embeddings of the arm's documents (`embeddings.default_file(model, domain)`).

`build_ja_tools(variant, db, knowledge_base, read_log_allowlist=None, wrap=...)` is tau2's
`build_tools` for such a variant: the same toolkit class for the same variant (KnowledgeToolsPlain,
...WithKBSearch, ...WithGrep, ...WithKBSearchAndGrep, ...WithShell, ...AllTools), passed through
`wrap` first (the environment's overlay: Japanese descriptions, yen), with the Japanese pipelines.
tau2's own `build_tools` refuses these specs (unknown pipeline type): no variant can fall back to
English `.split()` BM25 unnoticed.  Prompts stay the environment's business: `build_policy` works on
the returned variant once its `prompt_template` points at the Japanese template.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from tau2.domains.banking_knowledge import retrieval as upstream
from tau2.domains.banking_knowledge import retrieval_toolkits as toolkits
from tau2.knowledge.embedders.openrouter_embedder import DEFAULT_QWEN_QUERY_INSTRUCTION, OpenRouterEmbedder

from jtau.retrieval import embeddings, pipelines

__all__ = ["JaPipelineSpec", "ja_variant", "build_ja_tools", "variant_names"]

JTAU_DOMAIN = embeddings.DOMAIN  # banking_knowledge_ja: whose documents are embedded by default


@dataclass
class JaPipelineSpec(upstream.PipelineSpec):
    """tau2's PipelineSpec for a Japanese pipeline; `type` is "bm25_ja" or "embedding_ja"."""

    endpoint_model: Optional[str] = None  # dense: the model as the embeddings endpoint names it
    query_instruction: Optional[str] = None  # dense: prefixed to queries (Qwen), as tau2 does
    embeddings: Optional[Path] = None  # dense: the embeddings file; None -> embeddings.default_file
    domain: str = JTAU_DOMAIN  # dense: the J-tau domain (arm) whose documents are embedded


def variant_names() -> list[str]:
    """Every name ja_variant takes: tau2's registered variants, then its aliases."""
    return [*upstream.get_all_variant_names(), *upstream.RETRIEVAL_VARIANT_ALIASES]


def ja_variant(name: str, *, embeddings_file: Path | None = None, language: str = "ja",
               domain: str = JTAU_DOMAIN, **overrides) -> upstream.RetrievalVariant:
    """tau2's variant `name` (with tau2's overrides) with J-tau's KB-search pipelines: Japanese
    BM25, or tau2's BM25 where the documents' `language` is English; dense search over the
    embeddings of `domain`'s documents.

    `embeddings_file` points the dense pipeline at another file than the model's default.
    Raises tau2's ValueError for an unknown name."""
    variant = copy.deepcopy(upstream.resolve_variant(name, **overrides))
    for field in ("kb_search", "kb_search_bm25", "kb_search_dense"):
        spec = getattr(variant, field)
        if spec is not None:
            setattr(variant, field, ja_spec(spec, embeddings_file, language, domain))
    return variant


def ja_spec(spec: upstream.PipelineSpec, embeddings_file: Path | None = None, language: str = "ja",
            domain: str = JTAU_DOMAIN) -> JaPipelineSpec:
    common = dict(embedder_type=spec.embedder_type, embedder_model=spec.embedder_model, top_k=spec.top_k,
                  reranker=spec.reranker, reranker_min_score=spec.reranker_min_score, domain=domain)
    if spec.type == "bm25":
        return JaPipelineSpec(type="bm25_ja" if language == "ja" else "bm25_en", **common)
    if spec.type == "embedding":
        model, instruction = endpoint_model(spec.embedder_type, spec.embedder_model)
        return JaPipelineSpec(type="embedding_ja", endpoint_model=model, query_instruction=instruction,
                              embeddings=embeddings_file, **common)
    raise ValueError(f"Unknown pipeline type: {spec.type!r}")


def endpoint_model(embedder_type: str | None, model: str | None) -> tuple[str, str | None]:
    """(model name at the endpoint, query instruction) as tau2's embedders derive them: OpenAI's
    model as it is, no instruction; OpenRouter's short names to their API strings, and the Qwen
    instruction for the models that require one (OpenRouterEmbedder.__init__)."""
    if embedder_type == "openai":
        return model or upstream.DEFAULT_DENSE_EMBEDDING_MODEL_OPENAI, None
    model = model or upstream.DEFAULT_DENSE_EMBEDDING_MODEL_OPENROUTER
    known = OpenRouterEmbedder.SUPPORTED_MODELS.get(model) or next(
        (m for m in OpenRouterEmbedder.SUPPORTED_MODELS.values() if m["api_string"] == model), None)
    api_name = known["api_string"] if known else model
    needs = known.get("requires_instruction", False) if known else "qwen" in model.lower()
    return api_name, DEFAULT_QWEN_QUERY_INSTRUCTION if needs else None


def kb_pipeline(spec: JaPipelineSpec, documents: list[dict]):
    post = pipelines.reranker(spec)
    if spec.type in ("bm25_ja", "bm25_en"):
        return pipelines.bm25_pipeline(documents, spec.top_k, post, japanese=spec.type == "bm25_ja")
    if spec.type == "embedding_ja":
        model = spec.endpoint_model
        assert model is not None, "ja_spec names the endpoint model of every embedding_ja spec"
        path = spec.embeddings or embeddings.default_file(model, spec.domain)
        return pipelines.dense_pipeline(documents, path, model, spec.query_instruction, spec.top_k, post)
    raise ValueError(f"Unknown pipeline type: {spec.type!r} (not a ja_variant spec)")


def build_ja_tools(variant: upstream.RetrievalVariant, db, knowledge_base, read_log_allowlist: set | None = None,
                   wrap: Callable[[type], type] = lambda cls: cls):
    """tau2's build_tools for a ja_variant: the same toolkit, Japanese pipelines, `wrap` applied
    to the toolkit class before it is built."""
    documents = pipelines.documents_of(knowledge_base)
    if variant.kb_search_bm25 is not None and variant.kb_search_dense is not None and variant.shell is not None:
        tools = wrap(toolkits.KnowledgeToolsAllTools)(
            db, kb_pipeline(variant.kb_search_bm25, documents), kb_pipeline(variant.kb_search_dense, documents),
            pipelines.sandbox(knowledge_base, variant.shell))
    elif variant.shell is not None:
        tools = wrap(toolkits.KnowledgeToolsWithShell)(db, pipelines.sandbox(knowledge_base, variant.shell))
    elif variant.kb_search is not None and variant.grep is not None:
        tools = wrap(toolkits.KnowledgeToolsWithKBSearchAndGrep)(
            db, kb_pipeline(variant.kb_search, documents),
            pipelines.grep_pipeline(documents, variant.grep.top_k, variant.grep.case_sensitive))
    elif variant.kb_search is not None:
        tools = wrap(toolkits.KnowledgeToolsWithKBSearch)(db, kb_pipeline(variant.kb_search, documents))
    elif variant.grep is not None:
        tools = wrap(toolkits.KnowledgeToolsWithGrep)(
            db, pipelines.grep_pipeline(documents, variant.grep.top_k, variant.grep.case_sensitive))
    else:  # no_knowledge, full_kb, golden_retrieval: the prompt carries the knowledge
        tools = wrap(toolkits.KnowledgeToolsPlain)(db)
    tools.set_read_log_allowlist(read_log_allowlist)
    return tools

"""Benchmark: does J-tau's Japanese BM25 find in the Japanese knowledge base what tau2's BM25 finds
in the English one?  Recall and index build time, both sides measured in this one run.

    TAU2_DATA_DIR=... .venv-tau3/bin/python scripts/benchmarks/bench_retrieval.py [--repeat N]

English: tau2 1.0.1's own BM25 (BM25Indexer + BM25Retriever: `text.lower().split()`, BM25Okapi)
over the source documents.  Japanese: jtau.retrieval.bm25 (what `banking_knowledge_ja` runs:
character bigrams of kanji and katakana, the same BM25Okapi) over J-tau's documents
(data/domains/banking_knowledge/documents).  Both index a document's content, as tau2 does.

Two query sets, the same rule in both languages:
- titles: every document's title, relevant answer the document itself;
- tasks: every task's `required_documents`, the query built from the task's user scenario: the
  segments of `user_scenario.instructions` (jtau's translation units, so English segment i and
  Japanese segment i say the same) whose English states what the customer wants (WANT below),
  else the first three.  A task's recall is the share of its required documents in the top k.

Prints Recall@5 and Recall@10 of both and their gap, the median CPU time to build each index
(all builders timed in every round) and the ratio, against the targets: Japanese recall
within 2 points of English on both sets, Japanese index at most 1.5x the English one.  Documents
J-tau has not translated yet are counted (a partial knowledge base measures a mixed index).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts" / "benchmarks"))

from bench_tokenizers import build_times, load_documents  # noqa: E402

from jtau.retrieval import bm25  # noqa: E402

WANT = re.compile(r"\b(?:wants?|looking for|would like|need(?:s|ed)?|goal|trying to|hoping to|interested in|"
                  r"seeking|asking (?:about|for)|request(?:s|ing)?)\b", re.IGNORECASE)
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
KS = (5, 10)


def english_index(documents: list[dict]):
    """tau2 1.0.1's own BM25 state for `documents`."""
    from tau2.knowledge.document_preprocessors.bm25_indexer import BM25Indexer

    state: dict = {}
    BM25Indexer().process([dict(doc) for doc in documents], state)
    return state


def english_search(state, query: str, k: int) -> list[str]:
    from tau2.knowledge.retrievers.bm25_retriever import BM25Retriever

    return [doc_id for doc_id, _ in BM25Retriever(top_k=k).retrieve({"query": query}, state)]


def japanese_search(index, query: str, k: int) -> list[str]:
    return [doc_id for doc_id, _ in bm25.search(index, query, k)]


def recall(search, queries: list[tuple[str, set[str]]]) -> dict[int, float]:
    """Mean share of each query's relevant documents among the first k found."""
    out = {}
    for k in KS:
        shares = [len(set(search(query, k)) & relevant) / len(relevant) for query, relevant in queries]
        out[k] = sum(shares) / len(shares)
    return out


def scenario_queries() -> tuple[list[tuple[str, set[str]]], list[tuple[str, set[str]]]]:
    """The task queries in English and Japanese, by the rule of the module docstring."""
    from jtau.pipeline import Options, localize
    from jtau.project import Project
    from jtau.rules import load_rules
    from jtau.source import load_domain
    from jtau.text.template import Template

    result = localize("banking_knowledge", Project.find(), options=Options(offline=True))
    source_tasks = {task["id"]: task for task in load_domain(load_rules("banking_knowledge")).tasks}
    target, render = result.translator.target, result.text.renderer.render
    english, japanese = [], []
    for field in result.text.fields:
        if field.kind != "user" or field.path[-2:] != ("user_scenario", "instructions"):
            continue
        pieces = [p for p in field.pieces if isinstance(p, Template)]
        en = [source_text(p) for p in pieces]
        chosen = [i for i, text in enumerate(en) if WANT.search(text)] or list(range(min(3, len(pieces))))
        relevant = set(source_tasks[field.task].get("required_documents") or [])
        if not relevant:
            continue
        english.append((" ".join(en[i] for i in chosen), relevant))
        japanese.append(("".join(render(target(pieces[i], field.kind), pieces[i]) for i in chosen), relevant))
    return english, japanese


def source_text(template) -> str:
    """A template with its entities' source surfaces: the English segment."""
    text = template.text
    for name, entity in template.entities:
        text = text.replace("{" + name + "}", entity.surface, 1)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=21, help="index builds timed per side (median)")
    parser.add_argument("--japanese", type=Path, default=ROOT / "data" / "domains" / "banking_knowledge" / "documents")
    args = parser.parse_args()

    from jtau.errors import InputError
    from jtau.source.discover import default_domains_dir

    try:
        folder, _ = default_domains_dir()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    en_docs = load_documents(folder / "banking_knowledge" / "documents")
    by_id = {doc["id"]: doc for doc in load_documents(args.japanese)}
    if not en_docs or set(by_id) != {doc["id"] for doc in en_docs}:
        print(f"error: {args.japanese} does not hold J-tau's {len(en_docs)} documents "
              "(jtau localize banking_knowledge)", file=sys.stderr)
        return 2
    ja_docs = [by_id[doc["id"]] for doc in en_docs]
    english_left = sum(1 for doc in ja_docs if not JAPANESE.search(doc["content"]))
    print(f"knowledge base: {len(en_docs)} documents; English {sum(len(d['content']) for d in en_docs):,} characters, "
          f"Japanese {sum(len(d['content']) for d in ja_docs):,}"
          + (f"; {english_left} J-tau documents still English (a mixed index)" if english_left else ""))

    en_state, ja_index = english_index(en_docs), bm25.build_index(ja_docs)
    en_search = lambda q, k: english_search(en_state, q, k)  # noqa: E731
    ja_search = lambda q, k: japanese_search(ja_index, q, k)  # noqa: E731
    en_tasks, ja_tasks = scenario_queries()
    sets = {
        "titles": ([(d["title"], {d["id"]}) for d in en_docs], [(d["title"], {d["id"]}) for d in ja_docs]),
        "tasks": (en_tasks, ja_tasks),
    }
    print(f"\n{'query set':<10}{'n':>5}   {'EN R@5':>7}{'EN R@10':>9}   {'JA R@5':>7}{'JA R@10':>9}   "
          f"{'gap@5':>6}{'gap@10':>7}   target: gap <= 2 points")
    met = True
    for name, (en_queries, ja_queries) in sets.items():
        en, ja = recall(en_search, en_queries), recall(ja_search, ja_queries)
        gaps = {k: 100 * (en[k] - ja[k]) for k in KS}
        ok = all(gap <= 2 for gap in gaps.values())
        met &= ok
        print(f"{name:<10}{len(en_queries):>5}   {100 * en[5]:>7.1f}{100 * en[10]:>9.1f}   {100 * ja[5]:>7.1f}"
              f"{100 * ja[10]:>9.1f}   {gaps[5]:>6.1f}{gaps[10]:>7.1f}   {'met' if ok else 'missed'}")

    times = build_times({"en": lambda: english_index(en_docs), "ja": lambda: bm25.build_index(ja_docs)}, args.repeat)
    ratio = times["ja"] / times["en"]
    print(f"\nindex build (CPU, median of {args.repeat}): English {times['en']:.3f} s, Japanese {times['ja']:.3f} s, "
          f"ratio {ratio:.2f}x, target 1.5x -> {'met' if ratio <= 1.5 else 'missed'}")
    print(f"recall targets -> {'met' if met else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
